"""Teams and free-for-all on the default ladders, on the in-memory fake: an 8-player
classic-ffa game and a sedma-pairs game (two against two) keep every guarantee of a game of
two: exactly once, links, the unranked reasons, preview with per-player overrides,
leaderboards and standings, history, seasons. A body outside the ladder's shape is 400
naming the field."""

from datetime import timedelta
from typing import Any

import pytest

from ratings.rules import InvalidInput
from ratings.service.errors import GameConflict
from ratings.service.events import game_rated
from ratings.service.facade import RatingService
from ratings.storage.memory import InMemoryStorage

FFA = "classic-ffa"
PAIRS = "sedma-pairs"
EIGHT = [f"p{n}" for n in range(1, 9)]


def ffa(game_id: str, players: list[str] = EIGHT, **player: Any) -> dict[str, Any]:
    """Each player a side, placed in the order given (the first wins)."""
    return {
        "game_id": game_id,
        "sides": [
            {"players": [{"id": pid, **player.get(pid, {})}], "place": place}
            for place, pid in enumerate(players, start=1)
        ],
    }


def pairs(
    game_id: str, first: tuple[str, str], second: tuple[str, str], **player: Any
) -> dict[str, Any]:
    """Two against two, the first pair winning."""
    return {
        "game_id": game_id,
        "sides": [
            {"players": [{"id": pid, **player.get(pid, {})} for pid in side], "place": place}
            for place, side in ((1, first), (2, second))
        ],
    }


def ratings(result: dict[str, Any]) -> dict[str, int]:
    return {entry["id"]: entry["rating_after"] for entry in result["players"]}


def test_an_eight_player_game_is_rated_once(service: RatingService) -> None:
    body = ffa("ffa-1")

    first = service.submit_game(FFA, body)
    again = service.submit_game(FFA, body)

    assert (first.created, again.created) == (True, False)
    assert again.result == first.result
    result = first.result
    assert result["unranked_reason"] is None
    assert [p["side"] for p in result["players"]] == list(range(8))
    assert [side["place"] for side in result["sides"]] == list(range(1, 9))
    # Places from best to worst: ratings after fall in that order, all from 1200.
    after = [p["rating_after"] for p in result["players"]]
    assert after == sorted(after, reverse=True)
    assert after[0] > 1200 > after[-1]
    for pid in EIGHT:
        assert service.get_player(FFA, pid)["ranked_games"] == 1
    # The same id with other content: 409, nothing changes.
    other = ffa("ffa-1", list(reversed(EIGHT)))
    with pytest.raises(GameConflict):
        service.submit_game(FFA, other)
    assert {pid: service.get_player(FFA, pid)["rating"] for pid in EIGHT} == ratings(result)


def test_a_pairs_game_is_rated_once(service: RatingService) -> None:
    body = pairs("pairs-1", ("alice", "bob"), ("carol", "dave"))

    first = service.submit_game(PAIRS, body)
    again = service.submit_game(PAIRS, body)

    assert again.result == first.result
    assert first.result["sides"] == [
        {"place": 1, "players": ["alice", "bob"]},
        {"place": 2, "players": ["carol", "dave"]},
    ]
    assert [p["side"] for p in first.result["players"]] == [0, 0, 1, 1]
    gained = {pid: r - 1000 for pid, r in ratings(first.result).items()}
    assert min(gained["alice"], gained["bob"]) > 0
    assert max(gained["carol"], gained["dave"]) < 0
    with pytest.raises(GameConflict):
        service.submit_game(PAIRS, pairs("pairs-1", ("alice", "carol"), ("bob", "dave")))


