"""Preview: the "what do I win or lose" calculator. Same body, overrides, nothing stored."""

from typing import Any

import pytest
from support.games import NOW, game, minutes_before, play_series, preview

from ratings.rules import InvalidInput
from ratings.service.errors import NotFound
from ratings.service.facade import RatingService
from ratings.storage.memory import InMemoryStorage


def deltas(result: dict[str, Any]) -> list[int]:
    return [player["delta"] for player in result["players"]]


def test_preview_stores_nothing_and_says_so(
    service: RatingService, storage: InMemoryStorage
) -> None:
    service.submit_game("backgammon", game("g-1", "alice", "bob"))
    commits, states = storage.commits, dict(storage.states)
    events = {key: list(value) for key, value in storage.events.items()}

    result = service.preview_game("backgammon", preview({"id": "alice"}, {"id": "carol"}, cube=4))

    assert result["preview"] is True
    assert result["game_id"] is None
    assert result["ruleset_version"] == "1.3.1"
    assert result["players"][0]["rating_before"] == 1516  # the stored state by default
    assert result["players"][1]["rating_before"] == 1500
    assert storage.commits == commits
    assert storage.states == states
    assert storage.events == events
    assert storage.games.keys() == {("backgammon", "g-1")}
    # A preview with a game_id echoes it and still stores nothing, not even the id.
    named = service.preview_game(
        "backgammon", {**preview({"id": "alice"}, {"id": "carol"}), "game_id": "g-2"}
    )
    assert named["game_id"] == "g-2"
    assert storage.games.keys() == {("backgammon", "g-1")}
    assert storage.commits == commits


def test_preview_matches_the_submit_that_follows(service: RatingService) -> None:
    play_series(service, "alice", minutes_before(NOW, 50))
    body = game("g-next", "alice", "bob", cube=8)

    expected = service.preview_game("backgammon", body)
    submitted = service.submit_game("backgammon", body).result

    assert expected.pop("preview") is True
    assert expected == submitted
    assert submitted["players"][0]["explain"]["k"] == 16


def test_rating_override(service: RatingService) -> None:
    result = service.preview_game(
        "backgammon", preview({"id": "fav", "rating": 1800}, {"id": "dog", "rating": 1500})
    )
    assert deltas(result) == [12, -12]
    assert [p["rating_before"] for p in result["players"]] == [1800, 1500]
    assert [p["rating_after"] for p in result["players"]] == [1812, 1488]


def test_recent_ranked_games_override(service: RatingService) -> None:
    # The stored week says 50 games; the override says otherwise.
    play_series(service, "alice", minutes_before(NOW, 50))
    assert service.get_player("backgammon", "alice")["k"] == 16

    light = service.preview_game(
        "backgammon", preview({"id": "alice", "recent_ranked_games": 10}, {"id": "bob"})
    )
    heavy = service.preview_game(
        "backgammon",
        preview(
            {"id": "carol", "recent_ranked_games": 60}, {"id": "dave", "recent_ranked_games": 10}
        ),
    )

    assert light["players"][0]["explain"]["k"] == 32
    assert light["players"][0]["explain"]["recent_ranked_games"] == 10
    assert deltas(light) == [16, -16]
    assert heavy["players"][0]["explain"] == {
        "expected": 0.5,
        "k": 16,
        "recent_ranked_games": 60,
        "coefficient": 1.0,
    }
    assert deltas(heavy) == [8, -16]


def test_ranked_games_override_for_classic(service: RatingService) -> None:
    result = service.preview_game(
        "classic",
        preview(
            {"id": "low", "rating": 1200, "ranked_games": 30},
            {"id": "high", "rating": 1400, "ranked_games": 29},
        ),
    )
    assert [p["explain"]["k"] for p in result["players"]] == [16, 32]
    assert [p["explain"]["ranked_games"] for p in result["players"]] == [30, 29]
    assert [p["rating_after"] for p in result["players"]] == [1212, 1376]


