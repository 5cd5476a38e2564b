"""Podium bonuses of tournaments: +50/+25/+15 once per tournament id, public ones only."""

from datetime import timedelta
from typing import Any

import pytest
from support.games import DAY, NOW, game, minutes_before, play_series, ts

from ratings.rules import InvalidInput
from ratings.service.errors import NotFound, TournamentConflict
from ratings.service.facade import RatingService
from ratings.storage.memory import InMemoryStorage

FINISHED = NOW - timedelta(hours=2)


def podium(
    tournament_id: str = "t-42",
    *players: str,
    ladder: str = "backgammon",
    public: bool = True,
    finished_at: str = ts(FINISHED),
) -> dict[str, Any]:
    names = players or ("alice", "bob", "carol")
    return {
        "tournament_id": tournament_id,
        "ladder": ladder,
        "finished_at": finished_at,
        "public": public,
        "podium": [{"place": place, "player_id": pid} for place, pid in enumerate(names, 1)],
    }


def test_public_podium_pays_50_25_15(service: RatingService, storage: InMemoryStorage) -> None:
    service.submit_game("backgammon", game("g-1", "alice", "carol"))  # alice 1516, carol 1484
    commits = storage.commits

    done = service.award_podium(podium())

    assert done.created is True
    assert storage.commits == commits + 1
    assert done.result == {
        "tournament_id": "t-42",
        "ladder": "backgammon",
        "status": "awarded",
        "public": True,
        "finished_at": ts(FINISHED),
        "awards": [
            {"place": 1, "player_id": "alice", "delta": 50, "rating_after": 1566},
            # bob was never seen: he starts from the ladder's starting rating.
            {"place": 2, "player_id": "bob", "delta": 25, "rating_after": 1525},
            {"place": 3, "player_id": "carol", "delta": 15, "rating_after": 1499},
        ],
    }
    assert [service.get_player("backgammon", p)["rating"] for p in ("alice", "bob", "carol")] == [
        1566,
        1525,
        1499,
    ]
    assert service.get_tournament("backgammon", "t-42") == done.result


def test_second_delivery_returns_the_same_result_and_changes_nothing(
    service: RatingService, storage: InMemoryStorage
) -> None:
    first = service.award_podium(podium())
    commits = storage.commits
    states = dict(storage.states)

    again = service.award_podium(podium())
    # The same podium listed in another order is the same message.
    shuffled = podium()
    shuffled["podium"].reverse()
    once_more = service.award_podium(shuffled)

    for replay in (again, once_more):
        assert replay.created is False
        assert replay.result == first.result
    assert storage.commits == commits
    assert storage.states == states
    assert service.get_player("backgammon", "alice")["rating"] == 1550


def test_private_tournament_pays_nothing(service: RatingService, storage: InMemoryStorage) -> None:
    service.submit_game("backgammon", game("g-1", "alice", "bob"))
    states = dict(storage.states)

    done = service.award_podium(podium(public=False))

    assert done.result["public"] is False
    assert [(a["delta"], a["rating_after"]) for a in done.result["awards"]] == [
        (0, 1516),
        (0, 1484),
        (0, 1500),
    ]
    assert storage.states == states
    assert service.get_tournament("backgammon", "t-42") == done.result
    assert [e["type"] for e in service.get_history("backgammon", "alice")["events"]] == ["game"]
    assert service.award_podium(podium(public=False)).created is False


@pytest.mark.parametrize(
    ("ladder", "ratings"),
    [
        ("backgammon", [1550, 1525, 1515]),
        ("sedma", [1050, 1025, 1015]),
        ("classic", [1250, 1225, 1215]),
    ],
)
def test_unknown_players_start_from_the_ladders_starting_rating(
    service: RatingService, ladder: str, ratings: list[int]
) -> None:
    done = service.award_podium(podium(ladder=ladder))

    assert [a["rating_after"] for a in done.result["awards"]] == ratings
    for pid, rating in zip(("alice", "bob", "carol"), ratings, strict=True):
        assert service.get_player(ladder, pid)["rating"] == rating


@pytest.mark.parametrize(
    "change",
    [
        {"public": False},
        {"finished_at": ts(FINISHED - timedelta(minutes=1))},
        {"podium": [{"place": 1, "player_id": "bob"}, {"place": 2, "player_id": "alice"}]},
        {"podium": [{"place": 1, "player_id": "alice"}]},
    ],
)
def test_another_podium_with_the_same_id_is_a_conflict(
    service: RatingService, storage: InMemoryStorage, change: dict[str, Any]
) -> None:
    first = service.award_podium(podium())
    commits = storage.commits

    with pytest.raises(TournamentConflict) as raised:
        service.award_podium({**podium(), **change})

    assert raised.value.code == "tournament_conflict"
    assert storage.commits == commits
    assert service.get_tournament("backgammon", "t-42") == first.result


