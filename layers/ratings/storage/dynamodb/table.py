"""The table one storage serves: its own connection (one botocore client, with the table's
timeouts and retries), and the requests every adapter makes through it (a transient failure
raised as TransientStorageError).

The pynamodb models (`layout`, `job_layout`, `sanction_layout`) describe the items: they
serialize them, read them back, and make the conditions. They are bound to no table: every
request goes through a BoundTable's connection, pynamodb's `TableConnection` (its low-level
API, given the table's schema, so it never asks DynamoDB for it). Two storages on two tables
in one process are then independent; nothing here writes a model's `Meta` or its cached
connection.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from types import TracebackType
from typing import Any, NamedTuple

from pynamodb.connection import Connection, TableConnection
from pynamodb.connection.base import MetaTable
from pynamodb.constants import (
    BATCH_GET_PAGE_LIMIT,
    BATCH_WRITE_PAGE_LIMIT,
    ITEM,
    ITEMS,
    KEY,
    KEYS,
    LAST_EVALUATED_KEY,
    PUT_REQUEST,
    RESPONSES,
    TABLE_NAME,
    UNPROCESSED_ITEMS,
    UNPROCESSED_KEYS,
)
from pynamodb.exceptions import PutError, PynamoDBException
from pynamodb.expressions.condition import Condition
from pynamodb.settings import get_settings_value

from ratings.errors import is_transient
from ratings.service.errors import PlayerStorageFull, TransientStorageError
from ratings.storage.dynamodb.layout import RatingsItem, table_schema


class Client(NamedTuple):
    """The table client's timeouts and retries: pynamodb's defaults (15 s, 30 s, 3) where
    None (wiring fits them to the function's time)."""

    connect_timeout_seconds: float | None = None
    read_timeout_seconds: float | None = None
    max_retry_attempts: int | None = None


class BoundTable:
    """One table: its connection (one botocore client, the table's own timeouts and retries),
    and the requests every adapter makes (transient failures raised as
    TransientStorageError). Items go in and out as the models serialize them."""

    def __init__(
        self,
        table_name: str,
        region: str,
        endpoint_url: str | None,
        shards: int,
        client: Client,
        resends: Resends | None = None,
    ) -> None:
        if shards < 1:
            raise ValueError("leaderboard_shards must be at least 1")
        self.table_name = table_name
        self.region = region
        self.endpoint_url = endpoint_url
        self.shards = shards
        #: The client's settings, pynamodb's defaults filled in.
        self.settings = {
            name: get_settings_value(name) if value is None else value
            for name, value in client._asdict().items()
        }
        #: Every request to the table goes through it: pynamodb's connection to this table
        #: alone, its botocore client made on the first request.
        self.table_connection = TableConnection(
            table_name,
            region=region,
            host=endpoint_url,
            meta_table=MetaTable({TABLE_NAME: table_name, **table_schema()}),
            **self.settings,
        )
        #: How a BatchGetItem's unprocessed keys are sent again (`batch_get`).
        self.resends = resends or Resends()
        #: The longest one request can take (both timeouts), kept in hand for a re-send.
        self.attempt_seconds = float(
            self.settings["connect_timeout_seconds"] + self.settings["read_timeout_seconds"]
        )

    @property
    def connection(self) -> Connection:
        """The low-level connection (one botocore client) every request goes through."""
        return self.table_connection.connection

    def batch_get(self, keys: Sequence[tuple[str, str]]) -> Iterator[RatingsItem]:
        """The items at `keys`, strongly consistent; unprocessed keys are sent again after a
        growing wait, inside the deadline (`batch_get`)."""
        with transient_as_storage_error():
            yield from batch_get(self.table_connection, keys, self.resends, self.attempt_seconds)

    def get(self, pk: str, sk: str, *, consistent_read: bool = True) -> RatingsItem | None:
        """The item at (pk, sk), or None (one GetItem, strongly consistent unless told)."""
        with transient_as_storage_error():
            answer = self.table_connection.get_item(
                *_keys(RatingsItem, pk, sk), consistent_read=consistent_read
            )
        raw = answer.get(ITEM) if answer else None
        return RatingsItem.from_raw_data(raw) if raw else None

    def put(self, item: RatingsItem, condition: Condition | None = None) -> None:
        """One PutItem of `item`, if `condition` holds (pynamodb's PutError when it does not,
        or when the request fails: the caller tells which)."""
        pk, sk, attributes = _serialized(item)
        self.table_connection.put_item(pk, sk, attributes=attributes, condition=condition)

    def put_all(self, items: Sequence[RatingsItem]) -> None:
        """Every item, unconditionally, 25 to a BatchWriteItem, the unprocessed ones sent again
        (seeding a table: tests and benchmarks, never a request path)."""
        for start in range(0, len(items), BATCH_WRITE_PAGE_LIMIT):
            page = [item.serialize() for item in items[start : start + BATCH_WRITE_PAGE_LIMIT]]
            for _attempt in range(1 + int(self.settings["max_retry_attempts"])):
                answer = self.table_connection.batch_write_item(put_items=page)
                unprocessed = (answer or {}).get(UNPROCESSED_ITEMS, {}).get(self.table_name)
                if not unprocessed:
                    break
                page = [request[PUT_REQUEST][ITEM] for request in unprocessed]
            else:
                raise PutError("Failed to batch write items: unprocessed after every attempt")

    def transact_write(self) -> TableTransaction:
        """One TransactWriteItems on this table, sent when its block ends without an error
        (pynamodb's TransactWrite, on this table's connection)."""
        return TableTransaction(self.table_connection)

    def query(self, hash_key: str, **options: Any) -> dict[str, Any]:
        """One page of a query on the table (or one of its indexes), as DynamoDB answers it."""
        with transient_as_storage_error():
            return dict(self.connection.query(self.table_name, hash_key, **options))

    def pages(self, hash_key: str, **options: Any) -> Iterator[dict[str, Any]]:
        """Every page of a query, as DynamoDB answers them, each after the last one's
        LastEvaluatedKey; a caller that stops iterating reads no further page."""
        start_key = None
        while True:
            response = self.query(hash_key, exclusive_start_key=start_key, **options)
            yield response
            start_key = response.get("LastEvaluatedKey")
            if not start_key:
                return

    def scan(self, condition: Condition) -> Iterator[RatingsItem]:
        """Every item of the table that `condition` keeps, a page a Scan (the whole table is
        read: exports, never a request path). As pynamodb's RatingsItem.scan, the filter
        also keeps only the item types the process knows."""
        kind = RatingsItem.item_type
        known = kind.is_in(*kind.get_registered_subclasses(RatingsItem))
        start_key = None
        while True:
            with transient_as_storage_error():
                page = self.table_connection.scan(
                    filter_condition=condition & known, exclusive_start_key=start_key
                )
            for raw in page.get(ITEMS, []):
                yield RatingsItem.from_raw_data(raw)
            start_key = page.get(LAST_EVALUATED_KEY)
            if start_key is None:
                return

    def leaderboard_shards(self, ladder: str) -> list[str]:
        """The hash keys of the ladder's leaderboard index, one a write shard."""
        return [f"{ladder}#{shard}" for shard in range(self.shards)]


class TableTransaction:
    """One TransactWriteItems on one table, built as pynamodb's TransactWrite builds it
    (condition checks, then deletes, then puts, each in the order given; the same
    operations), but on the table's own connection: pynamodb's TransactWrite takes each
    item's table from its model class."""

    def __init__(self, table: TableConnection) -> None:
        self._table = table
        self._checks: list[dict[str, Any]] = []
        self._deletes: list[dict[str, Any]] = []
        self._puts: list[dict[str, Any]] = []

    def condition_check(
        self,
        model: type[RatingsItem],
        hash_key: str,
        range_key: str,
        condition: Condition | None = None,
    ) -> None:
        """A ConditionCheck of the item of `model` at the keys (TransactWrite's arguments)."""
        if condition is None:
            raise TypeError("`condition` cannot be None")
        pk, sk = _keys(model, hash_key, range_key)
        self._checks.append(self._table.get_operation_kwargs(pk, sk, condition=condition))

    def delete(self, item: RatingsItem, condition: Condition | None = None) -> None:
        pk, sk = _keys(type(item), item.pk, item.sk)
        self._deletes.append(self._table.get_operation_kwargs(pk, sk, KEY, condition=condition))

    def save(self, item: RatingsItem, condition: Condition | None = None) -> None:
        pk, sk, attributes = _serialized(item)
        self._puts.append(
            self._table.get_operation_kwargs(
                pk, sk, ITEM, attributes=attributes, condition=condition
            )
        )

    def __enter__(self) -> TableTransaction:
        return self

    def __exit__(
        self,
        error_type: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        if error_type is None:
            # pynamodb's TransactWriteError when refused, with the cancellation reasons.
            self._table.connection.transact_write_items(
                condition_check_items=self._checks,
                delete_items=self._deletes,
                put_items=self._puts,
                update_items=[],
            )


def _keys(model: type[RatingsItem], pk: str, sk: str) -> tuple[str, str]:
    """The item's keys as its model serializes them."""
    return model.pk.serialize(pk), model.sk.serialize(sk)


def _serialized(item: RatingsItem) -> tuple[str, str, dict[str, Any]]:
    """The item's keys and its other attributes, serialized by its model (as pynamodb's
    `Model.save` sends them)."""
    attributes = item.serialize()
    pk = attributes.pop(RatingsItem.pk.attr_name)[RatingsItem.pk.attr_type]
    sk = attributes.pop(RatingsItem.sk.attr_name)[RatingsItem.sk.attr_type]
    return pk, sk, attributes


# What a failed request means ------------------------------------------------------------------

#: Cancellation reasons that mean another writer got there first.
_CONFLICT_REASONS = frozenset({"TransactionConflict", "ConditionalCheckFailed"})
#: A partition key's items and their local index entries are at 10 GB: as a request's error
#: code, and as the cancellation reason of a transaction's item.
FULL_COLLECTION_CODE = "ItemCollectionSizeLimitExceededException"
FULL_COLLECTION_REASON = "ItemCollectionSizeLimitExceeded"


@contextmanager
def transient_as_storage_error() -> Iterator[None]:
    """Inside the block, a pynamodb error with a transient code, or one that never got an
    answer (could not connect, timed out), becomes TransientStorageError, and a full item
    collection PlayerStorageFull; any other error passes unchanged."""
    try:
        yield
    except PynamoDBException as error:
        if is_transient(error):
            raise TransientStorageError(str(error)) from error
        if response_code(error) == FULL_COLLECTION_CODE:
            raise PlayerStorageFull() from error
        raise


def response_code(error: PynamoDBException) -> str | None:
    """DynamoDB's error code of the request behind `error`; None when there was no answer.

    (pynamodb's own `cause_response_code` fails on a timeout, whose cause has a `response`
    of None: the store's slowness became an AttributeError, and a 500.)
    """
    response = getattr(error.cause, "response", None)
    if not isinstance(response, dict):
        return None
    code = response.get("Error", {}).get("Code")
    return code if isinstance(code, str) else None


# BatchGetItem ---------------------------------------------------------------------------------
#
# BatchGetItem with its UnprocessedKeys sent again after a growing, jittered wait, inside the
# invocation's deadline.
#
# DynamoDB answers a BatchGetItem it could only partly serve (throttling, a hot partition) with
# the keys it did not read as UnprocessedKeys, in a successful answer: botocore's retries never
# see it. pynamodb's `Model.batch_get` sends them again at once, as often as they come back (one
# throttled game made 51 requests in 44 ms); AWS asks for exponential backoff. Here each re-send
# waits first (`Resends`), and only while the wait and one more attempt still end before the
# deadline. After `Resends.most` re-sends the read fails as a throttled request does
# (TransientStorageError: the use case redoes its attempt, later); when the deadline stops it,
# with UnprocessedKeysOutOfTime, which the use case does not redo (its next attempt could not
# end in time either) and the adapters answer as transient: 503 retry_later, or the message
# back to its queue.

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
