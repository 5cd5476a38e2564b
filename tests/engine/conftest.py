"""Fixtures of the tests on Amazon's DynamoDB Local: the adapter on a fresh template table,
and the service over it with a clock the test moves."""

import pytest
from support.dynamodb_local import dynamodb_local, local_storage
from support.services import clock, service

from ratings.storage.dynamodb import DynamoStorage

__all__ = ["clock", "dynamodb_local", "local_storage", "service"]  # the shared fixtures


@pytest.fixture
def storage(local_storage: DynamoStorage) -> DynamoStorage:
    """The storage `service` runs over."""
    return local_storage
