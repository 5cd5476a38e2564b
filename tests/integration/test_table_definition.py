"""The ratings table on each engine: the tests' tables are template.yaml's, and what the models
create (`DynamoStorage.create_table`, for the benchmarks) is the same table.

(tests/template checks the models against the template as written; here each engine says
what it made of both.)
"""

from collections.abc import Iterator
from typing import Any

import pytest
from support.engines import Engine, unique_table_name


def described(engine: Engine, name: str) -> dict[str, Any]:
    """What the engine reports of table `name`: keys, attribute types, billing, each index's
    keys and projection, and the TTL."""
    client = engine.client()
    table: dict[str, Any] = dict(client.describe_table(TableName=name)["Table"])

    def indexes(kind: str) -> dict[str, Any]:
        return {
            index["IndexName"]: (
                index["KeySchema"],
                index["Projection"]["ProjectionType"],
                sorted(index["Projection"].get("NonKeyAttributes", [])),
            )
            for index in table.get(kind, [])
        }

    ttl = client.describe_time_to_live(TableName=name)["TimeToLiveDescription"]
    return {
        "keys": table["KeySchema"],
        "attributes": sorted(
            (definition["AttributeName"], definition["AttributeType"])
            for definition in table["AttributeDefinitions"]
        ),
        "billing": table.get("BillingModeSummary", {}).get("BillingMode"),
        "local_indexes": indexes("LocalSecondaryIndexes"),
        "global_indexes": indexes("GlobalSecondaryIndexes"),
        "ttl": (ttl.get("TimeToLiveStatus"), ttl.get("AttributeName")),
    }


@pytest.fixture
def table_names(engine: Engine) -> Iterator[list[str]]:
    """Names for the test's tables, each dropped afterwards."""
    names = [unique_table_name("ratings-def") for _ in range(2)]
    yield names
    existing = engine.client().list_tables()["TableNames"]
    for name in names:
        if name in existing:
            engine.drop_table(name)


def test_the_tests_table_is_the_template_s(engine: Engine, table_names: list[str]) -> None:
    name = table_names[0]
    engine.create_table(name)

    table = described(engine, name)

    assert table["keys"] == [
        {"AttributeName": "pk", "KeyType": "HASH"},
        {"AttributeName": "sk", "KeyType": "RANGE"},
    ]
    assert set(table["local_indexes"]) == {"ranked_by_time"}
    assert table["global_indexes"]["leaderboard"][1:] == ("INCLUDE", ["player_id", "ranked_games"])
    assert table["billing"] == "PAY_PER_REQUEST"
    assert table["ttl"] == ("ENABLED", "expires_at")


def test_the_models_create_the_template_s_table(engine: Engine, table_names: list[str]) -> None:
    from_template, from_models = table_names
    engine.create_table(from_template)

    engine.storage(from_models).create_table()

    assert described(engine, from_models) == described(engine, from_template)


def test_creating_the_table_from_the_models_again_changes_nothing(
    engine: Engine, table_names: list[str]
) -> None:
    """DynamoDB refuses to enable a TTL that is on already (moto does not): the table is
    created with its TTL once, and a second call, on a table that exists, sends nothing
    that could fail."""
    storage = engine.storage(table_names[0])
    storage.create_table()
    before = described(engine, table_names[0])

    storage.create_table()

    assert described(engine, table_names[0]) == before
    assert before["ttl"] == ("ENABLED", "expires_at")
