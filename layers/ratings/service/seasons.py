"""Seasons as the service lives them: the current season of a ladder, and a player's state
brought into it.

Starting a season writes nothing per player. A state remembers the season it is in; the unit
of work brings each state it reads into the ladder's current season (`Seasons.enter`): the
reset applied, the season's games counted from zero, and, when the player stood on the
leaderboard of the season they leave, their final standing there frozen. What that leaves to
store (`SeasonEntry`) goes with the state's next write, in the same transaction, so a
player's reset and freezing happen once, whenever they next play; a read shows the same
state without storing it. So every answer from the first instant of a season is as if the
reset had been applied to everyone then.

The seasons operators started are one record per ladder (`SeasonStore`), read here at most
once a second per ladder and container; a started season begins `START_DELAY` after the
request, later than any function can still be using the record it read before (see
docs/api.md, "Seasons").
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, NamedTuple, TypeVar

from ratings.declare.answers import format_utc_millis
from ratings.rules.seasons import ALL_TIME, OperatorStart, Season, season_at
from ratings.service.player import (
    BOARD_SEPARATOR,
    FrozenStanding,
    Player,
    SeasonEntry,
    board_id,
    board_season,
)
from ratings.service.stored import LeaderboardRow, PlayerEvent

if TYPE_CHECKING:
    from ratings.rules import Ladder

_K = TypeVar("_K")

SEASON_RESET_EVENT = "season_reset"
#: How long an operator-started season waits before it begins.
START_DELAY = timedelta(seconds=2)
#: How long the seasons operators started are kept in a container before being read again.
CACHE_FOR = timedelta(seconds=1)
#: At most this many operator-started seasons per ladder (they are one record).
MOST_OPERATOR_SEASONS = 1000


class SeasonStarts(NamedTuple):
    """A ladder's operator-started seasons, oldest first, and the record's version (0: none
    stored)."""

    starts: tuple[OperatorStart, ...] = ()
    version: int = 0


class Seasons:
    """The current season of each ladder, from its plan, the seasons operators started (read
    through `read_starts`, kept `CACHE_FOR`) and the clock."""

    def __init__(
        self,
        ladders: Mapping[str, Ladder],
        read_starts: Callable[[str], SeasonStarts] | None,
        clock: Callable[[], datetime],
        history_retention: timedelta,
    ) -> None:
        self._ladders = ladders
        self._read_starts = read_starts
        self._clock = clock
        self._retention = history_retention
        self._cache: dict[str, tuple[datetime, SeasonStarts]] = {}
        self._seasons: dict[str, tuple[tuple[OperatorStart, ...], Season]] = {}
        self._lock = threading.Lock()

    def starts(self, ladder_id: str) -> SeasonStarts:
        """The ladder's operator-started seasons, as read within CACHE_FOR."""
        if self._read_starts is None:
            return SeasonStarts()
        now = self._clock()
        with self._lock:
            cached = self._cache.get(ladder_id)
        if cached is not None and timedelta(0) <= now - cached[0] < CACHE_FOR:
            return cached[1]
        starts = self._read_starts(ladder_id)
        with self._lock:
            self._cache[ladder_id] = (now, starts)
        return starts

    def refresh(
        self,
        ladder_ids: Sequence[str],
        read_many: Callable[[Sequence[str]], Mapping[str, SeasonStarts]],
    ) -> None:
        """Read the records of those of `ladder_ids` that are out of date, in one round trip."""
        stale = [ladder_id for ladder_id in ladder_ids if self.stale(ladder_id)]
        if stale:
            for ladder_id, starts in read_many(stale).items():
                self.learn(ladder_id, starts)

    def stale(self, ladder_id: str) -> bool:
        """Whether the next read of the ladder's seasons goes to the store."""
        if self._read_starts is None:
            return False
        now = self._clock()
        with self._lock:
            cached = self._cache.get(ladder_id)
        return cached is None or not timedelta(0) <= now - cached[0] < CACHE_FOR

    def learn(self, ladder_id: str, starts: SeasonStarts) -> None:
        """Keep `starts`, just read (with a game's states), as the ladder's."""
        with self._lock:
            self._cache[ladder_id] = (self._clock(), starts)

    def forget(self, ladder_id: str) -> None:
        with self._lock:
            self._cache.pop(ladder_id, None)

    def current(self, ladder: Ladder, at: datetime | None = None) -> Season:
        """The ladder's season at `at` (default: now)."""
        at = self._clock() if at is None else at
        starts = self.starts(ladder.ladder_id).starts
        # The season last worked out, while the same starts say it runs at `at`.
        known = self._seasons.get(ladder.ladder_id)
        if known is not None and known[0] is starts and _within(known[1], at):
            return known[1]
        season = season_at(ladder.season, starts, at)
        self._seasons[ladder.ladder_id] = (starts, season)
        return season

    def enter(self, ladder: Ladder, player: Player, season: Season) -> Player:
        """`player` brought into `season` (see the module's docstring); unchanged but for the
        ladder's min_games when already in it, or in a later one (another function's clock
        passed a boundary this one has not yet)."""
        player = player._replace(min_games=ladder.season.min_games)
        if player.season_id == season.season_id or _later(player, season):
            return player
        if not player.stored:
            return player._replace(season_id=season.season_id, season_start=season.starts_at)
        frozen = None
        if player.stood:
            frozen = FrozenStanding(
                ladder=player.ladder,
                player_id=player.player_id,
                season_id=player.season_id,
                season_start=player.season_start,
                rating=player.rating,
                ranked_games=player.games_in_season,
                hidden=player.sanctioned,
            )
        after = season.reset.apply(player.rating, ladder.starting_rating)
        event = None
        if after != player.rating and season.starts_at is not None:
            event = self._reset_event(player, season, after)
        return player._replace(
            rating=after,
            season_id=season.season_id,
            season_start=season.starts_at,
            season_games=0,
            entered=SeasonEntry(frozen, event),
        )

    def bring(self, ladder_id: str, states: Mapping[_K, Player]) -> dict[_K, Player]:
        """Each of `states` (of one ladder) brought into the ladder's current season."""
        ladder = self._ladders.get(ladder_id)
        if ladder is None or not states:
            return dict(states)
        season = self.current(ladder)
        return {key: self.enter(ladder, player, season) for key, player in states.items()}

    def new_player(self, ladder: Ladder, player_id: str, season: Season) -> Player:
        """A player never stored, in `season` at the ladder's starting rating."""
        return Player(
            ladder.ladder_id,
            player_id,
            ladder.starting_rating,
            season_id=season.season_id,
            season_start=season.starts_at,
            min_games=ladder.season.min_games,
        )

    def _reset_event(self, player: Player, season: Season, after: int) -> PlayerEvent:
        assert season.starts_at is not None
        at = season.starts_at
        body = {
            "type": SEASON_RESET_EVENT,
            "season_id": season.season_id,
            "at": format_utc_millis(at),
            "delta": after - player.rating,
            "rating_after": after,
        }
        return PlayerEvent(
            ladder=player.ladder,
            player_id=player.player_id,
            at=at,
            event_type=SEASON_RESET_EVENT,
            ref_id=season.season_id,
            ranked=False,
            body=body,
            expires_at=max(at, self._clock()) + self._retention,
        )


