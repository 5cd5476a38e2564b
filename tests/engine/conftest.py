"""Fixtures of the tests on Amazon's DynamoDB Local: the adapter on a fresh template table,
and the service over it with a clock the test moves; `any_engine` runs a test on moto's
DynamoDB too (for behaviour no engine shows, driven by the test, like the index's lag)."""

import uuid
from collections.abc import Iterator

import pytest
from moto import mock_aws
from support.dynamodb_local import REGION, create_template_table, dynamodb_local, local_storage
from support.services import clock, service

from ratings.storage.dynamodb import DynamoStorage

__all__ = ["clock", "dynamodb_local", "local_storage", "service"]  # the shared fixtures


@pytest.fixture
def storage(local_storage: DynamoStorage) -> DynamoStorage:
    """The storage `service` runs over."""
    return local_storage


@pytest.fixture
def moto_storage(monkeypatch: pytest.MonkeyPatch) -> Iterator[DynamoStorage]:
    """The adapter on a template table of moto's DynamoDB."""
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, "testing")
    for name in ("AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_DYNAMODB", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    with mock_aws():
        name = f"ratings-moto-{uuid.uuid4().hex[:12]}"
        create_template_table(None, name)
        yield DynamoStorage(name, region=REGION, leaderboard_shards=4)


@pytest.fixture(params=["dynamodb-local", "moto"])
def any_engine(request: pytest.FixtureRequest) -> DynamoStorage:
    fixture = "local_storage" if request.param == "dynamodb-local" else "moto_storage"
    storage: DynamoStorage = request.getfixturevalue(fixture)
    return storage
