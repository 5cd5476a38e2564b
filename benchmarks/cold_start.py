"""Cold start of each function, as a ratio to the floor measured in the same run.

Floor: a fresh Python process that imports boto3 and creates one DynamoDB client. Each
function: a fresh process that imports the handler module and serves one request against the
emulated AWS (moto's server, as the local stack runs it). Times are taken inside the process,
from its first statement to the answer, median of several processes. Target: at most 1.3x.

Every process runs in a Lambda-like environment (see `_lambda_env`): the function's code, the
layer and boto3 at this virtualenv's versions, none of the development packages, and the
variables Lambda sets that the code looks at. Tracing is on, as template.yaml deploys it (the
X-Ray SDK loads and patches botocore; its segments go over UDP to a daemon address where
nothing listens). Wall time is the figure; CPU time is printed beside it, and is the one
compared for AwardPodiums, whose run ends in a 1 s long poll that waits rather than works.

    python -m benchmarks.cold_start [--runs N]
"""

import argparse
import json
import os
import statistics
import subprocess
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, NamedTuple

import boto3

from benchmarks import _lambda_env
from ratings.storage.dynamodb import DynamoStorage
from ratings_local.aws import EmulatedAws
from ratings_local.http_api import proxy_event
from ratings_local.stack import scheduled_event, sqs_record

ROOT = Path(__file__).resolve().parents[1]
TABLE = "cold-start"

# Both snippets print "<wall seconds> <cpu seconds>", and fail if anything came from a
# site-packages directory (the environment is not the Lambda-like one).
FLOOR = """
import time
started, cpu = time.perf_counter(), time.process_time()
import boto3
boto3.client("dynamodb")
wall, cpu = time.perf_counter() - started, time.process_time() - cpu
import sys
leaked = [m for m in sys.modules.values() if "site-packages" in (getattr(m, "__file__", "") or "")]
assert not leaked, leaked[:3]
print(wall, cpu)
"""

FUNCTION = """
import time
started, cpu = time.perf_counter(), time.process_time()
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("app", sys.argv[1])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)

class Context:
    function_name = "cold-start"
    memory_limit_in_mb = 512
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:cold-start"
    aws_request_id = "cold-start"
    def get_remaining_time_in_millis(self):
        return 60_000

answer = module.lambda_handler(json.loads(sys.argv[2]), Context())
wall, cpu = time.perf_counter() - started, time.process_time() - cpu
leaked = [m for m in sys.modules.values() if "site-packages" in (getattr(m, "__file__", "") or "")]
assert not leaked, leaked[:3]
# Only a request that did its work counts: an error answer would be a cheaper one.
if isinstance(answer, dict) and answer.get("statusCode", 200) >= 400:
    sys.exit(f"the function answered {answer}")
if isinstance(answer, dict) and (answer.get("batchItemFailures") or answer.get("left")):
    sys.exit(f"the function did not finish its work: {answer}")
if isinstance(answer, dict) and answer.get("awarded") == 0:
    sys.exit(f"the run awarded no podium: {answer}")
print(wall, cpu)
"""


#: What Lambda sets besides LAMBDA_TASK_ROOT that the functions (or Powertools) look at.
LAMBDA_VARIABLES = {
    "AWS_LAMBDA_FUNCTION_NAME": "cold-start",
    "AWS_EXECUTION_ENV": "AWS_Lambda_python3.11",
    "_X_AMZN_TRACE_ID": (
        "Root=1-67490000-0123456789abcdef01234567;Parent=0123456789abcdef;Sampled=1"
    ),
    "AWS_XRAY_DAEMON_ADDRESS": "127.0.0.1:2000",
}


class Sample(NamedTuple):
    wall: float
    cpu: float


