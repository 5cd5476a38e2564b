"""The shape of one warm request: which of the project's modules it walks through, and how.

The Api function's real handler (functions/api/app.py, loaded as Lambda loads it) serves a
ranked backgammon game between two players, to warm it (and to rate them both); then a second
game between the same two, now rated, is traced: `POST /v1/ladders/backgammon/games`, as API
Gateway (REST) sends it, against moto's in-process AWS. `sys.setprofile` sees every Python
call of that invocation. Only the calls whose callee is in the project (layers/, functions/,
infra/) count, each attributed to the nearest project frame below it on the stack (library
frames between the two, Powertools' or botocore's, are skipped); a call within one module is
not counted. Printed: the modules entered, the distinct module-to-module edges, the
cross-module calls, and the re-entries (a cross-module call into a module entered before: the
walk had left it and comes back; of those, how many find the module still on the stack below
the caller, A -> B -> A), then the modules and the edges (with their calls), sorted.

    python -m benchmarks.request_trace
"""

import contextlib
import io
import json
import os
import sys
import time
import uuid
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType, ModuleType
from typing import Any

from moto import mock_aws

from ratings.storage.dynamodb import DynamoStorage
from ratings_local.environments import load_handler_file
from ratings_local.http_api import proxy_event

ROOT = Path(__file__).resolve().parents[1]
#: The project's code, by folder, with the prefix of its modules' names.
PROJECT = {ROOT / "layers": "", ROOT / "infra": "", ROOT / "functions": "functions."}
PATH = "/v1/ladders/backgammon/games"
REGION = "us-east-1"


@dataclass
class CallShape:
    """What `trace_calls` saw: modules in the order first entered, and the calls between them."""

    modules: dict[str, None] = field(default_factory=dict)  # an ordered set
    edges: Counter[tuple[str, str]] = field(default_factory=Counter)
    #: Cross-module calls into a module entered before (the walk had left it, comes back).
    reentries: int = 0
    #: Of those, the ones into a module still on the stack below the caller (A -> B -> A).
    reentries_on_stack: int = 0

    @property
    def calls(self) -> int:
        """Cross-module calls: every call counted on an edge."""
        return sum(self.edges.values())


class ModuleNames:
    """The project module a code object's file belongs to (None: not the project's), cached."""

    def __init__(self, roots: Mapping[Path, str]) -> None:
        self.roots = {root.resolve(): prefix for root, prefix in roots.items()}
        self.known: dict[str, str | None] = {}

    def __call__(self, filename: str) -> str | None:
        if filename not in self.known:
            self.known[filename] = self.name(filename)
        return self.known[filename]

    def name(self, filename: str) -> str | None:
        if filename.startswith("<"):  # <frozen ...>, <string>: no file of the project
            return None
        path = Path(filename).resolve()
        for root, prefix in self.roots.items():
            if path.is_relative_to(root) and path.suffix == ".py":
                parts = path.relative_to(root).with_suffix("").parts
                return prefix + ".".join(parts)
        return None


def trace_calls[T](run: Callable[[], T], roots: Mapping[Path, str]) -> tuple[T, CallShape]:
    """Run `run()` under `sys.setprofile`, and the shape of its calls between project modules.

    `roots`: the project's folders, each with the prefix of its modules' names (a module's name
    is its path under the folder, dotted). Only this thread is traced.
    """
    module_of = ModuleNames(roots)
    shape = CallShape()

    def profile(frame: FrameType, event: str, _arg: Any) -> None:
        if event != "call":  # c_call and the returns: no Python frame entered
            return
        callee = module_of(frame.f_code.co_filename)
        if callee is None:
            return
        entered_before = callee in shape.modules
        shape.modules.setdefault(callee)
        below = []  # the project modules of the frames under this one, nearest first
        caller = frame.f_back
        while caller is not None:
            if (name := module_of(caller.f_code.co_filename)) is not None:
                below.append(name)
            caller = caller.f_back
        if not below or below[0] == callee:
            return
        shape.edges[below[0], callee] += 1
        if entered_before:
            shape.reentries += 1
            shape.reentries_on_stack += callee in below

    previous = sys.getprofile()
    sys.setprofile(profile)
    try:
        result = run()
    finally:
        sys.setprofile(previous)
    return result, shape


