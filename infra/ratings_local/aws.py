"""The emulated AWS of the local stack: moto's server, made safe and fast enough to rely on.

Two measured defects of moto are mended here, and only here:

- moto's server handles concurrent requests on threads that race inside its backends (lost
  updates were measured). `SerializedApp` lets one request at a time into moto.
- moto's TransactWriteItems deep-copies every table it touches to be able to roll back, so a
  transaction costs time in proportion to the table. `transact_write_items` below checks every
  condition first, then applies the writes, keeping copies of only the items it touches; a
  transaction costs what its items cost and is still all or nothing.

A third cost is mended the same way: moto answers every Query by sorting all items of the table;
`partition_query` hands it only the queried partition when the query is on the table or on a
local secondary index (both are partitioned by the table's hash key), so a player's history or
recent-games count costs what that player's items cost, not what the table holds.

One more defect is in moto's EventBridge: an SQS target without an input transformer gets the
event through a string template that leaves out `account` and breaks on a detail holding text
like `<source>`. `whole_event` hands the target the event itself, as EventBridge does.

All four lean on moto internals of the pinned version (MOTO_VERSION); tests check the version and
the behaviour, so an upgrade that changes them fails loudly instead of silently.
"""

import contextlib
import copy
import io
import json
import threading
import time
import urllib.request
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import moto
from moto.dynamodb.comparisons import get_filter_expression
from moto.dynamodb.exceptions import (
    MultipleTransactionsException,
    TooManyTransactionsException,
    TransactionCanceledException,
)
from moto.dynamodb.models import DynamoDBBackend
from moto.dynamodb.models.dynamo_type import DynamoType, Item
from moto.dynamodb.models.table import Table
from moto.events.utils import EventTemplateParser
from moto.moto_server.werkzeug_app import (
    DomainDispatcherApplication,
    MotoRequestHandler,
    create_backend_app,
)
from werkzeug.serving import BaseWSGIServer, make_server

from ratings_local.faults import (
    BusFaults,
    FaultPlan,
    fault_response,
    partial_response,
    throttled_response,
)

#: The moto release whose internals this module was written and tested against.
MOTO_VERSION = "5.2.5"
MAX_TRANSACTION_ITEMS = 100
CONDITION_FAILED = "The conditional request failed"

_WRITE_OPERATIONS = frozenset({"ConditionCheck", "Put", "Delete", "Update"})

WsgiApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


