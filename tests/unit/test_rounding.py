"""Rounding: the two roundings themselves, and each ruleset's rounding on a real .5 case.

Where the .5 cases come from (an offline search, kept here so it can be re-checked):

* gammon42 with its published parameters never hits an exact .5: every rating gap from 0 to
  3000 either way, every cube, K 16 and 32, versions 1.0.5 / 1.2.0 / 1.3.1 was tried, and
  K * (1 - E) * coefficient always had a fraction other than .5 (E is only a "nice" binary
  fraction at equal ratings, where K * 0.5 * coefficient is 8 or 16 times 1, 7/6, 4/3, 3/2,
  5/3, 11/6 or 2 -- never x.5). So the .5 cases use a configured K (Gammon42 is a frozen
  dataclass with `k`).
* sedma with its published bands never hits an exact .5 either: every distinct float32 score
  the statistics can produce (130 of them), every rating gap from -1500 to +1500 and ratings
  in each K band were tried; R + K * (score - E) never landed on x.5 exactly. The cases use
  `Sedma(k_bands=((1200, 33),), top_k=33)`.
* classic: at equal ratings K * (score - 0.5) is 0, 8 or 16 (K 16 / 32), and no gap up to
  3000 gives an exact .5; the cases use `Classic(provisional_k=33, established_k=33)`.

With K = 33 at equal ratings E = 0.5 exactly, and 33 * 0.5 = 16.5 exactly in binary, so the
unrounded change is exactly +-16.5: half away from zero gives +-17, half to even would give +-16.
"""

import math
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support.rules import level_game, play

from ratings.rules import Classic, Gammon42, Rating
from ratings.rules import Sedma as SedmaRuleset
from ratings.rules.model import round_half_away

LARGE = 2.0**51 + 0.5  # the largest doubles that still have a .5 fraction are below 2**52

#: (value, rounded half away from zero, rounded half to even): gammon42 and classic round their
#: change half away from zero (round_half_away); sedma rounds its new rating with the builtin
#: round(), which takes a half to the even neighbour.
ROUNDINGS = [
    (2.5, 3, 2),
    (-2.5, -3, -2),
    (3.5, 4, 4),
    (-3.5, -4, -4),
    (0.5, 1, 0),
    (-0.5, -1, 0),
    (1.5, 2, 2),
    (16.5, 17, 16),
    (-16.5, -17, -16),
    (17.5, 18, 18),
    (0.49999999999999994, 0, 0),  # the largest double below 0.5
    (-0.49999999999999994, 0, 0),
    (2.4999999999999996, 2, 2),  # the largest double below 2.5
    (0.0, 0, 0),
    (-0.0, 0, 0),
    (2.4, 2, 2),
    (-2.6, -3, -3),
    (LARGE, 2**51 + 1, 2**51),
    (LARGE + 1, 2**51 + 2, 2**51 + 2),
    (-LARGE, -(2**51 + 1), -(2**51)),
    (2.0**52 - 0.5, 2**52, 2**52),
    (2.0**53, 2**53, 2**53),
    (1e300, int(1e300), int(1e300)),
    (-1e300, -int(1e300), -int(1e300)),
]


@pytest.mark.parametrize(("value", "half_away", "half_even"), ROUNDINGS)
def test_round_half_away_and_round(value: float, half_away: int, half_even: int) -> None:
    away = round_half_away(value)
    assert away == half_away
    assert type(away) is int
    even = round(value)
    assert even == half_even
    assert type(even) is int


def test_half_away_is_not_floor_plus_half() -> None:
    # The naive floor(x + 0.5) rounds the double just below 0.5 up (x + 0.5 rounds to 1.0).
    assert math.floor(0.49999999999999994 + 0.5) == 1
    assert round_half_away(0.49999999999999994) == 0


finite = st.floats(min_value=-1e15, max_value=1e15, allow_nan=False, allow_infinity=False)


def exact_half_away(value: float) -> int:
    exact = abs(Fraction(value))
    whole = math.floor(exact + Fraction(1, 2))
    return whole if value >= 0 else -whole


@given(finite)
def test_round_half_away_matches_exact_arithmetic(value: float) -> None:
    assert round_half_away(value) == exact_half_away(value)
    assert round_half_away(-value) == -round_half_away(value)


@given(st.integers(min_value=-(2**40), max_value=2**40))
def test_the_two_roundings_differ_exactly_on_halves_of_even_neighbours(whole: int) -> None:
    half = whole + 0.5  # exact for |whole| < 2**52
    assert round_half_away(half) == (whole + 1 if half > 0 else whole)
    assert round(half) == (whole if whole % 2 == 0 else whole + 1)


# --- gammon42: the change is rounded half away from zero -----------------------------------------


def gammon42_deltas(
    ruleset: Gammon42, rating: int, cube: int, *, recent: int = 0
) -> tuple[int, int]:
    winner, loser, _ = play(
        ruleset, rating, rating, cube=cube, winner_recent=recent, loser_recent=recent
    )
    return winner.delta, loser.delta


