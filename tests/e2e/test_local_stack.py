"""End to end: the whole service on the local stack, through HTTP and the emulated SQS only,
with the table on moto and on DynamoDB Local."""

import json
from concurrent.futures import ThreadPoolExecutor
from typing import Any
from urllib.parse import quote

import boto3
import pytest
from support.games import unique
from support.http import Client
from support.queues import queue_depth
from support.stack import aws_client, wait_for

from ratings.lambda_support.invocation import CONFLICTS_RETRIED
from ratings_local.__main__ import banner, parse_args
from ratings_local.dynamodb_local import VERSION
from ratings_local.stack import LocalStack
from ratings_local.template import load_template

pytestmark = pytest.mark.xdist_group("local_stack")


def test_endpoints_say_what_runs_where(stack: LocalStack, client: Client) -> None:
    status, endpoints = client.call("GET", "/_local/endpoints")
    assert status == 200
    assert endpoints["api_url"] == stack.api_url
    assert endpoints["aws_endpoint_url"].startswith("http://127.0.0.1:")
    assert endpoints["dynamodb_endpoint_url"].startswith("http://127.0.0.1:")
    assert set(endpoints["queues"]) == {
        "games",
        "games_dlq",
        "podiums",
        "podiums_dlq",
        "moderation_jobs",
        "moderation_jobs_dlq",
        "events",
        "events_dlq",
    }
    assert all(url.startswith("http") for url in endpoints["queues"].values())
    triggers = {trigger for kinds in endpoints["functions"].values() for trigger in kinds}
    assert triggers == {"Api", "SQS", "Schedule", "DynamoDB"}


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


def test_endpoints_and_the_banner_say_which_engine_runs_the_table(
    stack: LocalStack, client: Client
) -> None:
    _status, endpoints = client.call("GET", "/_local/endpoints")
    text = banner(stack)

    if stack.dynamodb_local is None:
        assert endpoints["dynamodb_endpoint_url"] == endpoints["aws_endpoint_url"]
        assert f"{endpoints['table']} on moto" in text
    else:
        assert endpoints["dynamodb_endpoint_url"] != endpoints["aws_endpoint_url"]
        assert f"{endpoints['table']} on DynamoDB Local {VERSION}" in text
    assert endpoints["dynamodb_endpoint_url"] in text
    # Every queue on a line of its own: its role, then its URL, apart (however long the role).
    lines = text.splitlines()
    for role, url in endpoints["queues"].items():
        assert [line.split() for line in lines if line.endswith(url)] == [["Queue", role, url]]
    assert parse_args(["--dynamodb-local"]).dynamodb_local
    assert not parse_args([]).dynamodb_local
    assert parse_args(["--webhook", "http://127.0.0.1:9/hook"]).webhook_url == (
        "http://127.0.0.1:9/hook"
    )
    assert parse_args([]).webhook_url is None


def test_the_table_is_the_templates_on_its_engine_and_only_there(stack: LocalStack) -> None:
    declared = load_template(stack.options.template)["Resources"]["RatingsTable"]["Properties"]
    endpoints = stack.endpoints()
    dynamodb = aws_client(stack, "dynamodb")

    table = dynamodb.describe_table(TableName=endpoints["table"])["Table"]
    ttl = dynamodb.describe_time_to_live(TableName=endpoints["table"])["TimeToLiveDescription"]

    assert table["KeySchema"] == declared["KeySchema"]
    assert {
        (index["IndexName"], json.dumps(index["KeySchema"]), json.dumps(index["Projection"]))
        for index in table.get("GlobalSecondaryIndexes", [])
        + table.get("LocalSecondaryIndexes", [])
    } == {
        (index["IndexName"], json.dumps(index["KeySchema"]), json.dumps(index["Projection"]))
        for index in declared.get("GlobalSecondaryIndexes", [])
        + declared.get("LocalSecondaryIndexes", [])
    }
    assert ttl["AttributeName"] == declared["TimeToLiveSpecification"]["AttributeName"]
    assert ttl["TimeToLiveStatus"] in ("ENABLED", "ENABLING")
    if stack.dynamodb_local is not None:
        moto = boto3.client(
            "dynamodb",
            endpoint_url=endpoints["aws_endpoint_url"],
            region_name=endpoints["region"],
            aws_access_key_id="local",
            aws_secret_access_key="local",
        )
        assert moto.list_tables()["TableNames"] == []


def test_a_player_id_with_a_colon_sent_encoded_over_http_names_the_same_player(
    client: Client,
) -> None:
    account, other, game_id = f"google:{unique('id')}", unique("bob"), f"match:{unique('g')}"
    game = {"game_id": game_id, "players": [{"id": account}, {"id": other}], "winner": account}
    assert client.call("POST", "/v1/ladders/backgammon/games", game)[0] == 201
    sent = quote(account, safe="")  # as encodeURIComponent and openapi-fetch send it
    assert "%3A" in sent

    status, player = client.call("GET", f"/v1/ladders/backgammon/players/{sent}")
    history_status, history = client.call("GET", f"/v1/ladders/backgammon/players/{sent}/history")
    game_status, stored = client.call(
        "GET", f"/v1/ladders/backgammon/games/{quote(game_id, safe='')}"
    )

    assert (status, player["player_id"], player["ranked_games"]) == (200, account, 1), player
    assert history_status == 200, history
    assert [event["game_id"] for event in history["events"]] == [game_id]
    assert game_status == 200, stored


def test_parallel_requests_on_one_player_conflict_retry_and_all_land(
    stack: LocalStack, client: Client
) -> None:
    """The Api's invocations run at once, each in its own environment, as in Lambda: games
    of one player contend for its state, the service retries, and every game lands once."""
    hot = unique("hot")
    games = [
        {"game_id": unique("hg"), "players": [{"id": hot}, {"id": unique("o")}], "winner": hot}
        for _ in range(24)
    ]
    retried_before = stack.metrics()[CONFLICTS_RETRIED]

    with ThreadPoolExecutor(6) as pool:
        answers = list(pool.map(client.submit, games))

    # 200 only for a game whose first answer was lost after it was stored (a retried 5xx).
    assert {status for status, _body, _seen in answers} <= {200, 201}, answers
    status, player = client.call("GET", f"/v1/ladders/backgammon/players/{hot}")
    assert (status, player["ranked_games"]) == (200, len(games)), player
    assert stack.functions["ApiFunction"].environments > 1
    assert stack.metrics()[CONFLICTS_RETRIED] > retried_before
