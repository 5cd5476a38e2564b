"""Ids in paths as clients send them: percent-encoded, the way `encodeURIComponent` and the
client `openapi-fetch` generates send `google:123` (`google%3A123`). API Gateway's REST event
keeps `path` as sent and decodes `pathParameters`; the Api answers for the decoded id."""

import re
from typing import Any
from urllib.parse import quote

import pytest
from support.games import recent_game, recent_podium
from support.handlers import Api, LambdaContext
from support.lambda_events import rest_event

from ratings import wiring

pytestmark = pytest.mark.filterwarnings("ignore:No application metrics:UserWarning")

ACCOUNT = "google:123"
#: As encodeURIComponent sends it.
SENT = quote(ACCOUNT, safe="")


def test_the_rest_event_keeps_the_path_as_sent_and_decodes_its_parameters() -> None:
    event = rest_event("GET", f"/v1/ladders/backgammon/players/{SENT}/history")

    assert SENT == "google%3A123"
    assert event["path"] == "/v1/ladders/backgammon/players/google%3A123/history"
    assert event["resource"] == "/v1/ladders/{ladder}/players/{player_id}/history"
    assert event["requestContext"]["resourcePath"] == event["resource"]
    assert event["pathParameters"] == {"ladder": "backgammon", "player_id": ACCOUNT}


def test_a_player_id_with_a_colon_sent_encoded_names_the_same_player(api: Api) -> None:
    game = recent_game("g-colon", ACCOUNT, "bob")
    assert api("POST", "/v1/ladders/backgammon/games", body=game).status == 201

    encoded = api("GET", f"/v1/ladders/backgammon/players/{SENT}")
    as_written = api("GET", f"/v1/ladders/backgammon/players/{ACCOUNT}")
    history = api("GET", f"/v1/ladders/backgammon/players/{SENT}/history")

    assert encoded.status == 200, encoded.body
    assert (encoded.body["player_id"], encoded.body["ranked_games"]) == (ACCOUNT, 1)
    assert as_written.status == 200
    assert as_written.body["rating"] == encoded.body["rating"]
    assert history.status == 200, history.body
    assert [event["game_id"] for event in history.body["events"]] == ["g-colon"]


def test_game_and_tournament_ids_with_a_colon_sent_encoded(api: Api) -> None:
    api("POST", "/v1/ladders/backgammon/games", body=recent_game("match:7", "ann", "ben"))
    wiring.service().award_podium(recent_podium("cup:2026", "ann", "ben", "cat"))

    game = api("GET", f"/v1/ladders/backgammon/games/{quote('match:7', safe='')}")
    tournament = api("GET", f"/v1/ladders/backgammon/tournaments/{quote('cup:2026', safe='')}")

    assert (game.status, game.body["game_id"]) == (200, "match:7")
    assert (tournament.status, tournament.body["tournament_id"]) == (200, "cup:2026")


def test_an_event_without_decoded_parameters_gets_its_path_decoded(api: Api) -> None:
    """An event that is not API Gateway's (no pathParameters) still names the decoded id."""
    api("POST", "/v1/ladders/backgammon/games", body=recent_game("g-bare", ACCOUNT, "bob"))
    event = rest_event("GET", f"/v1/ladders/backgammon/players/{SENT}")
    event["pathParameters"] = None

    answer = api.module.lambda_handler(event, LambdaContext(function_name="api"))

    assert answer["statusCode"] == 200, answer["body"]
    assert '"player_id":"google:123"' in answer["body"].replace(" ", "")


#: The value of each path parameter other than an id.
SAMPLES = {"ladder": "backgammon", "season_id": "x-1"}

#: Bodies for the routes that take one: every other route is read with GET.
BODIES: dict[str, Any] = {
    "/v1/ladders/{ladder}/games": recent_game("g-every-route", "x:1", "x:2"),
    "/v1/ladders/{ladder}/preview": {"players": [{"id": "x:1"}, {"id": "x:2"}], "winner": "x:1"},
}


def test_every_route_with_path_parameters_answers_for_the_decoded_values(api: Api) -> None:
    """Each route of the Api (today's and any added later) with every character of its
    parameters percent-encoded: the answers are for `backgammon` and `x:1`, never a 400."""
    module_routes: dict[str, set[str]] = api.module.ROUTES
    checked = []
    for template, methods in sorted(module_routes.items()):
        names = re.findall(r"\{(\w+)\}", template)
        if not names:
            continue
        # A season id has no ':' (its form is checked: 400), so it gets another id.
        values = {name: SAMPLES.get(name, "x:1") for name in names}
        path = template
        for name, value in values.items():
            path = path.replace(f"{{{name}}}", "".join(f"%{byte:02X}" for byte in value.encode()))
        if "GET" in methods:
            reply = api("GET", path)
            assert reply.status in (200, 404), (template, reply.body)
            if reply.status == 404:
                named = [f"'{values[name]}'" for name in names if name != "ladder"]
                assert any(value in reply.error["message"] for value in named), (template, reply)
        else:
            assert template in BODIES, f"give {template} a body in BODIES"
            reply = api("POST", path, body=BODIES[template])
            assert reply.status in (200, 201), (template, reply.body)
            assert "x:1" in {player["id"] for player in reply.body["players"]}
        checked.append(template)
    assert len(checked) >= 6, checked


def test_the_moderation_routes_answer_for_the_decoded_ids(moderation: Api) -> None:
    """The Moderation function takes its parameters decoded too: erasing `google%3A123`
    erases `google:123`, never a player of that literal name."""
    erasure = moderation("POST", f"/v1/players/{SENT}/erasure")
    status = moderation("GET", f"/v1/players/{ACCOUNT}/erasure")
    sanction = moderation("GET", f"/v1/ladders/backgammon/sanctions/{quote('s:1', safe='')}")

    assert (erasure.status, erasure.body["player_id"]) == (200, ACCOUNT)
    assert (status.status, status.body) == (200, erasure.body)
    assert sanction.status == 404
    assert "'s:1'" in sanction.error["message"], sanction.body
