"""The sanction routes of the Moderation function and the refunds' job in the ModerationWorker,
through the events API Gateway and SQS send them, on moto; and the game Api's side of it (405
on the routes' other methods, games with the sanctioned player unranked)."""

import json
from datetime import UTC, datetime, timedelta
from types import ModuleType
from typing import Any

import pytest
from support.games import recent_game
from support.handlers import Api, LambdaContext, Stack
from support.lambda_events import sqs_event
from support.queues import drain_bodies
from support.sanctions import sanction

from ratings import wiring
from ratings.declare.answers import format_utc_millis
from ratings.rules.refunds import Window
from ratings.service.parameters import MAX_SANCTION_PAGE
from ratings.service.sanction_records import RefundDecision, RefundProgress, RefundTotals, Sanction
from ratings.storage.dynamodb.job_layout import job_item
from ratings.storage.dynamodb.sanction_layout import (
    LIFT_SK,
    LiftItem,
    decision_item,
    sanction_key,
)

pytestmark = pytest.mark.filterwarnings("ignore:No application metrics:UserWarning")

SANCTIONS = "/v1/ladders/backgammon/sanctions"
SANCTION = SANCTIONS + "/{}"
#: docs/api.md, "Limits": the largest answer of a sanction, a twelfth of Lambda's 6 MB.
LARGEST_ANSWER_BYTES = 512 * 1024


def work_jobs(
    moderation_worker: ModuleType, stack: Stack, bodies: list[str]
) -> list[dict[str, Any]]:
    """Deliver each job message to the worker as SQS would (one a batch), then whatever it
    queued itself, until nothing is left."""
    answers = []
    while bodies:
        for body in bodies:
            event = sqs_event(stack.jobs_arn, [body])
            context = LambdaContext(remaining_millis=60_000)
            answers.append(moderation_worker.lambda_handler(event, context))
        bodies = drain_bodies(stack.sqs, stack.jobs_url)
    return answers


def test_a_sanction_is_pending_then_done_once_the_worker_has_paid_its_refunds(
    api: Api, moderation: Api, moderation_worker: ModuleType, stack: Stack
) -> None:
    lost = api("POST", "/v1/ladders/backgammon/games", body=recent_game("g-s1", "mallory", "vic"))
    assert lost.status == 201

    made = moderation("POST", SANCTIONS, body=sanction())
    queued = drain_bodies(stack.sqs, stack.jobs_url)
    answers = work_jobs(moderation_worker, stack, queued)
    done = moderation("GET", SANCTION.format("s-1"))

    assert made.status == 202
    assert made.body["status"] == "pending"
    assert made.body["refunds"] == []
    assert [json.loads(body) for body in queued] == [
        {"job": "sanction", "job_id": "backgammon#s-1"}
    ]
    assert answers == [{"batchItemFailures": []}]
    assert done.status == 200
    assert done.body["status"] == "done"
    assert [(r["player_id"], r["game_id"], r["delta"]) for r in done.body["refunds"]] == [
        ("vic", "g-s1", 16)
    ]
    assert api("GET", "/v1/ladders/backgammon/players/vic").body["rating"] == 1500
    mallory = api("GET", "/v1/ladders/backgammon/players/mallory").body
    assert (mallory["sanctioned"], mallory["rating"], mallory["standing"]) == (True, 1516, None)
    again = moderation("POST", SANCTIONS, body=sanction())
    assert (again.status, again.body) == (200, done.body)


def test_a_game_with_the_sanctioned_player_is_answered_unranked(api: Api, moderation: Api) -> None:
    assert moderation("POST", SANCTIONS, body=sanction()).status == 202

    played = api("POST", "/v1/ladders/backgammon/games", body=recent_game("g-s2", "mallory", "x"))

    assert played.status == 201
    assert (played.body["ranked"], played.body["unranked_reason"]) == (False, "sanctioned")


def test_lifting_answers_the_sanction_with_lifted_at_and_twice_the_same(
    api: Api, moderation: Api
) -> None:
    assert moderation("POST", SANCTIONS, body=sanction()).status == 202

    lifted = moderation("DELETE", SANCTION.format("s-1"))
    again = moderation("DELETE", SANCTION.format("s-1"))

    assert lifted.status == 200
    assert lifted.body["lifted_at"] is not None
    assert (again.status, again.body) == (200, lifted.body)
    assert api("GET", "/v1/ladders/backgammon/players/mallory").body["sanctioned"] is False


@pytest.mark.parametrize(
    ("path", "body", "status", "code", "named"),
    [
        ("/v1/ladders/chess/sanctions", sanction(), 404, "not_found", "chess"),
        (SANCTIONS, sanction("bad id"), 400, "invalid_request", "sanction_id"),
        (SANCTIONS, sanction(player_id="a/b"), 400, "invalid_request", "player_id"),
        (SANCTIONS, sanction(refund_days=31), 400, "invalid_request", "0 to 30"),
        (SANCTIONS, sanction(refund_days=-1), 400, "invalid_request", "refund_days"),
        (SANCTIONS, None, 400, "invalid_request", "body"),
        (SANCTIONS, "not json", 400, "invalid_request", "JSON"),
        (SANCTIONS, '["s-1"]', 400, "invalid_request", "JSON object"),
    ],
)
def test_a_wrong_sanction_is_refused_with_the_error_body(
    moderation: Api, path: str, body: Any, status: int, code: str, named: str
) -> None:
    sent = {"raw_body": body} if isinstance(body, str) else {"body": body}
    reply = moderation("POST", path, **sent)

    assert reply.status == status
    assert reply.error["code"] == code
    assert named in reply.error["message"]


