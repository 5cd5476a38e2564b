"""Throughput of the local stack, over HTTP and over SQS, at 1,000 and at 50,000 stored games.

Starts the whole local stack from this process (LocalStack: emulated AWS, the Api function
behind the local HTTP server, the GamesQueue consumer, each function in execution
environments of its own), as `make run` does. Then, per size:

- fills the table to the size with the items of that many rated backgammon games (a game
  item and two player events each, played over the last 14 days, plus one state per player),
  cloned from the items of a game the stack rated itself (so they have the real shapes and
  sizes) and put straight into the emulated DynamoDB under its request lock (BatchWriteItem
  through the endpoint would take about two minutes for 50,000 games); the fill time is
  printed;
- HTTP: C client threads POST N games among P players (keep-alive connections) and the
  clock runs until the last answer (every answer must be 201);
- SQS: N games are sent to the games queue (SendMessageBatch, 10 a request) and the clock
  runs from the first send until the queue holds no message, visible or in flight (the
  consumer deletes a message only once handled); every game is then checked to be stored
  and the dead-letter queue to be empty.

HTTP and SQS runs alternate, repeated; and the sizes alternate too: after the large size
the table is deleted and created afresh, and the cycle starts again (--cycles). Printed:
games per second (median of the runs), latency percentiles of the HTTP answers, and the
large/small ratio. Target: flat within 1.5x.

    python -m benchmarks.throughput [--games N] [--threads C] [--players P] [--repeats R]
                                    [--cycles K] [--sizes 1000,50000]
"""

import argparse
import base64
import http.client
import itertools
import json
import os
import random
import statistics
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import boto3
from moto.core.models import DEFAULT_ACCOUNT_ID
from moto.dynamodb.models import dynamodb_backends

from benchmarks._cli import game_parser
from ratings.declare.answers import format_utc_millis
from ratings.storage.dynamodb import leaderboard_shard
from ratings_local.stack import LocalStack, Options

LADDER = "backgammon"
TARGET = 1.5
#: Tokens of the template game, replaced in its items' JSON to clone them.
TEMPLATE_A, TEMPLATE_B, TEMPLATE_GAME = "TPLPLAYERA", "TPLPLAYERB", "TPLGAME0"


def logged_bytes(local: "Local") -> int:
    """What the functions logged so far, in bytes (a figure for the cost model): the stack's
    environments count it, and print none of it (`print_function_logs=False`)."""
    return sum(function.log_bytes for function in local.stack.functions.values())


@dataclass
class Local:
    stack: LocalStack
    api_host: str
    api_port: int
    table: str
    games_queue: str
    games_dlq: str
    region: str
    dynamodb: Any
    sqs: Any


def start_stack() -> Local:
    options = Options(port=0, aws_port=0, schedule_interval=3600, print_function_logs=False)
    stack = LocalStack(options)
    stack.start()
    endpoints = stack.endpoints()
    host, port = stack.api_url.removeprefix("http://").rsplit(":", 1)
    aws = endpoints["aws_endpoint_url"]
    region = endpoints["region"]
    return Local(
        stack=stack,
        api_host=host,
        api_port=int(port),
        table=endpoints["table"],
        games_queue=endpoints["queues"]["games"],
        games_dlq=endpoints["queues"]["games_dlq"],
        region=region,
        dynamodb=boto3.client(
            "dynamodb", endpoint_url=endpoints["dynamodb_endpoint_url"], region_name=region
        ),
        sqs=boto3.client("sqs", endpoint_url=aws, region_name=region),
    )


# Filling ---------------------------------------------------------------------------------


@dataclass
class Templates:
    """The items of one game the stack rated itself, as JSON text to clone."""

    game: str
    event_a: str
    event_b: str
    state: str
    at: str


def post(connection: http.client.HTTPConnection, game: dict[str, Any]) -> tuple[int, bytes]:
    connection.request(
        "POST",
        f"/v1/ladders/{LADDER}/games",
        body=json.dumps(game),
        headers={"content-type": "application/json"},
    )
    response = connection.getresponse()
    return response.status, response.read()


