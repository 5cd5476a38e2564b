"""The AwardPodiums function: a scheduled drain of the podium queue that awards each podium
once, deletes only what is settled, dead-letters invalid podiums and keeps to its budget."""

import gc
import io
import json
from types import ModuleType
from typing import Any

import pytest
from support.faults import mentions
from support.games import recent_podium
from support.handlers import LambdaContext, Stack, json_lines, metric_values
from support.lambda_events import scheduled_event
from support.queues import fail_sends, peek_messages, wait_for_messages

from ratings import wiring
from ratings.lambda_support import invocation

pytestmark = pytest.mark.filterwarnings("ignore:No application metrics:UserWarning")


def send(stack: Stack, *bodies: str) -> None:
    for body in bodies:
        stack.sqs.send_message(QueueUrl=stack.podium_url, MessageBody=body)


def run(award_podiums: ModuleType, remaining_millis: int = 120_000) -> dict[str, int]:
    context = LambdaContext(function_name="award-podiums", remaining_millis=remaining_millis)
    summary: dict[str, int] = award_podiums.lambda_handler(scheduled_event(), context)
    return summary


def queue_depth(stack: Stack) -> tuple[int, int]:
    """(visible, in flight) messages of the podium queue."""
    attributes = stack.sqs.get_queue_attributes(
        QueueUrl=stack.podium_url,
        AttributeNames=["ApproximateNumberOfMessages", "ApproximateNumberOfMessagesNotVisible"],
    )["Attributes"]
    return (
        int(attributes["ApproximateNumberOfMessages"]),
        int(attributes["ApproximateNumberOfMessagesNotVisible"]),
    )


def dead_letters(stack: Stack) -> list[dict[str, Any]]:
    return [
        {
            "body": message["Body"],
            **{name: value["StringValue"] for name, value in message["MessageAttributes"].items()},
        }
        for message in peek_messages(stack.sqs, stack.podium_dlq_url)
    ]


def rating(player_id: str) -> int:
    value: int = wiring.service().get_player("backgammon", player_id)["rating"]
    return value


def test_drain_awards_each_podium_once_and_dead_letters_the_invalid(
    award_podiums: ModuleType,
    stack: Stack,
    capsys: pytest.CaptureFixture[str],
    logs: io.StringIO,
) -> None:
    t1 = json.dumps(recent_podium("t-1", "alice", "bob", "carol"))
    others = [json.dumps(recent_podium(f"t-{n}", f"p{n}", f"q{n}")) for n in range(2, 12)]
    private = json.dumps(recent_podium("t-private", "alice", "bob", public=False))
    invalid_place = recent_podium("t-bad", "alice")
    invalid_place["podium"][0]["place"] = 4
    unknown_ladder = {**recent_podium("t-chess", "alice"), "ladder": "chess"}
    send(stack, t1, t1, *others, private, "{oops", json.dumps(invalid_place))
    send(stack, json.dumps(unknown_ladder), t1)

    summary = run(award_podiums)

    assert summary == {
        "awarded": 12,  # t-1, t-2..t-11 and the private one
        "duplicate": 2,  # t-1 delivered twice more
        "dead_lettered": 3,
        "requeued": 0,
        "left": 0,
        "released": 0,
        "undeleted": 0,
    }
    assert queue_depth(stack) == (0, 0)
    assert (rating("alice"), rating("bob"), rating("carol")) == (1550, 1525, 1515)
    assert rating("p2") == 1550
    private_awards = wiring.service().get_tournament("backgammon", "t-private")["awards"]
    assert [award["delta"] for award in private_awards] == [0, 0]
    letters = {letter["body"]: letter for letter in dead_letters(stack)}
    assert letters["{oops"]["reason"] == "invalid_request"
    assert letters[json.dumps(invalid_place)]["field"] == "podium[0].place"
    assert letters[json.dumps(unknown_ladder)]["reason"] == "not_found"
    metrics = metric_values(capsys.readouterr().out)
    assert (metrics["PodiumsAwarded"], metrics["MessagesDeadLettered"]) == (12, 3)
    awarded = [line for line in json_lines(logs.getvalue()) if line["message"] == "podium awarded"]
    assert len({line["correlation_id"] for line in awarded}) == 12  # one per message id
    assert {line["tournament_id"] for line in awarded} >= {"t-1", "t-private"}


def test_a_podium_reused_with_other_places_goes_to_the_dlq(
    award_podiums: ModuleType, stack: Stack
) -> None:
    send(stack, json.dumps(recent_podium("t-9", "alice", "bob")))
    run(award_podiums)
    conflicting = json.dumps(recent_podium("t-9", "bob", "alice"))
    send(stack, conflicting)

    summary = run(award_podiums)

    assert (summary["dead_lettered"], summary["awarded"]) == (1, 0)
    (letter,) = dead_letters(stack)
    assert (letter["body"], letter["reason"]) == (conflicting, "tournament_conflict")
    assert (rating("alice"), rating("bob")) == (1550, 1525)  # the first podium, once


def test_a_message_over_64_kib_goes_to_the_dlq_unread(
    award_podiums: ModuleType, stack: Stack
) -> None:
    text = json.dumps(recent_podium("t-big", "alice", "bob"))
    padded = text + " " * (64 * 1024 + 1 - len(text))
    send(stack, padded)

    summary = run(award_podiums)

    assert (summary["dead_lettered"], summary["awarded"]) == (1, 0)
    (letter,) = dead_letters(stack)
    assert letter["reason"] == "payload_too_large"
    assert rating("alice") == 1500  # nothing awarded


