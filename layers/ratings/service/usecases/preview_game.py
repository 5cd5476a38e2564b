"""Preview a game: what it would change, with optional overrides of the stored state and
another published version of the ruleset; nothing is stored."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ratings.rules import parse_game
from ratings.service.game_result import evaluate, why_unranked
from ratings.service.player import resolve_pair
from ratings.service.results import JsonObject
from ratings.service.unit_of_work import UnitOfWork, players_of, recent_ranked_games

if TYPE_CHECKING:
    from ratings.service.facade import Context


def preview_game(uow: UnitOfWork, context: Context, ladder_id: str, body: object) -> JsonObject:
    """Rate a game as it would be rated now, over the states `uow` reads; nothing is
    stored."""
    ladder = context.ladder(ladder_id)
    now = context.now()
    versions = tuple(ladder.versions)
    game = parse_game(
        body,
        ladder.ruleset,
        now,
        preview_versions=versions,
        sides=(ladder.sides.min, ladder.sides.max),
        players_per_side=(ladder.players_per_side.min, ladder.players_per_side.max),
    )
    ruleset = ladder.ruleset
    if game.ruleset_version is not None:
        ruleset = ladder.at_version(game.ruleset_version)
    ids = [player.player_id for player in game.players]
    reads = uow.read_for_game(ladder.ladder_id, None, ids)
    resolved = resolve_pair(ids, reads.links)
    players = players_of(uow, ladder, resolved, reads.links, reads.states)
    states = []
    for submitted, player in zip(game.players, players, strict=True):
        overrides = submitted.overrides
        recent = overrides.get("recent_ranked_games")
        if recent is None:
            recent = recent_ranked_games(uow, ruleset, player, game.played_at)
        states.append(player.supposing(overrides).before_game(recent))
    season = uow.season_of(ladder, players, now)
    sanctioned = [player.sanctioned for player in players]
    reason = why_unranked(game, sanctioned, season.starts_at)
    result, _rating = evaluate(ladder, ruleset, game, states, reason)
    return result._replace(preview=True).document()