def run(code: str, env: dict[str, str], *args: str) -> Sample:
    done = subprocess.run(_lambda_env.command(code, *args), capture_output=True, text=True, env=env)
    if done.returncode != 0:
        raise RuntimeError(f"cold-start process failed for {args[:1]}: {done.stderr[-2000:]}")
    wall, cpu = done.stdout.strip().splitlines()[-1].split()
    return Sample(float(wall), float(cpu))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="fresh processes per case")
    args = parser.parse_args()
    os.environ.setdefault("AWS_ACCESS_KEY_ID", "bench")
    os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "bench")
    aws = EmulatedAws()
    url = aws.start()
    DynamoStorage(TABLE, endpoint_url=url).create_table()
    sqs = boto3.client("sqs", endpoint_url=url, region_name="us-east-1")
    queues = {
        name: sqs.create_queue(QueueName=name)["QueueUrl"]
        for name in ("games-dlq", "podiums", "podiums-dlq")
    }
    packages = _lambda_env.packages()
    env = {
        "PATH": os.environ.get("PATH", ""),
        "AWS_ACCESS_KEY_ID": "bench",
        "AWS_SECRET_ACCESS_KEY": "bench",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_REGION": "us-east-1",
        "AWS_ENDPOINT_URL": url,
        "RATINGS_TABLE": TABLE,
        "RATINGS_GAMES_DLQ_URL": queues["games-dlq"],
        "RATINGS_PODIUM_QUEUE_URL": queues["podiums"],
        "RATINGS_PODIUM_DLQ_URL": queues["podiums-dlq"],
        "RATINGS_DRAIN_SECONDS": "5",
        "POWERTOOLS_SERVICE_NAME": "elo-ratings",
        "POWERTOOLS_METRICS_NAMESPACE": "EloRatings",
        "POWERTOOLS_METRICS_DISABLED": "true",
        "POWERTOOLS_LOG_LEVEL": "WARNING",
        "PYDANTIC_DISABLE_PLUGINS": "__all__",  # as template.yaml sets it
    }
    functions = {
        name: ROOT / "functions" / name for name in ("api", "games_queue", "award_podiums")
    }
    counter = iter(range(1_000_000))

    def in_lambda(function: str | None) -> dict[str, str]:
        if function is None:  # the floor
            return {**env, "PYTHONPATH": _lambda_env.search_path(None, packages)}
        directory = functions[function]
        return {
            **env,
            **LAMBDA_VARIABLES,
            "LAMBDA_TASK_ROOT": str(directory),
            "PYTHONPATH": _lambda_env.search_path(directory, packages),
        }

    def serve(function: str, event: dict[str, Any]) -> Sample:
        handler = str(functions[function] / "app.py")
        return run(FUNCTION, in_lambda(function), handler, json.dumps(event))

    def game_body() -> dict[str, Any]:
        number = next(counter)
        return {
            "game_id": f"cold-{number}",
            "players": [{"id": f"a{number}"}, {"id": f"b{number}"}],
            "winner": f"a{number}",
        }

    def api_event(method: str, path: str, body: Any = None) -> dict[str, Any]:
        raw = b"" if body is None else json.dumps(body).encode()
        return proxy_event(method, path, {"content-type": "application/json"}, raw, "127.0.0.1")

    def sqs_event() -> dict[str, Any]:
        message = {
            "MessageId": f"m-{next(counter)}",
            "ReceiptHandle": "r",
            "Body": json.dumps({**game_body(), "ladder": "backgammon"}),
        }
        return {"Records": [sqs_record(message, "arn:aws:sqs:x", "us-east-1")]}

    def podium_run() -> Sample:
        number = next(counter)
        podium = {
            "tournament_id": f"cold-{number}",
            "ladder": "backgammon",
            "finished_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "public": True,
            "podium": [{"place": 1, "player_id": f"p{number}"}],
        }
        sqs.send_message(QueueUrl=queues["podiums"], MessageBody=json.dumps(podium))
        return serve("award_podiums", scheduled_event("AwardPodiums", "us-east-1"))

    floor_name = "floor: import boto3 + DynamoDB client"
    podium_name = "AwardPodiums  one podium (*)"
    cases: dict[str, Callable[[], Sample]] = {
        floor_name: lambda: run(FLOOR, in_lambda(None)),
        "Api  GET /v1/ladders": lambda: serve("api", api_event("GET", "/v1/ladders")),
        "Api  GET player": lambda: serve(
            "api", api_event("GET", "/v1/ladders/backgammon/players/alice")
        ),
        "Api  POST game": lambda: serve(
            "api", api_event("POST", "/v1/ladders/backgammon/games", game_body())
        ),
        "GamesQueue  one message": lambda: serve("games_queue", sqs_event()),
        podium_name: podium_run,
    }
    # One round first, not counted: bytecode caches are written and the disk cache is warm.
    for case in cases.values():
        case()
    # Interleave the cases so a busy moment of the machine hits all of them alike.
    samples: dict[str, list[Sample]] = {name: [] for name in cases}
    for _ in range(args.runs):
        for name, case in cases.items():
            samples[name].append(case())
    aws.stop()
    wall = {name: statistics.median(s.wall for s in values) for name, values in samples.items()}
    cpu = {name: statistics.median(s.cpu for s in values) for name, values in samples.items()}
    print(f"Cold start, median of {args.runs} fresh processes (in-process time to the answer)")
    print(f"{'case':<38} {'wall ms':>8} {'x floor':>8} {'cpu ms':>8} {'x floor':>8}")
    for name in cases:
        print(
            f"{name:<38} {wall[name] * 1000:>8.1f} {wall[name] / wall[floor_name]:>8.2f}"
            f" {cpu[name] * 1000:>8.1f} {cpu[name] / cpu[floor_name]:>8.2f}"
        )
    print("target: each function at most 1.30x the floor (wall time)")
    print(
        "(*) compared on CPU time: the run ends with a 1 s long poll (an empty answer means"
        " drained), which is waiting, not start-up cost"
    )


if __name__ == "__main__":
    main()
