"""Read a leaderboard: a page from the top or from a cursor, or the page around a player."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, NamedTuple

from ratings.rules import InvalidInput
from ratings.service import cursors
from ratings.service.errors import NotRanked
from ratings.service.parameters import DEFAULT_LEADERBOARD_LIMIT, page_limit, require_id
from ratings.service.player import Player
from ratings.service.ports import LeaderboardView, SeasonStore
from ratings.service.ranking import Ranking
from ratings.service.results import JsonObject, Leaderboard, LeaderboardEntry, json_of
from ratings.service.seasons import board_id, season_row
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
    season_id: object = None,
    seasons: SeasonStore | None = None,
) -> JsonObject:
    """The leaderboard of the ladder's current season, or of the season `season_id`: for an
    ended season, its final standings (`seasons` reads the standings players froze there)."""
    ladder = context.ladder(ladder_id)
    page_size = page_limit(limit, DEFAULT_LEADERBOARD_LIMIT)
    if season_id is None:
        season = context.season(ladder)
    else:
        from ratings.service.usecases.seasons import find_season

        season = find_season(context, ladder, season_id)
    board = Board(ladder.ladder_id, season.season_id, seasons)
    if around is not None:
        if cursor is not None:
            raise InvalidInput(
                "around", "around and cursor cannot be used together: around starts a page"
            )
        return _around(uow, leaderboard, ranking, board, around, page_size)
    rank_offset, after = cursors.decode_leaderboard_cursor(cursor, board.board_id)
    rows = list(leaderboard.leaderboard(board.board_id, page_size + 1, after))
    more = len(rows) > page_size
    rows = rows[:page_size]
    entries = [_entry(rank_offset + position, row) for position, row in enumerate(rows, start=1)]
    next_cursor = None
    if more and rows:
        last = rows[-1]
        next_cursor = cursors.leaderboard_cursor(
            board.board_id, rank_offset + len(rows), last.rating, last.player_id
        )
    page = Leaderboard(ladder=ladder.ladder_id, entries=entries, next_cursor=next_cursor)
    return json_of(page._replace(season_id=season.season_id))


class Board(NamedTuple):
    """A season's leaderboard of a ladder."""

    ladder_id: str
    season_id: str
    seasons: SeasonStore | None

    @property
    def board_id(self) -> str:
        return board_id(self.ladder_id, self.season_id)

    def row_of(self, player: Player) -> LeaderboardRow | None:
        """The player's row on this board (`player` read, so in the current season): by
        their state in its season, else by the standing they froze in this one."""
        if player.season_id == self.season_id:
            return season_row(self.season_id, player, None)
        if player.sanctioned or player.erasing:
            return None
        left = None if player.entered is None else player.entered.frozen
        frozen = left if left is not None and left.season_id == self.season_id else None
        if frozen is None and self.seasons is not None:
            stored = self.seasons.standings_of(self.ladder_id, player.player_id)
            frozen = next((f for f in stored if f.season_id == self.season_id), None)
        return None if frozen is None else season_row(self.season_id, None, frozen)


def _around(
    uow: UnitOfWork,
    leaderboard: LeaderboardView,
    ranking: Ranking,
    board: Board,
    around: object,
    limit: int,
) -> JsonObject:
    """`limit` consecutive entries of the leaderboard, the player as near the middle as
    the board allows."""
    if not isinstance(around, str):
        raise InvalidInput("around", "around must be a player id")
    require_id(around, "around")
    ladder_id, board_key = board.ladder_id, board.board_id
    player_id = uow.resolve(around)
    player = uow.read_states(ladder_id, [player_id]).get(player_id)
    if player is not None and player.sanctioned:
        raise NotRanked(
            f"player {around!r} is under a sanction in ladder {ladder_id!r}, so is not on "
            "its leaderboard"
        )
    me = None if player is None else board.row_of(player)
    if me is None:
        raise NotRanked(
            f"player {around!r} is not on the leaderboard of season {board.season_id!r} of "
            f"ladder {ladder_id!r} (too few ranked games in it)"
        )
    position = (me.rating, me.player_id)
    # One more than a side can use: the player's own index entry, if it lags behind the
    # state just read, may be among them.
    above = _others(leaderboard.leaderboard_before(board_key, limit, position), player_id)
    below = _others(leaderboard.leaderboard(board_key, limit, position), player_id)
    above_taken = min(len(above), max((limit - 1) // 2, limit - 1 - len(below)))
    below_taken = min(len(below), limit - 1 - above_taken)
    window = [*above[len(above) - above_taken :], me, *below[:below_taken]]
    rank = ranking.rank(board_key, me.rating, me.player_id)
    first = None if rank.rank is None else max(rank.rank - above_taken, 1)
    entries = [
        _entry(None if first is None else first + offset, row) for offset, row in enumerate(window)
    ]
    next_cursor = None
    if rank.exact and first is not None and len(below) > below_taken:
        last = window[-1]
        next_cursor = cursors.leaderboard_cursor(
            board_key, first + len(window) - 1, last.rating, last.player_id
        )
    page = Leaderboard(
        ladder=ladder_id,
        entries=entries,
        next_cursor=next_cursor,
        season_id=board.season_id,
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
