"""The local stack, started in this process on free ports, driven only through HTTP and SQS.

The stack sets process-wide state (AWS endpoint variables, the functions' environment, the
service built once per "container"); the fixture puts all of it back when the module ends so
tests that run later in the same worker start clean.
"""

import os
from collections.abc import Iterator
from typing import Any

import boto3
import pytest

from e2e.stackkit import Client
from ratings import wiring
from ratings_local.stack import LocalStack, Options


@pytest.fixture(scope="module")
def stack() -> Iterator[LocalStack]:
    saved = dict(os.environ)
    local = LocalStack(Options(port=0, aws_port=0, schedule_interval=3600))
    try:
        local.start()
        yield local
    finally:
        local.stop()
        os.environ.clear()
        os.environ.update(saved)
        wiring.reset()


@pytest.fixture(scope="module")
def client(stack: LocalStack) -> Client:
    return Client(stack.api_url)


@pytest.fixture(scope="module")
def sqs(stack: LocalStack) -> Any:
    endpoints = stack.endpoints()
    return boto3.client(
        "sqs",
        endpoint_url=endpoints["aws_endpoint_url"],
        region_name=endpoints["region"],
        aws_access_key_id="local",
        aws_secret_access_key="local",
    )
