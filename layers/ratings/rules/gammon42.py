"""Ruleset gammon42: the backgammon ladder's Elo with a doubling-cube coefficient.

Versions differ in the divisor and, from 1.3.1, in the K of players with a heavy ranked week.
Changes round half away from zero, each player with their own K. One against one only.
"""

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

from ratings.declare.kinds import NUMBER, Choice, Field
from ratings.rules.model import (
    ONE_AGAINST_ONE,
    EloCurve,
    Game,
    PlayerChange,
    PlayerState,
    Rating,
    frozen_explain,
    round_half_away,
)

NAME = "gammon42"

#: Every newcomer starts here.
STARTING_RATING = 1500
#: Largest change of one game before the cube coefficient.
K = 32
#: K of a player whose recent ranked games reach HEAVY_VOLUME_GAMES (from 1.3.1).
HEAVY_VOLUME_K = 16
#: Ranked games within the window that switch a player to HEAVY_VOLUME_K.
HEAVY_VOLUME_GAMES = 50
#: The window, in days before the game being rated, whose ranked games are "recent".
RECENT_WINDOW_DAYS = 7
#: Allowed doubling-cube values: the powers of two from 1 to 64.
CUBE_VALUES = (1, 2, 4, 8, 16, 32, 64)
#: Each doubling adds a sixth of the way to the maximum coefficient of 2.
CUBE_STEPS_TO_DOUBLE = 6
#: How a game ended and how many points it was worth: recorded, never used in the formula.
ENDINGS = ("normal", "resign", "disconnect", "timeout")
POINTS = (1, 2, 3)

#: The fields a gammon42 game adds to every game.
GAME_FIELDS = (
    Field(
        "cube",
        Choice(CUBE_VALUES),
        "The doubling cube's final value",
        default=1,
        example=2,
        # Usually not turned, sometimes once, rarely more; independent of who wins.
        typical=((1, 50), (2, 30), (4, 14), (8, 5), (16, 1)),
    ),
    Field(
        "ending",
        Choice(ENDINGS),
        "How the game ended; recorded only",
        default=None,
        nullable=True,
    ),
    Field(
        "points",
        Choice(POINTS),
        "Points the game was worth (single, gammon, backgammon); recorded only",
        default=None,
        nullable=True,
    ),
)

#: The games gammon42 rates: one against one, and no draws.
SHAPES = ONE_AGAINST_ONE

EXPLAIN_FIELDS = (
    Field("expected", NUMBER, "The player's expected score, 1 / (1 + 10^((Ro - R) / divisor))"),
    Field("k", NUMBER, "The player's K: 32, or 16 with 50 or more recent ranked games (1.3.1)"),
    Field("recent_ranked_games", NUMBER, "Ranked games in the 7 days before the game, up to 50"),
    Field("coefficient", NUMBER, "The cube coefficient, 1 + log2(cube) / 6"),
)


def cube_coefficient(cube: int) -> float:
    """1 + log2(cube) / 6, exact (not rounded to two decimals): 1.0 at cube 1, 2.0 at 64."""
    return 1 + math.log2(cube) / CUBE_STEPS_TO_DOUBLE


@dataclass(frozen=True)
class Gammon42(EloCurve):
    """gammon42 at one version. The defaults are version 1.3.1."""

    version: str = "1.3.1"
    divisor: float = 1200
    k: int = K
    heavy_volume_k: int = HEAVY_VOLUME_K
    #: None: everybody plays with `k` whatever their week (versions before 1.3.1).
    heavy_volume_games: int | None = HEAVY_VOLUME_GAMES
    starting_rating: int = STARTING_RATING
    recent_window_days: int = RECENT_WINDOW_DAYS
    #: How many of the window's games the K rule needs (`heavy_volume_games`).
    recent_games_needed: int | None = field(init=False, repr=False, compare=False)

    name = NAME
    draws_allowed = False
    game_fields = GAME_FIELDS
    player_fields = ()
    state_overrides = ("recent_ranked_games",)
    explain_fields = EXPLAIN_FIELDS
    shapes = SHAPES

    def __post_init__(self) -> None:
        # The window is counted as far as the heavy-volume rule looks: kept as a value (not a
        # property) since every rated game asks for it.
        object.__setattr__(self, "recent_games_needed", self.heavy_volume_games)

    def k_for(self, state: PlayerState) -> int:
        if (
            self.heavy_volume_games is not None
            and state.recent_ranked_games >= self.heavy_volume_games
        ):
            return self.heavy_volume_k
        return self.k

    def provisional(self, state: PlayerState) -> bool:
        # gammon42 has no provisional period: K depends on the week's volume, not on age.
        return False

    def shown_parameters(self) -> Mapping[str, object]:
        return {"cube_values": list(CUBE_VALUES)}

    def rate(self, game: Game) -> Rating:
        SHAPES.check(NAME, game)
        coefficient = cube_coefficient(game.options.get("cube", 1))
        first, second = game.sides
        winner_index = first[0] if game.places[0] < game.places[1] else second[0]
        winner = game.players[winner_index]
        loser = game.players[1 - winner_index]
        expected_winner = self.expected_score(winner.rating, loser.rating)
        expected_loser = 1 - expected_winner
        k_winner = self.k_for(winner)
        k_loser = self.k_for(loser)
        # Products in the order of the source formula: K * (score - E) * coefficient.
        delta_winner = round_half_away(k_winner * (1 - expected_winner) * coefficient)
        delta_loser = round_half_away(k_loser * (0 - expected_loser) * coefficient)
        changes = {
            winner_index: self._change(
                winner, delta_winner, expected_winner, k_winner, coefficient
            ),
            1 - winner_index: self._change(
                loser, delta_loser, expected_loser, k_loser, coefficient
            ),
        }
        return Rating(NAME, self.version, (changes[0], changes[1]))

    @staticmethod
    def _change(
        state: PlayerState, delta: int, expected: float, k: int, coefficient: float
    ) -> PlayerChange:
        return PlayerChange(
            player_id=state.player_id,
            rating_before=state.rating,
            rating_after=state.rating + delta,
            explain=frozen_explain(
                expected=expected,
                k=k,
                recent_ranked_games=state.recent_ranked_games,
                coefficient=coefficient,
            ),
        )


#: The published versions, newest last. Games already rated are never recalculated.
VERSIONS: Mapping[str, Gammon42] = {
    "1.0.5": Gammon42(version="1.0.5", divisor=400, heavy_volume_games=None),
    "1.2.0": Gammon42(version="1.2.0", divisor=800, heavy_volume_games=None),
    "1.3.1": Gammon42(),
}
