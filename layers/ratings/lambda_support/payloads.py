"""Reading what callers send: JSON bodies of HTTP requests and of queue messages.

Bodies are size-checked before anything parses them, and parse errors become InvalidInput
naming the body, so a malformed body is a 400 (or a dead-lettered message), never a crash.
"""

import base64
import json
from collections.abc import Mapping
from typing import Any

from ratings.lambda_support.problems import (
    MAX_BODY_BYTES,
    PayloadTooLarge,
    Problem,
    problem_for,
    refused,
)
from ratings.service.errors import InvalidInput

_BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})
_JSON = "application/json"


def parse_json(text: str | bytes, where: str = "body") -> Any:
    """The JSON value in `text`; InvalidInput (field `where`) when it is not strict JSON."""
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except RecursionError:
        raise InvalidInput(where, f"{where} nests arrays or objects too deeply") from None
    except json.JSONDecodeError as error:
        raise InvalidInput(
            where,
            f"{where} is not valid JSON: {error.msg} (line {error.lineno} column {error.colno})",
        ) from None
    except ValueError as error:  # NaN, huge integers, bytes that are not UTF-8
        raise InvalidInput(where, f"{where} is not valid JSON: {error}") from None


def required(value: Any) -> Any:
    """A request's JSON body as parsed, which must be there: no body, an empty one or JSON
    null is InvalidInput."""
    if value is None:
        raise InvalidInput("body", "a JSON body is required")
    return value


def parse_json_object(text: str | bytes, where: str = "body") -> dict[str, Any]:
    value = parse_json(text, where)
    if not isinstance(value, dict):
        raise InvalidInput(where, f"{where} must be a JSON object")
    return value


def queued_object(body: str) -> dict[str, Any]:
    """A queue message's JSON object body.

    The 64 KiB limit of the HTTP API holds for messages too (SQS itself would take 256 KiB).
    """
    size = body_size(body)
    if size > MAX_BODY_BYTES:
        raise PayloadTooLarge(size)
    return parse_json_object(body, "message body")


def queued_game(body: str) -> tuple[str, dict[str, Any]]:
    """The ladder and the submit body of a games queue message (the submit body + "ladder")."""
    game = queued_object(body)
    ladder = game.pop("ladder", None)
    if not isinstance(ladder, str):
        raise InvalidInput("ladder", "ladder is required: a ladder id, like backgammon")
    return ladder, game


def body_size(text: str) -> int:
    """Bytes of `text` as UTF-8 (what the 64 KiB limit counts)."""
    return len(text.encode("utf-8", "surrogatepass"))


def refuse_request_body(event: Mapping[str, Any]) -> Problem | None:
    """Why an API Gateway (REST proxy) request's body is refused before parsing, if it is.

    Over 64 KiB is 413; a body that is not UTF-8, or that is sent as something other than
    JSON, is 400. Parsing the JSON is left to the route (see `parse_json`).
    """
    body = event.get("body")
    if not body:
        return None
    try:
        if event.get("isBase64Encoded"):
            raw = base64.b64decode(str(body), validate=True)
            size = len(raw)
            if size <= MAX_BODY_BYTES:
                raw.decode("utf-8")
        else:
            size = body_size(str(body))
    except ValueError:  # not base64, or not UTF-8
        return refused("invalid_request", "the body must be JSON encoded as UTF-8")
    if size > MAX_BODY_BYTES:
        return problem_for(PayloadTooLarge(size))
    method = str(event.get("httpMethod", "")).upper()
    content_type = _header(event, "content-type")
    if method in _BODY_METHODS and content_type and not content_type.startswith(_JSON):
        return refused(
            "invalid_request",
            f"Content-Type must be application/json, not {content_type[:100]!r}",
        )
    return None


def _header(event: Mapping[str, Any], name: str) -> str:
    headers = event.get("headers") or {}
    for key, value in headers.items():
        if key.lower() == name:
            return str(value).strip().lower()
    return ""


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def json_text(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))
