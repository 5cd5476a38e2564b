"""What gammon42's recent-games window costs one rated game, case by case, as Amazon's DynamoDB
Local meters it (moto beside it for the requests).

gammon42's K reads the player's ranked games in the 7 days before the game being rated. Each
case builds a player's history through the service (not measured), then rates one game of
that player (the hero) against a partner who has one game of their own, and reports that
game's requests, the read and write units DynamoDB Local reported
(ReturnConsumedCapacity=INDEXES), the table's write units by AWS's documented rule (2 per item
per started KB in a transaction) and the bytes of the hero's state item as written.

    python -m benchmarks.window_reads

Needs DynamoDB Local (`make setup-dynamodb-local`).
"""

import argparse
import random
import time
import zlib
from collections.abc import Callable
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from ratings.rules import DEFAULT_LADDERS
from ratings.service.facade import RatingService
from ratings.service.unit_of_work import Retrier
from ratings.storage.dynamodb import DynamoStorage
from ratings.storage.dynamodb.layout import STATE_SK, player_key
from ratings_local.dynamodb_local import VERSION

from .engine_capacity import Meter, engine_endpoint, new_table
from .requests_per_game import NOW, body, item_size

LADDER = "backgammon"
#: The state attribute that keeps the played_at times of recent ranked games; a state stored
#: before it existed has none (the "legacy" case removes it).
RECENT_ATTRIBUTE = "recent"


@dataclass
class Case:
    name: str
    what: str
    #: Builds the history (service, storage, the hero's id); the hero's game follows.
    build: Callable[[RatingService, DynamoStorage, str], None]
    #: How long before NOW the measured game was played.
    played_before: timedelta = timedelta(minutes=1)
    #: The hero's id, if not one of the case's own.
    hero: str | None = None


@dataclass
class Figures:
    case: Case
    operations: list[str]
    reads: float
    writes: float
    table_writes: float
    rule_wcu: float
    state_bytes: int
    k: int
    recent: int


def history(service: RatingService, hero: str, ages: list[timedelta], prefix: str) -> None:
    """One game of `hero` at NOW - age for each age, each against a fresh opponent."""
    rng = random.Random(zlib.crc32(f"{hero}/{prefix}".encode()))
    for index, age in enumerate(ages):
        game = body(LADDER, f"{prefix}-{index}", hero, f"{prefix}-opp-{index}", NOW - age, rng)
        if not service.submit_game(LADDER, game).created:
            raise AssertionError("a history game was not rated")


def spread(count: int, newest: timedelta, step: timedelta) -> list[timedelta]:
    """`count` ages from the oldest to `newest`, `step` apart (played in time order)."""
    return [newest + step * index for index in reversed(range(count))]


def in_order(service: RatingService, storage: DynamoStorage, hero: str) -> None:
    history(service, hero, spread(10, timedelta(hours=2), timedelta(hours=3)), hero)


def heavy_week(service: RatingService, storage: DynamoStorage, hero: str) -> None:
    history(service, hero, spread(80, timedelta(hours=2), timedelta(hours=1)), hero)


def late_light(service: RatingService, storage: DynamoStorage, hero: str) -> None:
    history(service, hero, spread(20, timedelta(hours=2), timedelta(hours=6)), hero)


def late_heavy(service: RatingService, storage: DynamoStorage, hero: str) -> None:
    # 80 games in the last 3 days and 10 more before: the measured game, played 6 days ago,
    # has a window (13 to 6 days ago) older than the 50 newest games.
    history(service, hero, spread(10, timedelta(days=8), timedelta(hours=3)), f"{hero}-old")
    history(service, hero, spread(80, timedelta(hours=2), timedelta(minutes=50)), hero)


def legacy(service: RatingService, storage: DynamoStorage, hero: str) -> None:
    history(service, hero, spread(30, timedelta(hours=2), timedelta(hours=3)), hero)
    client: Any = storage.connection.client
    client.update_item(
        TableName=storage.table.table_name,
        Key={"pk": {"S": player_key(LADDER, hero)}, "sk": {"S": STATE_SK}},
        UpdateExpression=f"REMOVE {RECENT_ATTRIBUTE}",
    )


def absorbed(service: RatingService, storage: DynamoStorage, hero: str) -> None:
    device = f"{hero}-device"
    history(service, device, spread(30, timedelta(hours=2), timedelta(hours=3)), device)
    service.link_identity({"anonymous_id": device, "account_id": hero})


