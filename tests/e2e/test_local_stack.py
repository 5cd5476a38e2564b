"""End to end: the whole service on the local stack, through HTTP and the emulated SQS only."""

import json
from typing import Any

import pytest
from support.games import unique
from support.http import Client
from support.queues import queue_depth
from support.stack import wait_for

from ratings_local.stack import LocalStack

pytestmark = pytest.mark.xdist_group("local_stack")


def test_endpoints_say_what_runs_where(stack: LocalStack, client: Client) -> None:
    status, endpoints = client.call("GET", "/_local/endpoints")
    assert status == 200
    assert endpoints["api_url"] == stack.api_url
    assert endpoints["aws_endpoint_url"].startswith("http://127.0.0.1:")
    assert set(endpoints["queues"]) == {
        "games",
        "games_dlq",
        "podiums",
        "podiums_dlq",
        "moderation_jobs",
        "moderation_jobs_dlq",
    }
    assert all(url.startswith("http") for url in endpoints["queues"].values())
    triggers = {trigger for kinds in endpoints["functions"].values() for trigger in kinds}
    assert triggers == {"Api", "SQS", "Schedule"}


def test_a_game_rated_over_http(client: Client) -> None:
    alice, bob = unique("alice"), unique("bob")
    players = [{"id": alice}, {"id": bob}]
    game = {"game_id": unique("g"), "players": players, "winner": alice, "cube": 4}
    status, result = client.call("POST", "/v1/ladders/backgammon/games", game)
    assert status == 201
    assert [(p["id"], p["delta"]) for p in result["players"]] == [(alice, 21), (bob, -21)]
    status, again = client.call("POST", "/v1/ladders/backgammon/games", game)
    assert (status, again) == (200, result)
    status, player = client.call("GET", f"/v1/ladders/backgammon/players/{alice}")
    assert (status, player["rating"], player["ranked_games"]) == (200, 1521, 1)


def test_the_same_game_over_http_and_sqs_is_rated_once(
    stack: LocalStack, client: Client, sqs: Any
) -> None:
    alice, bob = unique("alice"), unique("bob")
    game = {"game_id": unique("g"), "players": [{"id": alice}, {"id": bob}], "winner": bob}
    status, result = client.call("POST", "/v1/ladders/classic/games", game)
    assert status == 201
    queues = stack.endpoints()["queues"]
    for _ in range(3):  # delivered three times over the queue
        sqs.send_message(
            QueueUrl=queues["games"], MessageBody=json.dumps({**game, "ladder": "classic"})
        )
    wait_for(lambda: queue_depth(sqs, queues["games"]) == 0)
    status, stored = client.call("GET", f"/v1/ladders/classic/games/{game['game_id']}")
    assert (status, stored) == (200, result)
    status, player = client.call("GET", f"/v1/ladders/classic/players/{bob}")
    assert player["ranked_games"] == 1
    assert player["rating"] == 1200 + result["players"][1]["delta"]
    assert queue_depth(sqs, queues["games_dlq"]) == 0


def test_a_game_sent_only_over_sqs_is_rated(stack: LocalStack, client: Client, sqs: Any) -> None:
    carol, dave = unique("carol"), unique("dave")
    game = {"ladder": "sedma", "game_id": unique("g"), "players": [{"id": carol}, {"id": dave}]}
    game["winner"] = carol
    sqs.send_message(QueueUrl=stack.endpoints()["queues"]["games"], MessageBody=json.dumps(game))
    _status, stored = wait_for(
        lambda: (
            found
            if (found := client.call("GET", f"/v1/ladders/sedma/games/{game['game_id']}"))[0] == 200
            else None
        )
    )
    assert [p["rating_after"] for p in stored["players"]] == [1020, 980]


def test_a_bad_message_ends_in_the_dead_letter_queue(stack: LocalStack, sqs: Any) -> None:
    queues = stack.endpoints()["queues"]
    marker = unique("poison")
    sqs.send_message(QueueUrl=queues["games"], MessageBody=f"not json {marker}")

    def dead_lettered() -> list[dict[str, Any]]:
        received = sqs.receive_message(
            QueueUrl=queues["games_dlq"], MaxNumberOfMessages=10, MessageAttributeNames=["All"]
        )
        return [m for m in received.get("Messages", []) if marker in m["Body"]]

    (message,) = wait_for(dead_lettered)
    assert message["Body"] == f"not json {marker}"
    sqs.delete_message(QueueUrl=queues["games_dlq"], ReceiptHandle=message["ReceiptHandle"])


def test_a_podium_queued_and_the_schedule_run_twice_pays_once(
    stack: LocalStack, client: Client, sqs: Any
) -> None:
    winner, second = unique("w"), unique("s")
    tournament = unique("t")
    podium = {
        "tournament_id": tournament,
        "ladder": "backgammon",
        "finished_at": "2026-11-01T18:00:00Z",
        "public": True,
        "podium": [{"place": 1, "player_id": winner}, {"place": 2, "player_id": second}],
    }
    queues = stack.endpoints()["queues"]
    sqs.send_message(QueueUrl=queues["podiums"], MessageBody=json.dumps(podium))
    sqs.send_message(QueueUrl=queues["podiums"], MessageBody=json.dumps(podium))  # duplicate
    for _ in range(2):
        status, _result = client.call("POST", "/_local/invoke/AwardPodiumsFunction")
        assert status == 200
    status, awarded = client.call("GET", f"/v1/ladders/backgammon/tournaments/{tournament}")
    assert status == 200
    assert [(a["player_id"], a["delta"]) for a in awarded["awards"]] == [(winner, 50), (second, 25)]
    status, player = client.call("GET", f"/v1/ladders/backgammon/players/{winner}")
    assert player["rating"] == 1550
    assert queue_depth(sqs, queues["podiums"]) == 0


def test_swagger_is_swagger_ui_over_the_document_with_the_local_server(client: Client) -> None:
    status, page = client.call("GET", "/swagger")
    assert status == 200
    assert "SwaggerUIBundle" in page
    assert '"/openapi.json"' in page
    for asset in ("swagger-ui-bundle.js", "swagger-ui-standalone-preset.js", "swagger-ui.css"):
        status, _content = client.call("GET", f"/swagger/{asset}")
        assert status == 200, asset
    status, document = client.call("GET", "/swagger?format=json")
    assert status == 200
    assert document["openapi"] == "3.1.0"
    assert document["servers"] == [{"url": client.api_url, "description": "The local stack"}]
    assert client.call("GET", "/openapi.json") == (200, document)
    assert client.call("GET", "/swagger/../template.yaml")[0] == 404


def test_unknown_local_function_is_a_clear_404(client: Client) -> None:
    status, body = client.call("POST", "/_local/invoke/NoSuchFunction")
    assert status == 404
    assert "ApiFunction" in body["error"]["message"]


@pytest.mark.parametrize(
    ("method", "path", "status"),
    [
        ("TRACE", "/v1/ladders", 405),
        ("PURGE", "/v1/ladders/backgammon/games", 405),
        ("DELETE", "/v1/ladders/backgammon/players/alice", 405),
        ("TRACE", "/nowhere", 404),
        ("POST", "/swagger", 405),
    ],
)
def test_every_method_gets_a_json_answer(
    client: Client, method: str, path: str, status: int
) -> None:
    answer_status, body = client.call(method, path)

    assert answer_status == status
    assert set(body["error"]) == {"code", "message"}
    expected = "method_not_allowed" if status == 405 else "not_found"
    assert body["error"]["code"] == expected
