"""The rating maths: three rulesets, exact to the integer, pure and standard library only.

`rate(ruleset, game)` is the one entry point; `unranked_reason` decides whether a game rates
at all; `DEFAULT_LADDERS` maps ladder ids to their ruleset and podium bonuses.
"""

from ratings.rules.classic import Classic
from ratings.rules.errors import InvalidInput
from ratings.rules.gammon42 import Gammon42, cube_coefficient
from ratings.rules.ladders import DEFAULT_LADDERS, PODIUM_BONUSES, Ladder, ruleset_named
from ratings.rules.model import Game, PlayerChange, PlayerState, Rating, SedmaStats
from ratings.rules.ranking import MODES, UNRANKED_REASONS, unranked_reason
from ratings.rules.ruleset import Ruleset
from ratings.rules.sedma import Sedma


def rate(ruleset: Ruleset, game: Game) -> Rating:
    """Both players' new ratings under `ruleset`, with the formula's inputs for each."""
    return ruleset.rate(game)


__all__ = [
    "DEFAULT_LADDERS",
    "MODES",
    "PODIUM_BONUSES",
    "UNRANKED_REASONS",
    "Classic",
    "Game",
    "Gammon42",
    "InvalidInput",
    "Ladder",
    "PlayerChange",
    "PlayerState",
    "Rating",
    "Ruleset",
    "Sedma",
    "SedmaStats",
    "cube_coefficient",
    "rate",
    "ruleset_named",
    "unranked_reason",
]
