"""Each ladder's figures from rules.md, end to end through the service, and the result shape.

Fresh players are submitted for real; figures that need other ratings or counters go through
preview with overrides (the same code path rates both).
"""

from typing import Any

import pytest
from support.games import NOW, game, preview, ts

from ratings.service.facade import RatingService
from ratings.storage.memory import InMemoryStorage

GAMMON42_EXPLAIN = {"expected", "k", "recent_ranked_games", "coefficient"}
SEDMA_EXPLAIN = {"expected", "k", "score", "bonus", "malus"}
CLASSIC_EXPLAIN = {"expected", "k", "ranked_games", "score"}


def sides(result: dict[str, Any]) -> list[tuple[int, int]]:
    return [(player["rating_after"], player["delta"]) for player in result["players"]]


# gammon42 (backgammon) -------------------------------------------------------------------


@pytest.mark.parametrize(
    ("cube", "delta", "coefficient"),
    [
        (1, 16, 1.0),
        (2, 19, 1.1667),
        (4, 21, 1.3333),
        (8, 24, 1.5),
        (16, 27, 1.6667),
        (32, 29, 1.8333),
        (64, 32, 2.0),
    ],
)
def test_backgammon_newcomers_by_cube(
    service: RatingService, cube: int, delta: int, coefficient: float
) -> None:
    done = service.submit_game("backgammon", game("g-1", "alice", "bob", cube=cube))

    assert sides(done.result) == [(1500 + delta, delta), (1500 - delta, -delta)]
    for player in done.result["players"]:
        assert player["explain"] == {
            "expected": 0.5,
            "k": 32,
            "recent_ranked_games": 0,
            "coefficient": coefficient,
        }
    assert service.get_player("backgammon", "alice")["rating"] == 1500 + delta
    assert service.get_player("backgammon", "bob")["rating"] == 1500 - delta


def test_backgammon_cube_4_golden_figure_with_the_loser_listed_first(
    service: RatingService,
) -> None:
    done = service.submit_game("backgammon", game("g-1", "bob", "alice", winner="alice", cube=4))
    assert sides(done.result) == [(1479, -21), (1521, 21)]


@pytest.mark.parametrize(
    ("gap", "favourite_wins", "underdog_wins"),
    [(100, 14, 18), (200, 13, 19), (300, 12, 20), (400, 10, 22)],
)
def test_backgammon_favourite_rows(
    service: RatingService, gap: int, favourite_wins: int, underdog_wins: int
) -> None:
    fav = {"id": "fav", "rating": 1500 + gap}
    dog = {"id": "dog", "rating": 1500}
    won = service.preview_game("backgammon", preview(fav, dog))
    lost = service.preview_game("backgammon", preview(fav, dog, winner="dog"))
    assert [p["delta"] for p in won["players"]] == [favourite_wins, -favourite_wins]
    assert [p["delta"] for p in lost["players"]] == [-underdog_wins, underdog_wins]


@pytest.mark.parametrize(
    ("winner_recent", "loser_recent", "deltas"),
    [(60, 10, [8, -16]), (10, 60, [16, -8]), (50, 50, [8, -8]), (49, 49, [16, -16])],
)
def test_backgammon_each_player_has_their_own_k(
    service: RatingService, winner_recent: int, loser_recent: int, deltas: list[int]
) -> None:
    result = service.preview_game(
        "backgammon",
        preview(
            {"id": "w", "recent_ranked_games": winner_recent},
            {"id": "l", "recent_ranked_games": loser_recent},
        ),
    )
    assert [p["delta"] for p in result["players"]] == deltas


@pytest.mark.parametrize(
    ("cube", "delta"), [(2, 9), (4, 11), (8, 12), (16, 13), (32, 15), (64, 16)]
)
def test_backgammon_cube_rows_with_heavy_weeks(
    service: RatingService, cube: int, delta: int
) -> None:
    heavy = {"recent_ranked_games": 50}
    result = service.preview_game(
        "backgammon", preview({"id": "a", **heavy}, {"id": "b", **heavy}, cube=cube)
    )
    assert [p["delta"] for p in result["players"]] == [delta, -delta]


def test_backgammon_favourite_150_with_k16(service: RatingService) -> None:
    fav = {"id": "fav", "rating": 1650, "recent_ranked_games": 55}
    dog = {"id": "dog", "rating": 1500, "recent_ranked_games": 70}
    won = service.preview_game("backgammon", preview(fav, dog))
    lost = service.preview_game("backgammon", preview(fav, dog, winner="dog"))
    assert [p["delta"] for p in won["players"]] == [7, -7]
    assert [p["delta"] for p in lost["players"]] == [-9, 9]
    assert won["players"][0]["explain"]["expected"] == pytest.approx(0.571, abs=1e-3)  # 57.1%


