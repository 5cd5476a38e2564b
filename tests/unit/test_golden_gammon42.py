"""Golden tests for ruleset gammon42: every check table of rules.md, figures copied verbatim.

Each table below is the spec's table as data; the tests only replay it. Every game is rated
with the winner listed first and again with the winner listed second, so the result can not
depend on the order of the players in the game.
"""

import math

import pytest
from support.rules import play

from ratings.rules import (
    Gammon42,
    cube_coefficient,
    ruleset_named,
)

DEFAULT = Gammon42()
V105 = ruleset_named("gammon42", "1.0.5")
V120 = ruleset_named("gammon42", "1.2.0")
V131 = ruleset_named("gammon42", "1.3.1")
VERSIONS = {"1.0.5": V105, "1.2.0": V120, "1.3.1": V131}

HEAVY = 60  # recent ranked games of a "heavy week" player (>= 50 under 1.3.1)
LIGHT = 10  # recent ranked games of an ordinary player


order = pytest.mark.parametrize(
    "winner_first", [True, False], ids=["winner-first", "winner-second"]
)


# --- "1500 v 1500, cube 1 | +16 | -16" --------------------------------------------------------


@order
def test_equal_ratings_cube_1(winner_first: bool) -> None:
    winner, loser, rating = play(DEFAULT, 1500, 1500, winner_first=winner_first)
    assert (winner.delta, loser.delta) == (16, -16)
    assert (winner.rating_after, loser.rating_after) == (1516, 1484)
    assert (rating.ruleset, rating.version) == ("gammon42", "1.3.1")


# --- favourite +100 / +200 / +300 / +400 wins, or the underdog wins (K 32) ---------------------

# (favourite's margin, fav wins: winner, loser, underdog wins: winner, loser)
FAVOURITE_TABLE = [
    (100, +14, -14, +18, -18),
    (200, +13, -13, +19, -19),
    (300, +12, -12, +20, -20),
    (400, +10, -10, +22, -22),
]


@order
@pytest.mark.parametrize(
    ("margin", "fav_win_w", "fav_win_l", "dog_win_w", "dog_win_l"), FAVOURITE_TABLE
)
def test_favourite_margin(
    margin: int,
    fav_win_w: int,
    fav_win_l: int,
    dog_win_w: int,
    dog_win_l: int,
    winner_first: bool,
) -> None:
    favourite, underdog = 1500 + margin, 1500
    winner, loser, _ = play(DEFAULT, favourite, underdog, winner_first=winner_first)
    assert (winner.delta, loser.delta) == (fav_win_w, fav_win_l)
    winner, loser, _ = play(DEFAULT, underdog, favourite, winner_first=winner_first)
    assert (winner.delta, loser.delta) == (dog_win_w, dog_win_l)


@pytest.mark.parametrize("base", [0, 1200, 1500, 2400])
def test_only_the_difference_matters(base: int) -> None:
    winner, loser, _ = play(DEFAULT, base + 300, base)
    assert (winner.delta, loser.delta) == (12, -12)
    assert winner.rating_after == base + 312


# --- each player has their own K: 60 vs 10 recent ranked games --------------------------------

# (winner's recent, loser's recent, winner's change, loser's change)
MIXED_K_TABLE = [
    (HEAVY, LIGHT, +8, -16),
    (LIGHT, HEAVY, +16, -8),
]


@order
@pytest.mark.parametrize(
    ("winner_recent", "loser_recent", "expected_w", "expected_l"), MIXED_K_TABLE
)
def test_mixed_k(
    winner_recent: int, loser_recent: int, expected_w: int, expected_l: int, winner_first: bool
) -> None:
    winner, loser, _ = play(
        DEFAULT,
        1500,
        1500,
        winner_recent=winner_recent,
        loser_recent=loser_recent,
        winner_first=winner_first,
    )
    assert (winner.delta, loser.delta) == (expected_w, expected_l)
    assert (winner.explain["k"], loser.explain["k"]) == (
        16 if winner_recent >= 50 else 32,
        16 if loser_recent >= 50 else 32,
    )


