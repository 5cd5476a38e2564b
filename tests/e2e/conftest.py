"""The local stack, started in this process on free ports, driven only through HTTP and SQS:
once with its table on moto, once on DynamoDB Local."""

from collections.abc import Iterator

import pytest
from support.stack import ENGINES, client, running_stack, sqs

from ratings_local.stack import LocalStack

__all__ = ["client", "sqs"]  # the shared fixtures, by name


@pytest.fixture(scope="module", params=ENGINES)
def stack(request: pytest.FixtureRequest) -> Iterator[LocalStack]:
    with running_stack(dynamodb_local=request.param) as local:
        yield local
