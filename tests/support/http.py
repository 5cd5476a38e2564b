"""The local API over HTTP: a JSON client that retries like a well-behaved game backend, and
raw requests (any bytes, any headers) with api.md's error body checked."""

import http.client
import json
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

#: Statuses after which a real client sends the same body again.
RETRYABLE = frozenset({429, 500, 502, 503, 504})
#: The API key a keyed stack (`support.stack.keyed_stack`) is started with: the local gateway
#: checks it.
API_KEY = "hostile-test-key"
#: The moderation key the same stacks are started with (the moderation routes require it).
MODERATION_KEY = "hostile-moderation-key"
JSON = {"content-type": "application/json"}


@dataclass
class Client:
    """The local API over urllib: (status, JSON body or text) for any request; `submit` and
    `get` retry a retryable status, counting every status seen."""

    api_url: str
    api_key: str | None = None
    statuses: Counter[int] = field(default_factory=Counter)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def call(
        self, method: str, path: str, body: Any = None, headers: Mapping[str, str] | None = None
    ) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body).encode()
        headers = {"content-type": "application/json", **(headers or {})}
        if self.api_key is not None:
            headers["x-api-key"] = self.api_key
        request = urllib.request.Request(self.api_url + path, data, headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                status, raw = response.status, response.read()
        except urllib.error.HTTPError as error:
            status, raw = error.code, error.read()
        try:
            return status, json.loads(raw)
        except ValueError:
            return status, raw.decode(errors="replace")

    def submit(
        self, game: Mapping[str, Any], attempts: int = 30, ladder: str = "backgammon"
    ) -> tuple[int, Any, list[int]]:
        """POST a game until it is answered with something final; every status is counted."""
        seen: list[int] = []
        for attempt in range(attempts):
            status, body = self.call("POST", f"/v1/ladders/{ladder}/games", game)
            if isinstance(body, dict) and body.get("game_id", game["game_id"]) != game["game_id"]:
                raise AssertionError(f"{game['game_id']} was answered about {body['game_id']}")
            seen.append(status)
            with self._lock:
                self.statuses[status] += 1
            if status not in RETRYABLE:
                return status, body, seen
            time.sleep(min(0.5, 0.02 * 2**attempt))
        raise AssertionError(f"game {game.get('game_id')} still failing after {seen}")

    def get(self, path: str, attempts: int = 20) -> tuple[int, Any]:
        """GET, retried on a retryable status (faults may still be on)."""
        for attempt in range(attempts):
            status, body = self.call("GET", path)
            if status not in RETRYABLE:
                return status, body
            time.sleep(min(0.5, 0.02 * 2**attempt))
        raise AssertionError(f"GET {path} still failing")


@dataclass(frozen=True)
class Reply:
    status: int
    headers: Mapping[str, str]
    raw: bytes

    @property
    def json(self) -> Any:
        return json.loads(self.raw)

    @property
    def message(self) -> str:
        return str(self.json["error"]["message"])


def send(
    api_url: str,
    method: str,
    path: str,
    body: bytes | str | None = None,
    headers: Mapping[str, str] | None = None,
    *,
    api_key: str | None = API_KEY,
) -> Reply:
    """One HTTP request with exactly these bytes and headers (JSON content type by default)."""
    url = urlsplit(api_url)
    sent = dict(JSON if headers is None else headers)
    if api_key is not None:
        sent["x-api-key"] = api_key
    data = body.encode() if isinstance(body, str) else body
    connection = http.client.HTTPConnection(url.hostname or "127.0.0.1", url.port, timeout=30)
    try:
        connection.request(method, path, body=data, headers=sent)
        response = connection.getresponse()
        return Reply(
            response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
        )
    finally:
        connection.close()


def assert_error(reply: Reply, status: int | None = None, code: str | None = None) -> str:
    """api.md's error body: {"error": {"code", "message"}}, both non-empty strings.

    Returns the message, for checks that it names the field.
    """
    assert reply.status >= 400, (reply.status, reply.raw[:500])
    if status is not None:
        assert reply.status == status, (reply.status, reply.raw[:500])
    assert reply.headers.get("content-type", "").startswith("application/json"), reply.headers
    body = reply.json
    assert isinstance(body, dict), body
    assert set(body) == {"error"}, body
    error = body["error"]
    assert isinstance(error, dict), body
    assert set(error) == {"code", "message"}, body
    assert isinstance(error["code"], str), body
    assert error["code"], body
    assert isinstance(error["message"], str), body
    assert error["message"].strip(), body
    if code is not None:
        assert error["code"] == code, body
    return str(error["message"])
