"""Cold start of each function, as a ratio to the floor measured in the same run.

Floor: a fresh Python process that imports boto3 and creates one DynamoDB client. Each
function: a fresh process that imports the handler module and serves one request against the
emulated AWS (moto's server, as the local stack runs it). Times are taken inside the process,
from its first statement to the answer, median of several processes. Target: at most 1.3x.

    python -m benchmarks.cold_start [--runs N]
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import boto3

from ratings.storage.dynamodb import DynamoStorage
from ratings_local.aws import EmulatedAws
from ratings_local.http_api import proxy_event
from ratings_local.stack import scheduled_event, sqs_record

ROOT = Path(__file__).resolve().parents[1]
TABLE = "cold-start"

FLOOR = """
import time
started = time.perf_counter()
import boto3
boto3.client("dynamodb")
print(time.perf_counter() - started)
"""

FUNCTION = """
import time
started = time.perf_counter()
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
elapsed = time.perf_counter() - started
ok = answer is None or not isinstance(answer, dict) or answer.get("statusCode", 200) < 500
print(elapsed if ok else -1)
"""


def run(code: str, env: dict[str, str], *args: str) -> float:
    output = (
        subprocess.run(
            [sys.executable, "-c", code, *args], capture_output=True, text=True, env=env, check=True
        )
        .stdout.strip()
        .splitlines()[-1]
    )
    seconds = float(output)
    if seconds < 0:
        raise RuntimeError(f"the function answered with an error for {args[1:]}")
    return seconds


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
    api = str(ROOT / "functions/api/app.py")
    games = str(ROOT / "functions/games_queue/app.py")
    podiums = str(ROOT / "functions/award_podiums/app.py")
    counter = iter(range(1_000_000))

    def game_body() -> dict[str, Any]:
        number = next(counter)
        return {
            "game_id": f"cold-{number}",
            "players": [{"id": f"a{number}"}, {"id": f"b{number}"}],
            "winner": f"a{number}",
        }

    def api_event(method: str, path: str, body: Any = None) -> str:
        raw = b"" if body is None else json.dumps(body).encode()
        headers = {"content-type": "application/json"}
        return json.dumps(proxy_event(method, path, headers, raw, "127.0.0.1"))

    def sqs_event() -> str:
        message = {
            "MessageId": f"m-{next(counter)}",
            "ReceiptHandle": "r",
            "Body": json.dumps({**game_body(), "ladder": "backgammon"}),
        }
        return json.dumps({"Records": [sqs_record(message, "arn:aws:sqs:x", "us-east-1")]})

    cases: dict[str, Callable[[], float]] = {
        "floor: import boto3 + DynamoDB client": lambda: run(FLOOR, env),
        "Api  GET /v1/ladders": lambda: run(FUNCTION, env, api, api_event("GET", "/v1/ladders")),
        "Api  GET player": lambda: run(
            FUNCTION, env, api, api_event("GET", "/v1/ladders/backgammon/players/alice")
        ),
        "Api  POST game": lambda: run(
            FUNCTION, env, api, api_event("POST", "/v1/ladders/backgammon/games", game_body())
        ),
        "GamesQueue  one message": lambda: run(FUNCTION, env, games, sqs_event()),
        "AwardPodiums  empty queue (*)": lambda: run(
            FUNCTION, env, podiums, json.dumps(scheduled_event("AwardPodiums", "us-east-1"))
        ),
    }
    medians: dict[str, float] = {}
    # Interleave the cases so a busy moment of the machine hits all of them alike.
    samples: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(args.runs):
        for name, case in cases.items():
            samples[name].append(case())
    aws.stop()
    for name, values in samples.items():
        medians[name] = statistics.median(values)
    floor = medians["floor: import boto3 + DynamoDB client"]
    print(f"Cold start, median of {args.runs} fresh processes (in-process time to the answer)")
    print(f"{'case':<40} {'ms':>8} {'x floor':>8}")
    for name, value in medians.items():
        print(f"{name:<40} {value * 1000:>8.1f} {value / floor:>8.2f}")
    print("target: each function at most 1.30x the floor")
    print("(*) includes the 1 s long poll that ends every drain: an empty answer means drained")


if __name__ == "__main__":
    main()
