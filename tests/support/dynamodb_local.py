"""Amazon's DynamoDB Local under the tests: one engine per test process (started on first
use), and fresh tables made from template.yaml's definition, as the local stack makes them.

A conftest imports the fixtures by name (`from support.dynamodb_local import ...`).
"""

import uuid
from collections.abc import Iterator
from typing import Any

import boto3
import pytest

from ratings.storage.dynamodb import DynamoStorage
from ratings_local.dynamodb_local import DynamoDBLocal
from ratings_local.resources import _table_request
from ratings_local.template import read_stack, resolve
from support.template import TEMPLATE

REGION = "us-east-1"


def _no_resources(logical_id: str, attribute: str | None) -> str:
    raise AssertionError(f"the table's definition refers to {logical_id}.{attribute}")


def create_template_table(endpoint_url: str | None, name: str) -> None:
    """The template's table (keys, indexes, TTL) under `name`, on the engine at `endpoint_url`
    (None: wherever boto3 points, moto in its mock)."""
    spec = read_stack(TEMPLATE)
    ((table,),) = [list(spec.tables.values())]
    properties: dict[str, Any] = resolve(dict(table.properties), _no_resources, spec.parameters)
    client = boto3.client("dynamodb", endpoint_url=endpoint_url, region_name=REGION)
    client.create_table(**_table_request(name, properties))
    ttl = properties["TimeToLiveSpecification"]
    client.update_time_to_live(
        TableName=name,
        TimeToLiveSpecification={"AttributeName": ttl["AttributeName"], "Enabled": True},
    )


@pytest.fixture(scope="session")
def dynamodb_local() -> Iterator[str]:
    """The endpoint of this test process's DynamoDB Local (in memory, gone at the end)."""
    with pytest.MonkeyPatch.context() as patch:
        # Any credentials do: DynamoDB Local checks that a request is signed, not by whom.
        patch.setenv("AWS_ACCESS_KEY_ID", "local")
        patch.setenv("AWS_SECRET_ACCESS_KEY", "local")
        with DynamoDBLocal() as engine:
            yield engine.endpoint_url


def fresh_storage(endpoint_url: str) -> DynamoStorage:
    """The adapter on a new template table (4 leaderboard shards, as deployed).

    The adapter's models are process-wide: the storage made last is the one that reads.
    """
    name = f"ratings-ddbl-{uuid.uuid4().hex[:12]}"
    create_template_table(endpoint_url, name)
    return DynamoStorage(name, region=REGION, endpoint_url=endpoint_url, leaderboard_shards=4)


@pytest.fixture
def local_storage(dynamodb_local: str, monkeypatch: pytest.MonkeyPatch) -> DynamoStorage:
    """The adapter on a fresh template table of DynamoDB Local."""
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "local")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "local")
    monkeypatch.delenv("AWS_SESSION_TOKEN", raising=False)
    return fresh_storage(dynamodb_local)
