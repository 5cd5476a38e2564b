"""Fixtures of the integration tests: moto's DynamoDB, a fresh table per test, the service
over it with a clock the test moves, and a counter of the requests the adapter sends."""

import uuid
from collections.abc import Callable, Iterator

import pytest
from moto import mock_aws
from support.dynamodb import RequestCounter
from support.services import clock, job_queue, service

from ratings.service.ports import Storage
from ratings.storage.dynamodb import DynamoStorage
from ratings.storage.memory import InMemoryStorage

REGION = "us-east-1"

__all__ = ["clock", "job_queue", "service"]  # the shared fixtures, by name


@pytest.fixture
def aws(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """moto's AWS for this test only, with fake credentials (never a real account)."""
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SECURITY_TOKEN"):
        monkeypatch.setenv(name, "testing")
    monkeypatch.setenv("AWS_SESSION_TOKEN", "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", REGION)
    for name in ("AWS_PROFILE", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_DYNAMODB", "AWS_REGION"):
        monkeypatch.delenv(name, raising=False)
    with mock_aws():
        yield


@pytest.fixture
def table_name() -> str:
    return f"ratings-it-{uuid.uuid4().hex[:12]}"


@pytest.fixture
def dynamo_storage(aws: None, table_name: str) -> DynamoStorage:
    """The adapter under test on a fresh table (4 leaderboard shards, as deployed)."""
    storage = DynamoStorage(table_name, region=REGION, endpoint_url=None, leaderboard_shards=4)
    storage.create_table()
    return storage


@pytest.fixture
def storage(dynamo_storage: DynamoStorage) -> DynamoStorage:
    """The storage `service` runs over."""
    return dynamo_storage


@pytest.fixture
def count_requests(dynamo_storage: DynamoStorage) -> Callable[..., RequestCounter]:
    """Start counting the requests of `dynamo_storage`: `count_requests(capacity=True)` also
    asks each request for its consumed capacity and records what comes back.

    The counter sits on the current botocore client: making another DynamoStorage afterwards
    gives the process a new client, which the counter does not see.
    """

    def attach(*, capacity: bool = False) -> RequestCounter:
        return RequestCounter.attach(dynamo_storage.connection.client, capacity=capacity)

    return attach


@pytest.fixture
def request_counter(count_requests: Callable[..., RequestCounter]) -> RequestCounter:
    """Counts every request of `dynamo_storage` from now on, by operation name."""
    return count_requests()


@pytest.fixture(params=["memory", "dynamodb"])
def any_storage(request: pytest.FixtureRequest) -> Storage:
    """Each storage implementation in turn: the contract tests run over both."""
    if request.param == "memory":
        return InMemoryStorage()
    storage: DynamoStorage = request.getfixturevalue("dynamo_storage")
    return storage
