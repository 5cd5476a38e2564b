"""The local stack, started in this process on free ports, driven only through HTTP and SQS."""

from collections.abc import Iterator
from typing import Any

import pytest
from support.stack import Client, running_stack, sqs_client

from ratings_local.stack import LocalStack


@pytest.fixture(scope="module")
def stack() -> Iterator[LocalStack]:
    with running_stack() as local:
        yield local


@pytest.fixture(scope="module")
def client(stack: LocalStack) -> Client:
    return Client(stack.api_url)


@pytest.fixture(scope="module")
def sqs(stack: LocalStack) -> Any:
    return sqs_client(stack)