class SerializedApp:
    """A WSGI wrapper that lets one request at a time into the wrapped application.

    The HTTP server stays threaded (slow clients do not block each other while sending), but
    moto's backends only ever see one request at a time, as they need.

    An SQS long poll (ReceiveMessage with WaitTimeSeconds) would hold everybody else up for
    its whole wait, so it is played as a series of short polls: each one inside the lock,
    the waiting between them outside it.
    """

    def __init__(self, app: WsgiApp, poll_interval: float = 0.05) -> None:
        self._app = app
        self.lock = threading.Lock()
        self._poll_interval = poll_interval
        #: Transient DynamoDB failures to inject (None: none).
        self.faults: FaultPlan | None = None
        #: EventBridge throttling to inject into PutEvents (None: none).
        self.bus_faults: BusFaults | None = None

    def __call__(self, environ: dict[str, Any], start_response: Callable[..., Any]) -> list[bytes]:
        target = str(environ.get("HTTP_X_AMZ_TARGET", ""))
        if self.faults is not None and target.startswith("DynamoDB_"):
            with self.lock:
                fault = self.faults.draw(target.partition(".")[2])
                if fault == "internal_after":
                    list(self._app(environ, lambda *args, **kwargs: lambda data: None))
            if fault is not None:
                return fault_response(fault, start_response)
        if self.bus_faults is not None and target == "AWSEvents.PutEvents":
            return self._put_events_with_faults(self.bus_faults, environ, start_response)
        wait = _long_poll_seconds(environ)
        if wait <= 0:
            with self.lock:
                # Materialise the body inside the lock: moto may build it lazily.
                return list(self._app(environ, start_response))
        deadline = time.monotonic() + wait
        while True:
            status, body = self._short_poll(environ)
            received = b'"Messages"' in b"".join(body)
            if received or not status[0].startswith("200") or time.monotonic() >= deadline:
                start_response(*status)
                return body
            time.sleep(self._poll_interval)

    def _put_events_with_faults(
        self, faults: BusFaults, environ: dict[str, Any], start_response: Callable[..., Any]
    ) -> list[bytes]:
        """A PutEvents under `faults`: refused whole, or only some of its entries put."""
        with self.lock:
            fault = faults.draw()
            if fault == "throttle":
                return throttled_response(start_response)
            if fault is None:
                return list(self._app(environ, start_response))
            length = int(environ.get("CONTENT_LENGTH") or 0)
            request = json.loads(environ["wsgi.input"].read(length) or b"{}")
            entries = request.get("Entries", [])
            refused = faults.refused(len(entries))
            kept = [entry for position, entry in enumerate(entries) if position not in refused]
            if not kept:
                status, body = ["200 OK"], [json.dumps({"Entries": []}).encode()]
            else:
                body_bytes = json.dumps({**request, "Entries": kept}).encode()
                changed = dict(environ, CONTENT_LENGTH=str(len(body_bytes)))
                changed["wsgi.input"] = io.BytesIO(body_bytes)
                status, body = self._call(changed)
            if not status[0].startswith("200"):
                start_response(*status)
                return body
            answered = json.loads(b"".join(body) or b"{}")
            return partial_response(answered, refused, len(entries), start_response)

    def _call(self, environ: dict[str, Any]) -> tuple[list[Any], list[bytes]]:
        """moto's answer to `environ`, its status kept apart (the caller holds the lock)."""
        status: list[Any] = []

        def capture(code: str, headers: list[Any], exc_info: Any = None) -> Any:
            status[:] = [code, headers, exc_info]
            return lambda data: None

        body = list(self._app(environ, capture))
        return status, body

    def _short_poll(self, environ: dict[str, Any]) -> tuple[list[Any], list[bytes]]:
        status: list[Any] = []

        def capture(code: str, headers: list[Any], exc_info: Any = None) -> Any:
            status[:] = [code, headers, exc_info]
            return lambda data: None

        with self.lock:
            body = list(self._app(dict(environ, **{"wsgi.input": _body(environ)}), capture))
        return status, body


def _long_poll_seconds(environ: dict[str, Any]) -> float:
    """WaitTimeSeconds of an SQS ReceiveMessage (JSON protocol), rewritten to 0 in `environ`.

    The request body is read once and kept in the environ so each short poll can re-read it.
    """
    if environ.get("HTTP_X_AMZ_TARGET") != "AmazonSQS.ReceiveMessage":
        return 0
    length = int(environ.get("CONTENT_LENGTH") or 0)
    raw = environ["wsgi.input"].read(length) if length else b""
    try:
        request = json.loads(raw or b"{}")
        wait = float(request.get("WaitTimeSeconds") or 0)
    except (ValueError, AttributeError, TypeError):
        request, wait = None, 0.0
    if request is not None and wait > 0:
        request["WaitTimeSeconds"] = 0
        raw = json.dumps(request).encode()
    environ["ratings_local.body"] = raw
    environ["CONTENT_LENGTH"] = str(len(raw))
    environ["wsgi.input"] = io.BytesIO(raw)
    return wait


def _body(environ: dict[str, Any]) -> io.BytesIO:
    return io.BytesIO(environ["ratings_local.body"])


