"""Numeric building blocks shared by the rulesets: the expected score, rounding half away from
zero (sedma rounds half to even: Python's own round()), and float32 arithmetic.
"""

import dataclasses
import math
import struct
from collections.abc import Mapping
from typing import Any


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
