"""Helpers of the handler tests: the handler modules, realistic Lambda events and context,
the AWS resources of template.yaml on moto, and DynamoDB faults injected at the client.
"""

import base64
import importlib.util
import json
import re
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any

from botocore.awsrequest import AWSResponse
from botocore.client import BaseClient
from botocore.compat import HTTPHeaders
from botocore.model import OperationModel
from samtranslator.yaml_helper import yaml_parse

ROOT = Path(__file__).resolve().parents[2]
REGION = "us-east-1"
ACCOUNT = "123456789012"
NOW = datetime.now(UTC)


# The functions ----------------------------------------------------------------------------


@cache
def load_function(folder: str) -> ModuleType:
    """functions/<folder>/app.py as a module, loaded once per test process (as in Lambda)."""
    path = ROOT / "functions" / folder / "app.py"
    spec = importlib.util.spec_from_file_location(f"ratings_function_{folder}", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@cache
def template() -> dict[str, Any]:
    parsed: dict[str, Any] = yaml_parse((ROOT / "template.yaml").read_text())
    return parsed


@cache
def api_resources() -> tuple[str, ...]:
    """The API's resource paths, as the template declares them (/v1/ladders/{ladder}/...)."""
    paths = set()
    for resource in template()["Resources"].values():
        for event in resource.get("Properties", {}).get("Events", {}).values():
            if event["Type"] == "Api":
                paths.add(event["Properties"]["Path"])
    return tuple(sorted(paths))


@dataclass
class LambdaContext:
    """What the Lambda runtime passes as context (the parts Powertools reads)."""

    function_name: str = "test-function"
    function_version: str = "$LATEST"
    memory_limit_in_mb: int = 512
    aws_request_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    remaining_millis: int = 30_000

    @property
    def invoked_function_arn(self) -> str:
        return f"arn:aws:lambda:{REGION}:{ACCOUNT}:function:{self.function_name}"

    @property
    def log_group_name(self) -> str:
        return f"/aws/lambda/{self.function_name}"

    @property
    def log_stream_name(self) -> str:
        return "2026/11/29/[$LATEST]0123456789abcdef"

    def get_remaining_time_in_millis(self) -> int:
        return self.remaining_millis


# Events -----------------------------------------------------------------------------------


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
    """An API Gateway REST API proxy event, as the stage `live` of template.yaml sends it."""
    resource, path_parameters = _match_resource(path)
    if raw_body is None and body is not None:
        raw_body = json.dumps(body)
    if raw_body is not None and base64_encoded:
        raw_body = base64.b64encode(raw_body.encode()).decode()
    all_headers = {
        "Accept": "application/json",
        "Host": "abc123.execute-api.us-east-1.amazonaws.com",
        "User-Agent": "game-backend/1.0",
        "X-Amzn-Trace-Id": "Root=1-6749a1b0-0123456789abcdef01234567",
        "x-api-key": "test-api-key",
        "X-Forwarded-For": "203.0.113.7",
        "X-Forwarded-Port": "443",
        "X-Forwarded-Proto": "https",
    }
    if raw_body is not None:
        all_headers["Content-Type"] = "application/json"
    all_headers.update(headers or {})
    request_id = str(uuid.uuid4())
    return {
        "resource": resource,
        "path": path,
        "httpMethod": method,
        "headers": all_headers,
        "multiValueHeaders": {name: [value] for name, value in all_headers.items()},
        "queryStringParameters": dict(query) if query else None,
        "multiValueQueryStringParameters": (
            {name: [value] for name, value in query.items()} if query else None
        ),
        "pathParameters": path_parameters or None,
        "stageVariables": None,
        "requestContext": {
            "resourceId": "abc123",
            "resourcePath": resource,
            "httpMethod": method,
            "extendedRequestId": "Xyz0AbCdIAMEbcd=",
            "requestTime": "29/Nov/2026:12:00:00 +0000",
            "path": f"/live{path}",
            "accountId": ACCOUNT,
            "protocol": "HTTP/1.1",
            "stage": "live",
            "domainPrefix": "abc123",
            "requestTimeEpoch": 1795953600000,
            "requestId": request_id,
            "identity": {
                "apiKey": "test-api-key",
                "apiKeyId": "k1a2b3c4d5",
                "sourceIp": "203.0.113.7",
                "userAgent": "game-backend/1.0",
                "accountId": None,
                "caller": None,
                "user": None,
                "userArn": None,
            },
            "domainName": "abc123.execute-api.us-east-1.amazonaws.com",
            "apiId": "abc123",
        },
        "body": raw_body,
        "isBase64Encoded": base64_encoded,
    }


def _match_resource(path: str) -> tuple[str, dict[str, str]]:
    for resource in api_resources():
        pattern = re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>[^/]+)", re.escape(resource))
        match = re.fullmatch(pattern, path)
        if match:
            return resource, match.groupdict()
    # No such route: API Gateway answers it itself in the cloud (a 404 gateway response); the
    # local stack hands it to the function, whose own 404 is under test.
    return "/{proxy+}", {"proxy": path.lstrip("/")}


