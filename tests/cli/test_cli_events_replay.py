"""`ratings republish`: the events DLQ's stream ranges published again, on moto in-process.

The table is template.yaml's with its stream, games are stored through the service, the DLQ
holds Lambda's on-failure record naming a range of the stream, and the PublishEvents handler
runs in this process (functions/publish_events/app.py, loaded as Lambda loads it) on a bus
whose rule sends every event to a queue the test reads. Lambda's event source mapping does
not run on moto: nothing is published until the command publishes it.
"""

import io
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from types import ModuleType
from typing import Any

import boto3
import pytest
from botocore.config import Config as ClientConfig
from botocore.response import StreamingBody
from botocore.stub import Stubber
from support.cli import run
from support.engines import running_engine, unique_table_name
from support.games import FixedClock, ts
from support.handlers import LambdaContext, load_function
from support.services import rating_service

from ratings import wiring
from ratings.service.events import GAME_RATED, event_id
from ratings.service.facade import RatingService
from ratings.storage.dynamodb import DynamoStorage
from ratings_cli import republish
from ratings_local.resources import create_table, template_table
from ratings_local.template import DEFAULT_TEMPLATE, read_stack

REGION = "us-east-1"
#: What template.yaml's Globals set for Powertools.
POWERTOOLS_ENV = {
    "POWERTOOLS_SERVICE_NAME": "elo-ratings",
    "POWERTOOLS_METRICS_NAMESPACE": "EloRatings",
    "POWERTOOLS_LOG_LEVEL": "INFO",
}


@pytest.fixture(scope="module")
def publish_events() -> Iterator[ModuleType]:
    """functions/publish_events/app.py, imported once like in a Lambda container."""
    with pytest.MonkeyPatch.context() as patch:
        for name, value in POWERTOOLS_ENV.items():
            patch.setenv(name, value)
        patch.delenv("POWERTOOLS_DEV", raising=False)
        yield load_function("publish_events")


@dataclass
class Stack:
    """The table and its stream, the events DLQ, the bus and the queue its rule feeds."""

    table: str
    stream_arn: str
    shard_id: str
    dlq_url: str
    observed_url: str
    sqs: Any
    streams: Any
    dynamodb: Any
    service: RatingService
    handler: ModuleType
    #: Every event the handler was invoked with, as it arrived (after Lambda's JSON).
    invocations: list[dict[str, Any]] = field(default_factory=list)

    def stream(self) -> list[dict[str, Any]]:
        """Every record of the stream, first to last."""
        iterator = self.streams.get_shard_iterator(
            StreamArn=self.stream_arn, ShardId=self.shard_id, ShardIteratorType="TRIM_HORIZON"
        )["ShardIterator"]
        records: list[dict[str, Any]] = []
        while iterator:
            page = self.streams.get_records(ShardIterator=iterator)
            if not page["Records"]:
                return records
            records += page["Records"]
            iterator = page.get("NextShardIterator")
        return records

    def sequence_of(self, pk: str) -> str:
        """The sequence number of the insert of the item whose pk is `pk`."""
        (found,) = [
            record["dynamodb"]["SequenceNumber"]
            for record in self.stream()
            if record["eventName"] == "INSERT" and record["dynamodb"]["Keys"]["pk"]["S"] == pk
        ]
        return str(found)

    def record_id(self, sequence: str) -> str:
        (found,) = [
            record["eventID"]
            for record in self.stream()
            if record["dynamodb"]["SequenceNumber"] == sequence
        ]
        return str(found)

    def give_up_on(self, start: str, end: str, size: int = 2) -> str:
        """Lambda's on-failure record of a batch from `start` to `end`, in the DLQ; its body."""
        body = json.dumps(
            {
                "requestContext": {
                    "requestId": "c9b8fa9f-5a7f-4e7a-9f39-77a7b2c0a1f1",
                    "functionArn": (
                        f"arn:aws:lambda:{REGION}:123456789012:function:PublishEventsFunction"
                    ),
                    "condition": "RetryAttemptsExhausted",
                    "approximateInvokeCount": 101,
                },
                "responseContext": {
                    "statusCode": 200,
                    "executedVersion": "$LATEST",
                    "functionError": "Unhandled",
                },
                "version": "1.0",
                "timestamp": "2026-12-05T10:00:00.000Z",
                "DDBStreamBatchInfo": {
                    "shardId": self.shard_id,
                    "startSequenceNumber": start,
                    "endSequenceNumber": end,
                    "approximateArrivalOfFirstRecord": "2026-12-05T09:00:00Z",
                    "approximateArrivalOfLastRecord": "2026-12-05T09:00:01Z",
                    "batchSize": size,
                    "streamArn": self.stream_arn,
                },
            }
        )
        self.sqs.send_message(QueueUrl=self.dlq_url, MessageBody=body)
        return body

    def dlq_bodies(self) -> list[str]:
        """The messages in the DLQ, visible ones (left visible)."""
        received = self.sqs.receive_message(
            QueueUrl=self.dlq_url, MaxNumberOfMessages=10, VisibilityTimeout=0
        )
        return [message["Body"] for message in received.get("Messages", [])]

    def published(self) -> list[dict[str, Any]]:
        """The `detail` of every event that reached the bus's rule's queue so far."""
        details: list[dict[str, Any]] = []
        while True:
            received = self.sqs.receive_message(QueueUrl=self.observed_url, MaxNumberOfMessages=10)
            messages = received.get("Messages", [])
            if not messages:
                return details
            for message in messages:
                details.append(json.loads(message["Body"])["detail"])
                self.sqs.delete_message(
                    QueueUrl=self.observed_url, ReceiptHandle=message["ReceiptHandle"]
                )

    def invoke(self, event: dict[str, Any]) -> dict[str, Any]:
        """The handler run as Lambda runs it, on what Lambda's JSON carries of `event`."""
        carried = json.loads(json.dumps(event))  # a datetime, bytes... would fail here
        self.invocations.append(carried)
        answer: dict[str, Any] = self.handler.lambda_handler(carried, LambdaContext())
        return answer

    def republish(self, **options: Any) -> tuple[republish.Totals, list[str]]:
        out = io.StringIO()
        options.setdefault("invoke", self.invoke)
        totals = republish.republish(
            self.dlq_url, sqs=self.sqs, streams=self.streams, wait_seconds=0, out=out, **options
        )
        return totals, out.getvalue().splitlines()