def _operation_key(backend: DynamoDBBackend, operation: dict[str, Any]) -> tuple[Table, Any, Any]:
    op_type, body = next(iter(operation.items()))
    table = backend.get_table(body["TableName"])
    if op_type == "Put":
        attrs = body["Item"]
        key = {table.hash_key_attr: attrs[table.hash_key_attr]}
        if table.range_key_attr is not None:
            key[table.range_key_attr] = attrs[table.range_key_attr]
    else:
        key = body["Key"]
    hash_value, range_value = backend.get_keys_value(table, key)
    return table, hash_value, range_value


def _restore(table: Table, hash_value: DynamoType, range_value: Any, item: Item | None) -> None:
    """Put one item back as it was before the transaction (None: it did not exist)."""
    if item is None:
        table.delete_item(hash_value, range_value)
    elif range_value is not None:
        table.items[hash_value][range_value] = item
    else:
        table.items[hash_value] = item  # type: ignore[assignment]


def transact_write_items(self: DynamoDBBackend, transact_items: list[dict[str, Any]]) -> None:
    """TransactWriteItems at the cost of the items it touches, all or nothing.

    Phase 1 evaluates every operation's condition against the current items and reports all
    failures at once, as DynamoDB does, without changing anything. Phase 2 applies the
    writes; should one of them fail (a validation error moto finds only while applying), the
    touched items are put back from copies taken before phase 2.
    """
    if len(transact_items) > MAX_TRANSACTION_ITEMS:
        raise TooManyTransactionsException()
    keys: list[tuple[Table, Any, Any]] = []
    seen: set[tuple[str, str]] = set()
    reasons: list[tuple[str | None, str | None, dict[str, Any] | None]] = []
    for operation in transact_items:
        if len(operation) != 1 or next(iter(operation)) not in _WRITE_OPERATIONS:
            raise ValueError("Unsupported transaction operation")
        table, hash_value, range_value = _operation_key(self, operation)
        identity = (table.name, repr((hash_value, range_value)))
        if identity in seen:
            raise MultipleTransactionsException()
        seen.add(identity)
        keys.append((table, hash_value, range_value))
        body = next(iter(operation.values()))
        current = table.get_item(hash_value, range_value)
        condition = body.get("ConditionExpression")
        if condition is not None:
            check = get_filter_expression(
                condition,
                body.get("ExpressionAttributeNames"),
                body.get("ExpressionAttributeValues"),
            )
            if not check.expr(current):
                old = None
                if body.get("ReturnValuesOnConditionCheckFailure") == "ALL_OLD" and current:
                    old = current.to_json()["Attributes"]
                reasons.append(("ConditionalCheckFailed", CONDITION_FAILED, old))
                continue
        reasons.append((None, None, None))
    if any(code is not None for code, _message, _item in reasons):
        raise TransactionCanceledException(reasons)

    originals = [
        (table, hash_value, range_value, copy.deepcopy(table.get_item(hash_value, range_value)))
        for table, hash_value, range_value in keys
    ]
    try:
        for operation, (table, hash_value, range_value) in zip(transact_items, keys, strict=True):
            op_type, body = next(iter(operation.items()))
            names = body.get("ExpressionAttributeNames")
            values = body.get("ExpressionAttributeValues")
            if op_type == "Put":
                self.put_item(table.name, body["Item"])
            elif op_type == "Delete":
                table.delete_item(hash_value, range_value)
            elif op_type == "Update":
                self.update_item(
                    table.name,
                    body["Key"],
                    update_expression=body["UpdateExpression"],
                    expression_attribute_names=names,
                    expression_attribute_values=values,
                )
    except Exception:
        for table, hash_value, range_value, item in reversed(originals):
            _restore(table, hash_value, range_value, item)
        raise


_stock_query = Table.query


def partition_query(self: Table, hash_key: DynamoType | None, *args: Any, **kwargs: Any) -> Any:
    """Table.query over the queried partition only, when that gives the same answer."""
    index_name = kwargs.get("index_name", args[6] if len(args) > 6 else None)
    local = index_name is None or any(index.name == index_name for index in self.indexes)
    if hash_key is None or not local or not self.range_key_attr:
        return _stock_query(self, hash_key, *args, **kwargs)
    partition = list(self.items.get(hash_key, {}).values())
    # Requests reach moto one at a time (SerializedApp), so shadowing is not seen elsewhere.
    self.all_items = lambda: partition  # type: ignore[method-assign]
    try:
        return _stock_query(self, hash_key, *args, **kwargs)
    finally:
        del self.all_items