def templates(local: Local) -> Templates:
    connection = http.client.HTTPConnection(local.api_host, local.api_port, timeout=60)
    game = {
        "game_id": TEMPLATE_GAME,
        "players": [{"id": TEMPLATE_A}, {"id": TEMPLATE_B}],
        "winner": TEMPLATE_A,
        "cube": 2,
    }
    status, answer = post(connection, game)
    connection.close()
    if status != 201:
        raise RuntimeError(f"template game: {status} {answer!r}")
    at = json.loads(answer)["played_at"]
    client = local.dynamodb

    def partition(player: str) -> dict[str, Any]:
        items = client.query(
            TableName=local.table,
            KeyConditionExpression="pk = :pk",
            ExpressionAttributeValues={":pk": {"S": f"P#{LADDER}#{player}"}},
            ConsistentRead=True,
        )["Items"]
        return {item["sk"]["S"].split("#")[0]: item for item in items}

    a, b = partition(TEMPLATE_A), partition(TEMPLATE_B)
    stored = client.get_item(
        TableName=local.table,
        Key={"pk": {"S": f"G#{LADDER}#{TEMPLATE_GAME}"}, "sk": {"S": "GAME"}},
        ConsistentRead=True,
    )["Item"]
    # The template's own items leave: the table holds fill and measured games only.
    for pk, sk in [
        (f"G#{LADDER}#{TEMPLATE_GAME}", "GAME"),
        *((item["pk"]["S"], item["sk"]["S"]) for side in (a, b) for item in side.values()),
    ]:
        client.delete_item(TableName=local.table, Key={"pk": {"S": pk}, "sk": {"S": sk}})
    return Templates(
        game=_wire(stored),
        event_a=_wire(a["E"]),
        event_b=_wire(b["E"]),
        state=_wire(a["STATE"]),
        at=at,
    )


def _wire(item: dict[str, Any]) -> str:
    """An item as DynamoDB's JSON carries it: binary values (a state's `recent`) in base64,
    the form moto's table keeps them in."""
    return json.dumps(item, default=lambda value: base64.b64encode(value).decode())


def clone(text: str, replacements: dict[str, str]) -> dict[str, Any]:
    for old, new in replacements.items():
        text = text.replace(old, new)
    item: dict[str, Any] = json.loads(text)
    return item


def fill_items(
    shapes: Templates, players: list[str], start: int, stop: int, rng: random.Random
) -> Iterator[dict[str, Any]]:
    """The game and event items of fill games number start..stop-1 (played in the last 14
    days, so some fall in the 7-day window the ranked-games count reads)."""
    now = datetime.now(UTC)
    for number in range(start, stop):
        a, b = rng.sample(players, 2)
        at = format_utc_millis(now - timedelta(seconds=rng.uniform(60, 14 * 86400)))
        replacements = {
            TEMPLATE_GAME: f"fill-{number}",
            TEMPLATE_A: a,
            TEMPLATE_B: b,
            shapes.at: at,
        }
        yield clone(shapes.game, replacements)
        yield clone(shapes.event_a, replacements)
        yield clone(shapes.event_b, replacements)


def state_items(shapes: Templates, players: list[str], shards: int) -> Iterator[dict[str, Any]]:
    for player in players:
        item = clone(shapes.state, {TEMPLATE_A: player})
        item["lb_shard"] = {"S": leaderboard_shard(LADDER, player, shards)}
        yield item


def put_items(local: Local, items: Iterator[dict[str, Any]]) -> int:
    """Put items straight into the emulated DynamoDB, holding its request lock.

    BatchWriteItem through the endpoint costs about 0.8 ms an item on moto (request parsing
    and response serialization), some two minutes for 50,000 games; the table's own put_item,
    called while no request can enter moto, writes the same items some 15 times faster.
    """
    backend = dynamodb_backends[DEFAULT_ACCOUNT_ID][local.region]
    written = 0
    with local.stack.aws.exclusive():
        table = backend.get_table(local.table)
        # The fill is not a change the service made: kept out of the table's stream, or the
        # stack would publish an event for every fill game while the runs are timed.
        stream, table.stream_shard = table.stream_shard, None
        try:
            for item in items:
                table.put_item(item)
                written += 1
        finally:
            table.stream_shard = stream
    return written


