"""The Api function, route by route (api.md), through API Gateway REST proxy events on moto."""

from typing import Any

import pytest
from support.games import recent_game, recent_podium
from support.handlers import Api, metric_values

from ratings import wiring

pytestmark = pytest.mark.filterwarnings("ignore:No application metrics:UserWarning")


def test_ladders_lists_the_default_deployment(api: Api) -> None:
    reply = api("GET", "/v1/ladders")

    assert reply.status == 200
    assert reply.headers["Content-Type"] == "application/json"
    ladders = {ladder["id"]: ladder for ladder in reply.body["ladders"]}
    assert set(ladders) == {"backgammon", "sedma", "classic", "sedma-pairs", "classic-ffa"}
    assert (ladders["sedma-pairs"]["sides"], ladders["sedma-pairs"]["players_per_side"]) == (
        {"min": 2, "max": 2},
        {"min": 2, "max": 2},
    )
    assert ladders["classic-ffa"]["sides"] == {"min": 3, "max": 8}
    assert (ladders["backgammon"]["ruleset"], ladders["backgammon"]["version"]) == (
        "gammon42",
        "1.3.1",
    )
    assert {"id", "ruleset", "version", "starting_rating", "parameters"} <= set(ladders["sedma"])


def test_submit_answers_201_then_200_with_the_same_body(
    api: Api, capsys: pytest.CaptureFixture[str]
) -> None:
    body = recent_game("g-000123", "alice", "bob", cube=4, ending="resign", points=2)

    first = api("POST", "/v1/ladders/backgammon/games", body=body)
    again = api("POST", "/v1/ladders/backgammon/games", body=body)

    assert first.status == 201
    assert again.status == 200
    assert again.body == first.body
    result = first.body
    assert result["game_id"] == "g-000123"
    assert (result["ladder"], result["ruleset"], result["ruleset_version"]) == (
        "backgammon",
        "gammon42",
        "1.3.1",
    )
    assert (result["ranked"], result["unranked_reason"], result["winner"]) == (True, None, "alice")
    assert (result["cube"], result["ending"], result["points"]) == (4, "resign", 2)
    alice, bob = result["players"]
    assert alice["delta"] == -bob["delta"] > 0
    assert alice["rating_after"] == alice["rating_before"] + alice["delta"]
    assert set(alice["explain"]) == {"expected", "k", "recent_ranked_games", "coefficient"}
    # Counted once, though answered twice.
    assert metric_values(capsys.readouterr().out) == {"GamesRated": 1}


def test_unranked_game_is_counted_by_reason(api: Api, capsys: pytest.CaptureFixture[str]) -> None:
    body = recent_game("g-bot", "alice", "robot")
    body["players"][1]["bot"] = True

    reply = api("POST", "/v1/ladders/backgammon/games", body=body)

    assert reply.status == 201
    assert (reply.body["ranked"], reply.body["unranked_reason"]) == (False, "bot")
    assert all(player["delta"] == 0 for player in reply.body["players"])
    assert metric_values(capsys.readouterr().out) == {"GamesUnranked[reason=bot]": 1}


def test_sedma_and_classic_games(api: Api) -> None:
    sedma = recent_game("s-1", "ann", "ben")
    sedma["players"][0]["stats"] = {"rounds_won_16": 2, "bad_moves": 1}
    draw = recent_game("c-1", "cid", "dan", winner=None)

    sedma_reply = api("POST", "/v1/ladders/sedma/games", body=sedma)
    draw_reply = api("POST", "/v1/ladders/classic/games", body=draw)

    assert sedma_reply.status == 201
    assert set(sedma_reply.body["players"][0]["explain"]) == {
        "expected",
        "k",
        "score",
        "bonus",
        "malus",
    }
    assert sedma_reply.body["players"][0]["stats"]["rounds_won_16"] == 2
    assert draw_reply.status == 201
    assert draw_reply.body["winner"] is None
    assert set(draw_reply.body["players"][0]["explain"]) == {
        "expected",
        "k",
        "ranked_games",
        "score",
    }


def test_preview_stores_nothing_and_takes_overrides(api: Api) -> None:
    body: dict[str, Any] = recent_game("ignored", "alice", "bob")
    del body["game_id"]
    body["players"][0].update(rating=1700, recent_ranked_games=60)
    body["ruleset_version"] = "1.2.0"

    reply = api("POST", "/v1/ladders/backgammon/preview", body=body)

    assert reply.status == 200
    assert reply.body["preview"] is True
    assert reply.body["ruleset_version"] == "1.2.0"
    assert reply.body["players"][0]["rating_before"] == 1700
    assert api("GET", "/v1/ladders/backgammon/players/alice").body["ranked_games"] == 0


