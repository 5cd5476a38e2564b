"""What erasing a player costs, per erased game: requests, write and read units, and time,
for a player with 10, 100 and 1,000 games in the retention period, on moto and on Amazon's
DynamoDB Local, on template.yaml's table.

Each player's games (against 20 opponents, with games among other players beside them, so
the table is not only theirs: 2,000 on DynamoDB Local) are played on the in-memory fake and
copied into the table with BatchWriteItem (not measured); then the erasure is requested and
its job worked to the end, invocation by invocation, the way the ModerationWorker works it.
Every request asks for ReturnConsumedCapacity=TOTAL at the adapter's botocore client. No
request may be a Scan: the cost follows the player's own items, never the table's.

moto copies the whole table (`copy.deepcopy`) once per item of every TransactWriteItems, so
its time grows with the table times the items written, and its memory with it (garbage
collected after each transaction here; a first run without reached 8 GB): on moto the table
holds the player's games only (`--moto-others 0`), and a player of 1,000 games is not run by
default (it grows as the square: 1,000 would take about half an hour; `--moto-games` to try).

    python -m benchmarks.erasure [--games 10,100,1000] [--others 2000]
                                 [--moto-games 10,100,300] [--moto-others 0]

Needs DynamoDB Local (`make setup-dynamodb-local`).
"""

import argparse
import gc
import math
import random
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from botocore.client import BaseClient
from botocore.model import OperationModel

from ratings.rules import DEFAULT_LADDERS
from ratings.service.facade import RatingService
from ratings.service.unit_of_work import Retrier
from ratings.storage.dynamodb import DynamoStorage
from ratings.storage.dynamodb.layout import (
    RatingsItem,
    award_pointer_item,
    event_item,
    game_item,
    leaderboard_shard,
    state_item_of,
    tournament_item,
)
from ratings.storage.memory import InMemoryStorage
from ratings_local.dynamodb_local import VERSION

from ._moderation import moderating_service
from .engine_capacity import engine_endpoint, new_table
from .requests_per_game import NOW, item_size, moto_version

VICTIM = "victim-0001"
OPPONENTS = [f"opp-{index:02d}" for index in range(20)]
LADDER = "backgammon"
ENGINES = ("moto", "dynamodb_local")


@dataclass
class Meter:
    """Requests, the units the engine reports, and the table's write units by AWS's rule."""

    requests: Counter[str] = field(default_factory=Counter)
    write_units: float = 0.0
    read_units: float = 0.0
    #: The table's write units by AWS's documented rule, from the sizes of the items written
    #: (or deleted, or checked): 1 per started KB, twice that in a transaction.
    rule_write_units: float = 0.0
    #: Sizes of the items read, by key: what a delete of them costs.
    _sizes: dict[str, int] = field(default_factory=dict)

    def attach(self, client: BaseClient) -> None:
        client.meta.events.register("before-parameter-build.dynamodb", self._ask)
        client.meta.events.register("after-call.dynamodb", self._answered)

    def _ask(self, params: dict[str, Any], model: OperationModel, **_: Any) -> None:
        shape = model.input_shape
        if shape is not None and "ReturnConsumedCapacity" in shape.members:
            params["ReturnConsumedCapacity"] = "TOTAL"
        if model.name == "PutItem":
            self.rule_write_units += _kilobytes(item_size(params["Item"]))
        for entry in params.get("TransactItems", []):
            ((action, request),) = entry.items()
            if action == "Put":
                size = item_size(request["Item"])
            else:  # a delete or a check costs what the item it names weighs
                size = self._sizes.get(_key(request["Key"]), 1)
            self.rule_write_units += 2 * _kilobytes(size)

    def _answered(self, parsed: dict[str, Any], model: OperationModel, **_: Any) -> None:
        self.requests[model.name] += 1
        found = list(parsed.get("Items", []))
        for items in (parsed.get("Responses") or {}).values():
            found += items
        for item in found:
            self._sizes[_key(item)] = item_size(item)
        consumed = parsed.get("ConsumedCapacity") or []
        for entry in [consumed] if isinstance(consumed, dict) else consumed:
            units = float(entry.get("CapacityUnits", 0) or 0)
            writes = float(entry.get("WriteCapacityUnits", 0) or 0)
            reads = float(entry.get("ReadCapacityUnits", 0) or 0)
            if model.name in ("TransactWriteItems", "PutItem", "DeleteItem", "BatchWriteItem"):
                self.write_units += writes or units
            else:
                self.read_units += reads or units


def _key(item: dict[str, Any]) -> str:
    return f"{item['pk']['S']}|{item['sk']['S']}"


def _kilobytes(size: int) -> int:
    return max(1, math.ceil(size / 1024))


@dataclass
class Figures:
    engine: str
    games: int
    others: int
    requests: Counter[str]
    write_units: float
    rule_write_units: float
    read_units: float
    seconds: float
    invocations: int


