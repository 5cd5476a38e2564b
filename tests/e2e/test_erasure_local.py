"""Erasing a player end to end on the local stack, over HTTP and the emulated SQS only: a
player with a linked anonymous id, games on several ladders, podium awards and a history of
60 games is erased by the ModerationWorker running in the background; nothing in the table
names either id afterwards, and a retry of an old game is answered from the stored game.
(The erasure of 300 games over interrupted invocations, each game rewritten once, is
tests/integration/test_erasure.py's, on both engines: here it is the wiring end to end.)"""

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from support.games import ts, unique
from support.http import Client
from support.stack import ENGINES, aws_client, running_stack, wait_for

from ratings_local.stack import LocalStack

pytestmark = pytest.mark.xdist_group("local_stack")

MODERATION_KEY = "e2e-moderation-key"
SIGNED = {"x-moderation-key": MODERATION_KEY}


@pytest.fixture(scope="module", params=ENGINES)
def stack(request: pytest.FixtureRequest) -> Iterator[LocalStack]:
    with running_stack(moderation_key=MODERATION_KEY, dynamodb_local=request.param) as local:
        yield local


@pytest.fixture(scope="module")
def client(stack: LocalStack) -> Client:
    return Client(stack.api_url)


def table_texts(stack: LocalStack) -> list[str]:
    """Every item of the stack's table, as text (all attributes)."""
    dynamodb = aws_client(stack, "dynamodb")
    pages = dynamodb.get_paginator("scan").paginate(TableName=stack.endpoints()["table"])
    # Binary attributes (a state's packed recent games) as hex.
    return [json.dumps(item, default=bytes.hex) for page in pages for item in page.get("Items", [])]


def play(
    client: Client, ladder: str, game_id: str, a: str, b: str, at: datetime, **extra: Any
) -> dict[str, Any]:
    body = {
        "game_id": game_id,
        "players": [{"id": a}, {"id": b}],
        "winner": a,
        "played_at": ts(at),
        **extra,
    }
    status, result, _seen = client.submit(body, ladder=ladder)
    assert status == 201, result
    return body


def erase(client: Client, player_id: str) -> dict[str, Any]:
    status, body = client.call("POST", f"/v1/players/{player_id}/erasure", headers=SIGNED)
    assert status in (200, 202), body

    def done() -> dict[str, Any] | None:
        status, body = client.call("GET", f"/v1/players/{player_id}/erasure", headers=SIGNED)
        assert status == 200, body
        return body if body["status"] == "done" else None

    finished: dict[str, Any] = wait_for(done, timeout=300, what=f"the erasure of {player_id}")
    return finished


def test_a_linked_player_of_several_ladders_with_podiums_and_60_games_is_erased(
    stack: LocalStack, client: Client
) -> None:
    victim, anon = unique("victim"), unique("shadow")
    opponents = [unique("opp") for _ in range(4)]
    start = datetime.now(UTC) - timedelta(days=12)
    old = play(client, "backgammon", unique("g"), anon, opponents[0], start)
    status, linked = client.call(
        "POST", "/v1/identities/link", {"anonymous_id": anon, "account_id": victim}
    )
    assert status == 200, linked
    games = [old]
    for index in range(60):
        at = start + timedelta(minutes=index + 1)
        who = anon if index % 10 == 0 else victim  # some played as the linked id
        games.append(play(client, "backgammon", unique("g"), who, opponents[index % 4], at))
    play(client, "sedma", unique("g"), opponents[1], victim, start)
    play(client, "classic", unique("g"), victim, opponents[2], start, winner=None)
    sqs = aws_client(stack, "sqs")
    tournament = unique("t")
    podium = {
        "tournament_id": tournament,
        "ladder": "backgammon",
        "finished_at": ts(datetime.now(UTC) - timedelta(hours=1)),
        "public": True,
        "podium": [
            {"place": 1, "player_id": anon},
            {"place": 2, "player_id": opponents[0]},
        ],
    }
    queues = stack.endpoints()["queues"]
    sqs.send_message(QueueUrl=queues["podiums"], MessageBody=json.dumps(podium))
    status, _summary = client.call("POST", "/_local/invoke/AwardPodiumsFunction")
    assert status == 200
    status, award = client.call("GET", f"/v1/ladders/backgammon/tournaments/{tournament}")
    assert status == 200, award
    before = {
        opponent: client.call("GET", f"/v1/ladders/backgammon/players/{opponent}")[1]
        for opponent in opponents
    }
    assert any(victim in text for text in table_texts(stack))

    status, unsigned = client.call("POST", f"/v1/players/{victim}/erasure")
    assert (status, unsigned["error"]["code"]) == (403, "forbidden")
    finished = erase(client, victim)

    assert finished["player_id"] == victim
    assert [text for text in table_texts(stack) if victim in text or anon in text] == []
    for opponent in opponents:
        status, after = client.call("GET", f"/v1/ladders/backgammon/players/{opponent}")
        assert (after["rating"], after["ranked_games"]) == (
            before[opponent]["rating"],
            before[opponent]["ranked_games"],
        )
    status, history = client.call(
        "GET", f"/v1/ladders/backgammon/players/{opponents[0]}/history?limit=100"
    )
    assert all(
        event.get("opponent", "erased-").startswith("erased-") for event in history["events"]
    )
    status, award_after = client.call("GET", f"/v1/ladders/backgammon/tournaments/{tournament}")
    assert award_after["awards"][0]["player_id"].startswith("erased-")
    assert award_after["awards"][0]["delta"] == award["awards"][0]["delta"]
    # A retry of an old game: the stored (pseudonymized) game, never rated again.
    status, retried, _seen = client.submit(old)
    assert status == 200
    assert retried["players"][0]["id"].startswith("erased-")
    status, fresh = client.call("GET", f"/v1/ladders/backgammon/players/{victim}")
    assert (fresh["rating"], fresh["ranked_games"], fresh["standing"]) == (1500, 0, None)
    status, page = client.call("GET", f"/v1/ladders/backgammon/players/{anon}/history")
    assert page["events"] == []
    # Asked again: the same answer.
    status, again = client.call("POST", f"/v1/players/{victim}/erasure", headers=SIGNED)
    assert (status, again) == (200, finished)


def test_erasing_a_linked_anonymous_id_is_409_and_a_bad_id_400(client: Client) -> None:
    anon, account = unique("anon"), unique("acct")
    client.call("POST", "/v1/identities/link", {"anonymous_id": anon, "account_id": account})

    status, body = client.call("POST", f"/v1/players/{anon}/erasure", headers=SIGNED)
    assert (status, body["error"]["code"]) == (409, "already_linked")
    status, body = client.call("POST", "/v1/players/bad%23id/erasure", headers=SIGNED)
    assert (status, body["error"]["code"]) == (400, "invalid_request")
    status, body = client.call("GET", f"/v1/players/{unique('p')}/erasure", headers=SIGNED)
    assert (status, body["error"]["code"]) == (404, "not_found")
