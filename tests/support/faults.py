"""DynamoDB errors injected at a botocore client: the request never reaches the store (moto),
and the client raises exactly as if DynamoDB had answered the error, after botocore's own
retries gave up, so the adapter's and the handlers' error handling is what runs.

(The local stack injects its faults in the emulated AWS instead: ratings_local.faults.FaultPlan.)

Also an endpoint that never answers: a store that hangs, for the clients' timeouts.
"""

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from botocore.awsrequest import AWSResponse, HTTPHeaders
from botocore.client import BaseClient
from botocore.model import OperationModel

#: Where the answers made up here claim to come from.
URL = "https://dynamodb.us-east-1.amazonaws.com"
#: Which requests of an operation fail: a predicate on the request's parameters.
Matcher = Callable[[dict[str, Any]], bool]


@dataclass
class DynamoFaults:
    """Errors DynamoDB answers instead of the store, for the operations and requests chosen."""

    client: BaseClient
    #: The operation of every request answered with an error, in order.
    injected: list[str] = field(default_factory=list)

    def fail(
        self,
        operation: str,
        code: str,
        *,
        times: int | None = None,
        when: Matcher | None = None,
        cancellation_reasons: Sequence[str] | None = None,
    ) -> None:
        """Answer `operation` with error `code`: the next `times` requests (every one if
        None) that `when` matches. For TransactionCanceledException, `cancellation_reasons`
        gives one reason code per transaction item ("None": that item was fine)."""
        answered = 0

        def answer(model: OperationModel, params: dict[str, Any], **_: Any) -> Any:
            nonlocal answered
            if times is not None and answered >= times:
                return None
            if when is not None and not when(params):
                return None
            answered += 1
            self.injected.append(model.name)
            parsed: dict[str, Any] = {
                "Error": {"Code": code, "Message": f"injected {code}"},
                "ResponseMetadata": {"HTTPStatusCode": 400, "HTTPHeaders": {}},
            }
            if cancellation_reasons is not None:
                parsed["CancellationReasons"] = [
                    {"Code": reason} for reason in cancellation_reasons
                ]
            return AWSResponse(URL, 400, HTTPHeaders(), None), parsed

        self.client.meta.events.register(f"before-call.dynamodb.{operation}", answer)

    def unprocessed(self, *, times: int | None = None) -> None:
        """Answer the next `times` BatchGetItems (every one if None) as DynamoDB does when it
        throttles part of one: only the first half of the keys is read (none of a single key),
        the others come back as UnprocessedKeys in a successful answer."""
        answered = 0
        #: The keys held back from the request under way, by table; `whole`: all of them.
        held: dict[str, list[Any]] = {}
        whole = False

        def hold_back(params: dict[str, Any], **_: Any) -> None:
            nonlocal answered, whole
            held.clear()
            if times is not None and answered >= times:
                return
            answered += 1
            self.injected.append("BatchGetItem")
            ((table, request),) = params["RequestItems"].items()
            keys = request["Keys"]
            kept = len(keys) // 2
            held[table] = keys[kept:]
            whole = kept == 0
            if not whole:
                request["Keys"] = keys[:kept]

        def unread(**_: Any) -> Any:
            if not (held and whole):
                return None  # some keys kept: the store reads them
            parsed = {
                "Responses": {table: [] for table in held},
                "ResponseMetadata": {"HTTPStatusCode": 200, "HTTPHeaders": {}},
            }
            return AWSResponse(URL, 200, HTTPHeaders(), None), parsed

        def add_unread(parsed: dict[str, Any], **_: Any) -> None:
            unprocessed = parsed.setdefault("UnprocessedKeys", {})
            for table, keys in held.items():
                unprocessed[table] = {"Keys": keys, "ConsistentRead": True}
            held.clear()

        events = self.client.meta.events
        events.register("before-parameter-build.dynamodb.BatchGetItem", hold_back)
        events.register("before-call.dynamodb.BatchGetItem", unread)
        events.register("after-call.dynamodb.BatchGetItem", add_unread)

    def delay(self, operation: str, seconds: float) -> None:
        """Let the operation through, `seconds` late (a slow store)."""

        def wait(**_: Any) -> None:
            time.sleep(seconds)

        self.client.meta.events.register(f"before-call.dynamodb.{operation}", wait)


def mentions(text: str) -> Matcher:
    """A request whose parameters mention `text` (a key, an id)."""
    return lambda params: text in json.dumps(params, default=str)


@contextmanager
def silent_endpoint() -> Iterator[str]:
    """The URL of a server that accepts connections, reads what is sent and never answers:
    every request to it ends in the client's read timeout."""
    server = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []
    stopping = threading.Event()

    def accept() -> None:
        server.settimeout(0.2)
        while not stopping.is_set():
            try:
                connection, _ = server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            held.append(connection)

    thread = threading.Thread(target=accept, name="silent-endpoint", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.getsockname()[1]}"
    finally:
        stopping.set()
        thread.join(timeout=2)
        for connection in held:
            connection.close()
        server.close()
