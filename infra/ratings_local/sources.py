"""The SQS event source mappings of the local stack, and the events they deliver.

Lambda's mapping for a standard queue polls it, and invokes the function with each batch it
receives, many batches at once: up to the mapping's `ScalingConfig.MaximumConcurrency`
invocations in flight (Lambda scales up to it as the backlog grows; here it is reached as
soon as there are batches to hand out). The records an invocation reports in
`batchItemFailures` (ReportBatchItemFailures), or all of them when it fails, stay in the
queue: they come back after the visibility timeout, and the queue's redrive policy counts
each receive. The others are deleted.

Here one poller per mapping receives a batch whenever an invocation slot is free, so an idle
queue costs one long poll at a time, and a busy one has up to MaximumConcurrency consumers.
"""

import threading
import uuid
from collections.abc import Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from ratings_local.functions import DEFAULT_MAX_CONCURRENCY, LocalFunction


@dataclass(frozen=True)
class SqsMapping:
    """One SQS event of a function, resolved: which queue, how much per batch, how many at once."""

    function: LocalFunction
    queue_url: str
    queue_arn: str
    batch_size: int = 10
    maximum_concurrency: int = DEFAULT_MAX_CONCURRENCY

    @classmethod
    def of(
        cls, function: LocalFunction, properties: Mapping[str, Any], url: str, arn: str
    ) -> "SqsMapping":
        scaling = properties.get("ScalingConfig") or {}
        return cls(
            function,
            url,
            arn,
            batch_size=int(properties.get("BatchSize", 10)),
            maximum_concurrency=int(scaling.get("MaximumConcurrency", DEFAULT_MAX_CONCURRENCY)),
        )


class InFlight:
    """Calls that may overlap, counted as they start and end (from any thread): how many
    started, how many are in flight now, and the most there ever were at once."""

    def __init__(self) -> None:
        self.started = 0
        self.now = 0
        self.most = 0
        self._lock = threading.Lock()

    @contextmanager
    def call(self) -> Iterator[None]:
        """Count the block as one call in flight while it runs."""
        with self._lock:
            self.started += 1
            self.now += 1
            self.most = max(self.most, self.now)
        try:
            yield
        finally:
            with self._lock:
                self.now -= 1


class SqsPoller:
    """Receives a mapping's batches and invokes its function with them, several at once."""

    def __init__(
        self, mapping: SqsMapping, sqs: Any, region: str, poll_wait: int, stopping: threading.Event
    ) -> None:
        self.mapping = mapping
        self._sqs = sqs
        self._region = region
        self._poll_wait = poll_wait
        self._stopping = stopping
        self._slots = threading.BoundedSemaphore(mapping.maximum_concurrency)
        #: The invocations: in flight now, and the most there ever were at once.
        self.in_flight = InFlight()

    @property
    def name(self) -> str:
        return self.mapping.function.logical_id

    @property
    def most_in_flight(self) -> int:
        return self.in_flight.most

    def run(self) -> None:
        workers = self.mapping.maximum_concurrency
        with ThreadPoolExecutor(workers, thread_name_prefix=f"sqs-{self.name}") as pool:
            while not self._stopping.is_set():
                if not self._slots.acquire(timeout=0.1):
                    continue
                try:
                    messages = self.receive()
                except Exception as error:  # keep polling: the next receive may do better
                    self._slots.release()
                    print(f"[{self.name}] poller error: {type(error).__name__}: {error}")
                    self._stopping.wait(1)
                    continue
                if not messages:
                    self._slots.release()
                    # A long poll has waited already; short polls pause here.
                    self._stopping.wait(0.05 if self._poll_wait <= 0 else 0)
                    continue
                pool.submit(self._settle_and_free, messages)

    def receive(self) -> list[dict[str, Any]]:
        received = self._sqs.receive_message(
            QueueUrl=self.mapping.queue_url,
            MaxNumberOfMessages=max(1, min(10, self.mapping.batch_size)),
            WaitTimeSeconds=self._poll_wait,
            AttributeNames=["All"],
            MessageAttributeNames=["All"],
        )
        messages: list[dict[str, Any]] = received.get("Messages", [])
        return messages

    def _settle_and_free(self, messages: list[dict[str, Any]]) -> None:
        try:
            with self.in_flight.call():
                self.settle(messages)
        except Exception as error:
            print(f"[{self.name}] could not settle a batch: {type(error).__name__}: {error}")
        finally:
            self._slots.release()

    def settle(self, messages: list[dict[str, Any]]) -> None:
        """Invoke the function with one batch, and delete what it did not report failed."""
        arn = self.mapping.queue_arn
        event = {"Records": [sqs_record(message, arn, self._region) for message in messages]}
        try:
            response = self.mapping.function.invoke(event)
        except Exception as error:
            # The whole batch failed: nothing is deleted, all of it comes back after the
            # visibility timeout, and the redrive policy counts the attempt.
            print(f"[{self.name}] batch failed: {error}")
            return
        failed = {
            failure.get("itemIdentifier")
            for failure in (response or {}).get("batchItemFailures", [])
        }
        done = [
            {"Id": str(index), "ReceiptHandle": message["ReceiptHandle"]}
            for index, message in enumerate(messages)
            if message["MessageId"] not in failed
        ]
        if done:
            self._sqs.delete_message_batch(QueueUrl=self.mapping.queue_url, Entries=done)


def sqs_record(message: Mapping[str, Any], queue_arn: str, region: str) -> dict[str, Any]:
    """One record of an SQS event, as Lambda's event source mapping builds it."""
    attributes = {
        name: {
            "stringValue": value.get("StringValue"),
            "binaryValue": value.get("BinaryValue"),
            "stringListValues": [],
            "binaryListValues": [],
            "dataType": value.get("DataType", "String"),
        }
        for name, value in (message.get("MessageAttributes") or {}).items()
    }
    return {
        "messageId": message["MessageId"],
        "receiptHandle": message["ReceiptHandle"],
        "body": message.get("Body", ""),
        "attributes": message.get("Attributes", {}),
        "messageAttributes": attributes,
        "md5OfBody": message.get("MD5OfBody", ""),
        "eventSource": "aws:sqs",
        "eventSourceARN": queue_arn,
        "awsRegion": region,
    }


def scheduled_event(logical_id: str, region: str) -> dict[str, Any]:
    """An EventBridge scheduled event, as a Schedule trigger delivers it."""
    return {
        "version": "0",
        "id": str(uuid.uuid4()),
        "detail-type": "Scheduled Event",
        "source": "aws.events",
        "account": "123456789012",
        "time": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "region": region,
        "resources": [f"arn:aws:events:{region}:123456789012:rule/{logical_id}"],
        "detail": {},
    }
