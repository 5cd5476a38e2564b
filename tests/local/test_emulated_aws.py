"""The emulated AWS keeps DynamoDB's promises that moto's server alone does not.

Transactions are all or nothing with every condition checked and reported, at the cost of the
items they touch; concurrent requests never lose an update. These tests pin the behaviour the
local stack relies on, so a moto upgrade that changes it fails here.
"""

import threading
import time
import uuid

import moto
import pytest
from botocore.exceptions import ClientError

from ratings_local.aws import MOTO_VERSION, SerializedApp

TABLE = "things"


@pytest.fixture
def table(dynamodb):  # type: ignore[no-untyped-def]
    name = f"{TABLE}-{uuid.uuid4().hex[:8]}"
    dynamodb.create_table(
        TableName=name,
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        BillingMode="PAY_PER_REQUEST",
    )
    dynamodb.put_item(TableName=name, Item={"pk": {"S": "counter"}, "n": {"N": "0"}})
    return name


def put(table: str, pk: str, condition: str | None = None) -> dict:  # type: ignore[type-arg]
    operation: dict = {"TableName": table, "Item": {"pk": {"S": pk}}}  # type: ignore[type-arg]
    if condition:
        operation["ConditionExpression"] = condition
    return {"Put": operation}


def increment(table: str, expected: int | None = None) -> dict:  # type: ignore[type-arg]
    """n + 1; given `expected`, the optimistic form: SET n = expected + 1 IF n = expected."""
    operation: dict = {  # type: ignore[type-arg]
        "TableName": table,
        "Key": {"pk": {"S": "counter"}},
        "UpdateExpression": "SET n = n + :one",
        "ExpressionAttributeValues": {":one": {"N": "1"}},
    }
    if expected is not None:
        operation["UpdateExpression"] = "SET n = :next"
        operation["ConditionExpression"] = "n = :expected"
        operation["ExpressionAttributeValues"] = {
            ":expected": {"N": str(expected)},
            ":next": {"N": str(expected + 1)},
        }
    return {"Update": operation}


def counter(dynamodb, table: str) -> int:  # type: ignore[no-untyped-def]
    item = dynamodb.get_item(TableName=table, Key={"pk": {"S": "counter"}}, ConsistentRead=True)
    return int(item["Item"]["n"]["N"])


def exists(dynamodb, table: str, pk: str) -> bool:  # type: ignore[no-untyped-def]
    return "Item" in dynamodb.get_item(TableName=table, Key={"pk": {"S": pk}})


def test_moto_is_the_version_the_local_stack_was_written_for() -> None:
    assert moto.__version__ == MOTO_VERSION


def test_a_transaction_applies_every_write(dynamodb, table) -> None:  # type: ignore[no-untyped-def]
    dynamodb.transact_write_items(
        TransactItems=[put(table, "a", "attribute_not_exists(pk)"), increment(table, 0)]
    )
    assert exists(dynamodb, table, "a")
    assert counter(dynamodb, table) == 1


def test_one_failed_condition_cancels_everything_and_says_which(dynamodb, table) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ClientError) as caught:
        dynamodb.transact_write_items(TransactItems=[put(table, "b"), increment(table, expected=7)])
    error = caught.value.response
    assert error["Error"]["Code"] == "TransactionCanceledException"
    codes = [reason["Code"] for reason in error["CancellationReasons"]]
    assert codes == ["None", "ConditionalCheckFailed"]
    assert not exists(dynamodb, table, "b")
    assert counter(dynamodb, table) == 0


def test_every_failed_condition_is_reported(dynamodb, table) -> None:  # type: ignore[no-untyped-def]
    dynamodb.put_item(TableName=table, Item={"pk": {"S": "taken"}})
    with pytest.raises(ClientError) as caught:
        dynamodb.transact_write_items(
            TransactItems=[put(table, "taken", "attribute_not_exists(pk)"), increment(table, 5)]
        )
    codes = [reason["Code"] for reason in caught.value.response["CancellationReasons"]]
    assert codes == ["ConditionalCheckFailed", "ConditionalCheckFailed"]


def test_a_write_failing_while_applied_rolls_back_the_earlier_ones(dynamodb, table) -> None:  # type: ignore[no-untyped-def]
    # `n + :one` on a string cannot be applied: moto finds out only while applying the
    # update, after the Put before it was already written.
    dynamodb.put_item(TableName=table, Item={"pk": {"S": "counter"}, "n": {"S": "text"}})
    with pytest.raises(ClientError):
        dynamodb.transact_write_items(TransactItems=[put(table, "c"), increment(table)])
    assert not exists(dynamodb, table, "c")
    item = dynamodb.get_item(TableName=table, Key={"pk": {"S": "counter"}})["Item"]
    assert item["n"] == {"S": "text"}


def test_two_operations_on_one_item_are_refused(dynamodb, table) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ClientError) as caught:
        dynamodb.transact_write_items(TransactItems=[increment(table), increment(table)])
    assert caught.value.response["Error"]["Code"] == "ValidationException"
    assert counter(dynamodb, table) == 0


def test_condition_check_only_checks(dynamodb, table) -> None:  # type: ignore[no-untyped-def]
    check = {
        "ConditionCheck": {
            "TableName": table,
            "Key": {"pk": {"S": "missing"}},
            "ConditionExpression": "attribute_exists(pk)",
        }
    }
    with pytest.raises(ClientError):
        dynamodb.transact_write_items(TransactItems=[check, increment(table)])
    assert counter(dynamodb, table) == 0


def test_concurrent_optimistic_updates_lose_nothing(dynamodb, table) -> None:  # type: ignore[no-untyped-def]
    # Eight writers each add 1 fifteen times by read, then conditional write (retrying on
    # conflict): on a racy server some increments vanish, here all 120 land.
    writers, rounds = 8, 15

    def writer() -> None:
        done = 0
        while done < rounds:
            current = counter(dynamodb, table)
            try:
                dynamodb.transact_write_items(TransactItems=[increment(table, current)])
                done += 1
            except ClientError as error:
                if error.response["Error"]["Code"] != "TransactionCanceledException":
                    raise

    threads = [threading.Thread(target=writer) for _ in range(writers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert counter(dynamodb, table) == writers * rounds


def test_the_wrapped_app_sees_one_request_at_a_time() -> None:
    inside = 0
    most_inside = 0
    guard = threading.Lock()

    def slow_app(environ, start_response):  # type: ignore[no-untyped-def]
        nonlocal inside, most_inside
        with guard:
            inside += 1
            most_inside = max(most_inside, inside)
        time.sleep(0.01)
        with guard:
            inside -= 1
        return [b"ok"]

    app = SerializedApp(slow_app)
    threads = [threading.Thread(target=app, args=({}, None)) for _ in range(16)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert most_inside == 1
