"""Driving the Lambda handlers in the test process: each function's module loaded as Lambda
loads it, a context, the moto resources of template.yaml, the Api called the way API Gateway
calls it, and what Powertools printed."""

import json
import time
from dataclasses import dataclass
from functools import cache
from types import ModuleType
from typing import Any

from ratings import wiring
from ratings_local import environments
from support.faults import DynamoFaults
from support.games import recent_game
from support.lambda_events import rest_event
from support.template import ROOT


@cache
def load_function(folder: str) -> ModuleType:
    """functions/<folder>/app.py as a module, loaded once per test process (as in Lambda)."""
    path = ROOT / "functions" / folder / "app.py"
    return environments.load_handler_file(path, f"ratings_function_{folder}")


@dataclass
class LambdaContext(environments.LambdaContext):
    """The local stack's context, with the time left fixed by the test."""

    function_name: str = "test-function"
    timeout_seconds: int = 30
    remaining_millis: int = 30_000

    def get_remaining_time_in_millis(self) -> int:
        return self.remaining_millis


@dataclass
class Stack:
    """The deployed resources of template.yaml, on moto."""

    table: str
    sqs: Any
    games_url: str
    games_arn: str
    games_dlq_url: str
    podium_url: str
    podium_dlq_url: str
    jobs_url: str
    jobs_arn: str
    jobs_dlq_url: str
    #: The stack's event bus (its name).
    bus: str = ""

    def dynamo_faults(self) -> DynamoFaults:
        """Faults on the DynamoDB client of the service the handlers use."""
        return DynamoFaults(wiring.storage().connection.client)


@dataclass
class Reply:
    status: int
    body: Any
    headers: dict[str, str]
    raw: dict[str, Any]

    @property
    def error(self) -> dict[str, str]:
        """The error body of api.md; fails when the body has another shape."""
        assert set(self.body) == {"error"}, self.body
        assert set(self.body["error"]) == {"code", "message"}, self.body
        assert self.body["error"]["message"], self.body
        return dict(self.body["error"])


class Api:
    """Calls the Api function the way API Gateway does, and reads its answer."""

    def __init__(self, module: ModuleType) -> None:
        self.module = module

    def __call__(self, method: str, path: str, **request: Any) -> Reply:
        event = rest_event(method, path, **request)
        answer = self.module.lambda_handler(event, LambdaContext(function_name="api"))
        headers = dict((answer.get("headers") or {}).items())
        for name, values in (answer.get("multiValueHeaders") or {}).items():
            headers[name] = values[-1]
        body = answer["body"]
        is_json = headers.get("Content-Type", "").startswith("application/json")
        parsed = json.loads(body) if body and is_json else body
        return Reply(answer["statusCode"], parsed, headers, answer)


def timed_game_post(
    api: ModuleType, game_id: str, context: LambdaContext
) -> tuple[dict[str, Any], float]:
    """The Api function's raw answer to a new backgammon game `game_id` (a recent one) POSTed
    with `context`, and the seconds the invocation took."""
    event = rest_event("POST", "/v1/ladders/backgammon/games", body=recent_game(game_id))
    started = time.monotonic()
    answer = api.lambda_handler(event, context)
    return answer, time.monotonic() - started


def assert_retry_later(answer: dict[str, Any]) -> None:
    """A raw answer of the Api that asks the caller to come back: 503 retry_later, after 1 s."""
    assert answer["statusCode"] == 503
    assert json.loads(answer["body"])["error"]["code"] == "retry_later"
    assert answer["multiValueHeaders"]["Retry-After"] == ["1"]


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
