"""The local stack, started in this process on free ports, driven only through HTTP and SQS."""

from collections.abc import Iterator

import pytest
from support.stack import client, running_stack, sqs

from ratings_local.stack import LocalStack

__all__ = ["client", "sqs"]  # the shared fixtures, by name


@pytest.fixture(scope="module")
def stack() -> Iterator[LocalStack]:
    with running_stack() as local:
        yield local
