"""What publishing events costs a rated game: its write units with and without what events
add to the items, each event's size, and the price of a million games' events at AWS's list
prices; and, on the local stack, the delay from a game's commit to its event.

1. **Write units.** Games of 2, 4, 8 and 16 players on Amazon's DynamoDB Local, on
   template.yaml's table, each player's second game (the common path). Each transaction the
   game sends is sized twice by AWS's rule for transactions (2 write units per started KB of
   each item put): as sent, and without the attributes events added (`seq` on a state,
   `seqs` on a game record), which is what the build before them wrote. Same run, same items.
2. **Events.** The `game.rated` event of each game, as PutEvents gets it: its bytes and how
   many 64 KB chunks EventBridge bills it as.
3. **Price.** Per million games, from those sizes and the list prices below (us-east-1),
   with the PublishEvents function's billed time taken from the local stack's invocations
   (part 4) at 512 MB on arm64.
4. **Delay**: the local stack (`make run`'s, on the engine chosen), games sent
   over HTTP one after another; for each, the time from the API's answer (the commit is
   before it) to the event's arrival in the stack's `events` queue (the bus is before it).

    python -m benchmarks.events [--games N] [--engine moto|dynamodb_local]

Needs DynamoDB Local (`make setup-dynamodb-local`).
"""

import argparse
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from botocore.client import BaseClient
from botocore.model import OperationModel

from ratings.service.events import entry_of, game_rated
from ratings.service.facade import RatingService
from ratings.service.unit_of_work import Retrier
from ratings.storage.dynamodb import DynamoStorage

from .engine_capacity import engine_endpoint, new_table
from .game_size import LADDERS, SIZES, START, body
from .requests_per_game import item_size
from .season_start import Clock

#: What events add to the items a game's transaction puts.
EVENT_ATTRIBUTES = ("seq", "seqs")
#: AWS's list prices in us-east-1 (USD), as AWS publishes them.
PRICES = {
    # EventBridge: custom events put on a bus, per million 64 KB chunks.
    "put_events": 1.00,
    # Lambda on arm64: per million requests, and per GB-second.
    "lambda_requests": 0.20,
    "lambda_gb_second": 0.0000133334,
    # DynamoDB on demand: per million write request units.
    "write_units": 0.625,
}
#: DynamoDB Streams' GetRecords made by a Lambda trigger are not billed (AWS's pricing page).
FUNCTION_MEMORY_GB = 0.5
CHUNK = 64 * 1024


@dataclass(frozen=True)
class GameFigures:
    players: int
    ladder: str
    units_before: int
    units_after: int
    event_bytes: int
    chunks: int


class Sizer:
    """The write units of each TransactWriteItems by AWS's rule, as sent and as sent without
    EVENT_ATTRIBUTES."""

    def __init__(self) -> None:
        self.with_events = 0
        self.without = 0

    def attach(self, client: BaseClient) -> None:
        client.meta.events.register("before-parameter-build.dynamodb", self._size)

    def _size(self, params: dict[str, Any], model: OperationModel, **_: Any) -> None:
        if model.name != "TransactWriteItems":
            return
        for entry in params.get("TransactItems", []):
            ((action, request),) = entry.items()
            if action != "Put":
                self.with_events += 2
                self.without += 2
                continue
            item: Mapping[str, Any] = request["Item"]
            bare = {name: value for name, value in item.items() if name not in EVENT_ATTRIBUTES}
            self.with_events += 2 * max(1, math.ceil(item_size(item) / 1024))
            self.without += 2 * max(1, math.ceil(item_size(bare) / 1024))


def measure_game(endpoint: str | None, players: int, ladder: str, per_side: int) -> GameFigures:
    storage = DynamoStorage(new_table(endpoint, "bench-events"), endpoint_url=endpoint)
    clock = Clock(START)
    service = RatingService(storage, LADDERS, clock=clock, retrier=Retrier(sleep=lambda _: None))
    ids = [f"{ladder}-{players}-p{n:02d}" for n in range(players)]
    clock.now += timedelta(seconds=10)
    service.submit_game(ladder, body("g-0", ids, per_side))  # every player gets a state
    sizer = Sizer()
    sizer.attach(storage.connection.client)
    clock.now += timedelta(seconds=10)
    submitted = service.submit_game(ladder, body("g-1", ids, per_side))
    stored = storage.results.get_game(ladder, "g-1")
    if not submitted.created or stored is None or not stored.sequences:
        raise AssertionError(f"the game of {players} was not rated and stored: {submitted}")
    entry = entry_of(game_rated("bench-record", clock.now, stored), "bench-bus")
    size = len(json.dumps(entry, default=str).encode())
    return GameFigures(
        players,
        ladder,
        sizer.without,
        sizer.with_events,
        size,
        max(1, math.ceil(size / CHUNK)),
    )


def price_per_million(figures: GameFigures, billed_ms_per_game: float) -> dict[str, float]:
    """USD per million games of this size: the events, the function, the added write units."""
    events = figures.chunks * PRICES["put_events"]
    requests = PRICES["lambda_requests"]  # at most one invocation a game (none batched)
    duration = billed_ms_per_game / 1000 * FUNCTION_MEMORY_GB * PRICES["lambda_gb_second"] * 1e6
    units = (figures.units_after - figures.units_before) * PRICES["write_units"]
    return {"events": events, "invocations": requests, "duration": duration, "write_units": units}