def test_the_same_sanction_id_with_other_content_is_409(moderation: Api) -> None:
    assert moderation("POST", SANCTIONS, body=sanction()).status == 202

    reply = moderation("POST", SANCTIONS, body=sanction(refund_days=3))

    assert reply.status == 409
    assert reply.error["code"] == "sanction_conflict"


@pytest.mark.parametrize("method", ["GET", "DELETE"])
def test_a_sanction_never_made_is_404_and_a_malformed_id_400(moderation: Api, method: str) -> None:
    missing = moderation(method, SANCTION.format("s-none"))
    malformed = moderation(method, SANCTION.format("bad%20id"))

    assert (missing.status, missing.error["code"]) == (404, "not_found")
    assert (malformed.status, malformed.error["code"]) == (400, "invalid_request")
    assert "sanction_id" in malformed.error["message"]


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [
        ("GET", SANCTIONS, "POST"),
        ("PUT", SANCTIONS, "POST"),
        ("POST", SANCTION.format("s-1"), "DELETE, GET"),
        ("PATCH", SANCTION.format("s-1"), "DELETE, GET"),
    ],
)
def test_other_methods_of_the_sanction_routes_are_405_from_the_api(
    api: Api, method: str, path: str, allowed: str
) -> None:
    reply = api(method, path)

    assert reply.status == 405
    assert reply.headers["Allow"] == allowed
    assert reply.error["code"] == "method_not_allowed"


# A page of the sanction's decisions ---------------------------------------------------------


def test_get_reads_the_decisions_a_page_at_a_time_with_limit_and_cursor(
    api: Api, moderation: Api, moderation_worker: ModuleType, stack: Stack
) -> None:
    for number, victim in enumerate(["ann", "ben", "cy"]):
        body = recent_game(f"g-p{number}", "mallory", victim)
        assert api("POST", "/v1/ladders/backgammon/games", body=body).status == 201
    assert moderation("POST", SANCTIONS, body=sanction()).status == 202
    work_jobs(moderation_worker, stack, drain_bodies(stack.sqs, stack.jobs_url))

    first = moderation("GET", SANCTION.format("s-1"), query={"limit": "2"})
    rest = moderation(
        "GET", SANCTION.format("s-1"), query={"limit": "2", "cursor": first.body["next_cursor"]}
    )

    assert (first.status, rest.status) == (200, 200)
    assert [r["game_id"] for r in first.body["refunds"] + rest.body["refunds"]] == [
        "g-p0",
        "g-p1",
        "g-p2",
    ]
    assert rest.body["next_cursor"] is None
    assert (
        first.body["totals"]
        == rest.body["totals"]
        == {
            "refunds": 3,
            "points": 48,
            "withheld": 0,
        }
    )


@pytest.mark.parametrize(
    ("query", "code", "message"),
    [
        ({"limit": "0"}, "invalid_request", "limit must be an integer from 1 to 1000"),
        ({"limit": "1001"}, "invalid_request", "limit must be an integer from 1 to 1000"),
        ({"limit": "all"}, "invalid_request", "limit must be an integer from 1 to 1000"),
        ({"cursor": "nope"}, "invalid_cursor", "cursor must be the next_cursor"),
        ({"cursor": ""}, "invalid_cursor", "cursor must be the next_cursor"),
    ],
)
def test_a_wrong_limit_or_cursor_is_400_naming_it_and_what_is_allowed(
    moderation: Api, query: dict[str, str], code: str, message: str
) -> None:
    made = moderation("POST", SANCTIONS, body=sanction())

    reply = moderation("GET", SANCTION.format("s-1"), query=query)

    assert reply.status == 400
    assert reply.error["code"] == code
    assert reply.error["message"].startswith(message)
    assert moderation("GET", SANCTION.format("s-1")).body == made.body  # nothing changed


def test_the_largest_page_of_the_longest_values_answers_far_under_lambdas_6_mb(
    moderation: Api,
) -> None:
    # The largest answer the declared limits allow: every id 128 characters, the reason 500
    # characters that JSON writes as 12 bytes each, 1,000 refunds (the largest `limit`; a
    # refund is longer than a withheld loss) and a cursor after them.
    longest = "x" * 128
    at = datetime(2026, 11, 29, 12, tzinfo=UTC)
    worst = Sanction(
        ladder="backgammon",
        sanction_id="s" * 128,
        player_id=longest,
        submitted_id="a" * 128,
        reason="\U0001f600" * 500,
        refund_days=30,
        fingerprint="f" * 64,
        sanctioned_at=at,
        window=Window(at - timedelta(days=30), at),
        played_as=(longest, "a" * 128),
        status="done",
        completed_at=at,
        progress=RefundProgress(2, None, RefundTotals(10**11, 10**11, 10**11)),
    )
    storage = wiring.storage()
    storage.table.put(job_item(worst.job()))
    partition = sanction_key("backgammon", worst.sanction_id)
    storage.table.put(LiftItem(partition, LIFT_SK, lifted_at=format_utc_millis(at)))
    decisions = [
        RefundDecision("backgammon", worst.sanction_id, game_id, at, longest, 10**9, at, -(10**11))
        for game_id in (f"{number:0128d}" for number in range(MAX_SANCTION_PAGE + 1))
    ]
    storage.table.put_all([decision_item(decision) for decision in decisions])
    assert storage.sanctions.read_sanction("backgammon", worst.sanction_id, None, 1).sanction

    reply = moderation("GET", SANCTION.format(worst.sanction_id), query={"limit": "1000"})

    assert reply.status == 200
    assert reply.body["lifted_at"] is not None
    assert len(reply.body["refunds"]) == MAX_SANCTION_PAGE
    assert reply.body["next_cursor"] is not None
    size = len(json.dumps(reply.raw).encode())  # what Lambda returns to API Gateway
    assert size < LARGEST_ANSWER_BYTES, size  # 433,389 bytes when this was written
