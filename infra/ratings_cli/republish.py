"""`ratings republish`: the events of the stream batches Lambda gave up on, published again.

When the event source mapping of PublishEventsFunction gives up on a batch, it sends the
batch's stream positions (not its records) to the events DLQ: Lambda's on-failure record of a
DynamoDB stream source, whose `DDBStreamBatchInfo` names the stream, the shard and the first
and last sequence numbers (docs/reliability.md, "Events"). For each such message this:

1. reads that range of records from the stream (`GetShardIterator` AT_SEQUENCE_NUMBER the
   first, `GetRecords` until the last; sequence numbers compared as integers);
2. keeps the records the mapping's filter lets through
   (`ratings.storage.dynamodb.stream.FILTER_KINDS`), each in the shape Lambda passes it;
3. invokes PublishEventsFunction with them, synchronously, in batches as the mapping makes
   them (at most 100 records), and stops at the first record it answers as not done;
4. deletes the message once every record of the range is done; otherwise keeps it.

The events get the `event_id`s they would have had, so a subscriber drops any it received
already. The stream keeps a record 24 hours: past that, the range is reported as expired and
kept (or deleted, with `drop_expired`), since what the change stored is in the table and is
read through the API.

The invocation is a callable (`Invoke`), so that tests run the real handler in-process.
"""

import base64
import contextlib
import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import IO, TYPE_CHECKING, Any

from botocore.exceptions import BotoCoreError, ClientError

from ratings.storage.dynamodb.stream import FILTER_KINDS
from ratings_cli.records import InputError

if TYPE_CHECKING:
    from mypy_boto3_dynamodbstreams import DynamoDBStreamsClient
    from mypy_boto3_lambda import LambdaClient
    from mypy_boto3_sqs import SQSClient

#: The mapping's BatchSize (template.yaml): the most records one invocation gets.
MAX_BATCH_RECORDS = 100
#: A synchronous invocation's payload is at most 6 MB; a batch stays under this.
MAX_BATCH_BYTES = 5 * 1024 * 1024
#: How long a message taken stays hidden from other readers while its range is replayed (one
#: invocation times out at 30 s; a range is at most a few).
VISIBILITY_SECONDS = 300
#: GetRecords answers that carry no record, in a row, before the range counts as unreadable
#: (a shard that is still open always has a next iterator, even at its end).
MAX_EMPTY_PAGES = 20
EXPIRED = "expired: the changes are in the table, read them through the API"

Invoke = Callable[[dict[str, Any]], Mapping[str, Any]]
Record = dict[str, Any]


class InvokeFailed(Exception):
    """The function raised or timed out: the whole batch counts as not done."""


class Expired(Exception):
    """The stream no longer has (all of) the range's records."""


class Unreadable(Exception):
    """The range could not be read, or the message names none."""


@dataclass(frozen=True)
class BatchInfo:
    """What an on-failure record's `DDBStreamBatchInfo` names."""

    stream_arn: str
    shard_id: str
    start: str
    end: str
    first_arrival: str | None = None

    @property
    def region(self) -> str:
        return self.stream_arn.split(":")[3]


def batch_info(body: str) -> BatchInfo:
    """The stream range of an events DLQ message (Unreadable: not an on-failure record of a
    DynamoDB stream source)."""
    try:
        message = json.loads(body)
        info = message["DDBStreamBatchInfo"]
        found = BatchInfo(
            stream_arn=str(info["streamArn"]),
            shard_id=str(info["shardId"]),
            start=str(info["startSequenceNumber"]),
            end=str(info["endSequenceNumber"]),
            first_arrival=info.get("approximateArrivalOfFirstRecord"),
        )
        int(found.start), int(found.end)
    except (ValueError, TypeError, KeyError, AttributeError) as error:
        raise Unreadable(f"not an on-failure record of a stream ({error!r})") from None
    return found


