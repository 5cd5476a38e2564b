"""What a cold start does: it loads only what the request needs, and in Lambda it runs
without the garbage collector until the first answer.

Measured in a fresh interpreter, like a new Lambda container: no client is made and no AWS
SDK session exists until a request needs one, no tracing SDK is loaded at all (Lambda's
active tracing records the invocation; every log line carries its trace id), and nothing that
serves only documentation (pydantic, Powertools' validation and OpenAPI models) is ever loaded.
"""

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from support.lambda_events import rest_event, scheduled_event, sqs_event
from support.template import ROOT

from ratings_local.environments import FRESH_HANDLER

#: What every snippet starts with: the handler module loaded as Lambda loads it, and a context.
LOAD_HANDLER = "\nimport gc, importlib.util, json, sys" + FRESH_HANDLER
BASE_ENV = {
    "PATH": "",
    "POWERTOOLS_SERVICE_NAME": "elo-ratings",
    "POWERTOOLS_METRICS_DISABLED": "true",
    "AWS_DEFAULT_REGION": "us-east-1",
    "RATINGS_TABLE": "cold-start-test",
}
#: What Lambda sets that the code looks at; active tracing gives each invocation a trace id.
LAMBDA_ENV = {
    "AWS_LAMBDA_FUNCTION_NAME": "cold-start-test",
    "_X_AMZN_TRACE_ID": (
        "Root=1-67490000-0123456789abcdef01234567;Parent=0123456789abcdef;Sampled=1"
    ),
    "AWS_XRAY_DAEMON_ADDRESS": "127.0.0.1:2000",
}


def run_fresh(snippet: str, function: str, env: dict[str, str], *args: Any) -> Any:
    """Run LOAD_HANDLER + `snippet` for functions/<function>/app.py; its last line, as JSON."""
    path = ROOT / "functions" / function / "app.py"
    result = subprocess.run(
        [sys.executable, "-c", LOAD_HANDLER + snippet, str(path), *map(json.dumps, args)],
        capture_output=True,
        text=True,
        env={**BASE_ENV, **env},
        check=True,
    )
    return json.loads(result.stdout.strip().splitlines()[-1])


#: Loaded by the first request that needs them, never by the import.
DEFERRED = {
    "boto3",  # never: the SQS client comes from botocore directly
    "botocore.session",  # any AWS client
    "botocore.client",
    "pynamodb",  # the table, when the service is built
}
#: Documentation only: the Api validates with the service's parsers (see docs/performance.md).
NEVER = {
    "pydantic",
    "aws_lambda_powertools.event_handler.openapi.models",
    "aws_lambda_powertools.event_handler.openapi.params",
}
#: Not loaded even by a request that uses the table: tracing is Lambda's, without an SDK.
TRACING_SDKS = {"aws_xray_sdk", "opentelemetry"}


@pytest.mark.parametrize("function", ["api", "games_queue", "award_podiums"])
def test_importing_a_handler_defers_clients_and_heavy_modules(function: str) -> None:
    loaded = set(run_fresh("print(json.dumps(sorted(sys.modules)))", function, {}))

    assert loaded & (DEFERRED | NEVER | TRACING_SDKS) == set()


HANDLE_REQUESTS = """
events = json.loads(sys.argv[2])
answers = [module.lambda_handler(event, Context())["statusCode"] for event in events]
print(json.dumps({"answers": answers, "loaded": sorted(sys.modules)}))
"""


def test_answering_requests_loads_no_documentation_modules() -> None:
    events = [
        rest_event("GET", "/v1/ladders/chess/leaderboard"),
        rest_event("POST", "/v1/ladders/chess/games", body={"game_id": "g-1"}),
        rest_event("POST", "/v1/ladders/backgammon/games", raw_body="{bad"),
        rest_event("DELETE", "/v1/ladders"),
        rest_event("GET", "/swagger", query={"format": "json"}),
    ]

    report = run_fresh(HANDLE_REQUESTS, "api", {}, events)

    assert report["answers"] == [404, 404, 400, 405, 404]
    assert set(report["loaded"]) & NEVER == set()


INVOKE_ONCE = """
paused = not gc.isenabled()
try:
    module.lambda_handler(json.loads(sys.argv[2]), Context())
    outcome = "answered"
except Exception as error:
    outcome = type(error).__name__
print(json.dumps({"paused_by_import": paused, "collecting_after": gc.isenabled(),
                  "frozen": gc.get_freeze_count(), "outcome": outcome,
                  "storage_loaded": "pynamodb" in sys.modules}))
"""
#: One event per function that needs no AWS: a method the route lacks (no table), a record
#: that is not JSON (dead-lettering it fails without a DLQ: a batch item failure), and a run
#: without its queue's URL (the handler raises: the collector must resume however the
#: invocation ends).
FIRST_EVENTS = {
    "api": (rest_event("DELETE", "/v1/ladders"), "answered"),
    "games_queue": (sqs_event("arn:aws:sqs:us-east-1:123456789012:games", ["{"]), "answered"),
    "award_podiums": (scheduled_event(), "RuntimeError"),
}


