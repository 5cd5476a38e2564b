"""The season routes through the events API Gateway sends: the Api's reads (under the API
key) and the Moderation function's start (under its own credential), on moto; every refusal
is the error body, naming the field."""

import time

import pytest
from support.games import recent_game
from support.handlers import Api

pytestmark = pytest.mark.filterwarnings("ignore:No application metrics:UserWarning")

SEASONS = "/v1/ladders/classic/seasons"


def test_an_operator_starts_a_season_once_and_every_read_follows(api: Api, moderation: Api) -> None:
    assert (
        api("POST", "/v1/ladders/classic/games", body=recent_game(None, "ann", "bob")).status == 201
    )
    body = {"season_id": "spring-cup", "reset": {"kind": "hard"}}

    made = moderation("POST", SEASONS, body=body)
    again = moderation("POST", SEASONS, body=body)
    other = moderation("POST", SEASONS, body={"season_id": "spring-cup"})

    assert made.status == 201
    assert (again.status, again.body) == (200, made.body)
    assert other.status == 409
    assert other.error["code"] == "season_conflict"
    time.sleep(2.1)  # it begins two seconds after the request
    listed = api("GET", SEASONS).body["seasons"]
    assert [(s["season_id"], s["status"]) for s in listed] == [
        ("spring-cup", "active"),
        ("all-time", "ended"),
    ]
    assert api("GET", SEASONS + "/spring-cup").body["ends_at"] is None  # classic: no schedule
    assert api("GET", "/v1/ladders/classic/leaderboard").body["entries"] == []
    ended = api("GET", SEASONS + "/all-time/leaderboard").body
    assert {entry["player_id"] for entry in ended["entries"]} >= {"ann", "bob"}
    ann = api("GET", "/v1/ladders/classic/players/ann").body
    assert ann["rating"] == 1200  # the hard reset, before ann plays again
    assert ann["season"] == {"season_id": "spring-cup", "ranked_games": 0, "eligible": False}


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"season_id": "2026-12"}, "season_id '2026-12' has the form of a scheduled season's id"),
        ({"season_id": "Spring Cup"}, "season_id must be 1 to 48 characters"),
        ({"season_id": "x", "reset": {"kind": "soft", "squish": 2}}, "reset.squish must be"),
        ({"season_id": "x", "reset": {"kind": "soft", "target": 0}}, "reset.target must be"),
        ({"season_id": "x", "starts": "now"}, "starts is not a field"),
    ],
)
def test_a_bad_start_is_400_naming_the_field(moderation: Api, body: object, message: str) -> None:
    reply = moderation("POST", SEASONS, body=body)

    assert reply.status == 400
    assert reply.error["code"] == "invalid_request"
    assert reply.error["message"].startswith(message), reply.error


def test_unknown_and_malformed_seasons(api: Api) -> None:
    unknown = api("GET", SEASONS + "/2026-11")
    malformed = api("GET", SEASONS + "/no%20way/leaderboard")
    other_ladder = api("GET", "/v1/ladders/chess/seasons")
    method = api("DELETE", SEASONS)

    assert (unknown.status, unknown.error["code"]) == (404, "not_found")
    assert "season '2026-11' does not exist" in unknown.error["message"]
    assert (malformed.status, malformed.error["code"]) == (400, "invalid_request")
    assert other_ladder.status == 404
    assert method.status == 405
    assert method.headers["Allow"] == "GET, POST"
