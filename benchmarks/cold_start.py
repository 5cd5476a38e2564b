"""Cold start of each function as built, as a ratio to the floor measured in the same run.

What runs is what ships: a read-only copy of `.aws-sam/build` (`make build`; see
`_lambda_env`), with its bytecode, in `python -S -B` with Lambda's search path (the function's
folder, the layer's python/, the runtime's boto3), Lambda's variables and the template's, and
tracing as deployed (active tracing: a trace header, no tracing SDK in the functions).

Floor: a fresh process that imports boto3, creates a DynamoDB client and makes one request,
with the same search path. Each case: a fresh process that imports the handler module and
serves one real event against the emulated AWS (moto's server, as the local stack runs it).
Times are taken inside the process, from its first statement to the answer; cases and floor
are interleaved, median of --runs processes. Targets: Api POST game and Moderation POST
erasure (the writes) at most 1.35x the floor, every other case at most 1.3x, compared on the
process's CPU time: on a shared machine the wall time mostly measures waiting for a core (and
AwardPodiums' run ends in a 1 s long poll, an empty answer meaning drained). The wall-time
ratio is printed beside it.

    python -m benchmarks.cold_start [--runs N] [--build DIR] [--measures] [--tracing]
        [--declarations] [--profile]

--measures: what each cold-start measure of the code is worth (the case with it, as built,
against the same case with it taken out). --tracing: what a tracing SDK would add (the X-Ray
SDK through Powertools' Tracer; OpenTelemetry's SDK, OTLP exporter and botocore
instrumentation), installed beside the layer like another layer. --declarations: what
msgspec would add as the way to declare bodies and answers (installed the same way; the Api's
game bodies and a game's result declared as its Structs, the request decoded and the answer
written with them), against the service's own declarations as built.
"""

import argparse
import json
import os
import statistics
import subprocess
import tempfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any, NamedTuple

import boto3

from benchmarks import _lambda_env
from ratings.lambda_support.job_queue import SqsJobQueue
from ratings.rules import DEFAULT_LADDERS
from ratings.service.facade import RatingService
from ratings.storage.dynamodb import DynamoStorage
from ratings_local.aws import EmulatedAws
from ratings_local.environments import FRESH_HANDLER
from ratings_local.http_api import proxy_event
from ratings_local.stack import scheduled_event, sqs_record

TABLE = "cold-start"

#: Every snippet's checks once its answer is timed: nothing came from a site-packages
#: directory, and every module loaded from the artifact had its shipped bytecode.
CHECKS = """
def check(artifact):
    import importlib.util, os
    for m in list(sys.modules.values()):
        path = getattr(m, "__file__", None) or ""
        assert "site-packages" not in path, path
        if path.startswith(artifact) and path.endswith(".py"):
            assert os.path.exists(importlib.util.cache_from_source(path)), f"no bytecode: {path}"
"""

FLOOR = (
    """
import time
started, cpu = time.perf_counter(), time.process_time()
import sys
import boto3
client = boto3.client("dynamodb")
client.get_item(TableName=sys.argv[1], Key={"pk": {"S": "floor"}, "sk": {"S": "floor"}})
wall, cpu = time.perf_counter() - started, time.process_time() - cpu
"""
    + CHECKS
    + """
check(sys.argv[2])
print(wall, cpu, flush=True)
"""
)

FUNCTION = (
    """
import time
started, cpu = time.perf_counter(), time.process_time()
import importlib.util, json, sys
prelude = {}
exec(sys.argv[3], prelude)  # a variant's change, if any (see Variant)
"""
    + FRESH_HANDLER
    + """
handler = prelude.get("wrap", lambda handler: handler)(module.lambda_handler)
answer = handler(json.loads(sys.argv[2]), Context())
wall, cpu = time.perf_counter() - started, time.process_time() - cpu
"""
    + CHECKS
    + """
check(sys.argv[4])
# Only a request that did its work counts: an error answer would be a cheaper one.
if isinstance(answer, dict) and answer.get("statusCode", 200) >= 400:
    sys.exit(f"the function answered {answer}")
if isinstance(answer, dict) and (answer.get("batchItemFailures") or answer.get("left")):
    sys.exit(f"the function did not finish its work: {answer}")
if isinstance(answer, dict) and answer.get("awarded") == 0:
    sys.exit(f"the run awarded no podium: {answer}")
print(wall, cpu, flush=True)
import os
os._exit(0)  # no exit handlers: a tracing exporter would retry against nothing
"""
)


