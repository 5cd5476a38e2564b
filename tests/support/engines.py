"""The two DynamoDB engines the storage tests run on, and the ratings table on either.

`moto` is moto's in-process mock (fast, but it accepts requests DynamoDB refuses and its
capacity figures are placeholders); `dynamodb_local` is Amazon's DynamoDB Local, one process
per test worker started once per session (`ratings_local.dynamodb_local`). A test that asks
for `engine` (or a fixture built on it) runs once on each, with those ids. When DynamoDB
Local is not installed its tests fail with the command that installs it: they never skip.

The table is always the one template.yaml declares (`RatingsTable`: keys, indexes,
projections, billing, TTL), created by the local stack's own code, never from the models.
"""

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING, Any

import boto3
import pytest
from moto import mock_aws

from ratings.storage.dynamodb import DynamoStorage
from ratings_local.dynamodb_local import DynamoDBLocal, DynamoDBLocalUnavailable
from ratings_local.resources import create_table, template_table
from ratings_local.template import read_stack
from support.template import TEMPLATE

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

ENGINES = ("moto", "dynamodb_local")
REGION = "us-east-1"
TABLE_LOGICAL_ID = "RatingsTable"
#: Fake credentials only: neither engine checks them, and no test may reach an account.
FAKE_AWS_ENV = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_SECURITY_TOKEN": "testing",
    "AWS_SESSION_TOKEN": "testing",
    "AWS_DEFAULT_REGION": REGION,
}
#: What would send a request elsewhere than the engine chosen.
UNSET_AWS_ENV = (
    "AWS_PROFILE",
    "AWS_ENDPOINT_URL",
    "AWS_ENDPOINT_URL_DYNAMODB",
    "AWS_REGION",
)


@dataclass(frozen=True)
class Engine:
    """One DynamoDB engine: moto's mock (active while the test runs) or DynamoDB Local."""

    name: str
    #: DynamoDB Local's endpoint; None for moto, which answers AWS's own endpoint in process.
    endpoint_url: str | None

    @property
    def is_local(self) -> bool:
        return self.endpoint_url is not None

    def client(self) -> "DynamoDBClient":
        return _client(self.endpoint_url)

    def create_table(self, name: str) -> None:
        """The template's ratings table, named `name`, without its stream (a test that reads
        the stream gives it one: `support.streams.enable_stream`)."""
        create_table(self.client(), name, ratings_table_properties(), stream=False)

    def drop_table(self, name: str) -> None:
        """Delete `name` from DynamoDB Local, whose tables outlive the test (moto's go with
        its mock)."""
        if self.is_local:
            self.client().delete_table(TableName=name)

    def storage(self, name: str, *, leaderboard_shards: int = 4) -> DynamoStorage:
        """The adapter on table `name` of this engine (4 leaderboard shards, as deployed)."""
        return DynamoStorage(
            name,
            region=REGION,
            endpoint_url=self.endpoint_url,
            leaderboard_shards=leaderboard_shards,
        )


@cache
def ratings_table_properties() -> dict[str, Any]:
    """template.yaml's RatingsTable properties, resolved as the local stack resolves them."""
    return template_table(read_stack(TEMPLATE), TABLE_LOGICAL_ID, REGION)


@cache
def _client(endpoint_url: str | None) -> "DynamoDBClient":
    # Making a client is the slow part of a table's setup: one per engine and process. moto
    # answers the one for AWS's endpoint in whichever test's mock is active.
    return boto3.client("dynamodb", region_name=REGION, endpoint_url=endpoint_url)


def unique_table_name(prefix: str = "ratings-test") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


@pytest.fixture(scope="session")
def dynamodb_local_url() -> Iterator[str]:
    """This worker's DynamoDB Local (in memory), started on first use, for the session."""
    server = DynamoDBLocal()
    missing = None
    try:
        url = server.start()
    except DynamoDBLocalUnavailable as error:
        missing = str(error)
    if missing is not None:
        pytest.fail(
            f"{missing} (the storage tests run on DynamoDB Local as well as on moto; "
            "`make test` installs it first)",
            pytrace=False,
        )
    try:
        yield url
    finally:
        server.stop()


@contextmanager
def running_engine(name: str, request: pytest.FixtureRequest) -> Iterator[Engine]:
    """Engine `name` for the duration of the block, with fake credentials in the environment."""
    with pytest.MonkeyPatch.context() as patch:
        for variable, value in FAKE_AWS_ENV.items():
            patch.setenv(variable, value)
        for variable in UNSET_AWS_ENV:
            patch.delenv(variable, raising=False)
        if name == "moto":
            with mock_aws():
                yield Engine(name, None)
        elif name == "dynamodb_local":
            url = request.getfixturevalue("dynamodb_local_url")
            # boto3's per-service override: a client made without an endpoint finds it too.
            patch.setenv("AWS_ENDPOINT_URL_DYNAMODB", url)
            yield Engine(name, url)
        else:
            raise ValueError(f"unknown engine {name!r}; known: {', '.join(ENGINES)}")


@contextmanager
def ratings_table(engine: Engine, name: str) -> Iterator[str]:
    """The template's table `name` on `engine` for the duration of the block."""
    engine.create_table(name)
    try:
        yield name
    finally:
        engine.drop_table(name)


@pytest.fixture(params=ENGINES)
def engine(request: pytest.FixtureRequest) -> Iterator[Engine]:
    """Each DynamoDB engine in turn (ids `moto`, `dynamodb_local`)."""
    with running_engine(request.param, request) as running:
        yield running