# (ruleset, cube, the exact unrounded winner change, rounded half away)
GAMMON42_HALVES = [
    # 33 * (1 - 0.5) * 1.0 = 16.5 -> 17 (half to even: 16)
    (Gammon42(k=33), 1, 16.5, 17),
    # 30 * (1 - 0.5) * 1.5 = 22.5 -> 23 (half to even: 22); coefficient(8) = 1.5 exactly
    (Gammon42(k=30), 8, 22.5, 23),
    # version 1.0.5's divisor with K 33: equal ratings still give E = 0.5
    (Gammon42(version="1.0.5", divisor=400, k=33, heavy_volume_games=None), 1, 16.5, 17),
]


@pytest.mark.parametrize("rating", [1500, 1501])
@pytest.mark.parametrize(("ruleset", "cube", "unrounded", "rounded"), GAMMON42_HALVES)
def test_gammon42_rounds_the_change_half_away(
    ruleset: Gammon42, cube: int, unrounded: float, rounded: int, rating: int
) -> None:
    k = ruleset.k
    coefficient = {1: 1.0, 8: 1.5}[cube]
    assert k * (1 - 0.5) * coefficient == unrounded  # really an exact .5 case
    assert unrounded % 1 == 0.5
    # The change, not the rating, is rounded: the parity of the rating does not matter.
    assert gammon42_deltas(ruleset, rating, cube) == (rounded, -rounded)
    assert round(unrounded) != rounded  # the two rules really disagree here


def test_gammon42_heavy_week_k_rounds_half_away_too() -> None:
    # heavy_volume_k 13 at equal ratings: 13 * 0.5 * 1.0 = 6.5 -> 7 for both heavy players.
    ruleset = Gammon42(heavy_volume_k=13)
    assert gammon42_deltas(ruleset, 1500, 1, recent=50) == (7, -7)


def test_gammon42_rounding_can_exceed_k_times_coefficient() -> None:
    # Underdog by 3000 wins at cube 4 (1.3.1): 32 * (1 - 0.00315) * 4/3 = 42.53 -> 43, one more
    # than the unrounded ceiling K * coefficient = 42.67. The rule allows it: it is rounding.
    winner, loser, _ = play(Gammon42(), 1500, 4500, cube=4)
    assert (winner.delta, loser.delta) == (43, -43)
    assert winner.delta > 32 * (1 + 2 / 6)


# --- sedma: the NEW rating is rounded half to even, so the change depends on the parity ---------

SEDMA_33 = SedmaRuleset(k_bands=((1200, 33),), top_k=33)


def sedma_result(rating: int) -> Rating:
    return SEDMA_33.rate(level_game(rating, "A"))


# (both players' rating, new A = round(R + 16.5), new B = round(R - 16.5))
SEDMA_HALVES = [
    (1001, 1018, 984),  # 1017.5 -> 1018 (even, +17);  984.5 -> 984 (even, -17)
    (1000, 1016, 984),  # 1016.5 -> 1016 (even, +16);  983.5 -> 984 (even, -16)
    (1100, 1116, 1084),  # 1116.5 -> 1116 (+16);        1083.5 -> 1084 (-16)
    (1101, 1118, 1084),  # 1117.5 -> 1118 (+17);        1084.5 -> 1084 (-17)
]


@pytest.mark.parametrize(("rating", "new_a", "new_b"), SEDMA_HALVES)
def test_sedma_rounds_the_new_rating_half_to_even(rating: int, new_a: int, new_b: int) -> None:
    a, b = sedma_result(rating).players
    assert a.explain["k"] == b.explain["k"] == 33
    assert a.explain["expected"] == b.explain["expected"] == 0.5
    assert (a.explain["score"], b.explain["score"]) == (1.0, 0.0)
    # R + K * (score - E) is exactly R +- 16.5 ...
    assert rating + 33 * (1.0 - 0.5) == rating + 16.5
    # ... and the new rating goes to the even neighbour.
    assert (a.rating_after, b.rating_after) == (new_a, new_b)
    assert a.rating_after % 2 == 0
    assert b.rating_after % 2 == 0


def test_sedma_change_of_a_half_case_depends_on_parity() -> None:
    odd = [change.delta for change in sedma_result(1001).players]
    even = [change.delta for change in sedma_result(1000).players]
    assert odd == [17, -17]
    assert even == [16, -16]


# --- classic: the change is rounded half away from zero -----------------------------------------

CLASSIC_33 = Classic(provisional_k=33, established_k=33)


@pytest.mark.parametrize("ranked_games", [0, 30])  # provisional and established K
@pytest.mark.parametrize("rating", [1200, 1201])
@pytest.mark.parametrize(
    ("winner", "expected"),
    [
        ("A", (17, -17)),  # 33 * (1 - 0.5) = 16.5 -> 17; 33 * (0 - 0.5) = -16.5 -> -17
        ("B", (-17, 17)),
        (None, (0, 0)),  # 33 * (0.5 - 0.5) = 0
    ],
)
def test_classic_rounds_the_change_half_away(
    winner: str | None, expected: tuple[int, int], rating: int, ranked_games: int
) -> None:
    a, b = CLASSIC_33.rate(level_game(rating, winner, (ranked_games, ranked_games))).players
    assert a.explain["k"] == 33
    assert (a.delta, b.delta) == expected


def test_classic_mixed_provisional_half_case() -> None:
    # A provisional (K 33): 16.5 -> 17; B established (K 16): -8 exactly.
    ruleset = Classic(provisional_k=33)
    a, b = ruleset.rate(level_game(1200, "A", (3, 40))).players
    assert (a.delta, b.delta) == (17, -8)