def fill(
    local: Local, shapes: Templates, players: list[str], start: int, stop: int, rng: random.Random
) -> float:
    """Write fill games start..stop-1; returns the seconds it took."""
    started = time.perf_counter()
    put_items(local, fill_items(shapes, players, start, stop, rng))
    return time.perf_counter() - started


def recreate_table(local: Local) -> None:
    """Delete the table and create it again with the same keys, indexes, stream and TTL."""
    client = local.dynamodb
    table = client.describe_table(TableName=local.table)["Table"]
    request: dict[str, Any] = {
        "TableName": local.table,
        "KeySchema": table["KeySchema"],
        "AttributeDefinitions": table["AttributeDefinitions"],
        "BillingMode": "PAY_PER_REQUEST",
    }
    if table.get("LocalSecondaryIndexes"):
        request["LocalSecondaryIndexes"] = [
            {key: index[key] for key in ("IndexName", "KeySchema", "Projection")}
            for index in table["LocalSecondaryIndexes"]
        ]
    if table.get("GlobalSecondaryIndexes"):
        request["GlobalSecondaryIndexes"] = [
            {key: index[key] for key in ("IndexName", "KeySchema", "Projection")}
            for index in table["GlobalSecondaryIndexes"]
        ]
    if table.get("StreamSpecification"):
        # The stack's stream mapping goes on reading the table's stream by its name (moto).
        request["StreamSpecification"] = table["StreamSpecification"]
    ttl = client.describe_time_to_live(TableName=local.table)["TimeToLiveDescription"]
    client.delete_table(TableName=local.table)
    client.create_table(**request)
    if ttl.get("AttributeName"):
        client.update_time_to_live(
            TableName=local.table,
            TimeToLiveSpecification={"AttributeName": ttl["AttributeName"], "Enabled": True},
        )


# Measuring -------------------------------------------------------------------------------


@dataclass
class Run:
    mode: str
    size: int
    stored_before: int
    games: int
    seconds: float
    latencies: list[float] = field(default_factory=list)
    #: Bytes the functions logged during the run.
    log_bytes: int = 0

    @property
    def rate(self) -> float:
        return self.games / self.seconds


def game_body(game_id: str, players: list[str], rng: random.Random) -> dict[str, Any]:
    a, b = rng.sample(players, 2)
    return {
        "game_id": game_id,
        "players": [{"id": a}, {"id": b}],
        "winner": rng.choice([a, b]),
        "cube": rng.choice([1, 1, 1, 2, 2, 4, 8]),
    }


def http_run(local: Local, bodies: list[dict[str, Any]], threads: int) -> tuple[float, list[float]]:
    numbers = iter(range(len(bodies)))
    lock = threading.Lock()
    latencies: list[float] = []
    failures: list[str] = []

    def client() -> None:
        connection = http.client.HTTPConnection(local.api_host, local.api_port, timeout=60)
        mine = []
        try:
            while True:
                with lock:
                    number = next(numbers, None)
                if number is None:
                    break
                started = time.perf_counter()
                status, answer = post(connection, bodies[number])
                mine.append(time.perf_counter() - started)
                if status != 201:
                    failures.append(f"{status} {answer[:200]!r}")
        finally:
            connection.close()
            with lock:
                latencies.extend(mine)

    workers = [threading.Thread(target=client) for _ in range(threads)]
    started = time.perf_counter()
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    seconds = time.perf_counter() - started
    if failures:
        raise RuntimeError(f"{len(failures)} HTTP games not rated, e.g. {failures[0]}")
    return seconds, latencies


def queue_depth(local: Local, url: str) -> int:
    attributes = local.sqs.get_queue_attributes(
        QueueUrl=url,
        AttributeNames=["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"],
    )["Attributes"]
    return sum(int(value) for value in attributes.values())


