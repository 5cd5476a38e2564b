"""Ruleset classic: plain Elo with a provisional K for new players, and draws.

Each player's change is K * (score - E) with their own K and E, rounded half away from zero.
"""

from dataclasses import dataclass

from ratings.declare.kinds import NUMBER, Field
from ratings.rules import model

NAME = "classic"

STARTING_RATING = 1200
DIVISOR = 400
#: K while a player has fewer than PROVISIONAL_GAMES ranked games.
PROVISIONAL_K = 32
#: K once a player is established.
ESTABLISHED_K = 16
#: Ranked games before this one after which a player is established.
PROVISIONAL_GAMES = 30

EXPLAIN_FIELDS = (
    Field("expected", NUMBER, "The player's expected score, 1 / (1 + 10^((Ro - R) / 400))"),
    Field("k", NUMBER, "The player's K: 32 for the first 30 ranked games, then 16"),
    Field("ranked_games", NUMBER, "The player's ranked games before this one"),
    Field("score", NUMBER, "1 for a win, 0.5 for a draw, 0 for a loss"),
)


@dataclass(frozen=True)
class Classic(model.EloCurve):
    """classic at its only version so far; K and the provisional period are configurable."""

    version: str = "1.0"
    divisor: float = DIVISOR
    provisional_k: int = PROVISIONAL_K
    established_k: int = ESTABLISHED_K
    provisional_games: int = PROVISIONAL_GAMES
    starting_rating: int = STARTING_RATING

    name = NAME
    draws_allowed = True
    recent_games_needed = None
    recent_window_days = 0
    game_fields = ()
    player_fields = ()
    state_overrides = ("ranked_games",)
    explain_fields = EXPLAIN_FIELDS

    def k_for(self, state: model.PlayerState) -> int:
        return self.provisional_k if self.provisional(state) else self.established_k

    def provisional(self, state: model.PlayerState) -> bool:
        return state.ranked_games < self.provisional_games

    def rate(self, game: model.Game) -> model.Rating:
        first, second = game.players
        changes = (
            self._change(first, second, game.score_of(0)),
            self._change(second, first, game.score_of(1)),
        )
        return model.Rating(NAME, self.version, changes)

    def _change(
        self, player: model.PlayerState, opponent: model.PlayerState, score: float
    ) -> model.PlayerChange:
        expected = self.expected_score(player.rating, opponent.rating)
        k = self.k_for(player)
        delta = model.round_half_away(k * (score - expected))
        return model.PlayerChange(
            player_id=player.player_id,
            rating_before=player.rating,
            rating_after=player.rating + delta,
            explain=model.frozen_explain(
                expected=expected, k=k, ranked_games=player.ranked_games, score=score
            ),
        )
