"""What every ruleset shares, standard library only: the values they take and return (small
and frozen), the numeric building blocks (the expected score, rounding half away from zero,
float32), and whether a game is ranked at all."""

import dataclasses
import math
import struct
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

ExplainValue = int | float | str | None


@dataclass(frozen=True)
class PlayerState:
    """What a ruleset may know about a player before a game.

    `ranked_games` counts every ranked game of the player in the ladder; `recent_ranked_games`
    only those in the ruleset's recent window before the game (gammon42's 7 days).
    """

    player_id: str
    rating: int
    ranked_games: int = 0
    recent_ranked_games: int = 0


@dataclass(frozen=True)
class Game:
    """One finished game as the rules see it, its input already checked against the ruleset.

    `winner` is the winning player's id, or None for a draw. `options` holds the values of the
    ruleset's own game fields (gammon42's cube) and `player_options` those of its player
    fields (sedma's statistics), one mapping per player in the order of `players`; an absent
    field has its declared default.
    """

    players: tuple[PlayerState, PlayerState]
    winner: str | None
    options: Mapping[str, Any] = field(default_factory=dict)
    player_options: tuple[Mapping[str, Any], Mapping[str, Any]] = field(
        default_factory=lambda: ({}, {})
    )

    def score_of(self, index: int) -> float:
        """1 for the winner, 0 for the loser, 0.5 each for a draw."""
        if self.winner is None:
            return 0.5
        return 1.0 if self.players[index].player_id == self.winner else 0.0


@dataclass(frozen=True)
class PlayerChange:
    """One player's side of a rated game, with the formula's inputs in `explain`."""

    player_id: str
    rating_before: int
    rating_after: int
    explain: Mapping[str, ExplainValue] = field(default_factory=lambda: MappingProxyType({}))

    @property
    def delta(self) -> int:
        return self.rating_after - self.rating_before


@dataclass(frozen=True)
class Rating:
    """The outcome of rating one game: both players' changes, in the order of the game."""

    ruleset: str
    version: str
    players: tuple[PlayerChange, PlayerChange]


def frozen_explain(**values: ExplainValue) -> Mapping[str, ExplainValue]:
    return MappingProxyType(dict(values))


# The numeric building blocks the rulesets share.


def expected_score(rating: int, opponent_rating: int, divisor: float) -> float:
    """Elo expected score of a player against an opponent: 1 / (1 + 10^((Ro - R) / D))."""
    gap = opponent_rating - rating
    try:
        return 1.0 / (1.0 + math.pow(10.0, gap / divisor))
    except OverflowError:
        # A gap beyond what a double holds: one side is infinitely stronger.
        return 0.0 if gap > 0 else 1.0


def round_half_away(value: float) -> int:
    """Round to the nearest integer, halves away from zero (2.5 -> 3, -2.5 -> -3).

    `value - trunc(value)` is exact for every finite double, so the comparison with 0.5 is
    exact too (``floor(x + 0.5)`` is not: it sends 0.49999999999999994 to 1).
    """
    whole = math.trunc(value)
    if abs(value - whole) >= 0.5:
        whole += 1 if value > 0 else -1
    return whole


def float32(value: float) -> float:
    """`value` rounded to IEEE single precision.

    A single +, -, * or / of two float32 values computed in double and then rounded here is
    exactly the float32 operation (double has more than 2 * 24 + 2 bits), which is how the
    sedma source's single-precision arithmetic is reproduced.
    """
    try:
        return float(struct.unpack("<f", struct.pack("<f", float(value)))[0])
    except OverflowError:  # beyond float32 (or even float64): infinite, as in float32
        return math.inf if value > 0 else -math.inf


class EloCurve:
    """For a ruleset that is a frozen dataclass with a `divisor`: Elo's expected score with
    it, and its parameters for callers (GET /v1/ladders) read from its own fields, so what is
    shown is what is computed with."""

    divisor: float

    def expected_score(self, rating: int, opponent_rating: int) -> float:
        return expected_score(rating, opponent_rating, self.divisor)

    def parameters(self) -> Mapping[str, object]:
        this: Any = self
        shown: dict[str, object] = {
            field.name: getattr(self, field.name)
            for field in dataclasses.fields(this)
            if field.name not in ("version", "starting_rating")
        }
        shown.update(self.shown_parameters())
        return shown

    def shown_parameters(self) -> Mapping[str, object]:
        """Parameters shown otherwise than as their field, or besides the fields."""
        return {}


# Whether a game changes ratings at all: ranked, or recorded with the reason it is not.

#: Only games in this mode rate; the others are recorded with reason "mode".
RANKED_MODE = "ranked"
MODES = ("ranked", "boosted", "tournament")

#: The reasons a game is unranked, in the order they are checked.
UNRANKED_REASONS = ("season_ended", "sanctioned", "mode", "bot", "shared_network")


def unranked_reason(
    mode: str,
    bots: tuple[bool, bool],
    networks: tuple[str | None, str | None],
    sanctioned: tuple[bool, bool] = (False, False),
    season_ended: bool = False,
) -> str | None:
    """None when the game is ranked, else the first reason it is not.

    `bots` flags each player as a bot; `networks` is each player's network fingerprint
    (None or empty when not reported). Two players on the same non-empty fingerprint are
    treated as one person on two devices. `sanctioned` flags each player who is under a
    sanction in the ladder: nothing they play rates, whatever the mode. `season_ended`: the
    game was played before the ladder's current season began, so it rates nobody; it comes
    first.
    """
    if season_ended:
        return "season_ended"
    if any(sanctioned):
        return "sanctioned"
    if mode != RANKED_MODE:
        return "mode"
    if any(bots):
        return "bot"
    first, second = networks
    if first and second and first == second:
        return "shared_network"
    return None