class Sample(NamedTuple):
    wall: float
    cpu: float


@dataclass(frozen=True)
class Variant:
    """A change to how a case runs: code run before the handler loads, variables, extras.

    The prelude may define `wrap(handler)`, which the snippet applies to the entry point.
    """

    prelude: str = ""
    env: Mapping[str, str | None] = field(default_factory=dict)  # None: unset
    extras: Sequence[str] = ()


AS_BUILT = Variant()


@dataclass(frozen=True)
class Case:
    name: str
    target: float
    run: Callable[[Variant], Sample]


@dataclass(frozen=True)
class Measure:
    """A cold-start measure of the code, and the cases it is for: `without` takes it out."""

    name: str
    cases: Sequence[str]
    without: Variant


POST_GAME, GET_PLAYER, LADDERS = "Api  POST game", "Api  GET player", "Api  GET /v1/ladders"
GAMES, PODIUM = "GamesQueue  one message", "AwardPodiums  one podium"
ERASURE, WORKER = "Moderation  POST erasure", "ModerationWorker  one job step"

MEASURES = [
    Measure(
        "collector paused until the first answer (invocation.py)",
        [POST_GAME, GET_PLAYER, GAMES, PODIUM],
        Variant(
            prelude="from ratings.lambda_support import invocation\n"
            "invocation.pause_collector = lambda env=None: False\n"
        ),
    ),
    Measure(
        "SQS client from the table client's botocore session (wiring.sqs_client)",
        [PODIUM],
        Variant(
            prelude="import functools\nfrom ratings import wiring\n"
            "@functools.cache\n"
            "def sqs_client():\n"
            "    import boto3\n"
            "    config = wiring.config()\n"
            "    return boto3.client('sqs', region_name=config.region,"
            " endpoint_url=config.sqs_endpoint_url)\n"
            "wiring.sqs_client = sqs_client\n"
        ),
    ),
    Measure(
        "storage (botocore, pynamodb) imported on first use (wiring.build_storage)",
        [LADDERS],
        Variant(prelude="import ratings.storage.dynamodb\n"),
    ),
]

#: Profiles a case from before its handler loads to its answer (--profile).
PROFILE = """
import cProfile, io, os, pstats
_profile = cProfile.Profile()
_profile.enable()
def wrap(handler):
    def profiled(event, context):
        try:
            return handler(event, context)
        finally:
            _profile.disable()
            out = io.StringIO()
            pstats.Stats(_profile, stream=out).sort_stats("cumulative").print_stats(40)
            with open(os.environ["COLD_START_PROFILE"], "w") as report:
                report.write(out.getvalue())
    return profiled
"""

#: What a tracing SDK would add, installed beside the layer (requirements, then the variant).
TRACING_EXTRAS = {
    "xray": ["aws-xray-sdk==2.15.0"],
    "otel": [
        "opentelemetry-sdk==1.45.2",
        "opentelemetry-exporter-otlp-proto-http==1.45.2",
        "opentelemetry-instrumentation-botocore==0.66b2",
    ],
}
TRACING_OPTIONS = {
    "X-Ray SDK (Powertools Tracer, botocore patched)": Variant(
        prelude="from aws_lambda_powertools import Tracer\n"
        "tracer = Tracer(patch_modules=['botocore'])\n"
        "wrap = tracer.capture_lambda_handler\n",
        env={"POWERTOOLS_TRACER_CAPTURE_RESPONSE": "false"},
        extras=["xray"],
    ),
    "OpenTelemetry (SDK, OTLP/HTTP exporter, botocore)": Variant(
        prelude="from opentelemetry import trace\n"
        "from opentelemetry.sdk.trace import TracerProvider\n"
        "from opentelemetry.sdk.trace.export import BatchSpanProcessor\n"
        "from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter\n"
        "from opentelemetry.instrumentation.botocore import BotocoreInstrumentor\n"
        "provider = TracerProvider()\n"
        "provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter("
        "endpoint='http://127.0.0.1:4318/v1/traces')))\n"
        "trace.set_tracer_provider(provider)\n"
        "BotocoreInstrumentor().instrument()\n"
        "tracer = trace.get_tracer('elo-ratings')\n"
        "def wrap(handler):\n"
        "    def traced(event, context):\n"
        "        with tracer.start_as_current_span('lambda_handler'):\n"
        "            return handler(event, context)\n"
        "    return traced\n",
        extras=["otel"],
    ),
}

