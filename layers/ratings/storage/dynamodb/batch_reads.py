"""BatchGetItem with its UnprocessedKeys sent again after a growing, jittered wait, inside the
invocation's deadline.

DynamoDB answers a BatchGetItem it could only partly serve (throttling, a hot partition) with
the keys it did not read as UnprocessedKeys, in a successful answer: botocore's retries never
see it. pynamodb's `Model.batch_get` sends them again at once, as often as they come back (one
throttled game made 51 requests in 44 ms); AWS asks for exponential backoff. Here each re-send
waits first (`Resends`), and only while the wait and one more attempt still end before the
deadline. After `Resends.most` re-sends the read fails as a throttled request does
(TransientStorageError: the use case redoes its attempt, later); when the deadline stops it,
with UnprocessedKeysOutOfTime, which the use case does not redo (its next attempt could not
end in time either) and the adapters answer as transient: 503 retry_later, or the message
back to its queue.
"""

import math
import random
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any, NamedTuple

from pynamodb.connection import TableConnection
from pynamodb.constants import BATCH_GET_PAGE_LIMIT, KEYS, RESPONSES, UNPROCESSED_KEYS

from ratings.service.errors import TransientStorageError
from ratings.storage.dynamodb.layout import RatingsItem

_JITTER = random.Random()


class UnprocessedKeysOutOfTime(TimeoutError):
    """Keys still unprocessed when a further wait and attempt could not end before the
    deadline. A TimeoutError, like the deadline guard's OutOfTime: transient for the caller
    (`ratings.errors.is_transient`), never retried inside the invocation."""


def no_deadline() -> float:
    """Time left outside an invocation (tests, scripts): no end."""
    return math.inf


class Resends(NamedTuple):
    """How the unprocessed keys of a BatchGetItem are sent again: re-send n waits between half
    of and all of min(cap, first * 2**n) seconds (so a wait is never shorter than the one
    before it, until the cap, and concurrent readers drift apart), at most `most` times, and
    never past the deadline that `time_left` counts down to (seconds; wiring gives the
    invocation's, `ratings.lambda_support.invocation.time_left`)."""

    first_seconds: float = 0.05
    cap_seconds: float = 1.0
    most: int = 10
    time_left: Callable[[], float] = no_deadline
    sleep: Callable[[float], None] = time.sleep
    rng: random.Random = _JITTER

    def delay(self, resend: int) -> float:
        ceiling = min(self.cap_seconds, self.first_seconds * 2**resend)
        return self.rng.uniform(ceiling / 2, ceiling)


def batch_get(
    connection: TableConnection,
    keys: Sequence[tuple[str, str]],
    resends: Resends,
    attempt_seconds: float,
) -> Iterator[RatingsItem]:
    """The items stored at `keys` in the connection's table (each key once, in no order;
    strongly consistent), read in requests of at most 100 keys; an attempt takes at most
    `attempt_seconds`."""
    unique = list(dict.fromkeys(keys))
    for start in range(0, len(unique), BATCH_GET_PAGE_LIMIT):
        page = unique[start : start + BATCH_GET_PAGE_LIMIT]
        wanted = [_key(pk, sk) for pk, sk in page]
        yield from _read_page(connection, wanted, resends, attempt_seconds)


def _read_page(
    connection: TableConnection, wanted: Any, resends: Resends, attempt_seconds: float
) -> Iterator[RatingsItem]:
    """One page of keys (`wanted`: key maps as DynamoDB takes them; pynamodb's annotation
    says strings, its code passes them on as they are)."""
    table_name = connection.table_name
    sent = 0
    while True:
        answer = connection.batch_get_item(wanted, consistent_read=True)
        for raw in answer.get(RESPONSES, {}).get(table_name, []):
            yield RatingsItem.from_raw_data(raw)
        wanted = answer.get(UNPROCESSED_KEYS, {}).get(table_name, {}).get(KEYS, [])
        if not wanted:
            return
        delay = resends.delay(sent)
        sent += 1
        unread = f"{len(wanted)} keys of a BatchGetItem still unprocessed after {sent} requests"
        if resends.time_left() - delay < attempt_seconds:
            raise UnprocessedKeysOutOfTime(f"{unread}; the invocation's time is short")
        if sent > resends.most:
            raise TransientStorageError(f"{unread} (throttled)")
        resends.sleep(delay)


def _key(pk: str, sk: str) -> dict[str, Any]:
    return {"pk": {"S": pk}, "sk": {"S": sk}}
