"""What one rated game costs by its number of players: requests, read units and write units
on Amazon's DynamoDB Local, on template.yaml's table, for games of 2, 4, 8 and 16 players,
and the largest game's transaction against DynamoDB's limits (100 items, 4 MB).

2 players: a classic game, one against one. 4 and 8: classic-ffa, each player a side. 16:
a ladder of this benchmark's own, classic with 8 sides of 2 players (the most classic
rates). For each size, the same players play twice: the first game (every player new) and
the next (every player with a state, the common path), each metered alone.

Units: DynamoDB Local's, as reported, except for the table's share of a TransactWriteItems,
which it under-meters (docs/performance.md, "Capacity units on Amazon's engine"): that share
is AWS's documented rule, 2 write units per started KB of each item a transaction puts, from
the sizes of the items sent (season_start's Meter). A transaction's bytes: the sizes of the
items it puts, by DynamoDB's item-size rules, and the key of each item it only checks or
updates.

    python -m benchmarks.game_size

Needs DynamoDB Local (`make setup-dynamodb-local`).
"""

import argparse
import math
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from botocore.client import BaseClient
from botocore.model import OperationModel

from ratings.rules import DEFAULT_LADDERS, Ladder
from ratings.rules.classic import Classic
from ratings.rules.model import Span
from ratings.service.facade import RatingService
from ratings.service.unit_of_work import Retrier
from ratings.storage.dynamodb import DynamoStorage

from .engine_capacity import engine_endpoint, new_table
from .requests_per_game import item_size
from .season_start import Clock, Cost, Measured, Meter

START = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
TEAMS = "teams-16"
LADDERS = {
    **DEFAULT_LADDERS,
    TEAMS: Ladder(TEAMS, Classic(), sides=Span(8, 8), players_per_side=Span(2, 2)),
}
#: Players in a game, and the ladder and side size each is played on.
SIZES: tuple[tuple[int, str, int], ...] = (
    (2, "classic", 1),
    (4, "classic-ffa", 1),
    (8, "classic-ffa", 1),
    (16, TEAMS, 2),
)
MAX_ITEMS = 100
MAX_BYTES = 4 * 1024 * 1024


class SizedMeter(Meter):
    """season_start's Meter, and the items and bytes of the largest transaction."""

    def __init__(self) -> None:
        super().__init__()
        self.largest_items = 0
        self.largest_bytes = 0

    def attach(self, client: BaseClient) -> None:
        client.meta.events.register("before-parameter-build.dynamodb", self._sized)
        super().attach(client)

    def _sized(self, params: dict[str, Any], model: OperationModel, **_: Any) -> None:
        entries = params.get("TransactItems")
        if model.name != "TransactWriteItems" or not entries:
            return
        size = 0
        for entry in entries:
            ((action, request),) = entry.items()
            size += item_size(request["Item"] if action == "Put" else request["Key"])
        if len(entries) > self.largest_items:
            self.largest_items = len(entries)
        self.largest_bytes = max(self.largest_bytes, size)


@dataclass(frozen=True)
class Figures:
    players: int
    ladder: str
    first: Cost
    next: Cost
    items: int
    bytes: int


def body(game_id: str, players: list[str], per_side: int) -> dict[str, Any]:
    sides = [players[start : start + per_side] for start in range(0, len(players), per_side)]
    return {
        "game_id": game_id,
        "sides": [
            {"players": [{"id": pid} for pid in side], "place": place}
            for place, side in enumerate(sides, start=1)
        ],
    }


def measure_size(endpoint: str | None, players: int, ladder: str, per_side: int) -> Figures:
    storage = DynamoStorage(new_table(endpoint, "bench-size"), endpoint_url=endpoint)
    clock = Clock(START)
    service = RatingService(storage, LADDERS, clock=clock, retrier=Retrier(sleep=lambda _: None))
    meter = SizedMeter()
    meter.attach(storage.connection.client)
    ids = [f"{ladder}-{players}-p{n:02d}" for n in range(players)]
    costs = []
    for number in range(2):
        clock.now += timedelta(seconds=10)  # past the service's 1 s copy of the seasons
        meter.reset()
        with Measured(meter) as measured:
            submitted = service.submit_game(ladder, body(f"g-{number}", ids, per_side))
        if not submitted.created or submitted.result["unranked_reason"] is not None:
            raise AssertionError(f"the game of {players} was not rated: {submitted.result}")
        if len(submitted.result["players"]) != players:
            raise AssertionError(f"the game of {players} rated another number of players")
        costs.append(measured.cost)
    return Figures(players, ladder, costs[0], costs[1], meter.largest_items, meter.largest_bytes)


def measure() -> list[Figures]:
    with engine_endpoint("dynamodb_local") as endpoint:
        return [measure_size(endpoint, *size) for size in SIZES]


def row(figures: Figures, cost: Cost) -> str:
    requests = ", ".join(f"{name} {count}" for name, count in sorted(cost.requests.items()))
    per = cost.write_units / figures.players
    return (
        f"| {figures.players} | {figures.ladder} | {cost.total} ({requests}) | "
        f"{cost.read_units:g} | {cost.write_units:g} | {per:.1f} |"
    )


def report(measured: list[Figures]) -> str:
    lines = ["One rated game by its players, on DynamoDB Local.", ""]
    tables: list[tuple[str, Callable[[Figures], Cost]]] = [
        ("The first game (every player new)", lambda figures: figures.first),
        ("The next game (every player with a state)", lambda figures: figures.next),
    ]
    for title, pick in tables:
        lines += [
            title,
            "",
            "| players | ladder | requests | read units | write units | write units a player |",
            "|---|---|---|---|---|---|",
            *(row(figures, pick(figures)) for figures in measured),
            "",
        ]
    lines.append("The game's transaction (TransactWriteItems), the larger of the two games:")
    lines.append("")
    lines.append("| players | items | bytes | items' margin (of 100) | bytes' margin (of 4 MB) |")
    lines.append("|---|---|---|---|---|")
    for figures in measured:
        lines.append(
            f"| {figures.players} | {figures.items} | {figures.bytes:,} | "
            f"{MAX_ITEMS - figures.items} ({figures.items / MAX_ITEMS:.0%} used) | "
            f"{MAX_BYTES - figures.bytes:,} ({figures.bytes / MAX_BYTES:.2%} used) |"
        )
    largest = measured[-1]
    per_player = math.ceil((largest.items - 1) / largest.players)
    lines += [
        "",
        f"Items a player in the largest game: about {per_player}; at that rate "
        f"{(MAX_ITEMS - 1) // per_player} players would fill a transaction.",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description="Requests and units of one rated game of 2, 4, 8 and 16 players."
    )
    parser.parse_args(argv)
    print(report(measure()))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
