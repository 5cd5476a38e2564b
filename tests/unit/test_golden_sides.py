"""Golden tests of teams and free-for-all games (classic and sedma): the checks of rules.md,
"Teams and free-for-all", as data.

Each table row is one game: its sides in side order, each a list of players, and each side's
place. The spec's own checks are copied verbatim; every other row was computed by hand from
the formula (the steps are in the comment above the row) and only then run.
"""

from typing import Any

import pytest

from ratings.rules import Classic, Game, PlayerState, Rating, Sedma

CLASSIC = Classic()
SEDMA = Sedma()
ESTABLISHED = 30  # classic: 30 ranked games or more -> K 16; fewer -> K 32

# E(gap) = 1 / (1 + 10 ** (gap / 400)), gap = the other side's mean minus this side's:
#   E(-300) = 0.849020  E(-200) = 0.759747  E(-100) = 0.640065  E(-50) = 0.571463
#   E(+50)  = 0.428537  E(+100) = 0.359935  E(+200) = 0.240253  E(+300) = 0.150980

# --- classic ---------------------------------------------------------------------------------

# A classic player: (id, rating before, ranked games before, rating after).
ClassicPlayer = tuple[str, int, int, int]

# (name, sides in side order: [[player, ...], ...], each side's place)
CLASSIC_GAMES: list[tuple[str, list[list[ClassicPlayer]], list[int]]] = [
    # The spec's check: 1200 + 1400 (mean 1300) beat 1300 + 1300 (mean 1300), all K 16.
    # E = 0.5 on both sides; winners 16 * (1 - 0.5) = +8, losers 16 * (0 - 0.5) = -8.
    (
        "spec: two sides of two, equal means",
        [
            [("a1", 1200, ESTABLISHED, 1208), ("a2", 1400, ESTABLISHED, 1408)],
            [("b1", 1300, ESTABLISHED, 1292), ("b2", 1300, ESTABLISHED, 1292)],
        ],
        [1, 2],
    ),
    # The spec's check: free-for-all of three, 1200 first, 1300 second, 1400 third, all K 16.
    # 1200: Ebar = (0.35994 + 0.24025) / 2 = 0.30009, Sbar = 1; 16 * 0.69991 = 11.20 -> +11.
    # 1300: Ebar = (0.64006 + 0.35994) / 2 = 0.5, Sbar = (0 + 1) / 2 = 0.5; 0 -> 0.
    # 1400: Ebar = (0.75975 + 0.64006) / 2 = 0.69991, Sbar = 0; -11.20 -> -11.
    (
        "spec: free-for-all of three",
        [
            [("x", 1200, ESTABLISHED, 1211)],
            [("y", 1300, ESTABLISHED, 1300)],
            [("z", 1400, ESTABLISHED, 1389)],
        ],
        [1, 2, 3],
    ),
    # Two of two, each player with their own K. Means 1400 (1500 + 1300) and 1450
    # (1450 + 1450): E = E(+50) = 0.428537 for the winners, E(-50) = 0.571463 for the losers.
    # a1 provisional (10 games, K 32): 32 * 0.571463 = 18.29 -> +18; a2 K 16: 9.14 -> +9;
    # b1 K 16: 16 * -0.571463 = -9.14 -> -9; b2 provisional (0 games, K 32): -18.29 -> -18.
    (
        "two of two, one provisional player on each side",
        [
            [("a1", 1500, 10, 1518), ("a2", 1300, 40, 1309)],
            [("b1", 1450, ESTABLISHED, 1441), ("b2", 1450, 0, 1432)],
        ],
        [1, 2],
    ),
    # Free-for-all of four with a tie for second: places 2, 4, 1, 2 (1400 wins; 1200 and 1500
    # share second; 1300 last), all K 16.
    # 1200: Ebar = (E(+100) + E(+200) + E(+300)) / 3 = 0.751168 / 3 = 0.250389;
    #       Sbar = (1 + 0 + 0.5) / 3 = 0.5; 16 * 0.249611 = 3.99 -> +4.
    # 1300: Ebar = (E(-100) + E(+100) + E(+200)) / 3 = 1.240253 / 3 = 0.413418; Sbar = 0;
    #       16 * -0.413418 = -6.61 -> -7.
    # 1400: Ebar = (E(-200) + E(-100) + E(+100)) / 3 = 1.759747 / 3 = 0.586582; Sbar = 1;
    #       16 * 0.413418 = 6.61 -> +7.
    # 1500: Ebar = (E(-300) + E(-200) + E(-100)) / 3 = 2.248832 / 3 = 0.749611;
    #       Sbar = (0.5 + 1 + 0) / 3 = 0.5; 16 * -0.249611 = -3.99 -> -4.
    (
        "free-for-all of four, a tie for second",
        [
            [("p1200", 1200, ESTABLISHED, 1204)],
            [("p1300", 1300, ESTABLISHED, 1293)],
            [("p1400", 1400, ESTABLISHED, 1407)],
            [("p1500", 1500, ESTABLISHED, 1496)],
        ],
        [2, 4, 1, 2],
    ),
    # Sides of different sizes: 1600 alone loses to 1400 + 1600 (mean 1500), all K 16.
    # solo: E(-100) = 0.640065, 16 * -0.640065 = -10.24 -> -10; each of the pair:
    # E(+100) = 0.359935, 16 * 0.640065 = +10.24 -> +10.
    (
        "one against two",
        [
            [("solo", 1600, ESTABLISHED, 1590)],
            [("t1", 1400, ESTABLISHED, 1410), ("t2", 1600, ESTABLISHED, 1610)],
        ],
        [2, 1],
    ),
]

