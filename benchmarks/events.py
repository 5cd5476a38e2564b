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
4. **Delay** (`--delay`): the local stack (`make run`'s, on the engine chosen), games sent
   over HTTP one after another; for each, the time from the API's answer (the commit is
   before it) to the event's arrival in the stack's `events` queue (the bus is before it).

    python -m benchmarks.events [--games N] [--delay] [--engine moto|dynamodb_local]

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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--billed-ms", type=float, default=None)
    parser.parse_args(argv)
    measured = measure_sizes()
    print(report_sizes(measured, 100.0, "Lambda's smallest billed duration rounded up to 100 ms"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