CASES = [
    Case("in order", "10 games in 30 h, the game after them", in_order),
    Case("heavy week", "80 games in the last 80 h, the game after them", heavy_week),
    Case(
        "out of order",
        "80 games in the last 80 h; a game played before the 10 newest arrives",
        heavy_week,
        timedelta(hours=11, minutes=30),
    ),
    Case(
        "late, light",
        "20 games in 5 days, a game of 4 days ago arrives",
        late_light,
        timedelta(days=4),
    ),
    Case(
        "late, heavy",
        "90 games, 80 in 3 days; a game of 6 days ago arrives",
        late_heavy,
        timedelta(days=6),
    ),
    Case("legacy state", "30 games, state stored before the change; the next game", legacy),
    Case("absorbed id", "an account that took a device's 30 games; its next game", absorbed),
]


def state_bytes(storage: DynamoStorage, hero: str) -> int:
    client: Any = storage.connection.client
    answer = client.get_item(
        TableName=storage.table.table_name,
        Key={"pk": {"S": player_key(LADDER, hero)}, "sk": {"S": STATE_SK}},
        ConsistentRead=True,
    )
    return item_size(answer["Item"])


def measure_case(endpoint: str | None, case: Case) -> Figures:
    storage = DynamoStorage(new_table(endpoint, "bench-window"), endpoint_url=endpoint)
    service = RatingService(
        storage, DEFAULT_LADDERS, clock=lambda: NOW, retrier=Retrier(sleep=lambda _: None)
    )
    hero = case.hero or "hero-" + case.name.replace(" ", "-").replace(",", "")
    partner = f"{hero}-partner"
    rng = random.Random(7)
    warm = body(LADDER, f"{partner}-warm", partner, f"{partner}-spar", NOW - timedelta(days=9), rng)
    service.submit_game(LADDER, warm)
    case.build(service, storage, hero)
    meter = Meter()
    meter.attach(storage.connection.client)
    meter.reset()
    game = body(LADDER, f"{hero}-measured", hero, partner, NOW - case.played_before, rng)
    submitted = service.submit_game(LADDER, game)
    if not submitted.created:
        raise AssertionError("the measured game was not rated")
    operations = [name for name, count in meter.requests.items() for _ in range(count)]
    (mine,) = [entry for entry in submitted.result["players"] if entry["id"] == hero]
    figures = Figures(
        case,
        operations,
        meter.reads(),
        meter.writes(),
        meter.writes("table"),
        meter.rule_wcu,
        state_bytes(storage, hero),
        int(mine["explain"]["k"]),
        int(mine["explain"]["recent_ranked_games"]),
    )
    return figures


def describe(operations: list[str]) -> str:
    counts: dict[str, int] = {}
    for name in operations:
        counts[name] = counts.get(name, 0) + 1
    short = {"BatchGetItem": "BatchGet", "TransactWriteItems": "TransactWrite"}
    return " + ".join(f"{count} {short.get(name, name)}" for name, count in counts.items())


def report(local: list[Figures], moto: list[Figures]) -> str:
    lines = [
        f"One gammon42 game of the hero, per case; DynamoDB Local {VERSION} (requests also on "
        "moto). Units as DynamoDB Local reported them; rule: the table's write units by AWS's",
        "documented rule (2 per item per started KB in a transaction).",
        "",
    ]
    header = (
        f"{'case':<14}{'req':>4}  {'requests':<38}{'RCU':>6}{'WCU':>7}{'table':>7}{'rule':>6}"
        f"{'state B':>9}{'recent':>8}{'K':>4}{'moto req':>10}"
    )
    lines += [header, "-" * len(header)]
    for ours, theirs in zip(local, moto, strict=True):
        if (ours.k, ours.recent) != (theirs.k, theirs.recent):
            raise AssertionError(f"{ours.case.name}: the engines rated differently")
        lines.append(
            f"{ours.case.name:<14}{len(ours.operations):>4}  {describe(ours.operations):<38}"
            f"{ours.reads:>6.1f}{ours.writes:>7.1f}{ours.table_writes:>7.1f}{ours.rule_wcu:>6.0f}"
            f"{ours.state_bytes:>9}{ours.recent:>8}{ours.k:>4}{len(theirs.operations):>10}"
        )
    lines += ["", "Cases:"]
    lines += [f"  {figures.case.name:<14}{figures.case.what}" for figures in local]
    lines += [
        "",
        "state B: the hero's state item after the game (DynamoDB's item-size rules); recent, K:",
        "  the hero's recent_ranked_games and K in the result.",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.parse_args(argv)
    measured: dict[str, list[Figures]] = {}
    for engine in ("dynamodb_local", "moto"):
        started = time.perf_counter()
        with engine_endpoint(engine) as endpoint:
            measured[engine] = [measure_case(endpoint, case) for case in CASES]
        print(f"{engine}: measured in {time.perf_counter() - started:.1f} s", flush=True)
    print()
    print(report(measured["dynamodb_local"], measured["moto"]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