@pytest.mark.parametrize("in_lambda", [True, False], ids=["in Lambda", "elsewhere"])
@pytest.mark.parametrize("function", sorted(FIRST_EVENTS))
def test_the_collector_waits_for_the_first_answer_in_lambda_only(
    function: str, in_lambda: bool
) -> None:
    event, expected_outcome = FIRST_EVENTS[function]
    env = {}
    if in_lambda:
        env["AWS_LAMBDA_FUNCTION_NAME"] = "cold-start-test"

    report = run_fresh(INVOKE_ONCE, function, env, event)

    assert report["outcome"] == expected_outcome
    assert report["paused_by_import"] is in_lambda
    assert report["collecting_after"] is True
    # In Lambda, what start-up built is frozen out of later collections; elsewhere not.
    assert (report["frozen"] > 10_000) is in_lambda
    if function == "api":  # a 405 needs no table: no AWS SDK
        assert report["storage_loaded"] is False


LOG_THEN_REPORT = """
module.lambda_handler(json.loads(sys.argv[2]), Context())
print(json.dumps(sorted(sys.modules)))
"""


def test_every_log_line_carries_the_invocations_trace_id() -> None:
    # A body over the limit is refused before any route, with a log line saying why.
    event = rest_event("POST", "/v1/ladders/backgammon/games", raw_body="x" * 70_000)
    env = {**LAMBDA_ENV, "LAMBDA_TASK_ROOT": str(ROOT / "functions" / "api")}
    path = ROOT / "functions" / "api" / "app.py"

    result = subprocess.run(
        [sys.executable, "-c", LOAD_HANDLER + LOG_THEN_REPORT, str(path), json.dumps(event)],
        capture_output=True,
        text=True,
        env={**BASE_ENV, "POWERTOOLS_LOG_LEVEL": "INFO", **env},
        check=True,
    )

    *log_lines, modules = result.stdout.strip().splitlines()
    records = [json.loads(line) for line in log_lines]
    assert records, "the invocation logged nothing"
    trace_ids = {record.get("xray_trace_id") for record in records}
    assert trace_ids == {"1-67490000-0123456789abcdef01234567"}  # the Root of _X_AMZN_TRACE_ID
    loaded = {name.split(".")[0] for name in json.loads(modules)}
    assert loaded & TRACING_SDKS == set()


@pytest.mark.parametrize("function", ["api", "games_queue", "refresh_standings"])
def test_a_ladders_file_that_cannot_work_fails_the_cold_start(
    tmp_path: Path, function: str
) -> None:
    path = tmp_path / "ladders.json"
    path.write_text('{"ladders": [{"id": "chess", "ruleset": "classic", "version": "2.0"}]}')
    handler = ROOT / "functions" / function / "app.py"

    result = subprocess.run(
        [sys.executable, "-c", LOAD_HANDLER + "print('imported')", str(handler)],
        capture_output=True,
        text=True,
        env={**BASE_ENV, "RATINGS_LADDERS_FILE": str(path)},
        check=False,
    )

    # The import fails, before any request: Lambda reports it as the init's error.
    assert result.returncode == 1
    assert "imported" not in result.stdout
    assert result.stderr.strip().splitlines()[-1] == (
        f'ratings.rules.ladder_config.LadderConfigError: {path}: ladder "chess" (ladders[0]): '
        'version must be one of 1.0 (classic\'s published versions), got "2.0"'
    )


def test_the_cold_start_serves_the_ladders_file_it_is_given(tmp_path: Path) -> None:
    path = tmp_path / "ladders.json"
    path.write_text('{"ladders": [{"id": "chess", "ruleset": "classic", "version": "1.0"}]}')
    snippet = "print(json.dumps(module.lambda_handler(json.loads(sys.argv[2]), Context())['body']))"

    # A ladder that is not in the file is unknown (404 naming the file's), with no table read.
    event = rest_event("GET", "/v1/ladders/backgammon/leaderboard")
    body = run_fresh(snippet, "api", {"RATINGS_LADDERS_FILE": str(path)}, event)

    assert json.loads(body)["error"]["message"].endswith("ladders: chess")