#: msgspec as the declaration library (docs/performance.md, "Declaring bodies and answers"):
#: the game bodies of the three rulesets and a game's result as Structs, decoders made, the
#: request's body decoded and the answer read and written again with them.
DECLARATION_EXTRAS = {"msgspec": ["msgspec==0.23.0"]}
MSGSPEC_PRELUDE = """
from datetime import datetime
from typing import Annotated, Literal
import msgspec, msgspec.json
Id = Annotated[str, msgspec.Meta(max_length=128, pattern='^[A-Za-z0-9._:-]{1,128}$')]
Count = Annotated[int, msgspec.Meta(ge=0, le=1000)]
class Closed(msgspec.Struct, forbid_unknown_fields=True, kw_only=True):
    pass
class Player(Closed, kw_only=True):
    id: Id
    network: Annotated[str, msgspec.Meta(max_length=256)] | None = None
    bot: bool = False
class Stats(Closed, kw_only=True):
    bad_moves: Count = 0
    rounds_won_16: Count = 0
    rounds_won_24: Count = 0
    rounds_won_4_last: Count = 0
class SedmaPlayer(Player, kw_only=True):
    stats: Stats = msgspec.field(default_factory=Stats)
class Game(Closed, kw_only=True):
    game_id: Id
    played_at: Annotated[datetime, msgspec.Meta(tz=True)] | None = None
    players: Annotated[list[Player], msgspec.Meta(min_length=2, max_length=2)]
    winner: Id | None
    mode: Literal['ranked', 'unranked'] = 'ranked'
class Gammon42Game(Game, kw_only=True):
    cube: Literal[1, 2, 4, 8, 16, 32, 64] = 1
    ending: Literal['normal', 'resign', 'disconnect', 'timeout'] | None = None
    points: Literal[1, 2, 3] | None = None
class SedmaGame(Game, kw_only=True):
    players: Annotated[list[SedmaPlayer], msgspec.Meta(min_length=2, max_length=2)]
class Outcome(msgspec.Struct, kw_only=True):
    rating_before: int
    rating_after: int
    delta: int
    explain: dict[str, float | int | str] | None
class PlayerResult(Outcome, kw_only=True):
    id: Id
    bot: bool
    submitted_id: Id | msgspec.UnsetType = msgspec.UNSET
class GameResult(msgspec.Struct, kw_only=True):
    game_id: Id | None
    ladder: Id
    played_at: datetime
    ruleset: str
    ruleset_version: str
    ranked: bool
    unranked_reason: str | None
    winner: Id | None
    mode: Literal['ranked', 'unranked']
    players: tuple[PlayerResult, PlayerResult]
    cube: int = 1
    ending: str | None = None
    points: int | None = None
bodies = {game: msgspec.json.Decoder(game) for game in (Gammon42Game, SedmaGame, Game)}
results = msgspec.json.Decoder(GameResult)
def wrap(handler):
    def declared(event, context):
        bodies[Gammon42Game].decode(event["body"])
        answer = handler(event, context)
        msgspec.json.encode(results.decode(answer["body"]))
        return answer
    return declared
"""
DECLARATION_OPTIONS = {
    "msgspec: game bodies and result as Structs": Variant(
        prelude=MSGSPEC_PRELUDE, extras=["msgspec"]
    ),
}
#: The import of each way to declare, in a fresh process with the Api's search path: alone
#: (what it and the standard library it needs cost), and after what else the process has
#: loaded (the marginal cost: for msgspec, after the Api's handler and the storage; for the
#: service's own, after the standard library and the modules they import).
IMPORT = """
import importlib.util, sys, time
{before}
started = time.perf_counter()
{imported}
print(time.perf_counter() - started, 0.0, flush=True)
"""
OWN, MSGSPEC = (
    "import ratings.declare.kinds, ratings.declare.answers",
    "import msgspec, msgspec.json",
)
OWN_NEEDS = (
    "import copy, datetime, enum, re, types, typing\nimport ratings.errors, ratings.declare.kinds"
)
IMPORTS = {
    "ratings.declare (kinds, answers), alone": ("", OWN),
    "ratings.declare, after the stdlib and modules it needs": (OWN_NEEDS, OWN),
    "msgspec (with msgspec.json), alone": ("", MSGSPEC),
    "msgspec, after the Api's handler and storage": (
        FRESH_HANDLER + "import ratings.storage.dynamodb",
        MSGSPEC,
    ),
}


