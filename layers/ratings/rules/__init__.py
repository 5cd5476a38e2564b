"""The rating maths: three rulesets, exact to the integer, pure and standard library only.

A ruleset (`Ruleset`) owns everything particular to it: its formula and parameters, its
expected score, the fields it adds to a game and their checks (declared with
`ratings.declare.kinds`), and what it
explains. `parse_game` checks a submitted body against a ruleset once, `ruleset.rate(game)`
rates it; `unranked_reason` decides whether a game rates at all. A game has two or more sides
of one or more players (`Game.of_sides`); each ruleset says which shapes it rates
(`shapes_of`). A deployment's ladders (each ladder's ruleset, parameters, games' shape, podium
bonuses and seasons) come from the file ladders.json (`ratings.rules.ladder_config`);
`DEFAULT_LADDERS` is what it holds as shipped.
"""

from ratings.declare.kinds import InvalidInput
from ratings.rules.classic import Classic
from ratings.rules.gammon42 import Gammon42, cube_coefficient
from ratings.rules.ladders import DEFAULT_LADDERS, PODIUM_BONUSES, Ladder, ruleset_named
from ratings.rules.model import (
    MODES,
    UNRANKED_REASONS,
    Game,
    PlayerChange,
    PlayerState,
    Rating,
    Shapes,
    Span,
    unranked_reason,
)
from ratings.rules.ruleset import Ruleset, shape_refusal, shapes_of
from ratings.rules.sedma import Sedma, SedmaStats
from ratings.rules.submission import GameInput, PlayerInput, game_body, parse_game

__all__ = [
    "DEFAULT_LADDERS",
    "MODES",
    "PODIUM_BONUSES",
    "UNRANKED_REASONS",
    "Classic",
    "Game",
    "GameInput",
    "Gammon42",
    "InvalidInput",
    "Ladder",
    "PlayerChange",
    "PlayerInput",
    "PlayerState",
    "Rating",
    "Ruleset",
    "Sedma",
    "SedmaStats",
    "Shapes",
    "Span",
    "cube_coefficient",
    "game_body",
    "parse_game",
    "ruleset_named",
    "shape_refusal",
    "shapes_of",
    "unranked_reason",
]