def sqs_run(
    local: Local, bodies: list[dict[str, Any]], poll: float = 0.1, timeout: float = 600
) -> float:
    started = time.perf_counter()
    for index in range(0, len(bodies), 10):
        entries = [
            {"Id": str(number), "MessageBody": json.dumps({**body, "ladder": LADDER})}
            for number, body in enumerate(bodies[index : index + 10])
        ]
        answer = local.sqs.send_message_batch(QueueUrl=local.games_queue, Entries=entries)
        if answer.get("Failed"):
            raise RuntimeError(f"messages not sent: {answer['Failed']}")
    while queue_depth(local, local.games_queue) > 0:
        if time.perf_counter() - started > timeout:
            raise RuntimeError("the games queue did not drain")
        time.sleep(poll)
    seconds = time.perf_counter() - started
    check_stored(local, [body["game_id"] for body in bodies])
    return seconds


def check_stored(local: Local, game_ids: list[str]) -> None:
    found = 0
    for index in range(0, len(game_ids), 100):
        keys = [
            {"pk": {"S": f"G#{LADDER}#{game_id}"}, "sk": {"S": "GAME"}}
            for game_id in game_ids[index : index + 100]
        ]
        request: dict[str, Any] = {local.table: {"Keys": keys, "ConsistentRead": True}}
        while request:
            answer = local.dynamodb.batch_get_item(RequestItems=request)
            found += len(answer["Responses"].get(local.table, []))
            request = answer.get("UnprocessedKeys") or {}
    dead = queue_depth(local, local.games_dlq)
    if found != len(game_ids) or dead:
        raise RuntimeError(f"{found} of {len(game_ids)} games stored, {dead} dead-lettered")


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


# The run ---------------------------------------------------------------------------------


def measure(args: argparse.Namespace) -> tuple[list[Run], list[tuple[int, float]]]:
    rng = random.Random(args.seed)
    players = [f"p-{number:05d}" for number in range(args.players)]
    runs: list[Run] = []
    fills: list[tuple[int, float]] = []
    os.environ.setdefault("AWS_ACCESS_KEY_ID", "local")
    os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "local")
    local = start_stack()
    try:
        shapes = templates(local)
        shards = int(os.environ.get("RATINGS_LEADERBOARD_SHARDS", "4"))
        measured = itertools.count()
        for cycle in range(args.cycles):
            if cycle:
                recreate_table(local)
            stored = 0
            started = time.perf_counter()
            put_items(local, state_items(shapes, players, shards))
            fills.append((0, time.perf_counter() - started))  # 0: the player states
            for size in args.sizes:
                fill_seconds = fill(local, shapes, players, stored, max(stored, size), rng)
                fills.append((max(stored, size) - stored, fill_seconds))
                stored = max(stored, size)
                for _ in range(args.repeats):
                    for mode in ("HTTP", "SQS"):
                        bodies = [
                            game_body(f"{mode.lower()}-{next(measured)}", players, rng)
                            for _ in range(args.games)
                        ]
                        logged = logged_bytes(local)
                        if mode == "HTTP":
                            seconds, latencies = http_run(local, bodies, args.threads)
                        else:
                            seconds, latencies = sqs_run(local, bodies), []
                        run = Run(mode, size, stored, args.games, seconds, latencies)
                        run.log_bytes = logged_bytes(local) - logged
                        runs.append(run)
                        stored += args.games
    finally:
        local.stack.stop()
    return runs, fills