def stream_records(streams: "DynamoDBStreamsClient", info: BatchInfo) -> list[Record]:
    """The records of the range, first to last, as GetRecords gives them (Expired: the
    stream dropped some; Unreadable: any other failure)."""
    start, end = int(info.start), int(info.end)
    try:
        iterator: str | None = streams.get_shard_iterator(
            StreamArn=info.stream_arn,
            ShardId=info.shard_id,
            ShardIteratorType="AT_SEQUENCE_NUMBER",
            SequenceNumber=info.start,
        )["ShardIterator"]
        records: list[Record] = []
        empty = 0
        while iterator:
            page = streams.get_records(ShardIterator=iterator)
            iterator = page.get("NextShardIterator")
            found = page.get("Records", [])
            empty = 0 if found else empty + 1
            if empty >= MAX_EMPTY_PAGES:
                break
            for record in found:
                sequence = int(record["dynamodb"]["SequenceNumber"])
                if not records and sequence > start:
                    raise Expired(f"the stream starts at {sequence} now")
                if sequence > end:
                    return records
                records.append(dict(record))
                if sequence == end:
                    return records
    except ClientError as error:
        if _code(error) == "TrimmedDataAccessException":
            raise Expired(str(error)) from None
        raise Unreadable(f"cannot read the stream: {error}") from None
    except BotoCoreError as error:
        raise Unreadable(f"cannot read the stream: {error}") from None
    raise Unreadable(
        f"the shard ended before sequence number {info.end} ({len(records)} records read)"
    )


def lambda_record(record: Mapping[str, Any], info: BatchInfo) -> Record:
    """A record as GetRecords gives it, in the shape Lambda passes to the function: the stream
    as eventSourceARN, ApproximateCreationDateTime in seconds since the epoch, binary values
    in base64 (Lambda's JSON)."""
    change = record.get("dynamodb") or {}
    dynamodb: Record = {}
    at = change.get("ApproximateCreationDateTime")
    if at is not None:
        dynamodb["ApproximateCreationDateTime"] = _epoch_seconds(at)
    for name in ("Keys", "NewImage", "OldImage"):
        if name in change:
            dynamodb[name] = _json_ready(change[name])
    for name in ("SequenceNumber", "SizeBytes", "StreamViewType"):
        if name in change:
            dynamodb[name] = change[name]
    converted: Record = {
        "eventID": record.get("eventID"),
        "eventName": record.get("eventName"),
        "eventVersion": record.get("eventVersion", "1.1"),
        "eventSource": "aws:dynamodb",
        "awsRegion": record.get("awsRegion") or info.region,
        "dynamodb": dynamodb,
        "eventSourceARN": info.stream_arn,
    }
    identity = record.get("userIdentity")
    if identity:  # a TTL deletion's (filtered out, as the mapping's filter drops deletions)
        converted["userIdentity"] = {
            "type": identity.get("Type"),
            "principalId": identity.get("PrincipalId"),
        }
    return converted


def passes_filter(record: Mapping[str, Any]) -> bool:
    """Whether the mapping's filter lets the record through (template.yaml's pattern on
    `dynamodb.NewImage.kind.S`): deletions and the other item kinds never reach the function."""
    kind = ((record.get("dynamodb") or {}).get("NewImage") or {}).get("kind") or {}
    return kind.get("S") in FILTER_KINDS


def batches(records: Sequence[Record]) -> Iterator[list[Record]]:
    """The records in invocations: at most MAX_BATCH_RECORDS each, under MAX_BATCH_BYTES."""
    batch: list[Record] = []
    size = 0
    for record in records:
        grown = size + len(json.dumps(record)) + 2
        if batch and (len(batch) == MAX_BATCH_RECORDS or grown > MAX_BATCH_BYTES):
            yield batch
            batch, grown = [], len(json.dumps(record)) + 2
        batch.append(record)
        size = grown
    if batch:
        yield batch


def lambda_invoker(client: "LambdaClient", function: str) -> Invoke:
    """PublishEventsFunction invoked synchronously (RequestResponse): its answer."""

    def invoke(event: dict[str, Any]) -> Mapping[str, Any]:
        answer = client.invoke(
            FunctionName=function,
            InvocationType="RequestResponse",
            Payload=json.dumps(event).encode(),
        )
        payload = answer["Payload"].read()
        if answer.get("FunctionError"):
            text = payload.decode(errors="replace")[:500]
            raise InvokeFailed(f"{function} failed ({answer['FunctionError']}): {text}")
        parsed = json.loads(payload or b"{}")
        return parsed if isinstance(parsed, dict) else {}

    return invoke


@dataclass
class Outcome:
    """What became of one message's range."""

    read: int = 0
    passed: int = 0
    published: int = 0
    #: None: every record done; else why the message is kept (or was dropped as expired).
    problem: str | None = None
    expired: bool = False

    @property
    def done(self) -> bool:
        return self.problem is None


