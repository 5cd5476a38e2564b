"""DynamoDB requests and capacity per rated game, per ruleset, on moto's in-process DynamoDB.

Rates N games per ladder between players who all have a state already (the common path of
docs/table-layout.md), counting every request at the botocore client the adapter uses. Each
request asks for ReturnConsumedCapacity=TOTAL; what moto reports is printed as reported, and
write units are also estimated from the sizes of the items each transaction writes (DynamoDB's
item-size rules, 2 WCU per started KB for a transactional write), labelled as an estimate.

    python -m benchmarks.requests_per_game [--games N] [--players P] [--duplicates D]
"""

import argparse
import copy
import math
import os
import random
import uuid
from collections import Counter, defaultdict
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any

from botocore.client import BaseClient
from botocore.model import OperationModel
from moto import mock_aws

from ratings.declare.answers import format_utc_millis
from ratings.rules import DEFAULT_LADDERS
from ratings.service.facade import RatingService
from ratings.service.unit_of_work import Retrier
from ratings.storage.dynamodb import DynamoStorage

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
READS = ("BatchGetItem", "GetItem", "Query", "Scan", "TransactGetItems")
WRITES = ("TransactWriteItems", "PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem")
#: DynamoDB's per-item overhead of a secondary index entry, in bytes.
INDEX_ENTRY_OVERHEAD = 100


#: What the capacity columns mean, printed under the table.
NOTES = [
    "  moto's figures are placeholders, not DynamoDB's metering: BatchGetItem reports one",
    "  unit per key asked, Query a fixed 1.0 whatever it reads, TransactWriteItems nothing.",
    "est. WCU table: an ESTIMATE from the size of each item a TransactWriteItems puts",
    "  (DynamoDB's item-size rules): 2 WCU per started KB per item, as transactional writes",
    "  cost; index maintenance not included.",
    "est. index writes: an ESTIMATE of secondary-index entry writes: LSI ranked_by_time 1 per",
    "  ranked game event; GSI leaderboard 2 per listed state whose rating moved (delete + put),",
    "  else 1 per listed state written. Entries are well under 1 KB "
    f"({INDEX_ENTRY_OVERHEAD} B overhead + keys),",
    "  so about 1 WCU each.",
]


def attribute_size(value: Mapping[str, Any]) -> int:
    """Bytes of one attribute value, by DynamoDB's item-size rules (wire format)."""
    ((kind, data),) = value.items()
    if kind == "S":
        return len(str(data).encode())
    if kind == "N":
        digits = Decimal(str(data)).normalize().as_tuple().digits
        return math.ceil(len(digits) / 2) + 1
    if kind == "B":
        return len(data)
    if kind in ("BOOL", "NULL"):
        return 1
    if kind in ("SS", "NS", "BS"):
        return sum(attribute_size({kind[0]: member}) for member in data)
    if kind == "L":
        return 3 + sum(1 + attribute_size(member) for member in data)
    if kind == "M":
        return 3 + sum(
            1 + len(name.encode()) + attribute_size(member) for name, member in data.items()
        )
    raise ValueError(f"unknown attribute type {kind}")


def item_size(item: Mapping[str, Mapping[str, Any]]) -> int:
    return sum(len(name.encode()) + attribute_size(value) for name, value in item.items())


