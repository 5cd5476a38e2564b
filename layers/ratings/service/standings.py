"""Where a player stands: their rank on the leaderboard (exact near the top, estimated from the
ladder's rating histogram beyond), the leaderboard around them, and the scheduled refresh that
counts the histogram.

The rank is exact when the storage can count the players ahead within `exact_rank_limit`
(a bounded read of the leaderboard index); otherwise it is the histogram's estimate, as of the
histogram's refresh. Reads here never write, and the refresh writes the histogram only.
"""

from collections.abc import Sequence
from datetime import datetime
from typing import NamedTuple

from ratings.rules import InvalidInput
from ratings.rules.standings import RatingHistogram
from ratings.service import documents
from ratings.service.base import ServiceBase
from ratings.service.errors import NotRanked
from ratings.service.inputs import require_id
from ratings.service.ports import JsonObject, LeaderboardRow, PlayerRecord, Standings
from ratings.timestamps import format_utc_millis


class Rank(NamedTuple):
    """A rank on a leaderboard of `of` players; `rank` and `of` are None before the ladder's
    first refresh when the rank is beyond the exact limit (or, for `of`, at all)."""

    rank: int | None
    of: int | None
    exact: bool
    as_of: datetime | None

    def document(self) -> JsonObject:
        return {
            "rank": self.rank,
            "of": self.of,
            "exact": self.exact,
            "as_of": format_utc_millis(self.as_of) if self.as_of is not None else None,
        }


class StandingUseCases(ServiceBase):
    def standing(self, ladder_id: str, record: PlayerRecord) -> JsonObject | None:
        """The player's standing (`record` resolved and read), None when not on the board."""
        if not on_the_board(record):
            return None
        return self._rank(ladder_id, record.rating, record.player_id).document()

    def leaderboard_around(self, ladder_id: str, around: object, limit: int) -> JsonObject:
        """`limit` consecutive entries of the leaderboard, the player as near the middle as
        the board allows."""
        if not isinstance(around, str):
            raise InvalidInput("around", "around must be a player id")
        require_id(around, "around")
        player_id = self._storage.resolve(around)
        record = self._storage.read_states(ladder_id, [player_id]).get(player_id)
        if record is None or not on_the_board(record):
            raise NotRanked(
                f"player {around!r} has no ranked games in ladder {ladder_id!r}, so is not "
                "on its leaderboard"
            )
        position = (record.rating, record.player_id)
        # One more than a side can use: the player's own index entry, if it lags behind the
        # state just read, may be among them.
        above = others(self._storage.leaderboard_before(ladder_id, limit, position), player_id)
        below = others(self._storage.leaderboard(ladder_id, limit, position), player_id)
        above_taken = min(len(above), max((limit - 1) // 2, limit - 1 - len(below)))
        below_taken = min(len(below), limit - 1 - above_taken)
        me = LeaderboardRow(record.player_id, record.rating, record.ranked_games)
        window = [*above[len(above) - above_taken :], me, *below[:below_taken]]
        rank = self._rank(ladder_id, record.rating, record.player_id)
        first = None if rank.rank is None else max(rank.rank - above_taken, 1)
        entries = [
            {
                "rank": None if first is None else first + offset,
                "player_id": row.player_id,
                "rating": row.rating,
                "ranked_games": row.ranked_games,
            }
            for offset, row in enumerate(window)
        ]
        next_cursor = None
        if rank.exact and first is not None and len(below) > below_taken:
            last = window[-1]
            next_cursor = documents.leaderboard_cursor(
                ladder_id, first + len(window) - 1, last.rating, last.player_id
            )
        return {
            "ladder": ladder_id,
            "around": player_id,
            "exact": rank.exact,
            "as_of": rank.document()["as_of"],
            "entries": entries,
            "next_cursor": next_cursor,
        }

    def refresh_standings(self, ladder_id: str) -> JsonObject:
        """Count the ladder's leaderboard into a histogram and store it.

        The index is read while games are rated: a player whose rating moves during the read
        may come twice; the first entry read counts, so nobody is counted twice. The next
        refresh reads afresh, so whatever moved during this one is counted there, once.
        """
        ladder = self.ladder(ladder_id)
        started = self._clock()
        seen: set[str] = set()
        ratings: list[int] = []
        entries = 0
        for player_id, rating in self._storage.leaderboard_entries(ladder.ladder_id):
            entries += 1
            if player_id not in seen:
                seen.add(player_id)
                ratings.append(rating)
        histogram = RatingHistogram.of(ratings)
        stored = self._storage.put_standings(Standings(ladder.ladder_id, histogram, started))
        return {
            "ladder": ladder.ladder_id,
            "players": histogram.players,
            "ratings": len(histogram.counts),
            "entries_read": entries,
            "refreshed_at": format_utc_millis(started),
            "stored": stored,
        }

    def _rank(self, ladder_id: str, rating: int, player_id: str) -> Rank:
        limit = self._settings.exact_rank_limit
        read_at = self._clock()
        ahead = self._storage.count_ahead(ladder_id, rating, player_id, limit)
        standings = self._storage.read_standings(ladder_id)
        if ahead is not None:
            rank, exact, as_of = ahead + 1, True, read_at
        elif standings is not None:
            rank, exact = standings.histogram.estimated_rank(rating), False
            as_of = standings.refreshed_at
        else:
            return Rank(None, None, False, None)
        # The histogram may predate the player's first ranked game: `of` is never below rank.
        of = None if standings is None else max(standings.histogram.players, rank)
        return Rank(rank, of, exact, as_of)


def on_the_board(record: PlayerRecord) -> bool:
    return record.ranked_games > 0 and record.listed


def others(rows: Sequence[LeaderboardRow], player_id: str) -> list[LeaderboardRow]:
    return [row for row in rows if row.player_id != player_id]