def replay_range(body: str, streams: "DynamoDBStreamsClient", invoke: Invoke) -> Outcome:
    """Publish again the records of the range one DLQ message names."""
    outcome = Outcome()
    try:
        info = batch_info(body)
        records = stream_records(streams, info)
    except Expired:
        outcome.problem, outcome.expired = EXPIRED, True
        return outcome
    except Unreadable as error:
        outcome.problem = str(error)
        return outcome
    outcome.read = len(records)
    chosen = [lambda_record(record, info) for record in records if passes_filter(record)]
    outcome.passed = len(chosen)
    for batch in batches(chosen):
        try:
            answer = invoke({"Records": batch})
        except (InvokeFailed, BotoCoreError, ClientError) as error:
            first = batch[0]["dynamodb"].get("SequenceNumber")
            outcome.problem = f"not done from sequence number {first}: {error}"
            return outcome
        failures = answer.get("batchItemFailures") or []
        if failures:
            failed = str(failures[0].get("itemIdentifier", ""))
            sequences = [str(record["dynamodb"].get("SequenceNumber")) for record in batch]
            outcome.published += sequences.index(failed) if failed in sequences else 0
            outcome.problem = f"not done from sequence number {failed or '(none named)'}"
            return outcome
        outcome.published += len(batch)
    return outcome


@dataclass
class Totals:
    messages: int = 0
    deleted: int = 0
    kept: int = 0
    kept_handles: list[str] = field(default_factory=list)


def republish(
    dlq_url: str,
    *,
    sqs: "SQSClient",
    streams: "DynamoDBStreamsClient",
    invoke: Invoke,
    drop_expired: bool = False,
    wait_seconds: int = 1,
    out: IO[str],
) -> Totals:
    """Every message of the events DLQ, each replayed then deleted or kept; a line each on
    `out`. Kept messages are made visible again at the end (for the next run and the alarm)."""
    totals = Totals()
    seen: set[str] = set()
    try:
        while True:
            received = sqs.receive_message(
                QueueUrl=dlq_url,
                MaxNumberOfMessages=1,
                WaitTimeSeconds=wait_seconds,
                VisibilityTimeout=VISIBILITY_SECONDS,
            ).get("Messages", [])
            if not received:
                break
            message = received[0]
            message_id = message["MessageId"]
            if message_id in seen:  # came back after its visibility ran out: done with it
                break
            seen.add(message_id)
            totals.messages += 1
            outcome = replay_range(message.get("Body", ""), streams, invoke)
            delete = outcome.done or (outcome.expired and drop_expired)
            if delete:
                sqs.delete_message(QueueUrl=dlq_url, ReceiptHandle=message["ReceiptHandle"])
                totals.deleted += 1
            else:
                totals.kept += 1
                totals.kept_handles.append(message["ReceiptHandle"])
            print(_line(message_id, outcome, delete), file=out)
    except (BotoCoreError, ClientError) as error:
        raise InputError(f"cannot read or delete from {dlq_url}: {error}") from None
    finally:
        for handle in totals.kept_handles:
            # On failure, visible again once VISIBILITY_SECONDS have passed anyway.
            with contextlib.suppress(BotoCoreError, ClientError):
                sqs.change_message_visibility(
                    QueueUrl=dlq_url, ReceiptHandle=handle, VisibilityTimeout=0
                )
    print(f"{totals.messages} messages: {totals.deleted} deleted, {totals.kept} kept", file=out)
    return totals


def _line(message_id: str, outcome: Outcome, deleted: bool) -> str:
    fate = "deleted" if deleted else "kept"
    if outcome.expired:
        return f"message {message_id}: {outcome.problem}; {fate}"
    figures = (
        f"{outcome.read} records read, {outcome.passed} for the function, "
        f"{outcome.published} published"
    )
    if outcome.problem is None:
        return f"message {message_id}: {figures}; {fate}"
    return f"message {message_id}: {figures}; {outcome.problem}; {fate}"


def _code(error: ClientError) -> str:
    return str(error.response.get("Error", {}).get("Code", ""))


def _epoch_seconds(value: Any) -> int | float:
    if isinstance(value, datetime):
        seconds = value.timestamp()
        return int(seconds) if seconds.is_integer() else seconds
    return value  # type: ignore[no-any-return]


def _json_ready(value: Any) -> Any:
    """DynamoDB JSON as boto3 gives it, as Lambda's JSON has it: binary in base64."""
    if isinstance(value, bytes | bytearray):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, Mapping):
        return {key: _json_ready(item) for key, item in value.items()}
    if isinstance(value, list | tuple | set):
        return [_json_ready(item) for item in value]
    return value