@dataclass
class Meter:
    """Counts requests and capacity at a botocore client (its event hooks)."""

    operations: Counter[str] = field(default_factory=Counter)
    #: Capacity units moto reported, by operation.
    reported: defaultdict[str, float] = field(default_factory=lambda: defaultdict(float))
    #: Requests whose response carried no ConsumedCapacity (or an empty one), by operation.
    unreported: Counter[str] = field(default_factory=Counter)
    #: Estimated write units of the base-table items written (transactional: 2 per started KB).
    estimated_table_wcu: float = 0.0
    #: Estimated secondary-index entry writes (LSI ranked_by_time, GSI leaderboard).
    estimated_index_writes: int = 0
    written_items: int = 0
    written_bytes: int = 0
    largest_item: int = 0
    #: The leaderboard rating last written per state item (kept across resets).
    listed_ratings: dict[str, str] = field(default_factory=dict)

    def attach(self, client: BaseClient) -> None:
        events = client.meta.events
        events.register("before-parameter-build.dynamodb", self._before_parameter_build)
        events.register("before-call.dynamodb", self._before_call)
        events.register("after-call.dynamodb", self._after_call)

    def snapshot(self) -> "Meter":
        """A copy of the figures so far (the copy is attached to nothing)."""
        return copy.deepcopy(self)

    def reset(self) -> None:
        self.operations.clear()
        self.reported.clear()
        self.unreported.clear()
        self.estimated_table_wcu = 0.0
        self.estimated_index_writes = 0
        self.written_items = 0
        self.written_bytes = 0
        self.largest_item = 0

    def _before_parameter_build(
        self, params: dict[str, Any], model: OperationModel, **_: Any
    ) -> None:
        shape = model.input_shape
        if shape is not None and "ReturnConsumedCapacity" in shape.members:
            params["ReturnConsumedCapacity"] = "TOTAL"
        if model.name == "TransactWriteItems":
            self._estimate_transaction(params.get("TransactItems", []))

    def _estimate_transaction(self, transact_items: list[dict[str, Any]]) -> None:
        for transact_item in transact_items:
            put = transact_item.get("Put")
            if put is None:  # no other kind on the game path; counted as a write request only
                continue
            item = put["Item"]
            size = item_size(item)
            self.written_items += 1
            self.written_bytes += size
            self.largest_item = max(self.largest_item, size)
            self.estimated_table_wcu += 2 * math.ceil(size / 1024)
            if "ranked_at" in item:  # a ranked game event enters the LSI
                self.estimated_index_writes += 1
            if "lb_shard" in item:
                # A state new to the leaderboard adds an entry; a rating change moves it (its
                # sort key): a delete and a put; otherwise the entry is rewritten in place.
                key = item["pk"]["S"]
                before = self.listed_ratings.get(key)
                rating = item["lb_rating"]["N"]
                moved = before is not None and Decimal(before) != Decimal(rating)
                self.estimated_index_writes += 2 if moved else 1
                self.listed_ratings[key] = rating

    def _before_call(self, model: OperationModel, **_: Any) -> None:
        self.operations[model.name] += 1

    def _after_call(self, parsed: dict[str, Any], model: OperationModel, **_: Any) -> None:
        consumed = parsed.get("ConsumedCapacity")
        if isinstance(consumed, dict):
            consumed = [consumed]
        units = sum(float(entry.get("CapacityUnits", 0)) for entry in consumed or [])
        if not consumed:
            self.unreported[model.name] += 1
        self.reported[model.name] += units


@dataclass
class Measurement:
    ladder: str
    ruleset: str
    games: int
    meter: Meter
    duplicates: int
    duplicate_operations: Counter[str]


class Clock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


def body(
    ladder: str, game_id: str, a: str, b: str, at: datetime, rng: random.Random
) -> dict[str, Any]:
    """A plausible game of the ladder's ruleset (random winner, cube, statistics, draws)."""
    winner: str | None = rng.choice([a, b])
    game: dict[str, Any] = {
        "game_id": game_id,
        "played_at": format_utc_millis(at),
        "players": [{"id": a}, {"id": b}],
    }
    if ladder == "backgammon":
        game["cube"] = rng.choice([1, 1, 1, 2, 2, 4, 8, 16, 32, 64])
        game["ending"] = rng.choice(["normal", "resign", "timeout"])
        game["points"] = rng.choice([1, 1, 2, 3])
    elif ladder == "sedma":
        for player in game["players"]:
            player["stats"] = {
                "bad_moves": rng.randrange(6),
                "rounds_won_16": rng.randrange(3),
                "rounds_won_24": rng.randrange(2),
                "rounds_won_4_last": rng.randrange(3),
            }
    elif rng.random() < 0.2:  # classic has draws
        winner = None
    game["winner"] = winner
    return game


@contextmanager
def fake_aws() -> Iterator[None]:
    """moto in this process, with fake credentials (restored afterwards)."""
    fake = {
        "AWS_ACCESS_KEY_ID": "bench",
        "AWS_SECRET_ACCESS_KEY": "bench",
        "AWS_SESSION_TOKEN": "bench",
        "AWS_DEFAULT_REGION": "us-east-1",
    }
    saved = {name: os.environ.get(name) for name in [*fake, "AWS_ENDPOINT_URL", "AWS_PROFILE"]}
    os.environ.update(fake)
    os.environ.pop("AWS_ENDPOINT_URL", None)
    os.environ.pop("AWS_PROFILE", None)
    try:
        with mock_aws():
            yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def measure(games: int, players: int, duplicates: int, seed: int = 1129) -> list[Measurement]:
    results = []
    rng = random.Random(seed)
    ids = [f"pl-{index:03d}" for index in range(players)]
    with fake_aws():
        for ladder_id, ladder in DEFAULT_LADDERS.items():
            # A table per ruleset: stock moto deep-copies every table a transaction touches
            # (for its rollback), so a smaller table keeps the run short. Requests are the
            # same whatever the table holds.
            storage = DynamoStorage(f"bench-{ladder_id}-{uuid.uuid4().hex[:8]}")
            storage.create_table()
            service = RatingService(
                storage,
                DEFAULT_LADDERS,
                clock=Clock(NOW),
                retrier=Retrier(sleep=lambda seconds: None),
            )
            meter = Meter()
            meter.attach(storage.connection.client)
            # Everybody gets a state first (not measured): one game against a neighbour.
            start = NOW - timedelta(days=6)
            for index in range(0, players, 2):
                warm = body(ladder_id, f"warm-{index}", ids[index], ids[index + 1], start, rng)
                service.submit_game(ladder_id, warm)
            step = timedelta(days=5) / games
            submitted = []
            meter.reset()
            for number in range(games):
                a, b = rng.sample(ids, 2)
                at = start + timedelta(hours=1) + number * step
                game = body(ladder_id, f"g-{number}", a, b, at, rng)
                if not service.submit_game(ladder_id, game).created:
                    raise AssertionError(f"game {number} was not rated")
                submitted.append(game)
            measured = meter.snapshot()
            meter.reset()
            resubmitted = rng.sample(submitted, min(duplicates, len(submitted)))
            for game in resubmitted:
                if service.submit_game(ladder_id, game).created:
                    raise AssertionError("a duplicate was rated again")
            results.append(
                Measurement(
                    ladder_id,
                    ladder.ruleset.name,
                    games,
                    measured,
                    len(resubmitted),
                    Counter(meter.operations),
                )
            )
    return results