_stock_parse = EventTemplateParser.parse
#: What EventBridge gives a target without an input transformer, in its order.
EVENT_FIELDS = ("version", "id", "detail-type", "source", "account", "time", "region")


def whole_event(
    input_template: str | None, input_paths_map: dict[str, Any], event: Any
) -> dict[str, Any]:
    """The event a rule's target gets: with no input transformer, the whole event (moto's own
    "time" is epoch seconds here; its SQS target writes it as ISO 8601 after this)."""
    if input_template or input_paths_map:
        return dict(_stock_parse(input_template, input_paths_map, event))  # type: ignore[arg-type]
    whole = {name: event.get(name) for name in EVENT_FIELDS}
    whole["version"] = "0"
    whole["resources"] = list(event.get("resources") or [])
    whole["detail"] = event.get("detail")
    return whole


_installed = threading.Lock()


def install_fast_transactions() -> None:
    """Replace moto's TransactWriteItems, Query and rule targets' event with the ones above
    (idempotent)."""
    if moto.__version__ != MOTO_VERSION:
        raise RuntimeError(
            f"the local stack's DynamoDB transactions were written for moto {MOTO_VERSION}, "
            f"found {moto.__version__}: re-check infra/ratings_local/aws.py and its tests"
        )
    with _installed:
        DynamoDBBackend.transact_write_items = transact_write_items  # type: ignore[method-assign]
        Table.query = partition_query  # type: ignore[method-assign]
        EventTemplateParser.parse = staticmethod(whole_event)  # type: ignore[method-assign]


class _QuietHandler(MotoRequestHandler):
    """moto's request handler without a log line per request (the stack prints its own)."""

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        pass


class EmulatedAws:
    """moto's server on a local port, serialized, with fast transactions."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self._host = host
        self._port = port
        self._server: BaseWSGIServer | None = None
        self._thread: threading.Thread | None = None
        self._app: SerializedApp | None = None

    @contextlib.contextmanager
    def exclusive(self) -> Iterator[None]:
        """Hold off every request while the caller works on moto's state in-process
        (benchmarks filling a table directly, for instance)."""
        assert self._app is not None, "start() first"
        with self._app.lock:
            yield

    @property
    def faults(self) -> FaultPlan | None:
        return self._app.faults if self._app is not None else None

    @faults.setter
    def faults(self, plan: FaultPlan | None) -> None:
        """Inject transient DynamoDB failures from now on (None stops)."""
        assert self._app is not None, "start() first"
        self._app.faults = plan

    @property
    def bus_faults(self) -> BusFaults | None:
        return self._app.bus_faults if self._app is not None else None

    @bus_faults.setter
    def bus_faults(self, faults: BusFaults | None) -> None:
        """Inject EventBridge throttling into PutEvents from now on (None stops)."""
        assert self._app is not None, "start() first"
        self._app.bus_faults = faults

    @property
    def endpoint_url(self) -> str:
        assert self._server is not None, "start() first"
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> str:
        install_fast_transactions()
        app = SerializedApp(DomainDispatcherApplication(create_backend_app))
        self._app = app
        self._server = make_server(
            self._host, self._port, app, threaded=True, request_handler=_QuietHandler
        )
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.05,), name="emulated-aws", daemon=True
        )
        self._thread.start()
        # moto's backends live as long as the process: start from an empty AWS every time.
        reset = urllib.request.Request(f"{self.endpoint_url}/moto-api/reset", method="POST")
        with urllib.request.urlopen(reset, timeout=10):
            pass
        return self.endpoint_url

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = None
        self._thread = None
