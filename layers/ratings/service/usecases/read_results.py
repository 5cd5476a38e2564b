"""Read a stored result: a game's (while its record is kept) or a tournament's awards."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ratings.service.errors import NotFound
from ratings.service.parameters import require_id
from ratings.service.ports import ResultsView
from ratings.service.results import JsonObject

if TYPE_CHECKING:
    from ratings.service.facade import Context


def read_game(results: ResultsView, context: Context, ladder_id: str, game_id: str) -> JsonObject:
    """A game's stored result; a game past its retention is not found, whether or not the
    table has dropped it yet."""
    ladder = context.ladder(ladder_id)
    require_id(game_id, "game_id")
    stored = results.get_game(ladder.ladder_id, game_id)
    if stored is None or stored.expires_at <= context.now():
        raise NotFound(f"game {game_id!r} is not stored in ladder {ladder_id!r}")
    return stored.result


def read_tournament(
    results: ResultsView, context: Context, ladder_id: str, tournament_id: str
) -> JsonObject:
    ladder = context.ladder(ladder_id)
    require_id(tournament_id, "tournament_id")
    stored = results.get_tournament(ladder.ladder_id, tournament_id)
    if stored is None:
        raise NotFound(f"tournament {tournament_id!r} has not been awarded in {ladder_id!r}")
    return stored.result
