"""The local stream event source mapping (`ratings_local.streams`) against a stream of the
emulated AWS: which records reach the function, in which batches, what comes again after a
batch item failure or a failed invocation, and what the on-failure queue gets."""

import json
import threading
from typing import Any

import boto3
import pytest

from ratings_local.streams import (
    StreamMapping,
    StreamPoller,
    UnsupportedFilter,
    filter_patterns,
    matches,
)

KINDS = {"dynamodb": {"NewImage": {"kind": {"S": ["game", "job"]}}}}


class Function:
    """A function that records its batches and answers from a script, one answer a call:
    a dict (returned), an Exception (raised), or None (all done)."""

    logical_id = "Publisher"

    def __init__(self, answers: list[Any] | None = None) -> None:
        self.batches: list[list[str]] = []
        self._answers = list(answers or [])

    def invoke(self, event: dict[str, Any]) -> Any:
        self.batches.append([record["dynamodb"]["Keys"]["pk"]["S"] for record in event["Records"]])
        answer = self._answers.pop(0) if self._answers else None
        if isinstance(answer, Exception):
            raise answer
        return answer or {"batchItemFailures": []}


@pytest.fixture
def clients(emulated_aws: str) -> dict[str, Any]:
    made: dict[str, Any] = {
        name: boto3.client(name, endpoint_url=emulated_aws, region_name="us-east-1")
        for name in ("dynamodb", "dynamodbstreams", "sqs")
    }
    made["dynamodb"].create_table(
        TableName="stream-table",
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        BillingMode="PAY_PER_REQUEST",
        StreamSpecification={"StreamEnabled": True, "StreamViewType": "NEW_AND_OLD_IMAGES"},
    )
    return made


def put(clients: dict[str, Any], *items: tuple[str, str]) -> None:
    for pk, kind in items:
        item = {"pk": {"S": pk}, "kind": {"S": kind}, "blob": {"B": b"\x00\x01"}}
        clients["dynamodb"].put_item(TableName="stream-table", Item=item)


def poller(
    clients: dict[str, Any], function: Function, dlq: str | None = None, **properties: Any
) -> StreamPoller:
    arn = clients["dynamodb"].describe_table(TableName="stream-table")["Table"]["LatestStreamArn"]
    settings = {"FilterCriteria": {"Filters": [{"Pattern": json.dumps(KINDS)}]}, **properties}
    mapping = StreamMapping.of(function, settings, arn, dlq, "arn:aws:lambda:fn")
    return StreamPoller(
        mapping, clients["dynamodbstreams"], clients["sqs"], "us-east-1", threading.Event(), 0, 0
    )


def test_patterns_match_nested_keys_and_lists_of_values() -> None:
    record = {"dynamodb": {"NewImage": {"kind": {"S": "game"}}}, "eventName": "INSERT"}

    assert matches(KINDS, record)
    assert not matches(KINDS, {"dynamodb": {"NewImage": {"kind": {"S": "state"}}}})
    assert not matches(KINDS, {"dynamodb": {"OldImage": {}}})  # no NewImage: a deletion
    assert matches({"eventName": ["INSERT", "MODIFY"]}, record)


def test_patterns_the_emulation_cannot_apply_are_refused() -> None:
    prefix = {"Filters": [{"Pattern": json.dumps({"eventName": [{"prefix": "INS"}]})}]}

    with pytest.raises(UnsupportedFilter):
        filter_patterns({"FilterCriteria": prefix})


def test_filtered_records_come_in_order_in_batches_of_batch_size(clients: dict[str, Any]) -> None:
    put(clients, ("a", "game"), ("s", "state"), ("b", "job"), ("c", "game"))
    function = Function()

    reader = poller(clients, function, BatchSize=2)
    reader.poll_once()
    reader.poll_once()

    assert function.batches == [["a", "b"], ["c"]]


def test_records_are_handed_over_as_lambda_does(clients: dict[str, Any]) -> None:
    put(clients, ("a", "game"))
    seen: list[dict[str, Any]] = []
    function = Function()
    function.invoke = lambda event: seen.extend(event["Records"])  # type: ignore[method-assign]

    reader = poller(clients, function)
    reader.poll_once()

    (record,) = seen
    assert (record["eventSource"], record["eventName"], record["awsRegion"]) == (
        "aws:dynamodb",
        "INSERT",
        "us-east-1",
    )
    assert record["eventSourceARN"] == reader.mapping.stream_arn
    assert isinstance(record["dynamodb"]["ApproximateCreationDateTime"], float)
    assert record["dynamodb"]["NewImage"]["blob"] == {"B": "AAE="}  # base64, as JSON has it
    json.dumps(record)  # nothing a function could not get over the wire


def test_a_batch_item_failure_delivers_again_from_that_record(clients: dict[str, Any]) -> None:
    put(clients, ("a", "game"), ("b", "game"), ("c", "game"))
    first_b = {"batchItemFailures": [{"itemIdentifier": ""}]}  # filled in below
    function = Function([first_b])
    reader = poller(clients, function)
    streams = clients["dynamodbstreams"]
    arn = reader.mapping.stream_arn
    shard = streams.describe_stream(StreamArn=arn)["StreamDescription"]["Shards"][0]["ShardId"]
    iterator = streams.get_shard_iterator(
        StreamArn=arn, ShardId=shard, ShardIteratorType="TRIM_HORIZON"
    )["ShardIterator"]
    b = streams.get_records(ShardIterator=iterator)["Records"][1]["dynamodb"]["SequenceNumber"]
    first_b["batchItemFailures"][0]["itemIdentifier"] = b

    reader.poll_once()
    reader.poll_once()

    assert function.batches == [["a", "b", "c"], ["b", "c"]]


def test_a_failed_invocation_comes_again_whole(clients: dict[str, Any]) -> None:
    put(clients, ("a", "game"), ("b", "game"))
    function = Function([RuntimeError("Unhandled: boom")])
    reader = poller(clients, function)

    reader.poll_once()
    reader.poll_once()

    assert function.batches == [["a", "b"], ["a", "b"]]


def test_a_batch_past_its_retries_goes_to_the_on_failure_queue(clients: dict[str, Any]) -> None:
    sqs = clients["sqs"]
    dlq = sqs.create_queue(QueueName="stream-dlq")["QueueUrl"]
    put(clients, ("a", "game"), ("b", "game"))
    function = Function([RuntimeError("one"), RuntimeError("two"), RuntimeError("three")])
    reader = poller(clients, function, dlq, MaximumRetryAttempts=2)

    for _ in range(4):
        reader.poll_once()
    put(clients, ("c", "game"))
    reader.poll_once()

    assert function.batches == [["a", "b"]] * 3 + [["c"]]
    (message,) = sqs.receive_message(QueueUrl=dlq, MaxNumberOfMessages=10)["Messages"]
    failure = json.loads(message["Body"])
    info = failure["DDBStreamBatchInfo"]
    assert failure["requestContext"]["condition"] == "RetryAttemptsExhausted"
    assert failure["requestContext"]["approximateInvokeCount"] == 3
    assert info["batchSize"] == 2
    assert info["streamArn"] == reader.mapping.stream_arn
    assert int(info["startSequenceNumber"]) < int(info["endSequenceNumber"])
    assert reader.given_up == 1
