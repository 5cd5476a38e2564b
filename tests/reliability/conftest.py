"""The local stack for the reliability suite: one per module, everything put back afterwards.

The stack sets process-wide state (AWS endpoint variables, the functions' environment, the
service built once per process); the fixture restores the environment and forgets the built
service when the module ends, so later tests in the same worker start clean.
"""

import os
from collections.abc import Iterator
from typing import Any

import boto3
import pytest

from ratings import wiring
from ratings_local.stack import LocalStack, Options
from reliability.kit import REDELIVERY_SECONDS, Client


@pytest.fixture(scope="module")
def stack() -> Iterator[LocalStack]:
    saved = dict(os.environ)
    local = LocalStack(Options(port=0, aws_port=0, schedule_interval=3600))
    try:
        local.start()
        # The template's 180 s (6x the function timeout) is right for Lambda; a test waits 2 s
        # for a failed record to come back. The redrive policy (maxReceiveCount 5) is kept.
        sqs = sqs_client(local)
        sqs.set_queue_attributes(
            QueueUrl=local.endpoints()["queues"]["games"],
            Attributes={"VisibilityTimeout": str(REDELIVERY_SECONDS)},
        )
        yield local
    finally:
        local.stop()
        os.environ.clear()
        os.environ.update(saved)
        wiring.reset()


def sqs_client(stack: LocalStack) -> Any:
    endpoints = stack.endpoints()
    return boto3.client(
        "sqs",
        endpoint_url=endpoints["aws_endpoint_url"],
        region_name=endpoints["region"],
        aws_access_key_id="local",
        aws_secret_access_key="local",
    )


@pytest.fixture(scope="module")
def client(stack: LocalStack) -> Client:
    return Client(stack.api_url)


@pytest.fixture(scope="module")
def sqs(stack: LocalStack) -> Any:
    return sqs_client(stack)