@pytest.fixture
def stack(
    publish_events: ModuleType, request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Stack]:
    table = unique_table_name("ratings-republish")
    bus = "ratings-local-events"
    with running_engine("moto", request):
        for name, value in {
            "AWS_REGION": REGION,
            "RATINGS_TABLE": table,
            "RATINGS_EVENT_BUS_NAME": bus,
            **POWERTOOLS_ENV,
        }.items():
            monkeypatch.setenv(name, value)
        wiring.reset()
        publish_events.metrics.clear_metrics()
        dynamodb = boto3.client("dynamodb", region_name=REGION)
        properties = template_table(read_stack(DEFAULT_TEMPLATE), "RatingsTable", REGION)
        create_table(dynamodb, table, properties)
        described = dynamodb.describe_table(TableName=table)["Table"]
        # create_table makes the table as the template declares it, its stream included.
        assert described["StreamSpecification"] == {
            "StreamEnabled": True,
            "StreamViewType": "NEW_AND_OLD_IMAGES",
        }
        stream_arn = described["LatestStreamArn"]
        streams = boto3.client(
            "dynamodbstreams",
            region_name=REGION,
            config=ClientConfig(account_id_endpoint_mode="disabled"),
        )
        shard_id = streams.describe_stream(StreamArn=stream_arn)["StreamDescription"]["Shards"][0][
            "ShardId"
        ]
        sqs = boto3.client("sqs", region_name=REGION)
        dlq_url = sqs.create_queue(QueueName="events-dlq")["QueueUrl"]
        observed_url = sqs.create_queue(QueueName="observed-events")["QueueUrl"]
        observed_arn = sqs.get_queue_attributes(QueueUrl=observed_url, AttributeNames=["QueueArn"])[
            "Attributes"
        ]["QueueArn"]
        events = boto3.client("events", region_name=REGION)
        events.create_event_bus(Name=bus)
        events.put_rule(
            Name="everything",
            EventBusName=bus,
            EventPattern=json.dumps({"source": ["elo-ratings"]}),
        )
        events.put_targets(
            Rule="everything", EventBusName=bus, Targets=[{"Id": "observed", "Arn": observed_arn}]
        )
        storage = DynamoStorage(table, region=REGION)
        service = rating_service(storage, FixedClock(datetime.now(UTC).replace(microsecond=0)))
        try:
            yield Stack(
                table,
                stream_arn,
                shard_id,
                dlq_url,
                observed_url,
                sqs,
                streams,
                dynamodb,
                service,
                publish_events,
            )
        finally:
            wiring.reset()


def submit(stack: Stack, game_id: str, winner: str = "alice") -> dict[str, Any]:
    """A game stored through the service; its result as GET answers it."""
    played_at = datetime.now(UTC) - timedelta(hours=1)
    stack.service.submit_game(
        "backgammon",
        {
            "game_id": game_id,
            "played_at": ts(played_at),
            "players": [{"id": "alice"}, {"id": "bob"}],
            "winner": winner,
        },
    )
    result: dict[str, Any] = stack.service.get_game("backgammon", game_id)
    return result