def run(code: str, env: dict[str, str], *args: str) -> Sample:
    done = subprocess.run(_lambda_env.command(code, *args), capture_output=True, text=True, env=env)
    if done.returncode != 0:
        raise RuntimeError(f"cold-start process failed for {args[:1]}: {done.stderr[-2000:]}")
    wall, cpu = done.stdout.strip().splitlines()[-1].split()
    return Sample(float(wall), float(cpu))


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f}"


def spread(values: Sequence[float]) -> str:
    return f"{min(values) * 1000:.0f}..{max(values) * 1000:.0f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="fresh processes per case")
    parser.add_argument("--build", type=Path, default=_lambda_env.BUILD, help="the sam build")
    parser.add_argument("--measures", action="store_true", help="what each measure is worth")
    parser.add_argument("--tracing", action="store_true", help="what a tracing SDK would add")
    parser.add_argument(
        "--declarations", action="store_true", help="what msgspec would add (bodies, answers)"
    )
    parser.add_argument(
        "--profile", action="store_true", help="where each case's CPU time goes (cProfile)"
    )
    args = parser.parse_args()
    os.environ.setdefault("AWS_ACCESS_KEY_ID", "bench")
    os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "bench")
    extras = {
        **(TRACING_EXTRAS if args.tracing else {}),
        **(DECLARATION_EXTRAS if args.declarations else {}),
    }
    with _lambda_env.built_artifact(args.build, extras) as artifact:
        aws = EmulatedAws()
        url = aws.start()
        try:
            measure(artifact, url, args)
        finally:
            aws.stop()


