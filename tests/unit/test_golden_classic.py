"""Golden tests for ruleset classic: the checks of rules.md, figures copied verbatim."""

import pytest

from ratings.rules import Classic, Game, PlayerState, Rating, ruleset_named

CLASSIC = Classic()
ESTABLISHED = 30  # ranked games before the game: 30 or more -> K 16

# Both players established, K 16: (A, B, winner, new A, new B); winner None is a draw.
CHECKS = [
    (1200, 1400, "A", 1212, 1388),  # 1200 beats 1400
    (1200, 1400, "B", 1196, 1404),  # 1200 loses to 1400
    (1200, 1400, None, 1204, 1396),  # 1200 draws with 1400
]


def play(
    a: int,
    b: int,
    winner: str | None,
    *,
    games_a: int = ESTABLISHED,
    games_b: int = ESTABLISHED,
    a_first: bool = True,
    ruleset: Classic = CLASSIC,
) -> Rating:
    player_a = PlayerState("A", a, ranked_games=games_a)
    player_b = PlayerState("B", b, ranked_games=games_b)
    players = (player_a, player_b) if a_first else (player_b, player_a)
    return ruleset.rate(Game(players=players, winner=winner))


def after(rating: Rating) -> dict[str, int]:
    return {change.player_id: change.rating_after for change in rating.players}


@pytest.mark.parametrize("games", [ESTABLISHED, 31, 500])
@pytest.mark.parametrize("a_first", [True, False], ids=["A-first", "A-second"])
@pytest.mark.parametrize(("a", "b", "winner", "new_a", "new_b"), CHECKS)
def test_checks(
    a: int, b: int, winner: str | None, new_a: int, new_b: int, a_first: bool, games: int
) -> None:
    rating = play(a, b, winner, games_a=games, games_b=games, a_first=a_first)
    assert after(rating) == {"A": new_a, "B": new_b}
    assert (rating.ruleset, rating.version) == ("classic", "1.0")


@pytest.mark.parametrize(("a", "b", "winner", "new_a", "new_b"), CHECKS)
def test_explain_contents(a: int, b: int, winner: str | None, new_a: int, new_b: int) -> None:
    first, second = play(a, b, winner, games_a=30, games_b=77).players
    score_a = {"A": 1.0, "B": 0.0, None: 0.5}[winner]
    for change in (first, second):
        assert set(change.explain) == {"expected", "k", "ranked_games", "score"}
        assert change.explain["k"] == 16
    assert (first.explain["ranked_games"], second.explain["ranked_games"]) == (30, 77)
    assert (first.explain["score"], second.explain["score"]) == (score_a, 1 - score_a)
    assert first.explain["expected"] == 1 / (1 + 10 ** ((b - a) / 400))
    assert second.explain["expected"] == 1 / (1 + 10 ** ((a - b) / 400))


# --- the provisional K (rule text, not a check row): fewer than 30 ranked games -> 32 -----------


@pytest.mark.parametrize(("games", "k"), [(0, 32), (29, 32), (30, 16), (31, 16)])
def test_provisional_k(games: int, k: int) -> None:
    first, _ = play(1200, 1200, "A", games_a=games).players
    assert first.explain["k"] == k
    assert first.delta == k // 2  # equal ratings: K * (1 - 0.5)
    assert CLASSIC.provisional(PlayerState("A", 1200, ranked_games=games)) == (k == 32)


def test_each_player_has_their_own_k() -> None:
    # 1200 (provisional, K 32) beats 1400 (established, K 16):
    # 32 * 0.7597 = 24.31 -> +24; 16 * -0.7597 = -12.16 -> -12.
    assert after(play(1200, 1400, "A", games_a=0, games_b=30)) == {"A": 1224, "B": 1388}


def test_no_floor_and_no_ceiling() -> None:
    assert after(play(5, 0, "B")) == {"A": -3, "B": 8}
    assert after(play(10_000, 10_000, "A")) == {"A": 10_008, "B": 9_992}


def test_starting_rating() -> None:
    assert CLASSIC.starting_rating == 1200
    assert ruleset_named("classic", "1.0") == CLASSIC
