"""How big a player's partition can get, and what a write into a full one is.

The items of one player's partition at their largest (ids of 128 characters, every ruleset's
explain, the longest numbers), sized by DynamoDB's documented rules on what each engine
stores, against the per-item figures the daily game limit is worked out from
(docs/table-layout.md, "How big a player's partition gets"). A full partition is injected.

DynamoDB sizes an item as the UTF-8 bytes of its attribute names and string values, about one
byte per two digits of a number plus one, and one byte a boolean; a local secondary index entry
as its keys (the table's and the index's) plus 100 bytes. DynamoDB reports an item
collection's size only as a range of GB (ReturnItemCollectionMetrics), so the sizes are counted
from what each engine stores.
"""

import math
import re
from datetime import timedelta
from typing import Any

import pytest
from support.dynamodb import raw_items
from support.faults import DynamoFaults
from support.games import HOUR, NOW, game
from support.template import ROOT

from ratings.errors import Disposition, classify
from ratings.rules.ranking import RatingHistogram
from ratings.service.errors import NotFound, PlayerStorageFull
from ratings.service.facade import (
    EVENT_ITEM_BYTES,
    ITEM_COLLECTION_LIMIT_BYTES,
    RatingService,
    daily_game_limit,
    partition_bytes,
)
from ratings.service.stored import Standings
from ratings.storage.dynamodb import DynamoStorage, player_key

#: DynamoDB's overhead of an item, counted for a local index entry (and here, to be safe, for
#: every item of the table as well).
ITEM_OVERHEAD = 100
LONGEST = 128


def long_id(prefix: str) -> str:
    return (prefix + "-" + "x" * LONGEST)[:LONGEST]


def value_bytes(value: dict[str, Any]) -> int:
    ((kind, content),) = value.items()
    if kind == "S":
        return len(content.encode("utf-8"))
    if kind == "N":
        digits = content.lstrip("-").replace(".", "").strip("0") or "0"
        return math.ceil(len(digits) / 2) + 1
    if kind in ("BOOL", "NULL"):
        return 1
    if kind == "B":  # the state's kept played_at times (bytes, as botocore decodes them)
        return len(content)
    raise AssertionError(f"an attribute of type {kind} in the table")


def item_bytes(item: dict[str, Any]) -> int:
    """DynamoDB's size of a stored item, with its overhead, and of its ranked_by_time entry."""
    size = ITEM_OVERHEAD + sum(len(name.encode()) + value_bytes(v) for name, v in item.items())
    if "ranked_at" in item:  # keys only: the table's keys, the index's key, the overhead
        keys = ("pk", "sk", "ranked_at")
        size += ITEM_OVERHEAD + sum(len(name) + value_bytes(item[name]) for name in keys)
    return size


def largest_games(service: RatingService, a: str, b: str) -> None:
    """A game of each ladder between `a` and `b` at their largest: 128-character ids, ranked
    (an explain), the most digits the rules produce; and an unranked one (its reason)."""
    at = NOW - timedelta(minutes=30)
    stats = {"bad_moves": 999_999, "rounds_won_16": 999_999, "rounds_won_24": 999_999}
    sedma_players = [{"id": a, "stats": stats}, {"id": b, "stats": dict(stats)}]
    service.submit_game("sedma", game(long_id("s1"), a, b, played_at=at, players=sedma_players))
    service.submit_game("classic", game(long_id("c1"), a, b, played_at=at))
    for number in range(3):
        ladder_game = game(long_id(f"b{number}"), a, b, played_at=at + timedelta(minutes=number))
        service.submit_game("backgammon", ladder_game)
    shared = [{"id": a, "network": "n" * 256}, {"id": b, "network": "n" * 256}]
    service.submit_game("backgammon", game(long_id("u1"), a, b, played_at=at, players=shared))


def test_a_players_items_stay_within_the_figures_of_the_bound(
    dynamo_storage: DynamoStorage, service: RatingService
) -> None:
    a, b = long_id("a"), long_id("b")
    largest_games(service, a, b)

    sizes: dict[str, list[int]] = {}
    for ladder in ("backgammon", "sedma", "classic"):
        for item in raw_items(dynamo_storage, player_key(ladder, a)):
            sizes.setdefault(item["kind"]["S"], []).append(item_bytes(item))

    assert len(sizes["event"]) == 6  # 3 + 1 ranked backgammon, sedma, classic
    assert max(sizes["event"]) <= EVENT_ITEM_BYTES
    # Close to the figure: it is a measurement, not a guess far above.
    assert max(sizes["event"]) > EVENT_ITEM_BYTES * 0.8
    assert max(sizes["state"]) <= EVENT_ITEM_BYTES


@pytest.mark.parametrize("days", [15, 30, 365, 3650])  # template.yaml's RetentionDays range
def test_the_daily_limit_keeps_a_partition_at_half_the_limit(days: int) -> None:
    retention = timedelta(days=days)

    assert partition_bytes(retention) <= ITEM_COLLECTION_LIMIT_BYTES / 2
    # Still room for a player who plays all day: a game every 6 minutes at the longest.
    assert daily_game_limit(retention) >= 240


def test_api_md_gives_the_limit_of_each_retention() -> None:
    text = (ROOT / "docs" / "api.md").read_text()
    table = text.split("| `RetentionDays` | games per player per UTC day |")[1].split("\n\n")[0]
    rows = [line.split("|")[1:3] for line in table.strip().splitlines()[1:]]

    assert len(rows) >= 4
    for days_text, limit_text in rows:
        days = [int(n.replace(",", "")) for n in re.findall(r"[\d,]+", days_text) if n != ","]
        limit = int(limit_text.split()[0].replace(",", ""))
        for day_count in (days[0], days[1]) if " to " in days_text else (days[0],):
            assert daily_game_limit(timedelta(days=day_count)) == limit, days_text


# A partition at the limit, injected (no engine fills one) --------------------------------


def test_a_transaction_into_a_full_partition_is_player_storage_full(
    dynamo_storage: DynamoStorage, service: RatingService
) -> None:
    faults = DynamoFaults(dynamo_storage.connection.client)
    # A ranked game's items as sent: the game, two states, two events; the second event full.
    reasons = ["None", "None", "None", "None", "ItemCollectionSizeLimitExceeded"]
    faults.fail("TransactWriteItems", "TransactionCanceledException", cancellation_reasons=reasons)

    with pytest.raises(PlayerStorageFull) as refused:
        service.submit_game("backgammon", game("g-full", "alice", "bob", played_at=NOW - HOUR))

    assert classify(refused.value).disposition is Disposition.REFUSED
    assert faults.injected == ["TransactWriteItems"]  # not retried: it cannot succeed
    assert service.retries == 0
    with pytest.raises(NotFound):
        service.get_game("backgammon", "g-full")


def test_a_plain_write_into_a_full_partition_is_player_storage_full(
    dynamo_storage: DynamoStorage,
) -> None:
    DynamoFaults(dynamo_storage.connection.client).fail(
        "PutItem", "ItemCollectionSizeLimitExceededException"
    )
    standings = Standings("backgammon", RatingHistogram(((1500, 2),)), NOW)

    with pytest.raises(PlayerStorageFull):
        dynamo_storage.unit_of_work().put_standings(standings)
