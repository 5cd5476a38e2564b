"""The emulated AWS can inject DynamoDB's transient failures, for the reliability suite."""

import uuid

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

from ratings_local.aws import EmulatedAws
from ratings_local.faults import FaultPlan


@pytest.fixture
def aws(aws_env: None):  # type: ignore[no-untyped-def]
    emulated = EmulatedAws()
    emulated.start()
    yield emulated
    emulated.stop()


@pytest.fixture
def client(aws: EmulatedAws):  # type: ignore[no-untyped-def]
    # No client-side retries: each call shows exactly what the emulator answered.
    config = Config(retries={"total_max_attempts": 1, "mode": "standard"})
    dynamodb = boto3.client(
        "dynamodb", endpoint_url=aws.endpoint_url, region_name="us-east-1", config=config
    )
    dynamodb.create_table(
        TableName="faults",
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        BillingMode="PAY_PER_REQUEST",
    )
    return dynamodb


def put(client, pk: str) -> None:  # type: ignore[no-untyped-def]
    client.put_item(TableName="faults", Item={"pk": {"S": pk}})


def stored(client, pk: str) -> bool:  # type: ignore[no-untyped-def]
    return "Item" in client.get_item(TableName="faults", Key={"pk": {"S": pk}})


@pytest.mark.parametrize(
    ("kind", "code", "lands"),
    [
        ("throttle", "ProvisionedThroughputExceededException", False),
        ("internal", "InternalServerError", False),
        ("internal_after", "InternalServerError", True),
    ],
)
def test_each_fault_answers_its_error_and_lands_or_not(aws, client, kind, code, lands) -> None:  # type: ignore[no-untyped-def]
    pk = uuid.uuid4().hex
    aws.faults = FaultPlan(rate=1.0, kinds=(kind,))
    with pytest.raises(ClientError) as caught:
        put(client, pk)
    aws.faults = None
    assert caught.value.response["Error"]["Code"] == code
    assert stored(client, pk) is lands


def test_a_transaction_conflict_cancels_with_the_reason(aws, client) -> None:  # type: ignore[no-untyped-def]
    aws.faults = FaultPlan(rate=1.0, kinds=("conflict",))
    item = {"Put": {"TableName": "faults", "Item": {"pk": {"S": "tx"}}}}
    with pytest.raises(ClientError) as caught:
        client.transact_write_items(TransactItems=[item])
    aws.faults = None
    assert caught.value.response["Error"]["Code"] == "TransactionCanceledException"
    reasons = caught.value.response["CancellationReasons"]
    assert [reason["Code"] for reason in reasons] == ["TransactionConflict"]
    assert not stored(client, "tx")


def test_faults_fall_at_the_planned_rate_and_are_counted(aws, client) -> None:  # type: ignore[no-untyped-def]
    plan = FaultPlan(rate=0.3, kinds=("throttle",), seed=7)
    aws.faults = plan
    failures = 0
    for number in range(200):
        try:
            put(client, f"rate-{number}")
        except ClientError:
            failures += 1
    aws.faults = None
    assert failures == plan.injected["throttle"]
    assert 30 <= failures <= 90  # 0.3 of 200, with room for chance


def test_plans_refuse_unknown_kinds_and_rates() -> None:
    with pytest.raises(ValueError, match="kinds"):
        FaultPlan(rate=0.1, kinds=("meteor",))
    with pytest.raises(ValueError, match="rate"):
        FaultPlan(rate=1.5)