def per_game(value: float, games: int) -> str:
    return f"{value / games:.2f}"


def report(results: list[Measurement], players: int) -> str:
    operations = sorted({name for result in results for name in result.meter.operations})
    lines = [
        f"Requests per rated game (moto {moto_version()}, in process; {players} players who "
        "all have a state; played_at spread over 5 days)",
        "",
    ]
    header = f"{'ladder':<11} {'ruleset':<9} {'games':>5} {'req/game':>8}"
    header += "".join(f" {name:>18}" for name in operations)
    header += f" {'duplicate':>10}"
    lines += [header, "-" * len(header)]
    for result in results:
        meter = result.meter
        total = sum(meter.operations.values())
        row = f"{result.ladder:<11} {result.ruleset:<9} {result.games:>5} "
        row += f"{per_game(total, result.games):>8}"
        row += "".join(
            f" {per_game(meter.operations[name], result.games):>18}" for name in operations
        )
        duplicate = sum(result.duplicate_operations.values()) / max(result.duplicates, 1)
        row += f" {duplicate:>10.2f}"
        lines.append(row)
    duplicates = Counter[str]()
    for result in results:
        duplicates.update(result.duplicate_operations)
    lines += [
        "",
        "duplicate = requests per resubmitted game; operations: "
        + ", ".join(f"{name} {count}" for name, count in sorted(duplicates.items())),
        "",
        "Consumed capacity per rated game",
        "",
    ]
    header = (
        f"{'ladder':<11} {'reported RCU':>12} {'reported WCU':>12} {'est. WCU table':>14} "
        f"{'est. index writes':>17} {'items written':>13} {'bytes written':>13} "
        f"{'largest item':>12}"
    )
    lines += [header, "-" * len(header)]
    unreported: Counter[str] = Counter()
    for result in results:
        meter, games = result.meter, result.games
        unreported.update(meter.unreported)
        reads = sum(meter.reported[name] for name in READS)
        writes = sum(meter.reported[name] for name in WRITES)
        writes_text = per_game(writes, games)
        if any(meter.unreported[name] for name in WRITES if meter.operations[name]):
            writes_text = "none"
        lines.append(
            f"{result.ladder:<11} {per_game(reads, games):>12} {writes_text:>12} "
            f"{per_game(meter.estimated_table_wcu, games):>14} "
            f"{per_game(meter.estimated_index_writes, games):>17} "
            f"{per_game(meter.written_items, games):>13} "
            f"{per_game(meter.written_bytes, games):>13} "
            f"{meter.largest_item:>10} B"
        )
    lines += [
        "",
        "reported: the ConsumedCapacity moto returned with ReturnConsumedCapacity=TOTAL.",
    ]
    if unreported:
        lines.append(
            "  moto reported no capacity for: "
            + ", ".join(f"{name} ({count} requests)" for name, count in sorted(unreported.items()))
            + "; 'none' above means not reported, not zero."
        )
    lines += NOTES
    return "\n".join(lines)


def moto_version() -> str:
    import moto

    return str(moto.__version__)


def main(argv: list[str] | None = None) -> int:
    doc = (__doc__ or "").splitlines()[0]
    parser = argparse.ArgumentParser(description=doc)
    parser.add_argument("--games", type=int, default=100, help="rated games per ruleset")
    parser.add_argument("--players", type=int, default=24, help="players per ladder (even)")
    parser.add_argument("--duplicates", type=int, default=20, help="resubmissions per ruleset")
    args = parser.parse_args(argv)
    if args.games < 1 or args.players < 2 or args.players % 2:
        parser.error("--games must be >= 1 and --players an even number >= 2")
    results = measure(args.games, args.players, args.duplicates)
    print(report(results, args.players))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