def poison(stack: Stack, game_id: str) -> None:
    """A game record whose events can never be made: its result is not JSON."""
    stack.dynamodb.put_item(
        TableName=stack.table,
        Item={
            "pk": {"S": f"G#backgammon#{game_id}"},
            "sk": {"S": "G"},
            "kind": {"S": "game"},
            "fingerprint": {"S": "x"},
            "result": {"S": "{not json"},
        },
    )


def test_a_range_given_up_on_is_published_again_and_its_message_deleted(stack: Stack) -> None:
    first = submit(stack, "g-1")
    second = submit(stack, "g-2", winner="bob")
    start = stack.sequence_of("G#backgammon#g-1")
    end = stack.sequence_of("G#backgammon#g-2")
    stack.give_up_on(start, end)
    in_range = [
        record
        for record in stack.stream()
        if int(start) <= int(record["dynamodb"]["SequenceNumber"]) <= int(end)
    ]
    assert len(in_range) > 2  # the second game's states and history lines are in between
    assert stack.published() == []  # no event source mapping on moto: nothing yet

    totals, lines = stack.republish()

    assert (totals.messages, totals.deleted, totals.kept) == (1, 1, 0)
    assert lines[0].endswith(
        f": {len(in_range)} records read, 2 for the function, 2 published; deleted"
    ), lines
    assert lines[-1] == "1 messages: 1 deleted, 0 kept"
    assert stack.dlq_bodies() == []
    published = sorted(stack.published(), key=lambda detail: detail["game"]["game_id"])
    assert [detail["type"] for detail in published] == [GAME_RATED, GAME_RATED]
    assert [detail["game"] for detail in published] == [first, second]
    # The event_ids of the events the stream's own delivery would have made.
    assert [detail["event_id"] for detail in published] == [
        event_id(stack.record_id(start), GAME_RATED),
        event_id(stack.record_id(end), GAME_RATED),
    ]
    # One invocation, only the records the mapping's filter lets through, as Lambda passes them.
    (invocation,) = stack.invocations
    records = invocation["Records"]
    assert [record["dynamodb"]["SequenceNumber"] for record in records] == [start, end]
    for record in records:
        assert record["eventSource"] == "aws:dynamodb"
        assert record["eventSourceARN"] == stack.stream_arn
        assert record["awsRegion"] == REGION
        assert record["eventName"] == "INSERT"
        assert record["dynamodb"]["NewImage"]["kind"] == {"S": "game"}
        assert record["dynamodb"]["StreamViewType"] == "NEW_AND_OLD_IMAGES"
        created = record["dynamodb"]["ApproximateCreationDateTime"]
        assert isinstance(created, int | float)
        assert abs(created - datetime.now(UTC).timestamp()) < 3600


