"""Ruleset classic: plain Elo with a provisional K for new players, and draws; teams and
free-for-all games of up to 8 sides.

Each side has a mean rating; its expected score E is the mean of its expected scores against
each other side, its score the mean of its scores against them (1 placed ahead, 0.5 level, 0
behind). Each player's change is K * (score - E) with their own K and their side's E and score,
rounded half away from zero. One against one, that is plain Elo.
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

#: The games classic rates. At most 16 players: each player is a few items (2 to 4) of the
#: one DynamoDB transaction that records a game, which holds at most 100. At most 8 a side
#: (and 8 sides): every even split of 16 players fits (8 v 8, 4 x 4, 8 x 2), while a side of
#: more than half the players could only face a much smaller field.
SHAPES = model.Shapes(
    sides=model.Span(2, 8), players_per_side=model.Span(1, 8), max_players=16, ties=True
)

EXPLAIN_FIELDS = (
    Field(
        "expected",
        NUMBER,
        "The player's expected score, 1 / (1 + 10^((Ro - R) / 400)); with teams or more "
        "sides, their side's, from mean ratings and averaged over the other sides",
    ),
    Field("k", NUMBER, "The player's K: 32 for the first 30 ranked games, then 16"),
    Field("ranked_games", NUMBER, "The player's ranked games before this one"),
    Field(
        "score",
        NUMBER,
        "1 for a win, 0.5 for a draw, 0 for a loss; with more sides, the mean over the others",
    ),
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
    shapes = SHAPES

    def k_for(self, state: model.PlayerState) -> int:
        return self.provisional_k if self.provisional(state) else self.established_k

    def provisional(self, state: model.PlayerState) -> bool:
        return state.ranked_games < self.provisional_games

    def rate(self, game: model.Game) -> model.Rating:
        SHAPES.check(NAME, game)
        expected = model.mean_expected_scores(game.mean_ratings(), self.expected_score)
        scores = model.mean_scores(game.places)
        changes = tuple(
            self._change(player, expected[side], scores[side])
            for player, side in zip(game.players, game.side_of_players(), strict=True)
        )
        return model.Rating(NAME, self.version, changes)

    def _change(
        self, player: model.PlayerState, expected: float, score: float
    ) -> model.PlayerChange:
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