def load_api() -> ModuleType:
    """functions/api/app.py, loaded as Lambda loads a handler module."""
    return load_handler_file(ROOT / "functions" / "api" / "app.py")


def game_event(game_id: str) -> dict[str, Any]:
    """The REST API's proxy event of a new ranked game between alice and bob."""
    body = {
        "game_id": game_id,
        "players": [{"id": "alice"}, {"id": "bob"}],
        "winner": "alice",
        "cube": 2,
    }
    headers = {"content-type": "application/json", "x-api-key": "bench"}
    return proxy_event("POST", PATH, headers, json.dumps(body).encode(), "203.0.113.7")


def environment(table: str) -> dict[str, str]:
    """What template.yaml sets for the Api function (its Globals: it has none of its own)."""
    return {
        "AWS_DEFAULT_REGION": REGION,
        "AWS_REGION": REGION,
        "POWERTOOLS_SERVICE_NAME": "elo-ratings",
        "POWERTOOLS_METRICS_NAMESPACE": "EloRatings",
        "POWERTOOLS_LOG_LEVEL": "INFO",
        "RATINGS_TABLE": table,
        "RATINGS_LEADERBOARD_SHARDS": "4",
        "RATINGS_RETENTION_DAYS": "30",
        "RATINGS_EXACT_RANK_LIMIT": "1000",
        "RATINGS_FUNCTION_TIMEOUT": "10",
    }


@dataclass
class Context:
    """What Lambda's runtime hands the handler (the template's timeout, all of it left).

    Defined here, not taken from the local stack: its methods are the runtime's, not the
    project's, and must not show in the trace.
    """

    function_name: str = "api"
    memory_limit_in_mb: int = 512
    function_version: str = "$LATEST"
    invoked_function_arn: str = f"arn:aws:lambda:{REGION}:123456789012:function:api"
    log_group_name: str = "/aws/lambda/api"
    log_stream_name: str = "trace"
    aws_request_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    deadline: float = field(default_factory=lambda: time.monotonic() + 10)

    def get_remaining_time_in_millis(self) -> int:
        return max(0, int((self.deadline - time.monotonic()) * 1000))


def traced_request() -> CallShape:
    """One warm invocation of the Api's game route, traced (after one that warms it)."""
    # moto's AWS only: fake credentials, no endpoint or profile that could reach a real one.
    for name in ("AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_DYNAMODB", "AWS_PROFILE", "POWERTOOLS_DEV"):
        os.environ.pop(name, None)
    os.environ.update({"AWS_ACCESS_KEY_ID": "bench", "AWS_SECRET_ACCESS_KEY": "bench"})
    # What the function prints (its log lines, its metrics) is not the subject: kept aside.
    with mock_aws(), contextlib.redirect_stdout(io.StringIO()):
        table = f"trace-{uuid.uuid4().hex[:8]}"
        DynamoStorage(table, region=REGION).create_table()
        os.environ.update(environment(table))
        api = load_api()
        warm = api.lambda_handler(game_event("trace-warm"), Context())
        event, traced_context = game_event("trace-1"), Context()  # built before the trace
        answer, shape = trace_calls(lambda: api.lambda_handler(event, traced_context), PROJECT)
    for name, served in (("warm", warm), ("traced", answer)):
        if served["statusCode"] != 201 or not json.loads(served["body"])["ranked"]:
            raise SystemExit(f"the {name} game was not rated as ranked: {served}")
    return shape


def report(shape: CallShape) -> str:
    lines = [
        f"POST {PATH}, warm, two rated players:",
        f"  modules entered     {len(shape.modules)}",
        f"  edges               {len(shape.edges)}",
        f"  cross-module calls  {shape.calls}",
        f"  re-entries          {shape.reentries} (into a module entered before)",
        f"    of which on stack {shape.reentries_on_stack} (the module still below the caller)",
        "",
        "modules:",
        *(f"  {name}" for name in sorted(shape.modules)),
        "",
        "edges (calls):",
        *(f"  {a} -> {b} ({count})" for (a, b), count in sorted(shape.edges.items())),
    ]
    return "\n".join(lines)


def main() -> None:
    print(report(traced_request()))


if __name__ == "__main__":
    main()
