"""The Moderation function (the erasure routes) and the ModerationWorker function, through
the events API Gateway and SQS send them, on moto; and the game Api's 405 on their paths."""

import io
import json
from types import ModuleType

import pytest
from support.games import recent_game
from support.handlers import Api, LambdaContext, Stack, json_lines
from support.lambda_events import sqs_event
from support.queues import peek_messages

pytestmark = pytest.mark.filterwarnings("ignore:No application metrics:UserWarning")

ERASURE = "/v1/players/{}/erasure"


def test_an_id_with_nothing_stored_is_erased_at_once(moderation: Api, stack: Stack) -> None:
    reply = moderation("POST", ERASURE.format("nobody"))

    assert reply.status == 200
    assert reply.body["status"] == "done"
    assert set(reply.body) == {"player_id", "status", "requested_at", "completed_at"}
    assert reply.body["player_id"] == "nobody"
    assert moderation("GET", ERASURE.format("nobody")).body == reply.body
    assert list(peek_messages(stack.sqs, stack.jobs_url)) == []


def test_a_player_with_games_is_pending_and_their_job_queued(
    api: Api, moderation: Api, stack: Stack
) -> None:
    assert api("POST", "/v1/ladders/backgammon/games", body=recent_game(None, "erin")).status == 201

    first = moderation("POST", ERASURE.format("erin"))
    status = moderation("GET", ERASURE.format("erin"))
    again = moderation("POST", ERASURE.format("erin"))

    assert first.status == 202
    assert first.body["status"] == "pending"
    assert set(first.body) == {"player_id", "status", "requested_at"}
    assert (status.status, status.body) == (200, first.body)
    assert (again.status, again.body) == (202, first.body)
    # Each request queues the job once more: a lost message must not strand it.
    bodies = [json.loads(message["Body"]) for message in peek_messages(stack.sqs, stack.jobs_url)]
    assert len(bodies) == 2
    assert bodies[0] == bodies[1]
    assert bodies[0]["job"] == "erasure"
    assert "erin" not in json.dumps(bodies)  # the message names the job, not the player


def test_a_linked_anonymous_id_is_refused_409(api: Api, moderation: Api) -> None:
    link = {"anonymous_id": "anon-7", "account_id": "acct-7"}
    assert api("POST", "/v1/identities/link", body=link).status == 200

    reply = moderation("POST", ERASURE.format("anon-7"))

    assert reply.status == 409
    assert reply.error["code"] == "already_linked"
    assert "acct" in reply.error["message"] or "account" in reply.error["message"]
    assert moderation("GET", ERASURE.format("anon-7")).status == 404


@pytest.mark.parametrize("method", ["POST", "GET"])
def test_a_malformed_id_is_refused_400(moderation: Api, method: str) -> None:
    reply = moderation(method, ERASURE.format("bad%20id"))

    assert reply.status == 400
    assert reply.error["code"] == "invalid_request"
    assert "player_id" in reply.error["message"]


def test_an_erasure_never_requested_is_404(moderation: Api) -> None:
    reply = moderation("GET", ERASURE.format("someone"))

    assert reply.status == 404
    assert reply.error["code"] == "not_found"


def test_a_job_that_cannot_be_queued_is_503_and_recorded_for_a_retry(
    api: Api, moderation: Api, stack: Stack, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ratings import wiring

    assert api("POST", "/v1/ladders/backgammon/games", body=recent_game(None, "fay")).status == 201
    monkeypatch.setenv("RATINGS_MODERATION_JOBS_QUEUE_URL", stack.jobs_url + "-gone")
    wiring.reset()

    refused = moderation("POST", ERASURE.format("fay"))

    assert refused.status == 503
    assert refused.error["code"] == "retry_later"
    assert refused.headers["Retry-After"] == "1"
    monkeypatch.setenv("RATINGS_MODERATION_JOBS_QUEUE_URL", stack.jobs_url)
    wiring.reset()
    retried = moderation("POST", ERASURE.format("fay"))
    assert retried.status == 202
    assert len(list(peek_messages(stack.sqs, stack.jobs_url))) == 1


@pytest.mark.parametrize("method", ["DELETE", "PUT", "PATCH"])
def test_other_methods_of_the_erasure_route_are_405_from_the_api(api: Api, method: str) -> None:
    reply = api(method, ERASURE.format("erin"))

    assert reply.status == 405
    assert reply.headers["Allow"] == "GET, POST"
    assert reply.error["code"] == "method_not_allowed"


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        ("not json", "invalid_request"),
        (json.dumps({"job": "juggling", "job_id": "x"}), "invalid_request"),
        (json.dumps({"job": "erasure", "job_id": "0" * 64}), "not_found"),
    ],
)
def test_a_job_message_that_can_never_succeed_is_dead_lettered(
    moderation_worker: ModuleType, stack: Stack, body: str, reason: str
) -> None:
    event = sqs_event(stack.jobs_arn, [body])

    answer = moderation_worker.lambda_handler(event, LambdaContext(remaining_millis=60_000))

    assert answer == {"batchItemFailures": []}
    (dead,) = list(peek_messages(stack.sqs, stack.jobs_dlq_url))
    assert dead["Body"] == body
    assert dead["MessageAttributes"]["reason"]["StringValue"] == reason