def report_sizes(measured: list[GameFigures], billed_ms: float, billed_source: str) -> str:
    lines = [
        "Write units of a rated game's transaction (each player's second game), on DynamoDB "
        "Local's items, by AWS's rule; without the events' attributes, and with them:",
        "",
        "| players | ladder | write units without | with | added | game.rated bytes "
        "| 64 KB chunks |",
        "|---|---|---|---|---|---|---|",
    ]
    for figures in measured:
        lines.append(
            f"| {figures.players} | {figures.ladder} | {figures.units_before} | "
            f"{figures.units_after} | {figures.units_after - figures.units_before:+d} | "
            f"{figures.event_bytes:,} | {figures.chunks} |"
        )
    lines += [
        "",
        f"USD per million games, at {billed_ms:.0f} ms billed per game ({billed_source}), "
        "one invocation per game (the most; a batch of several games costs less):",
        "",
        "| players | PutEvents | invocations | duration | added write units | total |",
        "|---|---|---|---|---|---|",
    ]
    for figures in measured:
        price = price_per_million(figures, billed_ms)
        lines.append(
            f"| {figures.players} | {price['events']:.2f} | {price['invocations']:.2f} | "
            f"{price['duration']:.2f} | {price['write_units']:.2f} | {sum(price.values()):.2f} |"
        )
    return "\n".join(lines)


def measure_sizes() -> list[GameFigures]:
    with engine_endpoint("dynamodb_local") as endpoint:
        return [measure_game(endpoint, *size) for size in SIZES]


@dataclass(frozen=True)
class Delays:
    engine: str
    #: Seconds from each game's answer to its event in the events queue.
    delays: list[float]
    #: Seconds of each PublishEvents invocation (from the call to its answer).
    invocations: list[float]


def measure_delays(engine: str, games: int) -> Delays:
    """Games sent one after another to a local stack on `engine`; each one's delay."""
    import time
    import urllib.request

    import boto3

    from ratings_local.pytest_plugin import running_stack

    delays: list[float] = []
    invocations: list[float] = []
    with running_stack(dynamodb_local=engine == "dynamodb_local") as stack:
        function = stack.functions["PublishEventsFunction"]
        invoke = function.invoke

        def timed(event: dict[str, Any]) -> Any:
            started = time.perf_counter()
            try:
                return invoke(event)
            finally:
                invocations.append(time.perf_counter() - started)

        function.invoke = timed  # type: ignore[method-assign]
        endpoints = stack.endpoints()
        sqs = boto3.client(
            "sqs", endpoint_url=endpoints["aws_endpoint_url"], region_name=endpoints["region"]
        )
        queue = endpoints["queues"]["events"]
        url = f"{stack.api_url}/v1/ladders/classic/games"
        for number in range(games):
            game_id = f"delay-{number}"
            game = {
                "game_id": game_id,
                "players": [{"id": f"a-{number % 7}"}, {"id": f"b-{number % 5}"}],
                "winner": f"a-{number % 7}",
            }
            request = urllib.request.Request(
                url, json.dumps(game).encode(), {"content-type": "application/json"}
            )
            with urllib.request.urlopen(request) as answer:
                answer.read()
            answered = time.perf_counter()
            delays.append(_arrival(sqs, queue, game_id) - answered)
    return Delays(engine, delays, invocations)


def _arrival(sqs: Any, queue: str, game_id: str, timeout: float = 30.0) -> float:
    """When the game's game.rated event is read from the events queue (short polls)."""
    import time

    deadline = time.perf_counter() + timeout
    while time.perf_counter() < deadline:
        messages = sqs.receive_message(QueueUrl=queue, MaxNumberOfMessages=10).get("Messages", [])
        now = time.perf_counter()
        for message in messages:
            sqs.delete_message(QueueUrl=queue, ReceiptHandle=message["ReceiptHandle"])
            detail = json.loads(message["Body"])["detail"]
            if detail["type"] == "game.rated" and detail["game"]["game_id"] == game_id:
                return now
        if not messages:
            time.sleep(0.005)
    raise AssertionError(f"no game.rated for {game_id} within {timeout:g} s")


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, math.ceil(share * len(ordered)) - 1))]


def report_delays(measured: Delays) -> str:
    ms = [delay * 1000 for delay in measured.delays]
    runs = [seconds * 1000 for seconds in measured.invocations]
    return "\n".join(
        [
            f"Commit to the events queue on the local stack ({measured.engine}), "
            f"{len(ms)} games one after another:",
            "",
            "| p50 | p99 | max | PublishEvents invocations | their mean | their p99 |",
            "|---|---|---|---|---|---|",
            f"| {percentile(ms, 0.5):.0f} ms | {percentile(ms, 0.99):.0f} ms | {max(ms):.0f} ms | "
            f"{len(runs)} | {sum(runs) / len(runs):.0f} ms | {percentile(runs, 0.99):.0f} ms |",
        ]
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=200, help="games sent for the delay")
    parser.add_argument("--engine", choices=["moto", "dynamodb_local"], default="dynamodb_local")
    args = parser.parse_args(argv)
    delays = measure_delays(args.engine, args.games)
    print(report_delays(delays))
    print()
    billed_ms = 1000 * sum(delays.invocations) / len(delays.invocations)
    source = f"the mean PublishEvents invocation measured above, {args.engine}"
    print(report_sizes(measure_sizes(), billed_ms, source))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
