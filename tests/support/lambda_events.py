"""The events Lambda hands the functions, built the way the local stack builds them
(ratings_local) and dressed as the deployed API (stage `live`, template.yaml's resources)."""

import base64
import json
import uuid
from collections.abc import Mapping
from functools import cache
from typing import Any
from urllib.parse import urlencode

from ratings_local import stack
from ratings_local.http_api import ApiRoutes, proxy_event
from support.template import parsed_template

REGION = "us-east-1"

#: The headers API Gateway passes on for a game backend's request.
GATEWAY_HEADERS = {
    "Accept": "application/json",
    "Host": "abc123.execute-api.us-east-1.amazonaws.com",
    "User-Agent": "game-backend/1.0",
    "X-Amzn-Trace-Id": "Root=1-6749a1b0-0123456789abcdef01234567",
    "x-api-key": "test-api-key",
    "X-Forwarded-For": "203.0.113.7",
    "X-Forwarded-Port": "443",
    "X-Forwarded-Proto": "https",
}


@cache
def api_resources() -> tuple[str, ...]:
    """The API's resource paths, as the template declares them (/v1/ladders/{ladder}/...)."""
    paths = set()
    for resource in parsed_template()["Resources"].values():
        for event in resource.get("Properties", {}).get("Events", {}).values():
            if event["Type"] == "Api":
                paths.add(event["Properties"]["Path"])
    return tuple(sorted(paths))


@cache
def api_routes() -> ApiRoutes:
    return ApiRoutes(api_resources())


def rest_event(
    method: str,
    path: str,
    *,
    body: Any = None,
    raw_body: str | None = None,
    query: Mapping[str, str] | None = None,
    headers: Mapping[str, str] | None = None,
    base64_encoded: bool = False,
) -> dict[str, Any]:
    """An API Gateway REST API proxy event, as the stage `live` of template.yaml sends it:
    `path` as the client sent it (percent-encoded: `/v1/ladders/backgammon/players/google%3A1`),
    the resource it matched, and the path parameters decoded (`google:1`).

    `raw_body` is the body as sent (any text); `base64_encoded` encodes it, whatever it holds
    (API Gateway never does for this API, which has no binaryMediaTypes; the Api reads it).
    """
    if raw_body is None and body is not None:
        raw_body = json.dumps(body)
    all_headers = dict(GATEWAY_HEADERS)
    if raw_body is not None:
        all_headers["Content-Type"] = "application/json"
    all_headers.update(headers or {})
    raw_path = f"{path}?{urlencode(query)}" if query else path
    event = proxy_event(
        method, raw_path, all_headers, b"", "203.0.113.7", stage="live", routes=api_routes()
    )
    if raw_body is not None and base64_encoded:
        raw_body = base64.b64encode(raw_body.encode()).decode()
    event["body"], event["isBase64Encoded"] = raw_body, base64_encoded
    return event


def sqs_event(queue_arn: str, bodies: list[str]) -> dict[str, Any]:
    """An SQS event source mapping's event: one record per body, first delivery of each."""
    messages = [
        {
            "MessageId": str(uuid.uuid4()),
            "ReceiptHandle": f"AQEB{uuid.uuid4().hex}",
            "Body": body,
            "Attributes": {
                "ApproximateReceiveCount": "1",
                "SentTimestamp": str(1795953600000 + index),
                "SenderId": "AIDAIENQZJOLO23YVJ4VO",
                "ApproximateFirstReceiveTimestamp": str(1795953600100 + index),
            },
        }
        for index, body in enumerate(bodies)
    ]
    return {"Records": [stack.sqs_record(message, queue_arn, REGION) for message in messages]}


def scheduled_event() -> dict[str, Any]:
    """An EventBridge schedule's event, for the podium schedule."""
    return stack.scheduled_event("award-podiums-schedule", REGION)