def played(games: int, others: int, rng: random.Random) -> InMemoryStorage:
    """The victim's games (and the others') as the service stores them, on the fake."""
    memory = InMemoryStorage()
    clock = [NOW - timedelta(days=13)]
    service = RatingService(
        memory, DEFAULT_LADDERS, clock=lambda: clock[0], retrier=Retrier(sleep=lambda _: None)
    )
    step = timedelta(days=12) / max(1, games + others)
    victim_games = set(rng.sample(range(games + others), games))
    for index in range(games + others):
        clock[0] += step
        if index in victim_games:
            pair = [VICTIM, rng.choice(OPPONENTS)]
        else:
            pair = rng.sample(OPPONENTS, 2)
        rng.shuffle(pair)
        body = {
            "game_id": f"g-{index:05d}",
            "players": [{"id": pair[0]}, {"id": pair[1]}],
            "winner": rng.choice(pair),
            "played_at": clock[0].isoformat(),
            "cube": rng.choice([1, 2, 4]),
        }
        service.submit_game(LADDER, body)
    podium = {
        "tournament_id": "t-0001",
        "ladder": LADDER,
        "finished_at": clock[0].isoformat(),
        "public": True,
        "podium": [{"place": 1, "player_id": VICTIM}, {"place": 2, "player_id": OPPONENTS[0]}],
    }
    service.award_podium(podium)
    return memory


def copy_into(memory: InMemoryStorage, storage: DynamoStorage) -> int:
    """Every item of the fake into the table, with BatchWriteItem; returns how many."""
    items: list[RatingsItem] = []
    for player in memory.states.values():
        state = state_item_of(player)
        if player.on_the_board:
            state.lb_shard = leaderboard_shard(player.ladder, player.player_id, 4)
            state.lb_rating = player.rating
        items.append(state)
    items += [event_item(event) for events in memory.events.values() for event in events]
    items += [game_item(game) for game in memory.games.values()]
    items += [tournament_item(tournament) for tournament in memory.tournaments.values()]
    items += [
        award_pointer_item(ladder, player_id, tournament_id)
        for (ladder, player_id), tournaments in memory.awards.items()
        for tournament_id in tournaments
    ]
    storage.table.put_all(items)
    return len(items)


def erase(
    storage: DynamoStorage, invocation: Callable[[], Callable[[], float]]
) -> tuple[Meter, float, int]:
    service, queue = moderating_service(storage)
    meter = Meter()
    meter.attach(storage.connection.client)
    started = time.perf_counter()
    service.request_erasure(VICTIM)
    invocations = 0
    while queue.sent:
        message = queue.sent.pop(0)
        invocations += 1
        service.run_job({"job": message.kind, "job_id": message.job_id}, invocation())
    seconds = time.perf_counter() - started
    assert service.get_erasure(VICTIM)["status"] == "done"
    return meter, seconds, invocations


def invocation_of(seconds: float) -> Callable[[], Callable[[], float]]:
    """The time left of a worker invocation (its 60 s timeout), on the wall clock."""

    def new() -> Callable[[], float]:
        deadline = time.monotonic() + seconds
        return lambda: deadline - time.monotonic()

    return new


def _collect(**_: Any) -> None:
    gc.collect()


def measure(sizes: dict[str, list[int]], others: dict[str, int]) -> list[Figures]:
    figures = []
    for engine in ENGINES:
        with engine_endpoint(engine) as endpoint:
            for games in sizes[engine]:
                memory = played(games, others[engine], random.Random(games))
                storage = DynamoStorage(new_table(endpoint, "bench-erasure"), endpoint_url=endpoint)
                copy_into(memory, storage)
                if engine == "moto":  # its table copies, freed after each transaction
                    events = storage.connection.client.meta.events
                    events.register("after-call.dynamodb.TransactWriteItems", _collect)
                meter, seconds, invocations = erase(storage, invocation_of(60.0))
                scans = meter.requests.get("Scan", 0)
                assert scans == 0, "an erasure must never scan the table"
                figures.append(
                    Figures(
                        engine,
                        games,
                        others[engine],
                        meter.requests,
                        meter.write_units,
                        meter.rule_write_units,
                        meter.read_units,
                        seconds,
                        invocations,
                    )
                )
    return figures


def report(figures: list[Figures]) -> str:
    labels = {"moto": f"moto {moto_version()}", "dynamodb_local": f"DynamoDB Local {VERSION}"}
    lines = [
        f"Erasing a player of {LADDER} (20 opponents, one podium award); per erased game:",
        "",
        "| engine | games | other games | requests | per game | WCU reported | per game "
        "| WCU by AWS's rule | per game | RCU reported | per game | time | ms per game "
        "| invocations |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for entry in figures:
        total = sum(entry.requests.values())
        games = entry.games
        lines.append(
            f"| {labels[entry.engine]} | {games} | {entry.others} | {total} | "
            f"{total / games:.2f} | "
            f"{entry.write_units:g} | {entry.write_units / games:.2f} | "
            f"{entry.rule_write_units:g} | {entry.rule_write_units / games:.2f} | "
            f"{entry.read_units:g} | {entry.read_units / games:.2f} | "
            f"{entry.seconds:.2f} s | {1000 * entry.seconds / games:.1f} | "
            f"{entry.invocations} |"
        )
    lines += ["", "Requests by operation:"]
    for entry in figures:
        ops = ", ".join(f"{name} {count}" for name, count in sorted(entry.requests.items()))
        lines.append(f"- {labels[entry.engine]}, {entry.games} games: {ops}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--games", default="10,100,1000", help="the player's games, comma-separated"
    )
    parser.add_argument("--others", type=int, default=2000, help="others' games (DynamoDB Local)")
    parser.add_argument("--moto-games", default="10,100,300", help="the player's games on moto")
    parser.add_argument("--moto-others", type=int, default=0, help="others' games on moto")
    args = parser.parse_args(argv)
    sizes = {
        "dynamodb_local": [int(value) for value in args.games.split(",")],
        "moto": [int(value) for value in args.moto_games.split(",")],
    }
    others = {"moto": args.moto_others, "dynamodb_local": args.others}
    print(report(measure(sizes, others)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