def report(args: argparse.Namespace, runs: list[Run], fills: list[tuple[int, float]]) -> str:
    small, large = args.sizes[0], args.sizes[-1]
    lines = [
        f"Throughput of the local stack (one process, {os.cpu_count()} cores; ladder {LADDER}; "
        f"{args.players} players; {args.games} games a run; HTTP with {args.threads} client "
        f"threads; {args.repeats} runs per mode and size, {args.cycles} cycle(s) of sizes)",
        "",
        "Fill (put straight into the emulated DynamoDB, see put_items):",
    ]
    for games, seconds in fills:
        if games == 0:
            lines.append(f"  {args.players:>6} player states          {seconds:>6.1f} s")
        else:
            lines.append(
                f"  {games:>6} games ({3 * games:>6} items) {seconds:>6.1f} s "
                f"({games / seconds:,.0f} games/s)"
            )
    header = (
        f"{'mode':<5} {'stored games':>12} {'runs':>4} {'games/s':>8} {'min..max':>13} "
        f"{'p50 ms':>7} {'p95 ms':>7} {'p99 ms':>7} {'log B/game':>10}"
    )
    lines += ["", header, "-" * len(header)]
    rates: dict[tuple[str, int], float] = {}
    for mode in ("HTTP", "SQS"):
        for size in args.sizes:
            chosen = [run for run in runs if run.mode == mode and run.size == size]
            values = [run.rate for run in chosen]
            rates[(mode, size)] = statistics.median(values)
            latencies = [value for run in chosen for value in run.latencies]
            stored = f"{size:,}+"
            row = (
                f"{mode:<5} {stored:>12} {len(chosen):>4} {rates[(mode, size)]:>8.1f} "
                f"{min(values):>6.1f}..{max(values):<6.1f}"
            )
            if latencies:
                row += "".join(
                    f" {percentile(latencies, share) * 1000:>7.1f}" for share in (0.5, 0.95, 0.99)
                )
            else:
                row += f" {'-':>7} {'-':>7} {'-':>7}"
            logged = sum(run.log_bytes for run in chosen) / sum(run.games for run in chosen)
            lines.append(f"{row} {logged:>10.0f}")
    lines.append("")
    worst = 0.0
    for mode in ("HTTP", "SQS"):
        ratio = rates[(mode, small)] / rates[(mode, large)]
        worst = max(worst, ratio)
        lines.append(
            f"{mode}: {small:,} -> {large:,} stored games: {rates[(mode, small)]:.1f} -> "
            f"{rates[(mode, large)]:.1f} games/s, ratio {ratio:.2f}x (above 1: slower when larger)"
        )
    lines += [
        f"target: flat within {TARGET:.2f}x; worst here {worst:.2f}x "
        f"({'met' if worst <= TARGET else 'NOT met'})",
        "stored games N+: the table held N fill games when the runs at that size began, plus",
        "  the games of the runs before (each run adds its games).",
        "SQS: up to the mapping's MaximumConcurrency batches of 10 at once (each invocation",
        "  in an environment of its own); the time runs from the first send until the queue",
        "  is empty, then every game is checked stored. HTTP: each request an Api invocation",
        "  of its own, the first ones cold starts; latency per request, at the client.",
        "log B/game: bytes the functions wrote to stdout (CloudWatch Logs on AWS) per game,",
        "  at the template's POWERTOOLS_LOG_LEVEL.",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = game_parser(__doc__, (150, "games per run"), (5000, "players the games are among"))
    parser.add_argument("--threads", type=int, default=8, help="HTTP client threads")
    parser.add_argument("--repeats", type=int, default=1, help="runs per mode and size")
    parser.add_argument("--cycles", type=int, default=2, help="times the sizes are gone through")
    parser.add_argument(
        "--sizes",
        type=lambda text: [int(part) for part in text.split(",")],
        default=[1_000, 50_000],
        help="stored games before the runs, ascending (default 1000,50000)",
    )
    parser.add_argument("--seed", type=int, default=1129)
    args = parser.parse_args(argv)
    if args.games < 1 or args.threads < 1 or args.players < 2 or args.repeats < 1:
        parser.error("--games, --threads, --repeats must be >= 1 and --players >= 2")
    if args.cycles < 1 or args.sizes != sorted(args.sizes) or len(args.sizes) < 2:
        parser.error("--cycles >= 1; --sizes: at least two, ascending")
    runs, fills = measure(args)
    print(report(args, runs, fills))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
