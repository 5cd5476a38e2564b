"""Helpers of the hostile-input tests: a local stack with an API key, raw HTTP (any bytes,
any headers), api.md's error body, and a digest of everything the table holds."""

import hashlib
import http.client
import json
import uuid
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import boto3
import support.stack

from ratings_local.stack import LocalStack

#: The API key every hostile stack is started with (the local gateway checks it).
API_KEY = "hostile-test-key"
JSON = {"content-type": "application/json"}


@contextmanager
def running_stack(api_key: str | None = API_KEY) -> Iterator[LocalStack]:
    """A local stack on free ports that checks `api_key`."""
    with support.stack.running_stack(api_key=api_key) as local:
        yield local


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


def unique(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


def game(**fields: Any) -> dict[str, Any]:
    """A valid backgammon game (new ids each time), with `fields` replaced."""
    alice, bob = unique("alice"), unique("bob")
    body: dict[str, Any] = {
        "game_id": unique("g"),
        "players": [{"id": alice}, {"id": bob}],
        "winner": alice,
    }
    body.update(fields)
    return body


def table_digest(stack: LocalStack) -> tuple[int, str]:
    """How many items the ratings table holds, and a sha256 of all of them."""
    endpoints = stack.endpoints()
    client = boto3.client(
        "dynamodb",
        endpoint_url=endpoints["aws_endpoint_url"],
        region_name=endpoints["region"],
        aws_access_key_id="local",
        aws_secret_access_key="local",
    )
    items: list[str] = []
    for page in client.get_paginator("scan").paginate(TableName=endpoints["table"]):
        items.extend(json.dumps(item, sort_keys=True) for item in page.get("Items", []))
    items.sort()
    return len(items), hashlib.sha256("\n".join(items).encode()).hexdigest()