# sedma -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("a", "b", "winner", "new_a", "new_b"),
    [
        ({"id": "a", "rating": 1500}, {"id": "b", "rating": 1500}, "a", 1516, 1484),
        (
            {
                "id": "a",
                "rating": 1500,
                "stats": {"rounds_won_16": 3, "rounds_won_24": 2, "rounds_won_4_last": 3},
            },
            {"id": "b", "rating": 1500},
            "b",
            1485,
            1516,
        ),
        (
            {"id": "a", "rating": 1100, "stats": {"bad_moves": 5, "rounds_won_16": 1}},
            {"id": "b", "rating": 1900},
            "a",
            1138,
            1876,
        ),
    ],
)
def test_sedma_check_rows(
    service: RatingService,
    a: dict[str, Any],
    b: dict[str, Any],
    winner: str,
    new_a: int,
    new_b: int,
) -> None:
    result = service.preview_game("sedma", preview(a, b, winner=winner))
    assert [p["rating_after"] for p in result["players"]] == [new_a, new_b]


def test_sedma_newcomers_end_to_end(service: RatingService) -> None:
    body = game("s-1", "alice", "bob")
    body["players"][1]["stats"] = {"rounds_won_24": 5}  # the loser's bonus is capped, then x0.1
    done = service.submit_game("sedma", body)

    alice, bob = done.result["players"]
    assert (alice["rating_after"], bob["rating_after"]) == (1020, 980 + 1)
    assert alice["explain"] == {"expected": 0.5, "k": 40, "score": 1.0, "bonus": 0.0, "malus": 0.0}
    assert bob["explain"]["score"] == pytest.approx(0.02, abs=1e-4)
    assert bob["explain"]["bonus"] == pytest.approx(0.02, abs=1e-4)
    assert service.get_player("sedma", "bob")["rating"] == 981


# classic ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("winner", "low_after", "high_after"),
    [("low", 1212, 1388), ("high", 1196, 1404), (None, 1204, 1396)],
)
def test_classic_established_rows(
    service: RatingService, winner: str | None, low_after: int, high_after: int
) -> None:
    low = {"id": "low", "rating": 1200, "ranked_games": 30}
    high = {"id": "high", "rating": 1400, "ranked_games": 45}
    result = service.preview_game("classic", preview(low, high, winner=winner))
    assert result["winner"] == winner
    assert [p["rating_after"] for p in result["players"]] == [low_after, high_after]
    assert [p["explain"]["k"] for p in result["players"]] == [16, 16]


def test_classic_newcomers_end_to_end(service: RatingService) -> None:
    won = service.submit_game("classic", game("c-1", "alice", "bob"))
    drawn = service.submit_game("classic", game("c-2", "carol", "dave", winner=None))

    assert sides(won.result) == [(1216, 16), (1184, -16)]
    assert sides(drawn.result) == [(1200, 0), (1200, 0)]
    assert drawn.result["winner"] is None
    assert drawn.result["ranked"] is True
    assert [p["explain"]["score"] for p in drawn.result["players"]] == [0.5, 0.5]
    # A draw is a ranked game: both players are on the leaderboard with one game.
    board = {
        e["player_id"]: e["ranked_games"] for e in service.get_leaderboard("classic")["entries"]
    }
    assert board == {"alice": 1, "bob": 1, "carol": 1, "dave": 1}


# Results echo inputs ---------------------------------------------------------------------


def test_backgammon_result_echoes_every_input(
    service: RatingService, storage: InMemoryStorage
) -> None:
    body = {
        "game_id": "g-000123",
        "played_at": "2026-11-29T11:00:00Z",
        "players": [
            {"id": "alice", "network": "ab12", "bot": False},
            {"id": "bob"},
        ],
        "winner": "alice",
        "mode": "ranked",
        "cube": 4,
        "ending": "resign",
        "points": 2,
    }
    result = service.submit_game("backgammon", body).result

    assert {k: result[k] for k in result if k != "players"} == {
        "game_id": "g-000123",
        "ladder": "backgammon",
        "played_at": "2026-11-29T11:00:00.000Z",
        "ruleset": "gammon42",
        "ruleset_version": "1.3.1",
        "ranked": True,
        "unranked_reason": None,
        "winner": "alice",
        "mode": "ranked",
        "cube": 4,
        "ending": "resign",
        "points": 2,
    }
    alice, bob = result["players"]
    assert {k: alice[k] for k in ("id", "rating_before", "rating_after", "delta")} == {
        "id": "alice",
        "rating_before": 1500,
        "rating_after": 1521,
        "delta": 21,
    }
    assert alice["explain"] == {
        "expected": 0.5,
        "k": 32,
        "recent_ranked_games": 0,
        "coefficient": 1.3333,
    }
    assert (bob["id"], bob["rating_after"], bob["delta"]) == ("bob", 1479, -21)
    assert set(bob["explain"]) == GAMMON42_EXPLAIN
    assert "stats" not in alice
    assert "stats" not in bob
    assert "preview" not in result
    assert service.get_game("backgammon", "g-000123") == result
    assert storage.commits == 1


