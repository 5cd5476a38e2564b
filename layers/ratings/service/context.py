"""What every use case may ask of the service it belongs to: the ladders it serves (an unknown
id is NotFound), its settings (how long records are kept, how far ranks are counted exactly,
a player's daily game limit and the arithmetic behind it), and the time."""

from collections.abc import Callable, Mapping
from datetime import UTC, datetime, timedelta
from typing import NamedTuple

from ratings.rules import Ladder
from ratings.service.errors import NotFound

# The service's settings and its clock.

#: What the use cases ask the time of (tests pass one they move).
Clock = Callable[[], datetime]


def utc_now() -> datetime:
    return datetime.now(UTC)


class Settings(NamedTuple):
    #: How long per-player history records live (their TTL), counted from the event's time.
    history_retention: timedelta = timedelta(days=30)
    #: How long a game's record (and so duplicate detection) lives, counted from receipt.
    game_retention: timedelta = timedelta(days=30)
    #: Ranks up to this are counted exactly on the leaderboard index; beyond, estimated.
    exact_rank_limit: int = 1000
    #: Games a player may have rated per UTC day; None: as many as keep the player's
    #: partition within its budget at the longer of the two retentions (`daily_game_limit`).
    games_per_day: int | None = None

    @property
    def daily_game_limit(self) -> int:
        if self.games_per_day is not None:
            return self.games_per_day
        return daily_game_limit(max(self.history_retention, self.game_retention))


# The daily game limit of a player, which keeps a player's partition of the table well under
# the 10 GiB DynamoDB lets one partition key hold in a table with a local secondary index
# (docs/table-layout.md, "How big a player's partition gets", has the arithmetic).
#
# Almost all of a partition is history events, and an event lives `RetentionDays` (3650 at
# most) after its time. Without a limit, one API key at its daily quota (1,000,000 requests)
# of games against one victim would add about 1.8 GB a day to the victim's partition: full in
# under a week at the longest retention, after which every write there fails. So each
# player's games are counted per UTC day (of receipt) in their state, and a game that would
# take a player past the limit is refused; the limit is what keeps the largest partition at
# half the cap for the retention configured.

#: DynamoDB's limit on one partition key's items and their local index entries.
ITEM_COLLECTION_LIMIT_BYTES = 10 * 1024**3
#: What the limit keeps a partition under: half of it, whatever the retention.
PARTITION_BUDGET_BYTES = ITEM_COLLECTION_LIMIT_BYTES // 2
#: The largest history event, with its ranked_by_time entry and DynamoDB's 100-byte overhead
#: on each (1,820 bytes measured: a ranked game between 128-character ids,
#: tests/integration/test_partition_size.py), rounded up.
EVENT_ITEM_BYTES = 2_000
#: How late DynamoDB's TTL may delete an expired event (AWS: typically within a few days; a
#: month counted to be safe).
TTL_LAG_DAYS = 30
#: How late a game may be submitted after it was played (`rules.submission`'s 14 days), plus
#: the day it is counted on.
LATE_DAYS = 15
#: The limit at a short retention, where the partition's budget would allow more: one game
#: every 9 seconds, all day.
MOST_GAMES_PER_DAY = 10_000


def partition_days(retention: timedelta) -> int:
    """Days' worth of a player's games that can have events in their partition at once: the
    games' own events (a game received within the retention, the day it counts on and TTL's
    lag), plus at most one refund event for each (a refund lives the retention after it is
    paid, for a game played up to the retention before)."""
    days = retention.days
    games = days + 1 + TTL_LAG_DAYS
    refunds = 2 * days + TTL_LAG_DAYS + LATE_DAYS
    return games + refunds


def daily_game_limit(retention: timedelta) -> int:
    """Games a player may have rated (ranked or not) per UTC day: as many as keep the
    partition within PARTITION_BUDGET_BYTES at this retention, at most MOST_GAMES_PER_DAY."""
    fitting = PARTITION_BUDGET_BYTES // (EVENT_ITEM_BYTES * partition_days(retention))
    return int(min(MOST_GAMES_PER_DAY, fitting))


def partition_bytes(retention: timedelta) -> int:
    """The most a player's history events take at this retention under the daily limit."""
    return daily_game_limit(retention) * partition_days(retention) * EVENT_ITEM_BYTES


class Context(NamedTuple):
    ladders: Mapping[str, Ladder]
    settings: Settings
    clock: Clock

    def ladder(self, ladder_id: str) -> Ladder:
        ladder = self.ladders.get(ladder_id)
        if ladder is None:
            known = ", ".join(self.ladders)
            raise NotFound(f"ladder {ladder_id!r} does not exist; ladders: {known}")
        return ladder

    def ladder_ids(self) -> list[str]:
        return list(self.ladders)

    def now(self) -> datetime:
        return self.clock()