def measure(artifact: _lambda_env.Artifact, url: str, args: argparse.Namespace) -> None:
    DynamoStorage(TABLE, endpoint_url=url).create_table()
    sqs = boto3.client("sqs", endpoint_url=url, region_name="us-east-1")
    queues = {
        name: sqs.create_queue(QueueName=name)["QueueUrl"]
        for name in ("games-dlq", "podiums", "podiums-dlq", "jobs", "jobs-dlq", "erasures")
    }
    env = {
        "PATH": os.environ.get("PATH", ""),
        "AWS_ACCESS_KEY_ID": "bench",
        "AWS_SECRET_ACCESS_KEY": "bench",
        "AWS_SESSION_TOKEN": "bench",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_REGION": "us-east-1",
        "AWS_ENDPOINT_URL": url,
        # template.yaml's Globals
        "POWERTOOLS_SERVICE_NAME": "elo-ratings",
        "POWERTOOLS_METRICS_NAMESPACE": "EloRatings",
        "POWERTOOLS_LOG_LEVEL": "INFO",
        "RATINGS_TABLE": TABLE,
        "RATINGS_LEADERBOARD_SHARDS": "4",
        "RATINGS_RETENTION_DAYS": "30",
        # the functions' own
        "RATINGS_GAMES_DLQ_URL": queues["games-dlq"],
        "RATINGS_PODIUM_QUEUE_URL": queues["podiums"],
        "RATINGS_PODIUM_DLQ_URL": queues["podiums-dlq"],
        "RATINGS_DRAIN_SECONDS": "5",
        "RATINGS_MODERATION_JOBS_QUEUE_URL": queues["jobs"],
        "RATINGS_MODERATION_JOBS_DLQ_URL": queues["jobs-dlq"],
        **_lambda_env.LAMBDA_VARIABLES,
    }
    counter = iter(range(1_000_000))
    #: Players a game has rated, not erased yet: each erasure case takes one.
    rated: list[str] = []

    def in_lambda(function: str | None, variant: Variant) -> dict[str, str]:
        search_path = artifact.search_path(function, variant.extras)
        task_root = {"LAMBDA_TASK_ROOT": str(artifact.function(function))} if function else {}
        merged = {**env, **task_root, "PYTHONPATH": search_path, **variant.env}
        return {key: value for key, value in merged.items() if value is not None}

    def serve(function: str, event: dict[str, Any], variant: Variant) -> Sample:
        handler = str(artifact.function(function) / "app.py")
        return run(
            FUNCTION,
            in_lambda(function, variant),
            handler,
            json.dumps(event),
            variant.prelude,
            str(artifact.root),
        )

    def game_body() -> dict[str, Any]:
        number = next(counter)
        rated.extend((f"a{number}", f"b{number}"))
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

    def podium_run(variant: Variant) -> Sample:
        number = next(counter)
        podium = {
            "tournament_id": f"cold-{number}",
            "ladder": "backgammon",
            "finished_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "public": True,
            "podium": [{"place": 1, "player_id": f"p{number}"}],
        }
        sqs.send_message(QueueUrl=queues["podiums"], MessageBody=json.dumps(podium))
        return serve("award_podiums", scheduled_event("AwardPodiums", "us-east-1"), variant)

    def erasure_run(variant: Variant) -> Sample:
        # A player with games, so the erasure is a job to queue (an empty id is done at once);
        # its job goes to a queue of its own, which no case reads.
        player = rated.pop()
        own_queue = {**variant.env, "RATINGS_MODERATION_JOBS_QUEUE_URL": queues["erasures"]}
        event = api_event("POST", f"/v1/players/{player}/erasure")
        return serve("moderation", event, Variant(variant.prelude, own_queue, variant.extras))

    sanctions = RatingService(
        DynamoStorage(TABLE, endpoint_url=url),
        DEFAULT_LADDERS,
        job_queue=SqsJobQueue(lambda: sqs, lambda: queues["jobs"]),
    )

    def worker_run(variant: Variant) -> Sample:
        # The worker's cold start with one job step of work, as AwardPodiums gets one podium:
        # the refunds of a sanction made just now (in this process, not timed) on a player
        # whose one game was a loss, so its one step finds nothing to refund.
        number = next(counter)
        loser = f"s{number}"
        game = {"game_id": f"cold-s{number}", "players": [{"id": f"w{number}"}, {"id": loser}]}
        sanctions.submit_game("backgammon", {**game, "winner": f"w{number}"})
        sanctions.sanction_player(
            "backgammon", {"sanction_id": f"cold-{number}", "player_id": loser, "refund_days": 1}
        )
        received = sqs.receive_message(
            QueueUrl=queues["jobs"], WaitTimeSeconds=1, AttributeNames=["All"]
        )
        (message,) = received["Messages"]
        sqs.delete_message(QueueUrl=queues["jobs"], ReceiptHandle=message["ReceiptHandle"])
        record = sqs_record(message, "arn:aws:sqs:x", "us-east-1")
        return serve("moderation_worker", {"Records": [record]}, variant)

    floor = Case(
        "floor: boto3 + client + 1 request",
        1.0,
        lambda variant: run(FLOOR, in_lambda(None, variant), TABLE, str(artifact.root)),
    )
    cases = {
        case.name: case
        for case in (
            Case(
                POST_GAME,
                1.35,
                lambda v: serve(
                    "api", api_event("POST", "/v1/ladders/backgammon/games", game_body()), v
                ),
            ),
            Case(
                GET_PLAYER,
                1.3,
                lambda v: serve("api", api_event("GET", "/v1/ladders/backgammon/players/a0"), v),
            ),
            Case(GAMES, 1.3, lambda v: serve("games_queue", sqs_event(), v)),
            Case(PODIUM, 1.3, podium_run),
            Case(LADDERS, 1.3, lambda v: serve("api", api_event("GET", "/v1/ladders"), v)),
            # A moderation write is held to the write route's target: it makes a second
            # client (SQS, to queue its job) beside the table's (docs/performance.md).
            Case(ERASURE, 1.35, erasure_run),
            Case(WORKER, 1.3, worker_run),
        )
    }
    # One round first, not counted: the disk cache is warm (no bytecode can be written).
    floor.run(AS_BUILT)
    for case in cases.values():
        case.run(AS_BUILT)
    if args.profile:
        for case in cases.values():
            with tempfile.NamedTemporaryFile("r", suffix=".txt") as report:
                case.run(Variant(prelude=PROFILE, env={"COLD_START_PROFILE": report.name}))
                print(f"\n{case.name}: the functions that took the most CPU time\n")
                print(report.read())
        return

    def interleaved(runs: list[tuple[str, Callable[[], Sample]]]) -> dict[str, list[Sample]]:
        samples: dict[str, list[Sample]] = {name: [] for name, _ in runs}
        for _ in range(args.runs):
            for name, one in runs:
                samples[name].append(one())
        return samples

    # The targets: every case as built, interleaved with the floor.
    everything = [floor, *cases.values()]
    samples = interleaved([(c.name, partial(c.run, AS_BUILT)) for c in everything])
    print(f"Cold start as built, median of {args.runs} fresh processes (in-process, to the answer)")
    print(
        f"{'case':<36} {'wall ms':>8} {'min..max':>10} {'cpu ms':>8} {'min..max':>10}"
        f" {'x floor':>8} {'(wall)':>8} {'target':>7}"
    )
    failed = []
    for case in everything:
        walls = [s.wall for s in samples[case.name]]
        cpus = [s.cpu for s in samples[case.name]]
        floor_walls = [s.wall for s in samples[floor.name]]
        floor_cpus = [s.cpu for s in samples[floor.name]]
        ratio = statistics.median(cpus) / statistics.median(floor_cpus)
        wall_ratio = statistics.median(walls) / statistics.median(floor_walls)
        met = case is floor or ratio <= case.target
        if not met:
            failed.append(case.name)
        target = "" if case is floor else f"{case.target:.2f}x"
        print(
            f"{case.name:<36} {ms(statistics.median(walls)):>8} {spread(walls):>10}"
            f" {ms(statistics.median(cpus)):>8} {spread(cpus):>10} {ratio:>8.2f}"
            f" {wall_ratio:>8.2f} {target:>7}"
        )
    print("x floor: median CPU time over the floor's; (wall): the same for wall time")
    print(f"targets: {'all met' if not failed else 'not met: ' + ', '.join(failed)}")

    if args.measures:
        print(
            "\nWhat each measure is worth: CPU ms of the case without it minus as built"
            f" (median of {args.runs})"
        )
        print(f"{'measure':<76} {'case':<32} {'as built':>8} {'without':>8} {'worth ms':>8}")
        for item in MEASURES:
            for name in item.cases:
                case = cases[name]
                pair = interleaved(
                    [
                        ("with", partial(case.run, AS_BUILT)),
                        ("without", partial(case.run, item.without)),
                    ]
                )
                with_it = statistics.median(s.cpu for s in pair["with"])
                without = statistics.median(s.cpu for s in pair["without"])
                print(
                    f"{item.name:<76} {name:<32} {ms(with_it):>8} {ms(without):>8}"
                    f" {ms(without - with_it):>8}"
                )

    def compare(title: str, options: Mapping[str, Variant], names: Sequence[str]) -> None:
        """Each case as built and with each option, interleaved with the floor."""
        print(f"\nWhat {title} adds to a cold start (median of {args.runs}, interleaved)")
        print(f"{'option':<52} {'case':<32} {'ms':>8} {'added ms':>9} {'x floor':>8}")
        for name in names:
            case = cases[name]
            runs: list[tuple[str, Callable[[], Sample]]] = [
                (floor.name, partial(floor.run, AS_BUILT))
            ]
            runs += [(label, partial(case.run, v)) for label, v in options.items()]
            got = interleaved(runs)
            base = statistics.median(s.cpu for s in got[floor.name])
            none = statistics.median(s.cpu for s in got[next(iter(options))])
            for label in options:
                mine = statistics.median(s.cpu for s in got[label])
                print(
                    f"{label:<52} {name:<32} {ms(mine):>8} {ms(mine - none):>9} {mine / base:>8.2f}"
                )

    if args.tracing:
        compare(
            "a tracing SDK",
            {"none (active tracing only, as built)": AS_BUILT, **TRACING_OPTIONS},
            (POST_GAME, GAMES, PODIUM),
        )
    if args.declarations:
        print(f"\nImport of each way to declare (ms, median and min of {args.runs} processes)")
        api = Variant(extras=["msgspec"])
        handler = str(artifact.function("api") / "app.py")
        for label, (before, imported) in IMPORTS.items():
            code = IMPORT.format(before=before, imported=imported)
            times = [run(code, in_lambda("api", api), handler).wall for _ in range(args.runs)]
            print(f"{label:<56} {ms(statistics.median(times)):>8} {ms(min(times)):>8}")
        compare(
            "a declaration library",
            {"the service's own declarations (as built)": AS_BUILT, **DECLARATION_OPTIONS},
            (POST_GAME,),
        )


if __name__ == "__main__":
    main()