# Each side's (Ebar, Sbar) in the games above, Ebar to 6 digits: the explain of each player.
CLASSIC_SIDE_VALUES = {
    "spec: two sides of two, equal means": [(0.5, 1.0), (0.5, 0.0)],
    "spec: free-for-all of three": [(0.300094, 1.0), (0.5, 0.5), (0.699906, 0.0)],
    "two of two, one provisional player on each side": [(0.428537, 1.0), (0.571463, 0.0)],
    "free-for-all of four, a tie for second": [
        (0.250389, 0.5),
        (0.413418, 0.0),
        (0.586582, 1.0),
        (0.749611, 0.5),
    ],
    "one against two": [(0.640065, 0.0), (0.359935, 1.0)],
}


def classic_game(sides: list[list[ClassicPlayer]], places: list[int]) -> Game:
    return Game.of_sides(
        [
            [PlayerState(pid, rating, ranked_games=games) for pid, rating, games, _ in side]
            for side in sides
        ],
        places,
    )


def after(rating: Rating) -> dict[str, int]:
    return {change.player_id: change.rating_after for change in rating.players}


@pytest.mark.parametrize(
    ("name", "sides", "places"), CLASSIC_GAMES, ids=[g[0] for g in CLASSIC_GAMES]
)
def test_classic_sides(name: str, sides: list[list[ClassicPlayer]], places: list[int]) -> None:
    rating = CLASSIC.rate(classic_game(sides, places))
    assert after(rating) == {pid: new for side in sides for pid, _, _, new in side}
    assert [c.player_id for c in rating.players] == [p[0] for side in sides for p in side]
    assert (rating.ruleset, rating.version) == ("classic", "1.0")
    changes = iter(rating.players)
    for side, (expected, score) in zip(sides, CLASSIC_SIDE_VALUES[name], strict=True):
        for pid, _, games, _ in side:
            change = next(changes)
            assert change.player_id == pid
            assert set(change.explain) == {"expected", "k", "ranked_games", "score"}
            assert change.explain["expected"] == pytest.approx(expected, abs=5e-7)
            assert change.explain["score"] == score
            assert change.explain["k"] == (16 if games >= ESTABLISHED else 32)
            assert change.explain["ranked_games"] == games


def test_classic_spec_free_for_all_to_the_last_digit() -> None:
    # The spec's free-for-all, each step as rules.md writes it.
    e = [
        [1 / (1 + 10 ** ((other - mine) / 400)) for other in (1200, 1300, 1400) if other != mine]
        for mine in (1200, 1300, 1400)
    ]
    x, y, z = CLASSIC.rate(classic_game(CLASSIC_GAMES[1][1], [1, 2, 3])).players
    assert x.explain["expected"] == (e[0][0] + e[0][1]) / 2
    assert y.explain["expected"] == (e[1][0] + e[1][1]) / 2 == 0.5
    assert z.explain["expected"] == (e[2][0] + e[2][1]) / 2
    assert (x.explain["score"], y.explain["score"], z.explain["score"]) == (1.0, 0.5, 0.0)


def test_classic_order_of_the_sides_changes_no_figure_here() -> None:
    # The four-way free-for-all, its sides listed the other way round: the same changes.
    _, sides, places = CLASSIC_GAMES[3]
    rating = CLASSIC.rate(classic_game(sides[::-1], places[::-1]))
    assert after(rating) == {pid: new for side in sides for pid, _, _, new in side}


# --- sedma -----------------------------------------------------------------------------------

# A sedma player: (id, rating before, stats sent, rating after).
SedmaPlayer = tuple[str, int, dict[str, int], int]

