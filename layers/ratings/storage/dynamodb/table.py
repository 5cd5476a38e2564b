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

from collections.abc import Iterator, Sequence
from functools import cache, cached_property
from types import TracebackType
from typing import Any, NamedTuple

from pynamodb.connection import Connection, TableConnection
from pynamodb.connection.base import MetaTable
from pynamodb.constants import (
    ATTR_DEFINITIONS,
    ATTR_NAME,
    ATTR_TYPE,
    BATCH_WRITE_PAGE_LIMIT,
    GLOBAL_SECONDARY_INDEXES,
    INDEX_NAME,
    ITEM,
    ITEMS,
    KEY,
    KEY_SCHEMA,
    KEY_TYPE,
    LAST_EVALUATED_KEY,
    LOCAL_SECONDARY_INDEXES,
    PUT_REQUEST,
    TABLE_NAME,
    UNPROCESSED_ITEMS,
)
from pynamodb.exceptions import PutError
from pynamodb.expressions.condition import Condition
from pynamodb.settings import get_settings_value
from pynamodb.types import HASH, RANGE

from ratings.storage.dynamodb import batch_reads
from ratings.storage.dynamodb.batch_reads import Resends
from ratings.storage.dynamodb.errors import transient_as_storage_error
from ratings.storage.dynamodb.layout import RatingsItem, table_definition


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
            meta_table=MetaTable({TABLE_NAME: table_name, **_schema()}),
            **self.settings,
        )
        #: How a BatchGetItem's unprocessed keys are sent again (`batch_reads`).
        self.resends = resends or Resends()
        #: The longest one request can take (both timeouts), kept in hand for a re-send.
        self.attempt_seconds = float(
            self.settings["connect_timeout_seconds"] + self.settings["read_timeout_seconds"]
        )

    @property
    def connection(self) -> Connection:
        """The low-level connection (one botocore client) every request goes through."""
        return self.table_connection.connection

    def create_table(self) -> None:
        """Create the table from the models, with its indexes and TTL, unless it exists (the
        benchmarks; the tests and the local stack create template.yaml's own)."""
        model = self._model
        if not model.exists():
            # pynamodb enables the TTL itself: enabling it again is refused by DynamoDB
            # ("TimeToLive is already enabled"), though moto accepts it.
            model.create_table(wait=True)

    @cached_property
    def _model(self) -> type[RatingsItem]:
        """RatingsItem bound to this table by a Meta of its own, as pynamodb binds a model to a
        table: for creating the table only (keys, indexes, TTL and billing are the models').
        It reads no item: pynamodb refuses to read the item types through it, since they
        subclass RatingsItem, not it."""
        table = self

        class TableMeta(RatingsItem.Meta):
            table_name = table.table_name
            region = table.region
            host = table.endpoint_url
            connect_timeout_seconds = table.settings["connect_timeout_seconds"]
            read_timeout_seconds = table.settings["read_timeout_seconds"]
            max_retry_attempts = table.settings["max_retry_attempts"]

        class TableModel(RatingsItem):
            Meta = TableMeta

        return TableModel

    def batch_get(self, keys: Sequence[tuple[str, str]]) -> Iterator[RatingsItem]:
        """The items at `keys`, strongly consistent; unprocessed keys are sent again after a
        growing wait, inside the deadline (`batch_reads`)."""
        with transient_as_storage_error():
            yield from batch_reads.batch_get(
                self.table_connection, keys, self.resends, self.attempt_seconds
            )

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

    def transact_write(self) -> "TableTransaction":
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

    def __enter__(self) -> "TableTransaction":
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


@cache
def _schema() -> dict[str, Any]:
    """The table's keys and its indexes' keys, as DynamoDB's DescribeTable gives them: what
    the connection builds requests from (the models' declaration, `layout.table_definition`,
    which the tests check against template.yaml)."""
    definition = table_definition()
    types = {
        attribute.attr_name: attribute.attr_type
        for attribute in RatingsItem.get_attributes().values()
    }

    def keys(hash_key: str, range_key: str) -> list[dict[str, str]]:
        return [
            {ATTR_NAME: hash_key, KEY_TYPE: HASH},
            {ATTR_NAME: range_key, KEY_TYPE: RANGE},
        ]

    def indexes(kind: str) -> list[dict[str, Any]]:
        return [
            {INDEX_NAME: name, KEY_SCHEMA: keys(*key)} for name, key in definition[kind].items()
        ]

    named = {*definition["key"]}
    for kind in ("local_indexes", "global_indexes"):
        for key in definition[kind].values():
            named.update(key)
    return {
        KEY_SCHEMA: keys(*definition["key"]),
        ATTR_DEFINITIONS: [{ATTR_NAME: name, ATTR_TYPE: types[name]} for name in sorted(named)],
        LOCAL_SECONDARY_INDEXES: indexes("local_indexes"),
        GLOBAL_SECONDARY_INDEXES: indexes("global_indexes"),
    }