def sqs_event(queue_arn: str, bodies: list[str]) -> dict[str, Any]:
    """An SQS event source mapping's event: one record per body."""
    records = []
    for index, body in enumerate(bodies):
        records.append(
            {
                "messageId": str(uuid.uuid4()),
                "receiptHandle": f"AQEB{uuid.uuid4().hex}",
                "body": body,
                "attributes": {
                    "ApproximateReceiveCount": "1",
                    "SentTimestamp": str(1795953600000 + index),
                    "SenderId": "AIDAIENQZJOLO23YVJ4VO",
                    "ApproximateFirstReceiveTimestamp": str(1795953600100 + index),
                },
                "messageAttributes": {},
                "md5OfBody": "098f6bcd4621d373cade4e832627b4f6",
                "eventSource": "aws:sqs",
                "eventSourceARN": queue_arn,
                "awsRegion": REGION,
            }
        )
    return {"Records": records}


def scheduled_event() -> dict[str, Any]:
    """An EventBridge schedule's event."""
    return {
        "version": "0",
        "id": str(uuid.uuid4()),
        "detail-type": "Scheduled Event",
        "source": "aws.events",
        "account": ACCOUNT,
        "time": "2026-11-29T12:00:00Z",
        "region": REGION,
        "resources": [f"arn:aws:events:{REGION}:{ACCOUNT}:rule/award-podiums-schedule"],
        "detail": {},
    }


# Bodies -----------------------------------------------------------------------------------


def at(delta: timedelta = timedelta(0)) -> str:
    return (NOW.replace(microsecond=0) + delta).isoformat().replace("+00:00", "Z")


#: Marker for "the first player wins" (not a valid id, so it never collides with one).
FIRST = "<first>"


def game(game_id: str, *players: str, winner: str | None = FIRST, **extra: Any) -> dict[str, Any]:
    """A submit body, played ten minutes ago; the first player wins unless told otherwise."""
    first, second = players or ("alice", "bob")
    return {
        "game_id": game_id,
        "played_at": at(-timedelta(minutes=10)),
        "players": [{"id": first}, {"id": second}],
        "winner": first if winner == FIRST else winner,
        **extra,
    }


def podium(tournament_id: str, *players: str, public: bool = True) -> dict[str, Any]:
    return {
        "tournament_id": tournament_id,
        "ladder": "backgammon",
        "finished_at": at(-timedelta(hours=1)),
        "public": public,
        "podium": [
            {"place": place, "player_id": player}
            for place, player in enumerate(players or ("alice", "bob", "carol"), start=1)
        ],
    }


# Outputs ----------------------------------------------------------------------------------


def json_lines(text: str) -> list[dict[str, Any]]:
    """The JSON lines Powertools printed (logs and EMF metrics), in order."""
    lines = []
    for line in text.splitlines():
        if line.startswith("{"):
            lines.append(json.loads(line))
    return lines


def metric_values(text: str) -> dict[str, float]:
    """Sum of every EMF metric printed, by name (with `name[dimension=value]` for extra ones)."""
    totals: dict[str, float] = {}
    for record in json_lines(text):
        meta = record.get("_aws")
        if not meta:
            continue
        for directive in meta["CloudWatchMetrics"]:
            dimensions = [name for group in directive["Dimensions"] for name in group]
            extra = [f"{name}={record[name]}" for name in dimensions if name != "service"]
            for metric in directive["Metrics"]:
                name = metric["Name"] + (f"[{','.join(extra)}]" if extra else "")
                value = record[metric["Name"]]
                values = value if isinstance(value, list) else [value]
                totals[name] = totals.get(name, 0) + sum(values)
    return totals


# Faults -----------------------------------------------------------------------------------

Matcher = Callable[[dict[str, Any]], bool]


@dataclass
class DynamoFaults:
    """Errors DynamoDB answers instead of moto, for the operations and requests chosen.

    Registered on the client the service uses (botocore's `before-call` event): the request
    never reaches moto, the client raises as for a real error answer.
    """

    client: BaseClient
    injected: list[str] = field(default_factory=list)

    def fail(self, operation: str, code: str, *, when: Matcher | None = None) -> None:
        def answer(model: OperationModel, params: dict[str, Any], **_: Any) -> Any:
            if when is not None and not when(params):
                return None
            self.injected.append(model.name)
            url = f"https://dynamodb.{REGION}.amazonaws.com"
            response = AWSResponse(url, 400, HTTPHeaders(), None)
            parsed = {
                "Error": {"Code": code, "Message": f"injected {code}"},
                "ResponseMetadata": {"HTTPStatusCode": 400},
            }
            return response, parsed

        self.client.meta.events.register(f"before-call.dynamodb.{operation}", answer)

    def delay(self, operation: str, seconds: float) -> None:
        """Let the operation through, `seconds` late (a slow store)."""

        def wait(**_: Any) -> None:
            time.sleep(seconds)

        self.client.meta.events.register(f"before-call.dynamodb.{operation}", wait)


def mentions(text: str) -> Matcher:
    """A request whose parameters mention `text` (a key, an id)."""
    return lambda params: text in json.dumps(params, default=str)


def drain_queue(sqs: Any, url: str) -> Iterator[dict[str, Any]]:
    """Every message now in the queue, with its message attributes (received, not deleted)."""
    while True:
        response = sqs.receive_message(
            QueueUrl=url, MaxNumberOfMessages=10, MessageAttributeNames=["All"]
        )
        messages = response.get("Messages", [])
        if not messages:
            return
        yield from messages
