"""Sanctions end to end on the local stack over HTTP: the Moderation function under the
moderation key, the refunds paid by the ModerationWorker from the jobs queue, the game Api
showing the effects (leaderboard, player, history, games unranked), and lifting."""

import threading
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from support.games import game, unique
from support.http import Client
from support.stack import running_stack, wait_for

from ratings_local.stack import LocalStack

pytestmark = pytest.mark.xdist_group("local_stack")

API_KEY = "game-key"
MODERATION_KEY = "moderation-key"
SIGNED = {"x-moderation-key": MODERATION_KEY}
LADDER = "/v1/ladders/backgammon"


@pytest.fixture(scope="module")
def stack() -> Iterator[LocalStack]:
    with running_stack(api_key=API_KEY, moderation_key=MODERATION_KEY) as local:
        yield local


@pytest.fixture(scope="module")
def client(stack: LocalStack) -> Client:
    return Client(stack.api_url, api_key=API_KEY)


def ago(**delta: float) -> datetime:
    return datetime.now(UTC) - timedelta(**delta)


def play(client: Client, winner: str, loser: str, at: datetime, **extra: Any) -> dict[str, Any]:
    status, body, _seen = client.submit(game(unique("g"), winner, loser, played_at=at, **extra))
    assert status == 201, body
    result: dict[str, Any] = body
    return result


def delta_of(result: dict[str, Any], player_id: str) -> int:
    (delta,) = [p["delta"] for p in result["players"] if p["id"] == player_id]
    return int(delta)


def rating(client: Client, player_id: str) -> int:
    status, body = client.call("GET", f"{LADDER}/players/{player_id}")
    assert status == 200
    return int(body["rating"])


def sanction_done(client: Client, sanction_id: str) -> dict[str, Any]:
    def done() -> dict[str, Any] | None:
        status, body = client.call("GET", f"{LADDER}/sanctions/{sanction_id}", headers=SIGNED)
        assert status == 200, body
        return body if body["status"] == "done" else None

    answer: dict[str, Any] = wait_for(done, what=f"sanction {sanction_id} done")
    return answer


def board_ids(client: Client) -> set[str]:
    ids: set[str] = set()
    cursor = None
    while True:
        query = "?limit=100" + (f"&cursor={cursor}" if cursor else "")
        status, page = client.call("GET", f"{LADDER}/leaderboard{query}")
        assert status == 200
        ids |= {entry["player_id"] for entry in page["entries"]}
        cursor = page["next_cursor"]
        if cursor is None:
            return ids


def history_adds_up(client: Client, player_id: str) -> bool:
    status, page = client.call("GET", f"{LADDER}/players/{player_id}/history?limit=100")
    assert status == 200
    assert page["next_cursor"] is None
    return bool(1500 + sum(event["delta"] for event in page["events"]) == rating(client, player_id))