# (name, winning side, losing side, per side: (bonus, score of each player) to 6 digits)
SEDMA_GAMES: list[tuple[str, list[SedmaPlayer], list[SedmaPlayer], tuple[Any, ...]]] = [
    # The spec's check: two sides of two, no stats, all 1500 (K 32): E = 0.5;
    # 1500 + 32 * (1 - 0.5) = 1516, 1500 + 32 * (0 - 0.5) = 1484.
    (
        "spec: two of two, no stats",
        [("w1", 1500, {}, 1516), ("w2", 1500, {}, 1516)],
        [("l1", 1500, {}, 1484), ("l2", 1500, {}, 1484)],
        ((0.0, [1.0, 1.0]), (0.0, [0.0, 0.0])),
    ),
    # Stats on both sides, bad moves on one player, each player's own K band.
    # Means 1550 (1100 + 2000) and 1600 (1500 + 1700): E = E(+50) = 0.428537, E(-50) = 0.571463.
    # Winners' rounds: 16 x 2 (1 + 1), 24 x 1: bonus min(0.1, 0.15) + min(0.1, 0.2) = 0.2, x 1.
    #   w1 (K 40, no bad move): 1 + 0.2 - 0 -> clamped to 1; 1100 + 40 * 0.571463 = 1122.86 -> 1123.
    #   w2 (K 24, 15 bad moves: malus 0.3): 1 + 0.2 - 0.3 = 0.9;
    #      2000 + 24 * (0.9 - 0.428537) = 2011.32 -> 2011.
    # Losers' rounds: 16 x 2, 24 x 1, 4+last x 3 (1 + 2): 0.1 + 0.1 + 0.09 = 0.29, x 0.1 = 0.029.
    #   l1, l2 (K 32): score 0.029; 1500 + 32 * (0.029 - 0.571463) = 1482.64 -> 1483, and
    #   1700 - 17.36 = 1682.64 -> 1683. (Without the losing side's x 0.1: 0.29, 1491 and 1691.)
    (
        "two of two, stats on both sides, bad moves on one winner",
        [
            ("w1", 1100, {"rounds_won_16": 1, "rounds_won_24": 1}, 1123),
            ("w2", 2000, {"rounds_won_16": 1, "bad_moves": 15}, 2011),
        ],
        [
            ("l1", 1500, {"rounds_won_16": 2, "rounds_won_4_last": 1}, 1483),
            ("l2", 1700, {"rounds_won_24": 1, "rounds_won_4_last": 2}, 1683),
        ],
        ((0.2, [1.0, 0.9]), (0.029, [0.029, 0.029])),
    ),
    # The caps apply to the side's rounds together: losers with 16 x 4 (2 + 2) -> 0.15 (not
    # 0.2), 24 x 2 -> 0.2, 4+last x 3 -> 0.09: 0.44, x 0.1 = 0.044 each; all 1500, K 32:
    # 1500 + 32 * (0.044 - 0.5) = 1485.41 -> 1485; winners 1516.
    (
        "two of two, the losing side's rounds capped together",
        [("w1", 1500, {}, 1516), ("w2", 1500, {}, 1516)],
        [
            ("l1", 1500, {"rounds_won_16": 2, "rounds_won_24": 2}, 1485),
            ("l2", 1500, {"rounds_won_16": 2, "rounds_won_4_last": 3}, 1485),
        ],
        ((0.0, [1.0, 1.0]), (0.044, [0.044, 0.044])),
    ),
]


@pytest.mark.parametrize("winners_first", [True, False], ids=["winners-first", "winners-second"])
@pytest.mark.parametrize(
    ("name", "winners", "losers", "side_values"), SEDMA_GAMES, ids=[g[0] for g in SEDMA_GAMES]
)
def test_sedma_sides(
    name: str,
    winners: list[SedmaPlayer],
    losers: list[SedmaPlayer],
    side_values: tuple[Any, ...],
    winners_first: bool,
) -> None:
    sides = [winners, losers] if winners_first else [losers, winners]
    game = Game.of_sides(
        [[PlayerState(pid, rating) for pid, rating, _, _ in side] for side in sides],
        [1, 2] if winners_first else [2, 1],
        player_options=[[{"stats": stats} for _, _, stats, _ in side] for side in sides],
    )
    rating = SEDMA.rate(game)
    assert after(rating) == {pid: new for side in sides for pid, _, _, new in side}
    assert (rating.ruleset, rating.version) == ("sedma", "1.0")
    by_id = {change.player_id: change for change in rating.players}
    for side, (bonus, scores) in zip((winners, losers), side_values, strict=True):
        for (pid, _, stats, _), score in zip(side, scores, strict=True):
            explain = by_id[pid].explain
            assert set(explain) == {"expected", "k", "score", "bonus", "malus"}
            assert explain["bonus"] == pytest.approx(bonus, rel=1e-6, abs=1e-12)
            assert explain["score"] == pytest.approx(score, rel=1e-6, abs=1e-12)
            malus = min(0.02 * stats.get("bad_moves", 0), 0.3)
            assert explain["malus"] == pytest.approx(malus, rel=1e-6, abs=1e-12)


def test_sedma_k_and_expected_are_each_players_and_the_sides() -> None:
    _, winners, losers, _ = SEDMA_GAMES[1]
    game = Game.of_sides(
        [[PlayerState(pid, rating) for pid, rating, _, _ in side] for side in (winners, losers)],
        [1, 2],
    )
    w1, w2, l1, l2 = SEDMA.rate(game).players
    assert [c.explain["k"] for c in (w1, w2, l1, l2)] == [40, 24, 32, 32]
    assert w1.explain["expected"] == w2.explain["expected"] == 1 / (1 + 10 ** ((1600 - 1550) / 400))
    assert l1.explain["expected"] == l2.explain["expected"] == 1 / (1 + 10 ** ((1550 - 1600) / 400))