@pytest.mark.parametrize(
    ("ladder", "body", "field", "message"),
    [
        (
            PAIRS,
            pairs("x", ("alice", "bob"), ("carol", "dave"))
            | {
                "sides": [
                    {"players": [{"id": "a"}, {"id": "b"}, {"id": "c"}], "place": 1},
                    {"players": [{"id": "d"}, {"id": "e"}], "place": 2},
                ]
            },
            "sides[0].players",
            "sides[0].players must be exactly 2 players a side",
        ),
        (
            FFA,
            ffa("x", [f"q{n}" for n in range(9)]),
            "sides",
            "sides must be 3 to 8 sides in this ladder",
        ),
        (FFA, ffa("x", ["a", "b"]), "sides", "sides must be 3 to 8 sides in this ladder"),
        (
            FFA,
            {"game_id": "x", "players": [{"id": "a"}, {"id": "b"}], "winner": "a"},
            "players",
            "players is not a field of a game of this ladder: its games are 3 to 8 sides",
        ),
        (
            PAIRS,
            {"game_id": "x", "players": [{"id": "a"}, {"id": "b"}], "winner": "a"},
            "players",
            "players is not a field of a game of this ladder: its games are exactly 2 sides "
            "of exactly 2 players",
        ),
    ],
)
def test_a_game_outside_the_ladders_shape_is_refused_naming_the_field(
    service: RatingService,
    storage: InMemoryStorage,
    ladder: str,
    body: dict[str, Any],
    field: str,
    message: str,
) -> None:
    with pytest.raises(InvalidInput) as refused:
        service.submit_game(ladder, body)

    assert refused.value.field == field
    assert str(refused.value).startswith(message), str(refused.value)
    assert storage.commits == 0


def test_an_anonymous_id_in_a_team_game_rates_its_account(service: RatingService) -> None:
    service.link_identity({"anonymous_id": "anon-7", "account_id": "acct-7"})

    result = service.submit_game(
        PAIRS, pairs("pairs-1", ("anon-7", "bob"), ("carol", "dave"))
    ).result
    ffa_result = service.submit_game(FFA, ffa("ffa-1", ["p1", "anon-7", *EIGHT[2:]])).result

    assert result["players"][0]["id"] == "acct-7"
    assert result["sides"][0]["players"] == ["acct-7", "bob"]
    assert service.get_player(PAIRS, "acct-7")["rating"] == ratings(result)["acct-7"] > 1000
    assert ffa_result["players"][1]["id"] == "acct-7"
    assert service.get_player(FFA, "anon-7")["player_id"] == "acct-7"
    assert service.get_player(FFA, "acct-7")["ranked_games"] == 1


def test_a_bot_anywhere_makes_the_game_unranked(service: RatingService) -> None:
    eight = service.submit_game(FFA, ffa("ffa-1", p7={"bot": True})).result
    four = service.submit_game(
        PAIRS, pairs("pairs-1", ("alice", "bob"), ("carol", "dave"), bob={"bot": True})
    ).result

    assert eight["unranked_reason"] == four["unranked_reason"] == "bot"
    assert set(ratings(eight).values()) == {1200}
    assert set(ratings(four).values()) == {1000}
    assert service.get_player(FFA, "p1")["ranked_games"] == 0


def test_a_shared_network_counts_across_sides_only(service: RatingService) -> None:
    home = {"network": "net-home"}
    teammates = service.submit_game(
        PAIRS, pairs("pairs-1", ("alice", "bob"), ("carol", "dave"), alice=home, bob=home)
    ).result
    across = service.submit_game(
        PAIRS, pairs("pairs-2", ("alice", "bob"), ("carol", "dave"), alice=home, dave=home)
    ).result
    ffa_across = service.submit_game(FFA, ffa("ffa-1", p2=home, p8=home)).result

    assert teammates["unranked_reason"] is None  # partners on one network still rate
    assert across["unranked_reason"] == ffa_across["unranked_reason"] == "shared_network"
    assert ratings(across) == ratings(teammates)
    assert set(ratings(ffa_across).values()) == {1200}