@pytest.mark.parametrize(
    ("version", "favourite_wins", "underdog_wins"),
    [("1.0.5", 5, 27), ("1.2.0", 9, 23), ("1.3.1", 12, 20)],
)
def test_ruleset_version_reproduces_the_published_figures(
    service: RatingService,
    storage: InMemoryStorage,
    version: str,
    favourite_wins: int,
    underdog_wins: int,
) -> None:
    fav = {"id": "fav", "rating": 1800}
    dog = {"id": "dog", "rating": 1500}

    won = service.preview_game("backgammon", preview(fav, dog, ruleset_version=version))
    lost = service.preview_game(
        "backgammon", preview(fav, dog, winner="dog", ruleset_version=version)
    )

    for result in (won, lost):
        assert result["ruleset"] == "gammon42"
        assert result["ruleset_version"] == version
        assert result["preview"] is True
    assert deltas(won) == [favourite_wins, -favourite_wins]
    assert deltas(lost) == [-underdog_wins, underdog_wins]
    assert storage.commits == 0


def test_old_versions_ignore_the_heavy_week(service: RatingService) -> None:
    body = preview(
        {"id": "a", "recent_ranked_games": 60},
        {"id": "b", "recent_ranked_games": 60},
        ruleset_version="1.2.0",
    )
    result = service.preview_game("backgammon", body)
    assert [p["explain"]["k"] for p in result["players"]] == [32, 32]
    assert deltas(result) == [16, -16]


def test_preview_of_an_unranked_game_changes_nothing(service: RatingService) -> None:
    result = service.preview_game("backgammon", preview({"id": "a"}, {"id": "b", "bot": True}))
    assert result["ranked"] is False
    assert result["unranked_reason"] == "bot"
    assert deltas(result) == [0, 0]


def test_preview_defaults_played_at_to_now_and_checks_it(service: RatingService) -> None:
    result = service.preview_game("backgammon", preview({"id": "a"}, {"id": "b"}))
    assert result["played_at"] == "2026-11-29T12:00:00.000Z"
    with pytest.raises(InvalidInput) as raised:
        service.preview_game(
            "backgammon",
            {**preview({"id": "a"}, {"id": "b"}), "played_at": "2026-11-01T00:00:00Z"},
        )
    assert raised.value.field == "played_at"


@pytest.mark.parametrize(
    ("ladder", "body", "field"),
    [
        (
            "classic",
            preview({"id": "a", "recent_ranked_games": 3}, {"id": "b"}),
            "players[0].recent_ranked_games",
        ),
        (
            "sedma",
            preview({"id": "a"}, {"id": "b", "recent_ranked_games": 3}),
            "players[1].recent_ranked_games",
        ),
        (
            "backgammon",
            preview({"id": "a"}, {"id": "b", "ranked_games": 3}),
            "players[1].ranked_games",
        ),
        ("sedma", preview({"id": "a", "ranked_games": 3}, {"id": "b"}), "players[0].ranked_games"),
        ("backgammon", preview({"id": "a", "rating": "1500"}, {"id": "b"}), "players[0].rating"),
        (
            "backgammon",
            preview({"id": "a", "recent_ranked_games": -1}, {"id": "b"}),
            "players[0].recent_ranked_games",
        ),
        ("backgammon", preview({"id": "a"}, {"id": "b"}, ruleset_version="2.0"), "ruleset_version"),
        ("backgammon", preview({"id": "a"}, {"id": "b"}, ruleset_version=131), "ruleset_version"),
        ("sedma", preview({"id": "a"}, {"id": "b"}, ruleset_version="1.3.1"), "ruleset_version"),
        ("classic", preview({"id": "a"}, {"id": "b"}, ruleset_version="1.0.5"), "ruleset_version"),
    ],
)
def test_invalid_overrides(
    service: RatingService,
    storage: InMemoryStorage,
    ladder: str,
    body: dict[str, Any],
    field: str,
) -> None:
    with pytest.raises(InvalidInput) as raised:
        service.preview_game(ladder, body)
    assert raised.value.field == field
    assert storage.commits == 0


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"players": [{"id": "a", "rating": 1800}, {"id": "b"}]}, "players[0].rating"),
        (
            {"players": [{"id": "a"}, {"id": "b", "recent_ranked_games": 1}]},
            "players[1].recent_ranked_games",
        ),
        ({"ruleset_version": "1.0.5"}, "ruleset_version"),
    ],
)
def test_overrides_are_for_preview_only(
    service: RatingService, storage: InMemoryStorage, change: dict[str, Any], field: str
) -> None:
    with pytest.raises(InvalidInput) as raised:
        service.submit_game("backgammon", {**game("g-1", "a", "b"), **change})
    assert raised.value.field == field
    assert storage.commits == 0


def test_preview_of_an_unknown_ladder(service: RatingService) -> None:
    with pytest.raises(NotFound):
        service.preview_game("chess", preview({"id": "a"}, {"id": "b"}))
