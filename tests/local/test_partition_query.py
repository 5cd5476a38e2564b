"""Queries on the emulated AWS answer from the queried partition, with DynamoDB's results."""

import uuid

import pytest


@pytest.fixture
def events_table(dynamodb):  # type: ignore[no-untyped-def]
    name = f"events-{uuid.uuid4().hex[:8]}"
    dynamodb.create_table(
        TableName=name,
        AttributeDefinitions=[
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "sk", "AttributeType": "S"},
            {"AttributeName": "at", "AttributeType": "S"},
        ],
        KeySchema=[
            {"AttributeName": "pk", "KeyType": "HASH"},
            {"AttributeName": "sk", "KeyType": "RANGE"},
        ],
        LocalSecondaryIndexes=[
            {
                "IndexName": "by_time",
                "KeySchema": [
                    {"AttributeName": "pk", "KeyType": "HASH"},
                    {"AttributeName": "at", "KeyType": "RANGE"},
                ],
                "Projection": {"ProjectionType": "KEYS_ONLY"},
            }
        ],
        BillingMode="PAY_PER_REQUEST",
    )
    for player in ("p1", "p2", "p3"):
        for number in range(10):
            item = {"pk": {"S": player}, "sk": {"S": f"E#{number:02d}"}}
            if number % 2 == 0:  # sparse index: only even events carry `at`
                item["at"] = {"S": f"2026-11-{10 + number:02d}"}
            dynamodb.put_item(TableName=name, Item=item)
    return name


def test_base_table_query_reads_one_partition_in_order(dynamodb, events_table) -> None:  # type: ignore[no-untyped-def]
    response = dynamodb.query(
        TableName=events_table,
        KeyConditionExpression="pk = :p AND begins_with(sk, :e)",
        ExpressionAttributeValues={":p": {"S": "p2"}, ":e": {"S": "E#"}},
        ScanIndexForward=False,
        Limit=4,
    )
    assert [item["sk"]["S"] for item in response["Items"]] == ["E#09", "E#08", "E#07", "E#06"]
    assert {item["pk"]["S"] for item in response["Items"]} == {"p2"}
    rest = dynamodb.query(
        TableName=events_table,
        KeyConditionExpression="pk = :p AND begins_with(sk, :e)",
        ExpressionAttributeValues={":p": {"S": "p2"}, ":e": {"S": "E#"}},
        ScanIndexForward=False,
        ExclusiveStartKey=response["LastEvaluatedKey"],
    )
    assert [item["sk"]["S"] for item in rest["Items"]] == [f"E#{n:02d}" for n in range(5, -1, -1)]


def test_local_index_query_counts_a_key_range_of_one_partition(dynamodb, events_table) -> None:  # type: ignore[no-untyped-def]
    response = dynamodb.query(
        TableName=events_table,
        IndexName="by_time",
        KeyConditionExpression="pk = :p AND #at BETWEEN :a AND :b",
        ExpressionAttributeNames={"#at": "at"},
        ExpressionAttributeValues={
            ":p": {"S": "p3"},
            ":a": {"S": "2026-11-12"},
            ":b": {"S": "2026-11-16"},
        },
        Select="COUNT",
        ConsistentRead=True,
    )
    assert response["Count"] == 3  # the 12th, 14th and 16th; odd events are not in the index
    limited = dynamodb.query(
        TableName=events_table,
        IndexName="by_time",
        KeyConditionExpression="pk = :p",
        ExpressionAttributeValues={":p": {"S": "p1"}},
        Select="COUNT",
        Limit=2,
    )
    assert limited["Count"] == 2


def test_a_partition_that_does_not_exist_is_empty(dynamodb, events_table) -> None:  # type: ignore[no-untyped-def]
    response = dynamodb.query(
        TableName=events_table,
        KeyConditionExpression="pk = :p",
        ExpressionAttributeValues={":p": {"S": "nobody"}},
    )
    assert response["Items"] == []
    assert dynamodb.scan(TableName=events_table, Select="COUNT")["Count"] == 30