def test_a_cheaters_victims_are_refunded_once_and_the_cheater_is_off_the_ladder_until_lifted(
    client: Client,
) -> None:
    cheater, victim, old_victim, winner = (unique(n) for n in ("mallory", "vic", "old", "win"))
    lost_1 = play(client, cheater, victim, ago(days=2))
    play(client, victim, cheater, ago(days=1))  # the victim wins one
    lost_2 = play(client, cheater, victim, ago(hours=2))
    play(client, cheater, old_victim, ago(days=10))  # outside the 7-day window
    play(client, winner, cheater, ago(hours=1))
    play(client, cheater, unique("boost"), ago(hours=1), mode="boosted")  # unranked
    before = rating(client, victim)
    assert cheater in board_ids(client)
    sanction_id = unique("s")
    body = {"sanction_id": sanction_id, "player_id": cheater, "reason": "engine use"}

    status, made = client.call("POST", f"{LADDER}/sanctions", body, headers=SIGNED)
    assert (status, made["status"]) == (202, "pending")
    assert cheater not in board_ids(client)  # off the ladder from the answer on
    done = sanction_done(client, sanction_id)

    refunds = {(r["player_id"], r["game_id"]): r["delta"] for r in done["refunds"]}
    assert refunds == {
        (victim, lost_1["game_id"]): -delta_of(lost_1, victim),
        (victim, lost_2["game_id"]): -delta_of(lost_2, victim),
    }
    assert rating(client, victim) == before + sum(refunds.values())
    assert rating(client, old_victim) < 1500  # outside the window: not refunded
    status, me = client.call("GET", f"{LADDER}/players/{cheater}")
    assert (me["sanctioned"], me["standing"]) == (True, None)
    status, history = client.call("GET", f"{LADDER}/players/{victim}/history")
    assert [e["type"] for e in history["events"]][:2] == ["refund", "refund"]
    assert history_adds_up(client, victim)

    # A retried sanction answers where it stands; other content is a conflict.
    status, again = client.call("POST", f"{LADDER}/sanctions", body, headers=SIGNED)
    assert (status, again) == (200, done)
    status, conflict = client.call(
        "POST", f"{LADDER}/sanctions", {**body, "refund_days": 3}, headers=SIGNED
    )
    assert (status, conflict["error"]["code"]) == (409, "sanction_conflict")

    # A later game with the cheater is stored and answered, unranked, and refunds nothing.
    status, later, _ = client.submit(game(unique("g"), cheater, victim))
    assert (status, later["ranked"], later["unranked_reason"]) == (201, False, "sanctioned")
    assert delta_of(later, victim) == 0
    assert sanction_done(client, sanction_id)["refunds"] == done["refunds"]

    # Lifting: back on the ladder, the refunds stay.
    status, lifted = client.call("DELETE", f"{LADDER}/sanctions/{sanction_id}", headers=SIGNED)
    assert status == 200
    assert lifted["lifted_at"] is not None
    assert lifted["refunds"] == done["refunds"]
    assert cheater in board_ids(client)
    assert rating(client, victim) == before + sum(refunds.values())
    status, rated = client.call("POST", f"{LADDER}/games", game(unique("g"), cheater, victim))
    assert (status, rated["ranked"]) == (201, True)


def test_victims_playing_while_a_big_sanction_is_paid_lose_nothing(client: Client) -> None:
    cheater = unique("mallory")
    victims = [unique("v") for _ in range(4)]
    start = ago(days=3)
    for index in range(60):  # 60 games: three steps of the job
        play(client, cheater, victims[index % 4], start + timedelta(minutes=index))
    sanction_id = unique("s")
    body = {"sanction_id": sanction_id, "player_id": cheater}
    errors: list[BaseException] = []

    def keep_playing(victim: str) -> None:
        try:
            for _ in range(5):
                status, answer, _seen = client.submit(game(unique("g"), victim, unique("r")))
                assert status == 201, answer
        except BaseException as error:  # reported below: a thread cannot fail the test
            errors.append(error)

    status, _made = client.call("POST", f"{LADDER}/sanctions", body, headers=SIGNED)
    threads = [threading.Thread(target=keep_playing, args=(v,)) for v in victims]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    done = sanction_done(client, sanction_id)

    assert status == 202
    assert errors == []
    assert len(done["refunds"]) == 60
    assert len({r["game_id"] for r in done["refunds"]}) == 60
    assert done["totals"]["refunds"] == 60
    for victim in victims:
        assert history_adds_up(client, victim)
    # Over HTTP, pages of 25 list the same refunds, each once, in the same order.
    pages: list[list[dict[str, Any]]] = []
    query: str | None = "?limit=25"
    while query is not None:
        path = f"{LADDER}/sanctions/{sanction_id}{query}"
        status, page = client.call("GET", path, headers=SIGNED)
        assert status == 200, page
        pages.append(page["refunds"])
        cursor = page["next_cursor"]
        query = None if cursor is None else f"?limit=25&cursor={cursor}"
    assert [len(page) for page in pages] == [25, 25, 10]
    assert [refund for page in pages for refund in page] == done["refunds"]


def test_the_sanction_routes_take_the_moderation_key(client: Client) -> None:
    body = {"sanction_id": unique("s"), "player_id": unique("p")}
    for method, path, sent in [
        ("POST", f"{LADDER}/sanctions", body),
        ("GET", f"{LADDER}/sanctions/{body['sanction_id']}", None),
        ("DELETE", f"{LADDER}/sanctions/{body['sanction_id']}", None),
    ]:
        status, answer = client.call(method, path, sent)
        assert (status, answer["error"]["code"]) == (403, "forbidden"), (method, answer)
    status, answer = client.call("PUT", f"{LADDER}/sanctions")
    assert (status, answer["error"]["code"]) == (405, "method_not_allowed")
    status, answer = client.call("GET", f"{LADDER}/sanctions/{body['sanction_id']}", headers=SIGNED)
    assert (status, answer["error"]["code"]) == (404, "not_found")
