"""Putting events on the bus: EventBridge's PutEvents, ten entries (and at most 256 KiB) a
request, each entry that failed sent again.

PutEvents answers 200 even when some entries failed: each failed entry has an ErrorCode in
its place of the answer (`ThrottlingException` past the account's rate, `InternalFailure`),
and the others are on the bus. So the publisher reads the answer entry by entry and sends
only the failed ones again, after a wait that grows (full jitter, as AWS advises), while the
invocation has time for the wait and one more request. What still failed then comes back to
the caller, which leaves those records to the stream's retry (`functions/publish_events`).

Nothing here builds a client or reads configuration: the handler passes what it built.
"""

import random
import time
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

from ratings.lambda_support import invocation
from ratings.service.events import Envelope, entry_of

if TYPE_CHECKING:
    from mypy_boto3_events import EventBridgeClient

#: PutEvents takes at most ten entries a request...
MAX_ENTRIES = 10
#: ...of at most 256 KiB together, each counted as EventBridge counts it (`entry_size`).
MAX_REQUEST_BYTES = 256 * 1024
#: Sends of an entry within one invocation (the first and its retries).
MAX_SENDS = 6
#: The n-th retry waits up to FIRST_WAIT_SECONDS * 2**n, at most MAX_WAIT_SECONDS.
FIRST_WAIT_SECONDS = 0.1
MAX_WAIT_SECONDS = 2.0
#: What one more request needs before the invocation's deadline (its connect and read
#: timeouts are shorter: ratings.budgets).
REQUEST_SECONDS = 3.0
_JITTER = random.Random()


def entry_size(entry: dict[str, Any]) -> int:
    """An entry's size as EventBridge counts it against the 256 KiB: 14 bytes for the time,
    and the UTF-8 bytes of its source, detail type, detail and resources."""
    size = 14
    for name in ("Source", "DetailType", "Detail"):
        size += len(str(entry.get(name, "")).encode())
    size += sum(len(resource.encode()) for resource in entry.get("Resources", ()))
    return size


def requests_of(entries: Sequence[dict[str, Any]]) -> Iterator[list[int]]:
    """The positions of `entries` grouped into PutEvents requests, in order."""
    request: list[int] = []
    size = 0
    for position, entry in enumerate(entries):
        grown = size + entry_size(entry)
        if request and (len(request) == MAX_ENTRIES or grown > MAX_REQUEST_BYTES):
            yield request
            request, grown = [], entry_size(entry)
        request.append(position)
        size = grown
    if request:
        yield request


class Publisher:
    """Puts envelopes on one bus, at least once each while the invocation lasts."""

    def __init__(
        self,
        client: "EventBridgeClient",
        bus: str,
        *,
        sleep: Callable[[float], None] = time.sleep,
        time_left: Callable[[], float] = invocation.time_left,
    ) -> None:
        self._client = client
        self._bus = bus
        self._sleep = sleep
        self._time_left = time_left
        #: Entries sent again after a failure, since this publisher was made.
        self.retried = 0

    def publish(self, envelopes: Sequence[Envelope]) -> list[int]:
        """Put every envelope on the bus; the positions of those that could not be put (the
        sends ran out, or the time did), in order. Nothing raises: a request that failed
        as a whole counts as each of its entries failed."""
        entries = [entry_of(envelope, self._bus) for envelope in envelopes]
        pending = list(range(len(entries)))
        sends = 0
        while pending:
            sends += 1
            pending = self._send(entries, pending)
            if not pending:
                return []
            wait = _JITTER.uniform(0, min(MAX_WAIT_SECONDS, FIRST_WAIT_SECONDS * 2**sends))
            if sends >= MAX_SENDS or self._time_left() < wait + REQUEST_SECONDS:
                return pending
            self.retried += len(pending)
            self._sleep(wait)
        return []

    def _send(self, entries: Sequence[dict[str, Any]], positions: Sequence[int]) -> list[int]:
        """One pass over `positions`; those whose entry failed."""
        failed: list[int] = []
        chosen = [entries[position] for position in positions]
        for request in requests_of(chosen):
            batch = [positions[index] for index in request]
            try:
                answer = self._client.put_events(Entries=[entries[p] for p in batch])  # type: ignore[misc]
            except Exception:  # throttled as a whole, a timeout, a connection: all failed
                failed.extend(batch)
                continue
            results = answer.get("Entries", [])
            if answer.get("FailedEntryCount", 0) == 0 and len(results) == len(batch):
                continue
            for position, result in zip(batch, results, strict=False):
                if result.get("ErrorCode") or not result.get("EventId"):
                    failed.append(position)
            # An answer shorter than the request says nothing of the rest: failed.
            failed.extend(batch[len(results) :])
        return sorted(failed)