def test_the_worker_logs_what_it_did_with_the_job(
    api: Api, moderation: Api, moderation_worker: ModuleType, stack: Stack, logs: io.StringIO
) -> None:
    assert api("POST", "/v1/ladders/backgammon/games", body=recent_game(None, "erin")).status == 201
    assert moderation("POST", ERASURE.format("erin")).status == 202
    (message,) = peek_messages(stack.sqs, stack.jobs_url)
    event = sqs_event(stack.jobs_arn, [message["Body"]])

    answer = moderation_worker.lambda_handler(event, LambdaContext(remaining_millis=60_000))

    assert answer == {"batchItemFailures": []}
    (worked,) = [line for line in json_lines(logs.getvalue()) if line["message"] == "job worked"]
    summary = {name: worked[name] for name in ("job", "status", "phase", "continued", "superseded")}
    assert summary == {
        "job": "erasure",
        "status": "done",
        "phase": "done",
        "continued": False,
        "superseded": False,
    }
    assert worked["steps"] >= 1
    assert "erin" not in json.dumps(worked)  # the summary names the job, not the player


class ShrinkingContext(LambdaContext):
    """An invocation whose remaining time falls by a second each time it is asked."""

    def get_remaining_time_in_millis(self) -> int:
        self.remaining_millis -= 1000
        return self.remaining_millis


def test_the_worker_erases_a_player_over_invocations_and_after_a_failed_one(
    api: Api, moderation: Api, moderation_worker: ModuleType, stack: Stack
) -> None:
    from support.erasure import mentions
    from support.faults import mentions as mentioning

    from ratings import wiring
    from ratings_local.stack import sqs_record

    for index in range(60):
        body = recent_game(f"g-w{index}", "victim-w1", f"opp-{index % 5}")
        assert api("POST", "/v1/ladders/backgammon/games", body=body).status == 201
    assert moderation("POST", ERASURE.format("victim-w1")).status == 202
    # The first page's write fails once (a crash midway through the job).
    stack.dynamo_faults().fail(
        "TransactWriteItems", "ValidationException", times=1, when=mentioning("g-w3")
    )
    outcomes = []
    for _ in range(50):
        received = stack.sqs.receive_message(
            QueueUrl=stack.jobs_url, MaxNumberOfMessages=1, AttributeNames=["All"]
        ).get("Messages", [])
        if not received:
            break
        (message,) = received
        event = {"Records": [sqs_record(message, stack.jobs_arn, "us-east-1")]}
        answer = moderation_worker.lambda_handler(event, ShrinkingContext(remaining_millis=19_000))
        failed = bool(answer["batchItemFailures"])
        outcomes.append("failed" if failed else "done")
        if failed:  # SQS delivers it again after the visibility timeout: here, at once
            stack.sqs.change_message_visibility(
                QueueUrl=stack.jobs_url, ReceiptHandle=message["ReceiptHandle"], VisibilityTimeout=0
            )
        else:
            stack.sqs.delete_message(
                QueueUrl=stack.jobs_url, ReceiptHandle=message["ReceiptHandle"]
            )

    assert outcomes.count("failed") == 1
    assert outcomes.count("done") >= 3  # three steps an invocation: it went on in continuations
    assert moderation("GET", ERASURE.format("victim-w1")).body["status"] == "done"
    assert mentions(wiring.storage(), "victim-w1") == []
    game = api("GET", "/v1/ladders/backgammon/games/g-w3").body
    assert game["players"][0]["id"].startswith("erased-")
    assert list(peek_messages(stack.sqs, stack.jobs_dlq_url)) == []
