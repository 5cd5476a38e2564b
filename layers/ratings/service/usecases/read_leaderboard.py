"""Read a leaderboard: a page from the top or from a cursor, or the page around a player."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ratings.rules import InvalidInput
from ratings.service import cursors
from ratings.service.errors import NotRanked
from ratings.service.parameters import DEFAULT_LEADERBOARD_LIMIT, page_limit, require_id
from ratings.service.ports import LeaderboardView
from ratings.service.ranking import Ranking
from ratings.service.results import JsonObject, Leaderboard, LeaderboardEntry, json_of
from ratings.service.stored import LeaderboardRow
from ratings.service.unit_of_work import UnitOfWork

if TYPE_CHECKING:
    from ratings.service.facade import Context


def read_leaderboard(
    uow: UnitOfWork,
    leaderboard: LeaderboardView,
    ranking: Ranking,
    context: Context,
    ladder_id: str,
    limit: object = None,
    cursor: object = None,
    around: object = None,
) -> JsonObject:
    ladder = context.ladder(ladder_id)
    page_size = page_limit(limit, DEFAULT_LEADERBOARD_LIMIT)
    if around is not None:
        if cursor is not None:
            raise InvalidInput(
                "around", "around and cursor cannot be used together: around starts a page"
            )
        return _around(uow, leaderboard, ranking, ladder.ladder_id, around, page_size)
    rank_offset, after = cursors.decode_leaderboard_cursor(cursor, ladder.ladder_id)
    rows = list(leaderboard.leaderboard(ladder.ladder_id, page_size + 1, after))
    more = len(rows) > page_size
    rows = rows[:page_size]
    entries = [_entry(rank_offset + position, row) for position, row in enumerate(rows, start=1)]
    next_cursor = None
    if more and rows:
        last = rows[-1]
        next_cursor = cursors.leaderboard_cursor(
            ladder.ladder_id, rank_offset + len(rows), last.rating, last.player_id
        )
    return json_of(Leaderboard(ladder=ladder.ladder_id, entries=entries, next_cursor=next_cursor))


def _around(
    uow: UnitOfWork,
    leaderboard: LeaderboardView,
    ranking: Ranking,
    ladder_id: str,
    around: object,
    limit: int,
) -> JsonObject:
    """`limit` consecutive entries of the leaderboard, the player as near the middle as
    the board allows."""
    if not isinstance(around, str):
        raise InvalidInput("around", "around must be a player id")
    require_id(around, "around")
    player_id = uow.resolve(around)
    player = uow.read_states(ladder_id, [player_id]).get(player_id)
    if player is not None and player.sanctioned:
        raise NotRanked(
            f"player {around!r} is under a sanction in ladder {ladder_id!r}, so is not on "
            "its leaderboard"
        )
    if player is None or not player.on_the_board:
        raise NotRanked(
            f"player {around!r} has no ranked games in ladder {ladder_id!r}, so is not "
            "on its leaderboard"
        )
    position = (player.rating, player.player_id)
    # One more than a side can use: the player's own index entry, if it lags behind the
    # state just read, may be among them.
    above = _others(leaderboard.leaderboard_before(ladder_id, limit, position), player_id)
    below = _others(leaderboard.leaderboard(ladder_id, limit, position), player_id)
    above_taken = min(len(above), max((limit - 1) // 2, limit - 1 - len(below)))
    below_taken = min(len(below), limit - 1 - above_taken)
    me = LeaderboardRow(player.player_id, player.rating, player.ranked_games)
    window = [*above[len(above) - above_taken :], me, *below[:below_taken]]
    rank = ranking.rank(ladder_id, player.rating, player.player_id)
    first = None if rank.rank is None else max(rank.rank - above_taken, 1)
    entries = [
        _entry(None if first is None else first + offset, row) for offset, row in enumerate(window)
    ]
    next_cursor = None
    if rank.exact and first is not None and len(below) > below_taken:
        last = window[-1]
        next_cursor = cursors.leaderboard_cursor(
            ladder_id, first + len(window) - 1, last.rating, last.player_id
        )
    page = Leaderboard(
        ladder=ladder_id,
        entries=entries,
        next_cursor=next_cursor,
        around=player_id,
        exact=rank.exact,
        as_of=rank.as_of,
    )
    return json_of(page)


def _entry(rank: int | None, row: LeaderboardRow) -> LeaderboardEntry:
    return LeaderboardEntry(
        rank=rank, player_id=row.player_id, rating=row.rating, ranked_games=row.ranked_games
    )


def _others(rows: Sequence[LeaderboardRow], player_id: str) -> list[LeaderboardRow]:
    return [row for row in rows if row.player_id != player_id]
