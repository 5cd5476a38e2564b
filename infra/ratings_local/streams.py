"""The DynamoDB stream event source mappings of the local stack (`Type: DynamoDB` events).

Lambda's mapping for a table's stream reads each shard in order, from TRIM_HORIZON for a shard
it has not read before, keeps only the records its FilterCriteria let through (the others are
dropped, never delivered), and invokes the function with batches of up to BatchSize records,
one batch of a shard at a time. When the function reports a batch item failure
(ReportBatchItemFailures) the mapping goes on from that record: the records before it are
done, that one and those after it come again. When the invocation fails as a whole, the whole
batch comes again. After MaximumRetryAttempts failed attempts the mapping gives up on the
batch: it sends a record describing it (shard, first and last sequence numbers, the stream)
to the on-failure destination, and moves on. A closed shard is read to its end, then its
children are read.

Here one thread per mapping does that, reading the stream through the `dynamodbstreams` API at
the table's endpoint (moto, or DynamoDB Local) every `poll_interval` seconds. Not emulated:
BisectBatchOnFunctionError (a failing batch is retried whole), MaximumRecordAgeInSeconds (a
local stack does not run for hours behind), ParallelizationFactor (always 1).
"""

import base64
import json
import threading
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

#: Seconds between reads of a stream with nothing new, and before a failed batch comes again.
POLL_INTERVAL = 0.1
RETRY_WAIT = 0.2
#: Lambda's "retry until the record expires" (MaximumRetryAttempts -1), counted locally.
FOREVER = -1


class UnsupportedFilter(ValueError):
    """A FilterCriteria pattern this emulation cannot apply (it would let the wrong records
    through): only nested keys and lists of exact values are emulated."""


def matches(pattern: Mapping[str, Any], record: Mapping[str, Any]) -> bool:
    """Whether an event pattern (the subset used here: nested keys, and lists of exact values
    at the leaves) matches `record`, as Lambda's event filtering decides."""
    for key, wanted in pattern.items():
        if key not in record:
            return False
        value = record[key]
        if isinstance(wanted, Mapping):
            if not isinstance(value, Mapping) or not matches(wanted, value):
                return False
        elif isinstance(wanted, list):
            values = value if isinstance(value, list) else [value]
            if not any(candidate in wanted for candidate in values):
                return False
        else:
            raise UnsupportedFilter(f"a pattern's leaf must be a list, not {wanted!r}")
    return True


