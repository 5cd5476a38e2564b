"""The service's settings (how long records are kept, how far ranks are counted exactly) and
its clock."""

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import NamedTuple

from ratings.service import player_limits

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
    #: partition within its budget at the longer of the two retentions (`player_limits`).
    games_per_day: int | None = None

    @property
    def daily_game_limit(self) -> int:
        if self.games_per_day is not None:
            return self.games_per_day
        return player_limits.daily_game_limit(max(self.history_retention, self.game_retention))