def test_a_transient_failure_sends_the_podium_back_for_a_later_run(
    award_podiums: ModuleType, stack: Stack
) -> None:
    stack.dynamo_faults().fail(
        "TransactWriteItems", "ThrottlingException", when=mentions("t-flaky")
    )
    flaky = json.dumps(recent_podium("t-flaky", "alice"))
    send(stack, flaky, json.dumps(recent_podium("t-fine", "bob")))

    summary = run(award_podiums)

    assert (summary["awarded"], summary["requeued"], summary["left"]) == (1, 1, 0)
    # The original is deleted; a new, delayed copy waits for a later run, its receives
    # counted from zero, so contention never uses up maxReceiveCount.
    assert queue_depth(stack) == (0, 0)
    (again,) = wait_for_messages(stack.sqs, stack.podium_url)
    assert again["Body"] == flaky
    assert again["MessageAttributes"]["requeues"]["StringValue"] == "1"
    assert dead_letters(stack) == []
    assert (rating("alice"), rating("bob")) == (1500, 1550)


def test_a_podium_is_left_in_the_queue_only_when_sending_it_back_fails(
    award_podiums: ModuleType, stack: Stack
) -> None:
    stack.dynamo_faults().fail("TransactWriteItems", "ThrottlingException")
    refused = fail_sends(wiring.sqs_client())
    send(stack, json.dumps(recent_podium("t-stuck", "alice")))

    summary = run(award_podiums)

    assert (summary["requeued"], summary["left"]) == (0, 1)
    assert refused == [stack.podium_url]
    assert queue_depth(stack) == (0, 1)  # back after the visibility timeout


def test_the_drain_stops_at_its_budget_and_releases_what_it_did_not_handle(
    award_podiums: ModuleType, stack: Stack, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RATINGS_DRAIN_SECONDS", "0.5")
    wiring.reset()
    wiring.sqs_client()  # a warm container: the budget goes to the queue, not to the client
    stack.dynamo_faults().delay("TransactWriteItems", 0.6)  # a slow store
    send(stack, *(json.dumps(recent_podium(f"t-{n}", f"p{n}")) for n in range(5)))

    summary = run(award_podiums)

    # The first award outlasts the budget: the rest of its batch goes back at once.
    assert (summary["awarded"], summary["released"]) == (1, 4)
    assert queue_depth(stack) == (4, 0)


def test_no_time_left_means_no_receive(award_podiums: ModuleType, stack: Stack) -> None:
    send(stack, json.dumps(recent_podium("t-late", "alice")))

    summary = run(award_podiums, remaining_millis=15_000)  # less than the reserve

    assert sum(summary.values()) == 0
    assert queue_depth(stack) == (1, 0)


def count_receives(award_podiums: ModuleType) -> list[int]:
    """The number of messages of every receive the function's SQS client gets back."""
    received: list[int] = []

    def record(parsed: dict[str, Any], **_: Any) -> None:
        received.append(len(parsed.get("Messages", [])))

    wiring.sqs_client().meta.events.register("after-call.sqs.ReceiveMessage", record)
    return received


def test_the_drain_ends_on_an_empty_receive_not_on_a_short_batch(
    award_podiums: ModuleType, stack: Stack
) -> None:
    received = count_receives(award_podiums)
    send(stack, *(json.dumps(recent_podium(f"t-few-{n}", f"few{n}")) for n in range(13)))

    first = run(award_podiums)  # 10, then 3, then an empty long poll ends the run
    second = run(award_podiums)  # an empty queue: one receive, empty

    assert (first["awarded"], second["awarded"]) == (13, 0)
    assert received == [10, 3, 0, 0]
    assert queue_depth(stack) == (0, 0)


def test_a_receive_answered_with_fewer_messages_than_wait_does_not_end_the_drain(
    award_podiums: ModuleType, stack: Stack
) -> None:
    """SQS may return fewer messages than are waiting (it samples its servers, and a long poll
    returns as soon as it has some): here every receive gets at most 3 of the 13 waiting."""

    def fewer(params: dict[str, Any], **_: Any) -> None:
        params["MaxNumberOfMessages"] = min(3, params.get("MaxNumberOfMessages", 1))

    client = wiring.sqs_client()
    client.meta.events.register("provide-client-params.sqs.ReceiveMessage", fewer)
    received = count_receives(award_podiums)
    send(stack, *(json.dumps(recent_podium(f"t-short-{n}", f"short{n}")) for n in range(13)))

    summary = run(award_podiums)

    assert summary["awarded"] == 13  # one run, however short the batches
    assert received == [3, 3, 3, 3, 1, 0]
    assert queue_depth(stack) == (0, 0)


def test_an_empty_queue_is_a_quiet_run(award_podiums: ModuleType, stack: Stack) -> None:
    assert sum(run(award_podiums).values()) == 0


def test_a_first_run_collects_garbage_again_from_its_second_batch(
    award_podiums: ModuleType, stack: Stack, monkeypatch: pytest.MonkeyPatch
) -> None:
    # As in a Lambda cold start: the handler module paused the collector
    # (see ratings.lambda_support.invocation).
    collecting: list[bool] = []
    award = award_podiums.award

    def watched_award(*args: Any) -> str:
        collecting.append(gc.isenabled())
        outcome: str = award(*args)
        return outcome

    monkeypatch.setattr(award_podiums, "award", watched_award)
    send(stack, *(json.dumps(recent_podium(f"t-gc-{n}", f"gc{n}")) for n in range(15)))
    gc.disable()
    monkeypatch.setattr(invocation, "_paused", True)
    try:
        summary = run(award_podiums)
    finally:
        gc.enable()
        gc.unfreeze()

    assert summary["awarded"] == 15
    assert collecting == [False] * 10 + [True] * 5  # receives are capped at 10 messages