def filter_patterns(properties: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The patterns of an event's FilterCriteria, checked to be ones `matches` applies."""
    patterns = []
    for entry in (properties.get("FilterCriteria") or {}).get("Filters", []):
        pattern = json.loads(entry["Pattern"])
        _check_pattern(pattern)
        patterns.append(pattern)
    return patterns


def _check_pattern(pattern: Any) -> None:
    if not isinstance(pattern, dict):
        raise UnsupportedFilter(f"a pattern must be an object, not {pattern!r}")
    for value in pattern.values():
        if isinstance(value, dict):
            _check_pattern(value)
        elif not isinstance(value, list) or any(isinstance(item, dict | list) for item in value):
            raise UnsupportedFilter(
                f"only lists of exact values are emulated locally, not {value!r}"
            )


class StreamTarget(Protocol):
    """What a mapping needs of its function (`ratings_local.functions.LocalFunction`)."""

    @property
    def logical_id(self) -> str: ...

    def invoke(self, event: dict[str, Any]) -> Any: ...


@dataclass(frozen=True)
class StreamMapping:
    """One DynamoDB event of a function, resolved."""

    function: StreamTarget
    stream_arn: str
    batch_size: int = 100
    maximum_retry_attempts: int = FOREVER
    #: The FilterCriteria patterns (none: every record goes through).
    patterns: Sequence[Mapping[str, Any]] = field(default_factory=list)
    #: The on-failure destination's queue URL (None: a batch given up on is only logged).
    on_failure_queue_url: str | None = None
    function_arn: str = ""

    @classmethod
    def of(
        cls,
        function: StreamTarget,
        properties: Mapping[str, Any],
        stream_arn: str,
        on_failure_queue_url: str | None,
        function_arn: str,
    ) -> "StreamMapping":
        return cls(
            function,
            stream_arn,
            batch_size=int(properties.get("BatchSize", 100)),
            maximum_retry_attempts=int(properties.get("MaximumRetryAttempts", FOREVER)),
            patterns=filter_patterns(properties),
            on_failure_queue_url=on_failure_queue_url,
            function_arn=function_arn,
        )

    def lets_through(self, record: Mapping[str, Any]) -> bool:
        return not self.patterns or any(matches(pattern, record) for pattern in self.patterns)


@dataclass
class _Shard:
    """How far one shard has been read, and what was read but not yet delivered."""

    shard_id: str
    parent_id: str | None
    iterator: str | None = None
    #: The last record read from it (to ask for a new iterator after it).
    last_read: str | None = None
    #: Read to its end: a closed shard has no next iterator.
    finished: bool = False
    pending: list[dict[str, Any]] = field(default_factory=list)
    #: Failed attempts of the batch at the head of `pending`.
    attempts: int = 0


class StreamPoller:
    """Reads a mapping's stream and invokes its function with the records, shard by shard."""

    def __init__(
        self,
        mapping: StreamMapping,
        streams: Any,
        sqs: Any,
        region: str,
        stopping: threading.Event,
        poll_interval: float = POLL_INTERVAL,
        retry_wait: float = RETRY_WAIT,
        now: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self.mapping = mapping
        self._streams = streams
        self._sqs = sqs
        self._region = region
        self._stopping = stopping
        self._poll_interval = poll_interval
        self._retry_wait = retry_wait
        self._now = now
        self._shards: dict[str, _Shard] = {}
        #: Invocations made, batches given up on (sent to the on-failure destination).
        self.invocations = 0
        self.given_up = 0

    @property
    def name(self) -> str:
        return self.mapping.function.logical_id

    def run(self) -> None:
        while not self._stopping.is_set():
            try:
                busy = self.poll_once()
            except Exception as error:  # keep polling: the next read may do better
                print(f"[{self.name}] stream poller error: {type(error).__name__}: {error}")
                busy = False
            if not busy:
                self._stopping.wait(self._poll_interval)

    def poll_once(self) -> bool:
        """Read every shard that may be read once, and deliver what came; whether anything did."""
        self._discover()
        busy = False
        for shard in list(self._shards.values()):
            if shard.finished and not shard.pending:
                continue
            if not self._may_read(shard):
                continue
            if not shard.pending and not shard.finished:
                self._read(shard)
            busy = self._deliver(shard) or busy
        return busy

    # Reading ---------------------------------------------------------------------------------

    def _discover(self) -> None:
        """Every shard DescribeStream lists, added the first time it is seen."""
        start: str | None = None
        while True:
            request: dict[str, Any] = {"StreamArn": self.mapping.stream_arn}
            if start:
                request["ExclusiveStartShardId"] = start
            description = self._streams.describe_stream(**request)["StreamDescription"]
            for listed in description.get("Shards", []):
                shard_id = listed["ShardId"]
                if shard_id not in self._shards:
                    self._shards[shard_id] = _Shard(shard_id, listed.get("ParentShardId"))
            start = description.get("LastEvaluatedShardId")
            if not start:
                return

    def _may_read(self, shard: _Shard) -> bool:
        """A child shard is read once its parent is done (or gone from the stream)."""
        parent = self._shards.get(shard.parent_id or "")
        return parent is None or (parent.finished and not parent.pending)

    def _read(self, shard: _Shard) -> None:
        if shard.iterator is None:
            shard.iterator = self._iterator(shard)
        try:
            answer = self._streams.get_records(ShardIterator=shard.iterator, Limit=1000)
        except self._streams.exceptions.ExpiredIteratorException:
            shard.iterator = None  # ask again after the last record read
            return
        records = answer.get("Records", [])
        if records:
            shard.last_read = records[-1]["dynamodb"]["SequenceNumber"]
        for record in records:
            event_record = lambda_record(record, self.mapping.stream_arn, self._region)
            if self.mapping.lets_through(event_record):  # the others are dropped, as Lambda's
                shard.pending.append(event_record)
        shard.iterator = answer.get("NextShardIterator")
        shard.finished = shard.iterator is None

    def _iterator(self, shard: _Shard) -> str:
        request = {"StreamArn": self.mapping.stream_arn, "ShardId": shard.shard_id}
        if shard.last_read is None:
            request["ShardIteratorType"] = "TRIM_HORIZON"
        else:
            request["ShardIteratorType"] = "AFTER_SEQUENCE_NUMBER"
            request["SequenceNumber"] = shard.last_read
        iterator: str = self._streams.get_shard_iterator(**request)["ShardIterator"]
        return iterator

    # Delivering ------------------------------------------------------------------------------

    def _deliver(self, shard: _Shard) -> bool:
        """Invoke the function with the shard's pending records, a batch at a time, until they
        are done or a batch must wait to come again; whether there was anything to deliver."""
        if not shard.pending:
            return False
        while shard.pending and not self._stopping.is_set():
            batch = shard.pending[: self.mapping.batch_size]
            done = self._invoke(batch)
            if done == len(batch):
                shard.pending = shard.pending[done:]
                shard.attempts = 0
                continue
            shard.pending = shard.pending[done:]
            shard.attempts = 0 if done else shard.attempts + 1
            if done:
                continue  # the rest starts a new batch, attempted afresh
            retries = self.mapping.maximum_retry_attempts
            if retries != FOREVER and shard.attempts > retries:
                self._give_up(shard, batch)
                continue
            self._stopping.wait(self._retry_wait)
            return True
        return True

    def _invoke(self, batch: list[dict[str, Any]]) -> int:
        """Invoke the function with `batch`: how many of its records are done (those before the
        first batch item failure; none when the invocation failed)."""
        self.invocations += 1
        try:
            response = self.mapping.function.invoke({"Records": batch})
        except Exception as error:  # environments.FunctionError, a timeout: all of it again
            print(f"[{self.name}] stream batch failed: {error}")
            return 0
        failures = (response or {}).get("batchItemFailures") or []
        if not failures:
            return len(batch)
        sequence_numbers = [record["dynamodb"]["SequenceNumber"] for record in batch]
        reported = [str(failure.get("itemIdentifier") or "") for failure in failures]
        known = [sequence_numbers.index(item) for item in reported if item in sequence_numbers]
        if len(known) != len(reported):
            # An identifier that names no record of the batch fails the whole batch (Lambda's).
            return 0
        return min(known)

    def _give_up(self, shard: _Shard, batch: list[dict[str, Any]]) -> None:
        """Drop `batch` (its retries are spent) and tell the on-failure destination."""
        self.given_up += 1
        shard.pending = shard.pending[len(batch) :]
        attempts = shard.attempts
        shard.attempts = 0
        failure = self.on_failure_record(shard.shard_id, batch, attempts)
        print(
            f"[{self.name}] gave up on a stream batch: {json.dumps(failure['DDBStreamBatchInfo'])}"
        )
        if self.mapping.on_failure_queue_url:
            self._sqs.send_message(
                QueueUrl=self.mapping.on_failure_queue_url, MessageBody=json.dumps(failure)
            )

    def on_failure_record(
        self, shard_id: str, batch: list[dict[str, Any]], attempts: int
    ) -> dict[str, Any]:
        """What Lambda sends an on-failure destination for a stream batch it gave up on: where
        the records are, not the records."""
        arrivals = [
            _iso_seconds(record["dynamodb"].get("ApproximateCreationDateTime")) for record in batch
        ]
        return {
            "requestContext": {
                "requestId": str(uuid.uuid4()),
                "functionArn": self.mapping.function_arn,
                "condition": "RetryAttemptsExhausted",
                "approximateInvokeCount": attempts,
            },
            "responseContext": {
                "statusCode": 200,
                "executedVersion": "$LATEST",
                "functionError": "Unhandled",
            },
            "version": "1.0",
            "timestamp": self._now().isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "DDBStreamBatchInfo": {
                "shardId": shard_id,
                "startSequenceNumber": batch[0]["dynamodb"]["SequenceNumber"],
                "endSequenceNumber": batch[-1]["dynamodb"]["SequenceNumber"],
                "approximateArrivalOfFirstRecord": arrivals[0],
                "approximateArrivalOfLastRecord": arrivals[-1],
                "batchSize": len(batch),
                "streamArn": self.mapping.stream_arn,
            },
        }


def lambda_record(record: Mapping[str, Any], stream_arn: str, region: str) -> dict[str, Any]:
    """A GetRecords record (as boto3 reads it) the way Lambda hands it to the function: the
    creation time in epoch seconds, binary values in base64, the stream's ARN beside it."""
    change = dict(record["dynamodb"])
    created = change.get("ApproximateCreationDateTime")
    if isinstance(created, datetime):
        # DynamoDB Streams round it down to the second.
        change["ApproximateCreationDateTime"] = float(int(created.timestamp()))
    for image in ("Keys", "NewImage", "OldImage"):
        if image in change:
            change[image] = _wire(change[image])
    return {
        "eventID": record["eventID"],
        "eventName": record["eventName"],
        "eventVersion": record.get("eventVersion", "1.1"),
        "eventSource": "aws:dynamodb",
        "awsRegion": region,
        "dynamodb": change,
        "eventSourceARN": stream_arn,
    }


def _wire(value: Any) -> Any:
    """Attribute values as JSON carries them: boto3 reads B and BS as bytes."""
    if isinstance(value, bytes | bytearray):
        return base64.b64encode(value).decode()
    if isinstance(value, Mapping):
        return {key: _wire(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_wire(item) for item in value]
    return value


def _iso_seconds(epoch: Any) -> str | None:
    if epoch is None:
        return None
    return datetime.fromtimestamp(float(epoch), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
