"""Golden tests for ruleset sedma: the check table of rules.md, figures copied verbatim."""

import pytest
from support.rules import with_stats

from ratings.rules import Game, PlayerState, Rating, SedmaStats, ruleset_named
from ratings.rules import Sedma as SedmaRuleset

SEDMA = SedmaRuleset()

NO_STATS = SedmaStats()
# "A has 3 rounds of 16, 2 of 24, 3 of 4+last"
ALL_ROUNDS = SedmaStats(rounds_won_16=3, rounds_won_24=2, rounds_won_4_last=3)
# "A has 5 bad moves and 1 round of 16"
BAD_FIVE_ONE_16 = SedmaStats(bad_moves=5, rounds_won_16=1)

# (A, B, winner, A's stats, B's stats, new A, new B)
CHECKS = [
    (1500, 1500, "A", NO_STATS, NO_STATS, 1516, 1484),
    (1500, 1500, "B", ALL_ROUNDS, NO_STATS, 1485, 1516),
    (1100, 1900, "A", BAD_FIVE_ONE_16, NO_STATS, 1138, 1876),
]


def play(
    a: int, b: int, winner: str, stats_a: SedmaStats, stats_b: SedmaStats, *, a_first: bool = True
) -> Rating:
    player_a, player_b = PlayerState("A", a), PlayerState("B", b)
    if a_first:
        game = Game(
            players=(player_a, player_b), winner=winner, player_options=with_stats(stats_a, stats_b)
        )
    else:
        game = Game(
            players=(player_b, player_a), winner=winner, player_options=with_stats(stats_b, stats_a)
        )
    return SEDMA.rate(game)


@pytest.mark.parametrize("a_first", [True, False], ids=["A-first", "A-second"])
@pytest.mark.parametrize(("a", "b", "winner", "stats_a", "stats_b", "new_a", "new_b"), CHECKS)
def test_checks(
    a: int,
    b: int,
    winner: str,
    stats_a: SedmaStats,
    stats_b: SedmaStats,
    new_a: int,
    new_b: int,
    a_first: bool,
) -> None:
    rating = play(a, b, winner, stats_a, stats_b, a_first=a_first)
    after = {change.player_id: change.rating_after for change in rating.players}
    assert after == {"A": new_a, "B": new_b}
    assert (rating.ruleset, rating.version) == ("sedma", "1.0")
    assert [c.player_id for c in rating.players] == (["A", "B"] if a_first else ["B", "A"])


def test_stats_may_be_omitted() -> None:
    # No stats at all behaves like all-zero stats (first check row).
    game = Game(players=(PlayerState("A", 1500), PlayerState("B", 1500)), winner="A")
    assert [c.rating_after for c in SEDMA.rate(game).players] == [1516, 1484]


# --- explain: expected, k, score, bonus, malus --------------------------------------------------


def test_explain_equal_ratings_loser_with_bonus() -> None:
    a, b = play(1500, 1500, "B", ALL_ROUNDS, NO_STATS).players
    for change in (a, b):
        assert set(change.explain) == {"expected", "k", "score", "bonus", "malus"}
        assert change.explain["expected"] == 0.5
        assert change.explain["k"] == 32
    # The loser keeps a tenth of 0.15 + 0.2 + 0.09 = 0.44 (float32 arithmetic).
    assert a.explain["bonus"] == pytest.approx(0.044, rel=1e-6)
    assert a.explain["malus"] == 0
    assert a.explain["score"] == pytest.approx(0.044, rel=1e-6)
    assert (b.explain["bonus"], b.explain["malus"], b.explain["score"]) == (0, 0, 1.0)


def test_explain_bands_bonus_and_malus() -> None:
    a, b = play(1100, 1900, "A", BAD_FIVE_ONE_16, NO_STATS).players
    # K from the rating before the game: below 1200 -> 40; 1800 to 2199 -> 24.
    assert (a.explain["k"], b.explain["k"]) == (40, 24)
    assert a.explain["bonus"] == pytest.approx(0.05, rel=1e-6)
    assert a.explain["malus"] == pytest.approx(0.1, rel=1e-6)
    assert a.explain["score"] == pytest.approx(0.95, rel=1e-6)
    assert b.explain["score"] == 0.0
    # Each expectation by the common formula (D = 400), not 1 - the other's.
    assert a.explain["expected"] == 1 / (1 + 10 ** ((1900 - 1100) / 400))
    assert b.explain["expected"] == 1 / (1 + 10 ** ((1100 - 1900) / 400))


def test_winner_score_is_capped_at_one() -> None:
    a, _ = play(1500, 1500, "A", ALL_ROUNDS, NO_STATS).players
    assert a.explain["bonus"] == pytest.approx(0.44, rel=1e-6)
    assert a.explain["score"] == 1.0
    assert a.rating_after == 1516


def test_malus_is_capped_at_03() -> None:
    # 0.02 per bad move, at most 0.3: 15 and 40 bad moves both give score 0.7.
    for bad in (15, 40):
        a, _ = play(1500, 1500, "A", SedmaStats(bad_moves=bad), NO_STATS).players
        assert a.explain["malus"] == pytest.approx(0.3, rel=1e-6)
        assert a.explain["score"] == pytest.approx(0.7, rel=1e-6)
        # 1500 + 32 * (0.7 - 0.5) = 1506.4 -> 1506
        assert a.rating_after == 1506


def test_loser_score_is_clamped_at_zero() -> None:
    _, b = play(1500, 1500, "A", NO_STATS, SedmaStats(bad_moves=3, rounds_won_24=1)).players
    assert b.explain["score"] == 0.0
    assert b.rating_after == 1484


# --- K bands from the rating before the game ---------------------------------------------------


@pytest.mark.parametrize(
    ("rating", "k"),
    [
        (0, 40),
        (1000, 40),
        (1199, 40),
        (1200, 32),
        (1799, 32),
        (1800, 24),
        (2199, 24),
        (2200, 16),
        (3000, 16),
    ],
)
def test_k_bands(rating: int, k: int) -> None:
    a, _ = play(rating, rating, "A", NO_STATS, NO_STATS).players
    assert a.explain["k"] == k
    assert SEDMA.k_for(PlayerState("A", rating)) == k
    # Equal ratings, clean win: R + K / 2.
    assert a.rating_after == rating + k // 2


def test_starting_rating_and_version() -> None:
    assert SEDMA.starting_rating == 1000
    assert ruleset_named("sedma", "1.0") == SEDMA


def test_counts_beyond_float32_are_capped_not_crashing() -> None:
    # 2**128 does not fit a float32 and 10**400 not even a double: the caps still apply.
    for huge in (2**128, 10**400):
        game = Game(
            (PlayerState("A", 1500), PlayerState("B", 1500)),
            "A",
            player_options=with_stats(SedmaStats(rounds_won_24=huge), SedmaStats(bad_moves=huge)),
        )
        a, b = SedmaRuleset().rate(game).players
        assert (a.rating_after, b.rating_after) == (1516, 1484)