def test_a_preview_of_eight_with_per_player_overrides(service: RatingService) -> None:
    service.submit_game(FFA, ffa("ffa-1"))
    before = {pid: service.get_player(FFA, pid)["rating"] for pid in EIGHT}
    body = ffa("ignored", p1={"rating": 1500, "ranked_games": 40}, p8={"rating": 1000})
    del body["game_id"]

    result = service.preview_game(FFA, body)

    assert result["preview"] is True
    players = {p["id"]: p for p in result["players"]}
    assert (players["p1"]["rating_before"], players["p1"]["explain"]["k"]) == (1500, 16)
    assert players["p8"]["rating_before"] == 1000
    assert players["p2"]["rating_before"] == before["p2"]
    assert players["p2"]["explain"]["k"] == 32  # one ranked game: still provisional
    # Nothing stored.
    assert {pid: service.get_player(FFA, pid)["rating"] for pid in EIGHT} == before
    assert service.get_player(FFA, "p1")["ranked_games"] == 1


def test_leaderboards_standings_and_history_follow_team_games(service: RatingService) -> None:
    eight = service.submit_game(FFA, ffa("ffa-1")).result
    four = service.submit_game(PAIRS, pairs("pairs-1", ("alice", "bob"), ("carol", "dave"))).result

    board = service.get_leaderboard(FFA)["entries"]
    assert [entry["player_id"] for entry in board] == EIGHT
    assert [entry["rating"] for entry in board] == [ratings(eight)[pid] for pid in EIGHT]
    assert service.refresh_standings(FFA) is not None
    assert service.refresh_standings(PAIRS) is not None
    teams_board = service.get_leaderboard(PAIRS)["entries"]
    assert {entry["player_id"] for entry in teams_board[:2]} == {"alice", "bob"}
    assert len(teams_board) == 4

    (event,) = service.get_history(FFA, "p3")["events"]
    assert event["teammates"] == []
    assert event["opponents"] == [pid for pid in EIGHT if pid != "p3"]
    (paired,) = service.get_history(PAIRS, "bob")["events"]
    assert paired["teammates"] == ["alice"]
    assert paired["opponents"] == ["carol", "dave"]
    assert paired["rating_after"] == ratings(four)["bob"]


def test_a_season_start_resets_all_eight(service: RatingService, clock: Any) -> None:
    service.submit_game(FFA, ffa("ffa-1"))
    assert {service.get_player(FFA, pid)["rating"] for pid in EIGHT} != {1200}

    started = service.start_season(FFA, {"season_id": "ffa-cup", "reset": {"kind": "hard"}})
    clock.advance(timedelta(seconds=2))

    assert started.created is True
    assert {service.get_player(FFA, pid)["rating"] for pid in EIGHT} == {1200}
    after = service.submit_game(FFA, ffa("ffa-2", list(reversed(EIGHT)))).result
    # From 1200 again: the mirror of the first game's changes.
    assert [p["rating_before"] for p in after["players"]] == [1200] * 8


def test_each_players_sequence_follows_their_own_rating_events(
    service: RatingService, storage: InMemoryStorage
) -> None:
    """A game's record keeps each player's sequence number in the order of its players, so
    that its game.rated names the right number for each: a player who played before counts
    on from there, a new one starts at 1; an unranked game moves nobody's."""
    service.submit_game(FFA, ffa("seq-1", ["p1", "p2", "p3"]))
    service.submit_game(FFA, ffa("seq-2", ["p4", "p3", "p5", "p1"]))
    service.submit_game(FFA, ffa("seq-3", ["p3", "p5", "p6"], p6={"bot": True}))

    second = storage.results.get_game(FFA, "seq-2")
    unranked = storage.results.get_game(FFA, "seq-3")
    assert second is not None
    assert unranked is not None
    assert game_rated("record", second.expires_at, second).sequences == {
        "p4": 1,
        "p3": 2,
        "p5": 1,
        "p1": 2,
    }
    assert unranked.result["ranked"] is False
    assert game_rated("record", unranked.expires_at, unranked).sequences == {}