def _within(season: Season, at: datetime) -> bool:
    starts, ends = season.starts_at, season.ends_at
    return (starts is None or starts <= at) and (ends is None or at < ends)


def _later(player: Player, season: Season) -> bool:
    """Whether the player's state is in a season that began after `season`."""
    if player.season_start is None:
        return False
    return season.starts_at is None or player.season_start > season.starts_at


def season_row(
    season_id: str, state: Player | None, frozen: FrozenStanding | None
) -> LeaderboardRow | None:
    """A player's row on the leaderboard of `season_id`, from their state as stored now and
    their standing frozen there (if they left it): the frozen standing once they left, the
    state while in it; none while sanctioned or being erased, or off that board."""
    if state is not None and (state.sanctioned or state.erasing):
        return None
    if frozen is not None:
        return (
            None
            if frozen.hidden
            else LeaderboardRow(frozen.player_id, frozen.rating, frozen.ranked_games)
        )
    if state is None or state.season_id != season_id or not state.on_the_board:
        return None
    return LeaderboardRow(state.player_id, state.rating, state.games_in_season)


def effective_season(season: Season, players: Sequence[Player]) -> Season:
    """The season a write counts in: the ladder's current one, or a later one a player's
    state is already in (another function's clock passed the boundary first)."""
    latest = season
    for player in players:
        if player.season_id != latest.season_id and _later(player, latest):
            latest = Season(player.season_id, player.season_start, latest.ends_at, latest.reset)
    return latest


__all__ = [
    "ALL_TIME",
    "BOARD_SEPARATOR",
    "SEASON_RESET_EVENT",
    "SeasonStarts",
    "Seasons",
    "board_id",
    "board_season",
    "effective_season",
]
