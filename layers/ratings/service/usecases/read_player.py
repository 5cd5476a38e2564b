"""Read a player: their state in a ladder (a linked anonymous id reads as its account), the K
and provisional status of their next game, and where they stand."""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING

from ratings.service.parameters import require_id
from ratings.service.player import Player
from ratings.service.ranking import Ranking
from ratings.service.results import JsonObject, PlayerSummary, Standing, json_of
from ratings.service.season_results import PlayerSeason
from ratings.service.seasons import board_id
from ratings.service.unit_of_work import UnitOfWork, players_of, recent_ranked_games

if TYPE_CHECKING:
    from ratings.service.facade import Context


def read_player(
    uow: UnitOfWork, ranking: Ranking, context: Context, ladder_id: str, player_id: str
) -> JsonObject:
    """The player's state and window as a game now would read them, and their standing."""
    ladder = context.ladder(ladder_id)
    require_id(player_id, "player_id")
    reads = uow.read_for_game(ladder.ladder_id, None, [player_id])
    resolved = reads.links.get(player_id, player_id)
    (player,) = players_of(uow, ladder, [resolved], reads.links, reads.states)
    # The window of a game played now, games stored at this very millisecond included.
    until = context.now() + timedelta(milliseconds=1)
    recent = recent_ranked_games(uow, ladder.ruleset, player, until, display=True)
    state = player.before_game(recent)
    summary = PlayerSummary(
        player_id=player.player_id,
        ladder=ladder.ladder_id,
        rating=player.rating,
        ranked_games=player.ranked_games,
        recent_ranked_games=recent,
        k=ladder.ruleset.k_for(state),
        provisional=ladder.ruleset.provisional(state),
        sanctioned=player.sanctioned,
        standing=standing(ranking, player),
        season=PlayerSeason(
            season_id=player.season_id,
            ranked_games=player.games_in_season,
            eligible=player.on_the_board,
        ),
    )
    return json_of(summary)


def standing(ranking: Ranking, player: Player) -> Standing | None:
    """The player's standing (`player` resolved and read), None when not on the board
    (no ranked game, or under a sanction)."""
    if not player.on_the_board:
        return None
    return ranking.rank(board_id(player.ladder, player.season_id), player.rating, player.player_id)
