"""The local stack for the reliability suite: one per module, everything put back afterwards.

The stack sets process-wide state (AWS endpoint variables, the functions' environment, the
service built once per process); the fixture restores the environment and forgets the built
service when the module ends, so later tests in the same worker start clean.
"""

from collections.abc import Iterator
from typing import Any

import pytest
from support.stack import running_stack, sqs_client

from ratings_local.stack import LocalStack
from reliability.kit import REDELIVERY_SECONDS, Client


@pytest.fixture(scope="module")
def stack() -> Iterator[LocalStack]:
    with running_stack() as local:
        # The template's 180 s (6x the function timeout) is right for Lambda; a test waits 2 s
        # for a failed record to come back. The redrive policy (maxReceiveCount 5) is kept.
        sqs_client(local).set_queue_attributes(
            QueueUrl=local.endpoints()["queues"]["games"],
            Attributes={"VisibilityTimeout": str(REDELIVERY_SECONDS)},
        )
        yield local


@pytest.fixture(scope="module")
def client(stack: LocalStack) -> Client:
    return Client(stack.api_url)


@pytest.fixture(scope="module")
def sqs(stack: LocalStack) -> Any:
    return sqs_client(stack)