def test_the_command_line_invokes_the_function_named_and_deletes_the_message(
    stack: Stack, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    game = submit(stack, "g-1")
    sequence = stack.sequence_of("G#backgammon#g-1")
    # To the stream's last record: the shard is open, nothing comes after it.
    records = [r for r in stack.stream() if int(r["dynamodb"]["SequenceNumber"]) >= int(sequence)]
    stack.give_up_on(sequence, records[-1]["dynamodb"]["SequenceNumber"], size=1)
    named: list[str] = []

    def invoker(client: Any, function: str) -> republish.Invoke:
        named.append(function)
        return stack.invoke

    monkeypatch.setattr(republish, "lambda_invoker", invoker)

    ran = run(
        capsys, "republish", "--dlq-url", stack.dlq_url, "--function", "PublishEventsFunction",
        "--region", REGION, "--wait-seconds", "0",
    )  # fmt: skip

    assert ran.code == 0, ran.err
    assert named == ["PublishEventsFunction"]
    summary = [line for line in ran.out.splitlines() if line.startswith("message ")]
    assert len(summary) == 1, ran.out
    assert summary[0].endswith(
        f"{len(records)} records read, 1 for the function, 1 published; deleted"
    )
    assert stack.dlq_bodies() == []
    assert [detail["game"] for detail in stack.published()] == [game]


def test_a_record_the_function_cannot_finish_keeps_the_message(stack: Stack) -> None:
    first = submit(stack, "g-1")
    poison(stack, "g-poison")
    submit(stack, "g-2")
    start = stack.sequence_of("G#backgammon#g-1")
    failing = stack.sequence_of("G#backgammon#g-poison")
    body = stack.give_up_on(start, stack.sequence_of("G#backgammon#g-2"), size=3)

    totals, lines = stack.republish()

    assert (totals.deleted, totals.kept) == (0, 1)
    assert lines[0].endswith(
        f"3 for the function, 1 published; not done from sequence number {failing}; kept"
    ), lines
    # The records before it are published, the one after it waits, as the mapping would do.
    assert [detail["game"] for detail in stack.published()] == [first]
    assert stack.dlq_bodies() == [body]  # kept, and visible again for the next run


def test_a_function_that_fails_keeps_the_message(stack: Stack) -> None:
    submit(stack, "g-1")
    sequence = stack.sequence_of("G#backgammon#g-1")
    body = stack.give_up_on(sequence, sequence, size=1)
    client = boto3.client("lambda", region_name=REGION)
    stubber = Stubber(client)
    error = b'{"errorMessage": "Task timed out after 30.03 seconds"}'
    stubber.add_response(
        "invoke",
        {
            "StatusCode": 200,
            "FunctionError": "Unhandled",
            "Payload": StreamingBody(io.BytesIO(error), len(error)),
        },
        {
            "FunctionName": "PublishEventsFunction",
            "InvocationType": "RequestResponse",
            "Payload": json.dumps({"Records": [record_of(stack, sequence)]}).encode(),
        },
    )

    with stubber:
        totals, lines = stack.republish(
            invoke=republish.lambda_invoker(client, "PublishEventsFunction")
        )

    stubber.assert_no_pending_responses()
    assert totals.kept == 1
    assert f"not done from sequence number {sequence}: PublishEventsFunction failed" in lines[0]
    assert "Task timed out" in lines[0]
    assert stack.dlq_bodies() == [body]
    assert stack.published() == []


def record_of(stack: Stack, sequence: str) -> dict[str, Any]:
    """The stream record `sequence` as the command passes it to the function."""
    (record,) = [r for r in stack.stream() if r["dynamodb"]["SequenceNumber"] == sequence]
    info = republish.BatchInfo(stack.stream_arn, stack.shard_id, sequence, sequence)
    return republish.lambda_record(record, info)


@pytest.mark.parametrize("drop_expired", [False, True])
def test_a_range_the_stream_trimmed_is_reported_as_expired(
    stack: Stack, drop_expired: bool
) -> None:
    submit(stack, "g-1")
    sequence = stack.sequence_of("G#backgammon#g-1")
    body = stack.give_up_on(sequence, sequence, size=1)
    stubber = Stubber(stack.streams)
    # What DynamoDB Streams answers for a position past its 24 hours (moto never trims).
    stubber.add_client_error(
        "get_shard_iterator",
        service_error_code="TrimmedDataAccessException",
        service_message="The operation attempted to read past the oldest stream record",
        http_status_code=400,
    )

    with stubber:
        totals, lines = stack.republish(drop_expired=drop_expired)

    fate = "deleted" if drop_expired else "kept"
    assert lines[0].endswith(
        f": expired: the changes are in the table, read them through the API; {fate}"
    ), lines
    assert (totals.deleted, totals.kept) == ((1, 0) if drop_expired else (0, 1))
    assert stack.dlq_bodies() == ([] if drop_expired else [body])
    assert stack.invocations == []
    assert stack.published() == []


def test_a_range_whose_first_records_are_gone_is_reported_as_expired(stack: Stack) -> None:
    submit(stack, "g-1")
    sequence = stack.sequence_of("G#backgammon#g-1")
    (record,) = [r for r in stack.stream() if r["dynamodb"]["SequenceNumber"] == sequence]
    # The range starts before the oldest record the stream still has (moto cannot trim: the
    # stream's answers are stubbed with its own record).
    start = str(int(sequence) - 5)
    body = stack.give_up_on(start, sequence, size=6)
    stubber = Stubber(stack.streams)
    stubber.add_response("get_shard_iterator", {"ShardIterator": "x" * 16})
    stubber.add_response(
        "get_records",
        {"Records": [record], "NextShardIterator": "y" * 16},
        {"ShardIterator": "x" * 16},
    )

    with stubber:
        totals, lines = stack.republish()

    assert lines[0].endswith(
        ": expired: the changes are in the table, read them through the API; kept"
    )
    assert totals.kept == 1
    assert stack.dlq_bodies() == [body]
    assert stack.invocations == []


def test_a_message_that_names_no_range_is_kept(stack: Stack) -> None:
    stack.sqs.send_message(QueueUrl=stack.dlq_url, MessageBody='{"hello": "world"}')

    totals, lines = stack.republish()

    assert totals.kept == 1
    assert "not an on-failure record of a stream" in lines[0]
    assert lines[0].endswith("; kept")
    assert stack.dlq_bodies() == ['{"hello": "world"}']
