"""The emulated AWS can inject DynamoDB's transient failures, for the reliability suite."""

import uuid

import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError

from ratings_local.aws import EmulatedAws
from ratings_local.faults import BusFaults, FaultPlan


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


def _bus(aws: EmulatedAws):  # type: ignore[no-untyped-def]
    config = Config(retries={"total_max_attempts": 1, "mode": "standard"})
    events = boto3.client(
        "events", endpoint_url=aws.endpoint_url, region_name="us-east-1", config=config
    )
    events.create_event_bus(Name="faults-bus")
    return events


def _entries(count: int) -> list[dict[str, str]]:
    return [
        {
            "Source": "elo-ratings",
            "DetailType": "t",
            "Detail": f'{{"n": {n}}}',
            "EventBusName": "faults-bus",
        }
        for n in range(count)
    ]


def test_the_bus_can_refuse_a_whole_put_events(aws: EmulatedAws) -> None:
    events = _bus(aws)
    aws.bus_faults = BusFaults(rate=1.0, kinds=("throttle",))

    with pytest.raises(ClientError) as refused:
        events.put_events(Entries=_entries(3))

    aws.bus_faults = None
    assert refused.value.response["Error"]["Code"] == "ThrottlingException"


def test_the_bus_can_refuse_some_entries_of_a_put_events(aws: EmulatedAws) -> None:
    events = _bus(aws)
    faults = BusFaults(rate=1.0, kinds=("partial",), seed=3)
    aws.bus_faults = faults

    answer = events.put_events(Entries=_entries(6))

    aws.bus_faults = None
    failed = [entry for entry in answer["Entries"] if "ErrorCode" in entry]
    put = [entry for entry in answer["Entries"] if "EventId" in entry]
    assert len(answer["Entries"]) == 6
    assert answer["FailedEntryCount"] == len(failed) == faults.entries_refused >= 1
    assert len(put) == 6 - len(failed)
    assert {entry["ErrorCode"] for entry in failed} == {"ThrottlingException"}
