"""Fixtures of the integration tests: each DynamoDB engine in turn (moto, DynamoDB Local), a
fresh table of template.yaml's definition per test, the service over it with a clock the
test moves, and a counter of the requests the adapter sends."""

from collections.abc import Callable, Iterator

import pytest
from support.dynamodb import RequestCounter
from support.engines import ENGINES, Engine, ratings_table, running_engine, unique_table_name
from support.services import clock, job_queue, service

from ratings.service.ports import Storage
from ratings.storage.dynamodb import DynamoStorage
from ratings.storage.memory import InMemoryStorage

__all__ = ["clock", "job_queue", "service"]  # the shared fixtures, by name


@pytest.fixture
def table_name() -> str:
    return unique_table_name("ratings-it")


@pytest.fixture
def dynamo_storage(engine: Engine, table_name: str) -> Iterator[DynamoStorage]:
    """The adapter under test on a fresh table (4 leaderboard shards, as deployed)."""
    with ratings_table(engine, table_name):
        yield engine.storage(table_name)


@pytest.fixture
def storage(dynamo_storage: DynamoStorage) -> DynamoStorage:
    """The storage `service` runs over."""
    return dynamo_storage


@pytest.fixture
def count_requests(dynamo_storage: DynamoStorage) -> Callable[..., RequestCounter]:
    """Start counting the requests of `dynamo_storage`: `count_requests(capacity=True)` also
    asks each request for its consumed capacity and records what comes back.

    The counter sits on the storage's own botocore client: another DynamoStorage (on this
    table or another) has a client of its own, whose requests it does not count.
    """

    def attach(*, capacity: bool = False) -> RequestCounter:
        return RequestCounter.attach(dynamo_storage.connection.client, capacity=capacity)

    return attach


@pytest.fixture
def request_counter(count_requests: Callable[..., RequestCounter]) -> RequestCounter:
    """Counts every request of `dynamo_storage` from now on, by operation name."""
    return count_requests()


@pytest.fixture(params=["memory", *ENGINES])
def any_storage(request: pytest.FixtureRequest, table_name: str) -> Iterator[Storage]:
    """Each storage implementation in turn, DynamoDB on each engine: the contract tests run
    over all of them."""
    if request.param == "memory":
        yield InMemoryStorage()
        return
    with running_engine(request.param, request) as running, ratings_table(running, table_name):
        yield running.storage(table_name)