@pytest.mark.parametrize(
    ("recent", "k", "delta"), [(0, 32, 16), (49, 32, 16), (50, 16, 8), (51, 16, 8)]
)
def test_heavy_volume_threshold_is_50_inclusive(recent: int, k: int, delta: int) -> None:
    # "32, or 16 when the player's recent ranked games >= 50".
    winner, _, _ = play(DEFAULT, 1500, 1500, winner_recent=recent)
    assert winner.explain["k"] == k
    assert winner.delta == delta


@pytest.mark.parametrize("version", ["1.0.5", "1.2.0"])
def test_versions_before_131_ignore_the_week(version: str) -> None:
    # The K column of 1.0.5 and 1.2.0 is a flat 32.
    winner, loser, _ = play(VERSIONS[version], 1500, 1500, winner_recent=HEAVY, loser_recent=HEAVY)
    assert (winner.delta, loser.delta) == (16, -16)
    assert winner.explain["k"] == loser.explain["k"] == 32


# --- the cube: 1500 v 1500, cube 2..64, K 32 and both players heavy (K 16) ----------------------

# (cube, winner's change with K 32, winner's change with both players >= 50 recent); loser: mirror
CUBE_TABLE = [
    (2, +19, +9),
    (4, +21, +11),
    (8, +24, +12),
    (16, +27, +13),
    (32, +29, +15),
    (64, +32, +16),
]


@order
@pytest.mark.parametrize(("cube", "k32", "k16"), CUBE_TABLE)
def test_cube_with_k32(cube: int, k32: int, k16: int, winner_first: bool) -> None:
    winner, loser, _ = play(DEFAULT, 1500, 1500, cube=cube, winner_first=winner_first)
    assert (winner.delta, loser.delta) == (k32, -k32)


@order
@pytest.mark.parametrize("recent", [50, HEAVY, 300])
@pytest.mark.parametrize(("cube", "k32", "k16"), CUBE_TABLE)
def test_cube_with_both_heavy(
    cube: int, k32: int, k16: int, recent: int, winner_first: bool
) -> None:
    winner, loser, _ = play(
        DEFAULT,
        1500,
        1500,
        cube=cube,
        winner_recent=recent,
        loser_recent=recent,
        winner_first=winner_first,
    )
    assert (winner.delta, loser.delta) == (k16, -k16)


def test_cube_coefficient_is_exact_not_two_decimals() -> None:
    # Underdog by 775 wins at cube 2: K * (1 - E) = 26.1005; times the exact 7/6 that is 30.45
    # -> 30, while the "two decimals" coefficient 1.17 would give 30.54 -> 31.
    winner, loser, _ = play(DEFAULT, 1500, 2275, cube=2)
    assert (winner.delta, loser.delta) == (30, -30)


# --- both K 16 at a margin of 150 --------------------------------------------------------------

# (margin, favourite wins: winner's change, favourite loses: favourite's change)
K16_TABLE = [(150, +7, -9)]


@order
@pytest.mark.parametrize(("margin", "fav_wins", "fav_loses"), K16_TABLE)
def test_k16_at_150(margin: int, fav_wins: int, fav_loses: int, winner_first: bool) -> None:
    favourite, underdog = 1500 + margin, 1500
    winner, loser, _ = play(
        DEFAULT,
        favourite,
        underdog,
        winner_recent=HEAVY,
        loser_recent=HEAVY,
        winner_first=winner_first,
    )
    assert (winner.delta, loser.delta) == (fav_wins, -fav_wins)
    # "favourite loses 9, underdog gains 9"
    winner, loser, _ = play(
        DEFAULT,
        underdog,
        favourite,
        winner_recent=HEAVY,
        loser_recent=HEAVY,
        winner_first=winner_first,
    )
    assert (loser.delta, winner.delta) == (fav_loses, -fav_loses)


# --- versions: favourite +300 under 1.0.5 / 1.2.0 / 1.3.1 ---------------------------------------

# (version, divisor, favourite wins: winner, loser, favourite loses: underdog, favourite)
VERSION_TABLE = [
    ("1.0.5", 400, +5, -5, +27, -27),
    ("1.2.0", 800, +9, -9, +23, -23),
    ("1.3.1", 1200, +12, -12, +20, -20),
]