def test_stored_game_is_readable(api: Api) -> None:
    stored = api("POST", "/v1/ladders/backgammon/games", body=recent_game("g-read")).body

    reply = api("GET", "/v1/ladders/backgammon/games/g-read")

    assert reply.status == 200
    assert reply.body == stored


def test_player_state_new_and_rated(api: Api) -> None:
    unknown = api("GET", "/v1/ladders/sedma/players/nobody")
    api("POST", "/v1/ladders/backgammon/games", body=recent_game("g-p1", "alice", "bob"))

    alice = api("GET", "/v1/ladders/backgammon/players/alice")

    assert unknown.status == 200
    assert unknown.body == {
        "player_id": "nobody",
        "ladder": "sedma",
        "rating": 1000,
        "ranked_games": 0,
        "recent_ranked_games": 0,
        "k": unknown.body["k"],
        "provisional": unknown.body["provisional"],
        "sanctioned": False,
        "standing": None,
        "season": {"season_id": "all-time", "ranked_games": 0, "eligible": False},
    }
    assert alice.status == 200
    assert (alice.body["ranked_games"], alice.body["recent_ranked_games"]) == (1, 1)
    assert alice.body["rating"] > 1500


def test_history_pages_newest_first(api: Api) -> None:
    for number in range(3):
        api(
            "POST",
            "/v1/ladders/backgammon/games",
            body=recent_game(f"g-h{number}", "alice", f"o{number}"),
        )

    first = api("GET", "/v1/ladders/backgammon/players/alice/history", query={"limit": "2"})
    rest = api(
        "GET",
        "/v1/ladders/backgammon/players/alice/history",
        query={"limit": "2", "cursor": first.body["next_cursor"]},
    )

    assert first.status == rest.status == 200
    events = first.body["events"] + rest.body["events"]
    assert [event["type"] for event in events] == ["game"] * 3
    assert {event["game_id"] for event in events} == {"g-h0", "g-h1", "g-h2"}
    assert first.body["next_cursor"] is not None
    assert rest.body["next_cursor"] is None
    assert set(events[0]) >= {
        "at",
        "opponent",
        "ranked",
        "unranked_reason",
        "delta",
        "rating_after",
    }


def test_leaderboard_ranks_and_pages(api: Api) -> None:
    api("POST", "/v1/ladders/backgammon/games", body=recent_game("g-l1", "alice", "bob"))
    api("POST", "/v1/ladders/backgammon/games", body=recent_game("g-l2", "carol", "dave"))

    first = api("GET", "/v1/ladders/backgammon/leaderboard", query={"limit": "3"})
    rest = api(
        "GET",
        "/v1/ladders/backgammon/leaderboard",
        query={"limit": "3", "cursor": first.body["next_cursor"]},
    )

    entries = first.body["entries"] + rest.body["entries"]
    assert [entry["rank"] for entry in entries] == [1, 2, 3, 4]
    ratings = [(-entry["rating"], entry["player_id"]) for entry in entries]
    assert ratings == sorted(ratings)
    assert {entry["player_id"] for entry in entries[:2]} == {"alice", "carol"}
    assert rest.body["next_cursor"] is None


def test_tournament_after_its_award(api: Api) -> None:
    before = api("GET", "/v1/ladders/backgammon/tournaments/t-42")
    wiring.service().award_podium(recent_podium("t-42", "alice", "bob", "carol"))

    after = api("GET", "/v1/ladders/backgammon/tournaments/t-42")

    assert before.status == 404
    assert after.status == 200
    assert after.body["status"] == "awarded"
    assert [
        (award["place"], award["player_id"], award["delta"]) for award in after.body["awards"]
    ] == [
        (1, "alice", 50),
        (2, "bob", 25),
        (3, "carol", 15),
    ]


def test_link_identity_then_the_same_link_again(api: Api) -> None:
    api("POST", "/v1/ladders/backgammon/games", body=recent_game("g-anon", "anon-1", "bob"))
    link = {"anonymous_id": "anon-1", "account_id": "acct-1"}

    linked = api("POST", "/v1/identities/link", body=link)
    again = api("POST", "/v1/identities/link", body=link)
    state = api("GET", "/v1/ladders/backgammon/players/anon-1")

    assert linked.status == 200
    assert linked.body["anonymous_id"] == "anon-1"
    assert {"ladder": "backgammon", "kept": "anonymous"} in linked.body["ladders"]
    assert (again.status, again.body) == (200, linked.body)
    other = api("POST", "/v1/identities/link", body={**link, "account_id": "acct-2"})
    assert other.status == 409
    assert other.error["code"] == "already_linked"
    assert state.body["player_id"] == "acct-1"
    assert state.body["ranked_games"] == 1


def test_base64_encoded_body_is_read(api: Api) -> None:
    reply = api(
        "POST", "/v1/ladders/backgammon/games", body=recent_game("g-b64"), base64_encoded=True
    )

    assert reply.status == 201
