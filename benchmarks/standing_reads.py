"""What a standing costs: requests, index entries and estimated read units of a player's rank
(exact near the top, estimated beyond), of an around page, and of the histogram refresh, on
moto's in-process DynamoDB with a board of P players.

Ratings are drawn around 1500 (normal, sigma 200, integers), like an established ladder. Every
request of the adapter is seen at its botocore client; the entries a Query reads are its
ScannedCount, and read units are ESTIMATED from the measured size of an index entry
(DynamoDB's item-size rules, no per-item overhead on reads): an eventually consistent Query
costs 0.5 RRU per started 4 KB of the entries it read, a GetItem 0.5 per started 4 KB.

    python -m benchmarks.standing_reads [--players P] [--limit L] [--shards S]
"""

import argparse
import math
import os
import random
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from moto import mock_aws

from ratings.rules import DEFAULT_LADDERS
from ratings.rules.ranking import board_order
from ratings.service.facade import RatingService, Settings
from ratings.storage.dynamodb import DynamoStorage, leaderboard_shard, player_key
from ratings.storage.dynamodb.layout import STATE_SK, RatingsItem, StateItem

from .requests_per_game import attribute_size

LADDER = "backgammon"
NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


@dataclass
class Meter:
    """Requests and entries read, per operation, with estimated read units."""

    entry_bytes: int
    requests: Counter[str] = field(default_factory=Counter)
    entries: int = 0
    rru: float = 0.0
    item_bytes: int = 0

    def see(self, operation: str, parsed: dict[str, Any]) -> None:
        self.requests[operation] += 1
        if operation == "Query":
            scanned = int(parsed.get("ScannedCount", parsed.get("Count", 0)))
            self.entries += scanned
            self.rru += 0.5 * max(1, math.ceil(scanned * self.entry_bytes / 4096))
        elif operation == "GetItem":
            item = parsed.get("Item") or {}
            size = sum(len(name) + attribute_size(value) for name, value in item.items())
            self.item_bytes = size
            self.rru += 0.5 * max(1, math.ceil(size / 4096))


@contextmanager
def metered(storage: DynamoStorage, entry_bytes: int) -> Iterator[Meter]:
    meter = Meter(entry_bytes)
    events = storage.connection.client.meta.events

    def after_call(model: Any, parsed: dict[str, Any], **_: Any) -> None:
        meter.see(model.name, parsed)

    events.register("after-call.dynamodb", after_call)
    try:
        yield meter
    finally:
        events.unregister("after-call.dynamodb", after_call)


def fill(storage: DynamoStorage, players: int, rng: random.Random) -> list[tuple[str, int]]:
    """Players straight into the table as states on the leaderboard (one ranked game each)."""
    board = []
    items: list[RatingsItem] = []
    for index in range(players):
        player_id = f"player-{index:07d}"
        rating = round(rng.gauss(1500, 200))
        item = StateItem(
            player_key(LADDER, player_id),
            STATE_SK,
            ladder=LADDER,
            player_id=player_id,
            rating=rating,
            ranked_games=1,
            version=1,
        )
        item.lb_shard = leaderboard_shard(LADDER, player_id, storage.table.shards)
        item.lb_rating = rating
        items.append(item)
        board.append((player_id, rating))
    storage.table.put_all(items)
    board.sort(key=lambda row: board_order(row[1], row[0]))
    return board


def entry_size(player_id: str, shards: int) -> int:
    """Bytes of one leaderboard index entry: table keys, index keys, projected attributes."""
    values = {
        "pk": {"S": player_key(LADDER, player_id)},
        "sk": {"S": STATE_SK},
        "lb_shard": {"S": leaderboard_shard(LADDER, player_id, shards)},
        "lb_rating": {"N": "1500"},
        "player_id": {"S": player_id},
        "ranked_games": {"N": "12"},
    }
    return sum(len(name) + attribute_size(value) for name, value in values.items())


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=20_000)
    parser.add_argument("--limit", type=int, default=1000)
    parser.add_argument("--shards", type=int, default=4)
    args = parser.parse_args(argv)
    rng = random.Random(14)
    # moto's AWS only: fake credentials, no endpoint or profile that could reach a real one.
    for name in ("AWS_ENDPOINT_URL", "AWS_PROFILE"):
        os.environ.pop(name, None)
    os.environ.update(
        {
            "AWS_ACCESS_KEY_ID": "bench",
            "AWS_SECRET_ACCESS_KEY": "bench",
            "AWS_DEFAULT_REGION": "us-east-1",
        }
    )
    with mock_aws():
        storage = DynamoStorage(f"standing-{uuid.uuid4().hex[:8]}", leaderboard_shards=args.shards)
        storage.create_table()
        started = time.perf_counter()
        board = fill(storage, args.players, rng)
        print(f"filled {args.players} players in {time.perf_counter() - started:.1f} s")
        entry_bytes = entry_size(board[0][0], args.shards)
        settings = Settings(exact_rank_limit=args.limit)
        service = RatingService(storage, DEFAULT_LADDERS, settings=settings, clock=lambda: NOW)

        with metered(storage, entry_bytes) as meter:
            started = time.perf_counter()
            summary = service.refresh_standings(LADDER)
            seconds = time.perf_counter() - started
        print(
            f"refresh: {summary['players']} players, {summary['ratings']} ratings, "
            f"{dict(meter.requests)} requests, {meter.entries} entries, est. {meter.rru:.1f} RRU, "
            f"{seconds:.2f} s on moto; index entry {entry_bytes} B"
        )
        with metered(storage, entry_bytes) as meter:
            service.get_player(LADDER, board[0][0])
        print(f"histogram item: {meter.item_bytes} B")

        print(f"\nstanding of one player (exact limit {args.limit}, {args.shards} shards)")
        print(f"{'rank':>8} {'exact':>6} {'entries':>8} {'est. RRU':>9}  requests")
        for rank in (1, 10, 100, 500, args.limit - 1, args.limit, args.limit + 1, 5000, len(board)):
            if not 1 <= rank <= len(board):
                continue
            player_id = board[rank - 1][0]
            with metered(storage, entry_bytes) as meter:
                record = service_record(storage, player_id)
                standing = service.ranking.rank(LADDER, record.rating, record.player_id)
            assert standing is not None
            print(
                f"{rank:>8} {standing.exact!s:>6} {meter.entries:>8} {meter.rru:>9.1f}  "
                f"{dict(meter.requests)}"
            )

        print("\naround a player, limit 11")
        for rank in (1, 500, 5000):
            player_id = board[rank - 1][0]
            with metered(storage, entry_bytes) as meter:
                page = service.get_leaderboard(LADDER, 11, around=player_id)
            print(
                f"rank {rank:>6}: exact {page['exact']!s:>5}, {meter.entries} entries, "
                f"est. {meter.rru:.1f} RRU, {dict(meter.requests)}"
            )


def service_record(storage: DynamoStorage, player_id: str) -> Any:
    return storage.unit_of_work().read_states(LADDER, [player_id])[player_id]


if __name__ == "__main__":
    main()