@order
@pytest.mark.parametrize(("version", "divisor", "fav_w", "fav_l", "dog_w", "dog_l"), VERSION_TABLE)
def test_versions_at_300(
    version: str,
    divisor: int,
    fav_w: int,
    fav_l: int,
    dog_w: int,
    dog_l: int,
    winner_first: bool,
) -> None:
    ruleset = VERSIONS[version]
    assert isinstance(ruleset, Gammon42)
    assert ruleset.divisor == divisor
    winner, loser, rating = play(ruleset, 1800, 1500, winner_first=winner_first)
    assert (winner.delta, loser.delta) == (fav_w, fav_l)
    assert rating.version == version
    winner, loser, _ = play(ruleset, 1500, 1800, winner_first=winner_first)
    assert (winner.delta, loser.delta) == (dog_w, dog_l)


# --- expected win share of the favourite under 1.3.1 -------------------------------------------

# (margin, favourite's expected share in %, to 0.1 %)
WIN_SHARE_TABLE = [
    (0, 50.0),
    (50, 52.4),
    (100, 54.8),
    (150, 57.1),
    (200, 59.5),
    (300, 64.0),
    (400, 68.3),
    (500, 72.3),
]


@pytest.mark.parametrize(("margin", "share"), WIN_SHARE_TABLE)
def test_win_share_of_the_favourite(margin: int, share: float) -> None:
    winner, loser, _ = play(V131, 1500 + margin, 1500)
    expected = winner.explain["expected"]
    assert isinstance(expected, float)
    assert round(expected * 100, 1) == share
    # gammon42's loser expectation is 1 - E_winner, exactly.
    assert loser.explain["expected"] == 1 - expected
    # The same share when the favourite loses (it is the favourite's, not the winner's).
    _, favourite_losing, _ = play(V131, 1500, 1500 + margin)
    assert favourite_losing.explain["expected"] == pytest.approx(expected, abs=1e-15)


def test_win_share_grows_with_the_margin() -> None:
    shares: list[float] = []
    for margin, _ in WIN_SHARE_TABLE:
        expected = play(V131, 1500 + margin, 1500)[0].explain["expected"]
        assert isinstance(expected, float)
        shares.append(expected)
    assert shares == sorted(shares)
    assert len(set(shares)) == len(shares)


# --- explain ------------------------------------------------------------------------------------


@pytest.mark.parametrize("cube", [1, 2, 4, 8, 16, 32, 64])
def test_explain_contents(cube: int) -> None:
    winner, loser, _ = play(DEFAULT, 1600, 1500, cube=cube, winner_recent=HEAVY, loser_recent=3)
    for change in (winner, loser):
        assert set(change.explain) == {"expected", "k", "recent_ranked_games", "coefficient"}
        assert change.explain["coefficient"] == 1 + math.log2(cube) / 6
        assert change.explain["coefficient"] == cube_coefficient(cube)
    assert (winner.explain["k"], loser.explain["k"]) == (16, 32)
    assert (winner.explain["recent_ranked_games"], loser.explain["recent_ranked_games"]) == (
        HEAVY,
        3,
    )
    assert winner.explain["expected"] == 1 / (1 + 10 ** ((1500 - 1600) / 1200))
    assert loser.explain["expected"] == 1 - 1 / (1 + 10 ** ((1500 - 1600) / 1200))


@pytest.mark.parametrize(("cube", "coefficient"), [(1, 1.0), (2, 1 + 1 / 6), (8, 1.5), (64, 2.0)])
def test_cube_coefficient_values(cube: int, coefficient: float) -> None:
    assert cube_coefficient(cube) == pytest.approx(coefficient, abs=1e-15)
    # 1 and 64 are the ends of the range [1, 2] and exact.
    if cube in (1, 8, 64):
        assert cube_coefficient(cube) == coefficient


def test_starting_rating() -> None:
    assert DEFAULT.starting_rating == 1500
    assert all(v.starting_rating == 1500 for v in VERSIONS.values())