def test_tournament_ids_are_per_ladder(service: RatingService) -> None:
    service.award_podium(podium())
    assert service.award_podium(podium(ladder="sedma")).created is True


def test_podium_events_appear_in_history(service: RatingService) -> None:
    service.submit_game("backgammon", game("g-old", "alice", "bob", played_at=NOW - 3 * DAY))
    service.submit_game("backgammon", game("g-new", "alice", "bob", played_at=NOW - DAY / 2))
    service.award_podium(podium(finished_at=ts(NOW - DAY)))

    events = service.get_history("backgammon", "alice")["events"]

    assert [e["type"] for e in events] == ["game", "podium_bonus", "game"]
    assert events[1] == {
        "type": "podium_bonus",
        "tournament_id": "t-42",
        "place": 1,
        "at": ts(NOW - DAY),
        "delta": 50,
        "rating_after": 1582,  # both games arrived first: 1500 + 16 + 16 + 50
    }
    carol = service.get_history("backgammon", "carol")["events"]
    assert carol == [
        {
            "type": "podium_bonus",
            "tournament_id": "t-42",
            "place": 3,
            "at": ts(NOW - DAY),
            "delta": 15,
            "rating_after": 1515,
        }
    ]


def test_podium_is_not_a_ranked_game(service: RatingService) -> None:
    t = NOW - DAY
    play_series(service, "alice", minutes_before(t, 49))
    service.award_podium(podium(finished_at=ts(t - timedelta(minutes=5))))

    alice = service.get_player("backgammon", "alice")
    assert alice["ranked_games"] == 49
    # Podium-only players are not on the leaderboard, however high they sit.
    board = [e["player_id"] for e in service.get_leaderboard("backgammon")["entries"]]
    assert "alice" in board
    assert "bob" not in board
    assert "carol" not in board
    assert service.get_player("backgammon", "bob")["ranked_games"] == 0
    # ... and the bonus does not count in the recent-games window.
    side = service.submit_game("backgammon", game("target", "alice", "rookie", played_at=t)).result[
        "players"
    ][0]
    assert side["explain"]["recent_ranked_games"] == 49
    assert side["explain"]["k"] == 32
    assert side["rating_before"] == alice["rating"]


def test_bonus_of_a_linked_anonymous_id_goes_to_the_account(
    service: RatingService,
) -> None:
    service.submit_game("backgammon", game("g-1", "acct", "bob"))
    service.link_identity({"anonymous_id": "anon", "account_id": "acct"})

    done = service.award_podium(podium("t-9", "anon", "bob"))

    first = done.result["awards"][0]
    assert first["player_id"] == "acct"
    assert first["submitted_id"] == "anon"
    assert first["rating_after"] == 1566
    assert service.get_player("backgammon", "acct")["rating"] == 1566
    with pytest.raises(InvalidInput) as raised:
        service.award_podium(podium("t-10", "anon", "acct"))
    assert raised.value.field == "podium"


def test_podium_retries_when_a_player_plays_meanwhile(
    service: RatingService, storage: InMemoryStorage
) -> None:
    def alice_plays() -> None:
        service.submit_game("backgammon", game("g-1", "alice", "zed"))

    storage.before_commit = alice_plays

    done = service.award_podium(podium())

    assert service.retries >= 1
    assert done.result["awards"][0]["rating_after"] == 1566  # 1516 from the game, then +50
    assert service.get_player("backgammon", "alice")["rating"] == 1566


def test_tournament_not_awarded_is_not_found(service: RatingService) -> None:
    with pytest.raises(NotFound):
        service.get_tournament("backgammon", "t-42")
    with pytest.raises(NotFound):
        service.get_tournament("chess", "t-42")
    with pytest.raises(NotFound):
        service.award_podium(podium(ladder="chess"))


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"podium": []}, "podium"),
        ({"podium": [{"place": 4, "player_id": "alice"}]}, "podium[0].place"),
        (
            {"podium": [{"place": 1, "player_id": "alice"}, {"place": 1, "player_id": "bob"}]},
            "podium[1].place",
        ),
        (
            {"podium": [{"place": 1, "player_id": "alice"}, {"place": 2, "player_id": "alice"}]},
            "podium[1].player_id",
        ),
        ({"public": "yes"}, "public"),
        ({"finished_at": ts(NOW + timedelta(minutes=10))}, "finished_at"),
        ({"tournament_id": "t 42"}, "tournament_id"),
        ({"prize": 1}, "prize"),
    ],
)
def test_invalid_podium_messages_write_nothing(
    service: RatingService, storage: InMemoryStorage, change: dict[str, Any], field: str
) -> None:
    with pytest.raises(InvalidInput) as raised:
        service.award_podium({**podium(), **change})
    assert raised.value.field == field
    assert storage.commits == 0