def test_backgammon_defaults_are_echoed(service: RatingService) -> None:
    result = service.submit_game("backgammon", game("g-1")).result
    assert result["played_at"] == ts(NOW)
    assert (result["mode"], result["cube"], result["ending"], result["points"]) == (
        "ranked",
        1,
        None,
        None,
    )


def test_sedma_result_echoes_stats_and_has_no_backgammon_fields(
    service: RatingService,
) -> None:
    body = game("s-1", "alice", "bob", winner="bob")
    body["players"][0]["stats"] = {"rounds_won_16": 3, "rounds_won_24": 2, "rounds_won_4_last": 3}
    result = service.submit_game("sedma", body).result

    assert (result["ruleset"], result["ruleset_version"], result["ladder"]) == (
        "sedma",
        "1.0",
        "sedma",
    )
    for key in ("cube", "ending", "points"):
        assert key not in result
    alice, bob = result["players"]
    assert alice["stats"] == {
        "bad_moves": 0,
        "rounds_won_16": 3,
        "rounds_won_24": 2,
        "rounds_won_4_last": 3,
    }
    assert bob["stats"] == {
        "bad_moves": 0,
        "rounds_won_16": 0,
        "rounds_won_24": 0,
        "rounds_won_4_last": 0,
    }
    assert set(alice["explain"]) == SEDMA_EXPLAIN
    assert set(bob["explain"]) == SEDMA_EXPLAIN
    assert bob["explain"]["score"] == 1.0
    assert alice["explain"]["bonus"] == pytest.approx(0.044, abs=1e-4)  # (0.15+0.2+0.09) x 0.1


def test_classic_result_explain_keys(service: RatingService) -> None:
    result = service.submit_game("classic", game("c-1")).result
    assert (result["ruleset"], result["ruleset_version"]) == ("classic", "1.0")
    for key in ("cube", "ending", "points"):
        assert key not in result
    for player in result["players"]:
        assert set(player["explain"]) == CLASSIC_EXPLAIN
        assert "stats" not in player
    assert result["players"][0]["explain"] == {
        "expected": 0.5,
        "k": 32,
        "ranked_games": 0,
        "score": 1.0,
    }


@pytest.mark.parametrize(
    ("players", "mode", "reason"),
    [
        ([{"id": "alice"}, {"id": "bob"}], "boosted", "mode"),
        ([{"id": "alice"}, {"id": "bob"}], "tournament", "mode"),
        ([{"id": "alice", "bot": True}, {"id": "bob"}], "ranked", "bot"),
        ([{"id": "alice", "bot": True}, {"id": "bob"}], "boosted", "mode"),  # mode checked first
        (
            [{"id": "alice", "network": "n1"}, {"id": "bob", "network": "n1"}],
            "ranked",
            "shared_network",
        ),
    ],
)
@pytest.mark.parametrize("ladder", ["backgammon", "sedma", "classic"])
def test_unranked_games_are_recorded_and_change_nothing(
    service: RatingService,
    storage: InMemoryStorage,
    ladder: str,
    players: list[dict[str, Any]],
    mode: str,
    reason: str,
) -> None:
    body = {**game("u-1"), "players": players, "mode": mode}

    done = service.submit_game(ladder, body)

    assert done.created is True
    result = done.result
    assert result["ranked"] is False
    assert result["unranked_reason"] == reason
    assert result["mode"] == mode
    for player in result["players"]:
        assert player["rating_after"] == player["rating_before"]
        assert player["delta"] == 0
    assert storage.commits == 1
    # No rating moved: the states are stored only to count the game towards the day's limit.
    for player in result["players"]:
        state = storage.states[(ladder, player["id"])]
        assert (state.rating, state.ranked_games) == (player["rating_before"], 0)
        assert state.games_that_day == 1
    assert service.get_game(ladder, "u-1") == result
    assert service.get_leaderboard(ladder)["entries"] == []
    assert [e["ranked"] for e in service.get_history(ladder, "alice")["events"]] == [False]
