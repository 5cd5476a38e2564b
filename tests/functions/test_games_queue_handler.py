"""The GamesQueue function: SQS batches with partial batch responses; poison messages to the
games DLQ with their reason; games that meet contention or throttling sent back to the games
queue as new messages (never left to use up maxReceiveCount); bugs retried by SQS."""

import io
import json
from types import ModuleType
from typing import Any

import pytest
from support.faults import mentions
from support.games import recent_game
from support.handlers import LambdaContext, Stack, json_lines, metric_values
from support.lambda_events import sqs_event
from support.queues import fail_sends, peek_messages, queue_depth, wait_for_messages

from ratings import wiring

pytestmark = pytest.mark.filterwarnings("ignore:No application metrics:UserWarning")


def queued(game_body: dict[str, Any], ladder: str = "backgammon") -> str:
    return json.dumps({**game_body, "ladder": ladder})


def run(games_queue: ModuleType, stack: Stack, bodies: list[str]) -> tuple[dict[str, Any], Any]:
    event = sqs_event(stack.games_arn, bodies)
    answer = games_queue.lambda_handler(event, LambdaContext(function_name="games-queue"))
    return answer, event


def failed_ids(answer: dict[str, Any]) -> set[str]:
    return {failure["itemIdentifier"] for failure in answer["batchItemFailures"]}


def dead_letters(stack: Stack) -> dict[str, dict[str, Any]]:
    """The games DLQ's messages by their source message id: body and reason attributes."""
    found = {}
    for message in peek_messages(stack.sqs, stack.games_dlq_url):
        attributes = {
            name: value["StringValue"] for name, value in message["MessageAttributes"].items()
        }
        found[attributes["source_message_id"]] = {"body": message["Body"], **attributes}
    return found


def test_a_batch_of_good_games_rates_them_all(
    games_queue: ModuleType, stack: Stack, capsys: pytest.CaptureFixture[str]
) -> None:
    bodies = [queued(recent_game(f"g-{n}", f"p{n}", f"q{n}")) for n in range(3)]
    bodies.append(queued(recent_game("s-1", "ann", "ben"), ladder="sedma"))

    answer, _event = run(games_queue, stack, bodies)

    assert answer == {"batchItemFailures": []}
    assert wiring.service().get_game("sedma", "s-1")["ranked"] is True
    assert wiring.service().get_player("backgammon", "p2")["ranked_games"] == 1
    assert metric_values(capsys.readouterr().out) == {"GamesRated": 4}
    assert dead_letters(stack) == {}


def test_mixed_batch_settles_every_record_and_sends_the_throttled_one_back(
    games_queue: ModuleType, stack: Stack, capsys: pytest.CaptureFixture[str], logs: io.StringIO
) -> None:
    wiring.service().submit_game("backgammon", recent_game("g-taken", "alice", "bob"))
    stack.dynamo_faults().fail(
        "TransactWriteItems", "ThrottlingException", when=mentions("g-flaky")
    )
    bodies = [
        queued(recent_game("g-good", "carol", "dave")),  # 0 rated
        queued(
            recent_game("g-taken", "alice", "bob")
        ),  # 1 a redelivery: already rated, same content
        "{not json",  # 2 never JSON
        queued(recent_game("g-cube", "erin", "finn", cube=3)),  # 3 invalid game
        queued(recent_game("g-taken", "alice", "bob", winner="bob")),  # 4 game_id used differently
        queued(recent_game("g-chess", "gil", "hal"), ladder="chess"),  # 5 unknown ladder
        json.dumps(recent_game("g-nowhere", "ivy", "jon")),  # 6 no ladder at all
        queued(recent_game("g-flaky", "kim", "lou")),  # 7 throttled on every attempt
    ]

    answer, event = run(games_queue, stack, bodies)

    ids = [record["messageId"] for record in event["Records"]]
    assert failed_ids(answer) == set()  # the throttled one is back in the queue, delayed
    (again,) = wait_for_messages(stack.sqs, stack.games_url)
    assert again["Body"] == bodies[7]
    assert again["MessageAttributes"]["requeues"]["StringValue"] == "1"
    assert again["Attributes"]["ApproximateReceiveCount"] == "1"  # a new message
    letters = dead_letters(stack)
    assert set(letters) == {ids[2], ids[3], ids[4], ids[5], ids[6]}
    assert {ids[n]: letters[ids[n]]["reason"] for n in (2, 3, 4, 5, 6)} == {
        ids[2]: "invalid_request",
        ids[3]: "invalid_request",
        ids[4]: "game_conflict",
        ids[5]: "not_found",
        ids[6]: "invalid_request",
    }
    assert letters[ids[3]]["field"] == "cube"
    assert letters[ids[6]]["field"] == "ladder"
    assert letters[ids[2]]["body"] == "{not json"  # the message as it came, to inspect
    assert "g-taken" in letters[ids[4]]["reason_message"]
    assert wiring.service().get_game("backgammon", "g-good")["ranked"] is True
    metrics = metric_values(capsys.readouterr().out)
    assert metrics["GamesRated"] == 1
    assert metrics["MessagesDeadLettered"] == 5
    assert metrics["MessagesRequeued"] == 1
    assert metrics["ConflictsRetried"] > 8  # retried for the time budget, then sent back
    dead_lettered = [
        line
        for line in json_lines(logs.getvalue())
        if line["message"] == "game message dead-lettered"
    ]
    assert {line["correlation_id"] for line in dead_lettered} == {ids[n] for n in (2, 3, 4, 5, 6)}
    (conflict,) = [line for line in dead_lettered if line["reason"] == "game_conflict"]
    assert conflict["game_id"] == "g-taken"


def test_the_game_sent_back_is_rated_once_the_store_recovers(
    games_queue: ModuleType, stack: Stack
) -> None:
    faults = stack.dynamo_faults()
    faults.fail("TransactWriteItems", "ProvisionedThroughputExceededException")
    body = queued(recent_game("g-later", "alice", "bob"))

    first, _ = run(games_queue, stack, [body])
    wiring.reset()  # a new container: the throttling is over
    (again,) = wait_for_messages(stack.sqs, stack.games_url)
    record = {"messageId": again["MessageId"], "body": again["Body"]}
    record["messageAttributes"] = {"requeues": {"stringValue": "1", "dataType": "Number"}}
    second = games_queue.lambda_handler(
        {"Records": [record]}, LambdaContext(function_name="games-queue")
    )

    assert first == second == {"batchItemFailures": []}
    assert wiring.service().get_game("backgammon", "g-later")["game_id"] == "g-later"
    assert queue_depth(stack.sqs, stack.games_url) == 0


def test_a_game_sent_back_again_waits_longer(games_queue: ModuleType, stack: Stack) -> None:
    stack.dynamo_faults().fail("TransactWriteItems", "ThrottlingException")
    event = sqs_event(stack.games_arn, [queued(recent_game("g-again", "alice", "bob"))])
    event["Records"][0]["messageAttributes"] = {
        "requeues": {"stringValue": "3", "dataType": "Number"}
    }
    sent: list[dict[str, Any]] = []
    wiring.sqs_client().meta.events.register(
        "provide-client-params.sqs.SendMessage", lambda params, **_: sent.append(dict(params))
    )

    answer = games_queue.lambda_handler(event, LambdaContext(function_name="games-queue"))

    assert answer == {"batchItemFailures": []}
    (copy,) = sent
    assert copy["MessageAttributes"]["requeues"]["StringValue"] == "4"
    assert 20 <= copy["DelaySeconds"] <= 40  # 5 s doubled three times, jittered down to half


def test_when_sending_back_fails_too_every_record_is_a_batch_item_failure(
    games_queue: ModuleType, stack: Stack
) -> None:
    stack.dynamo_faults().fail("BatchGetItem", "InternalServerError")
    refused = fail_sends(wiring.sqs_client())
    bodies = [queued(recent_game(f"g-down-{n}", f"a{n}", f"b{n}")) for n in range(2)]

    answer, event = run(games_queue, stack, bodies)

    # Still a partial response: SQS delivers both again after their visibility timeout.
    assert failed_ids(answer) == {record["messageId"] for record in event["Records"]}
    assert refused == [stack.games_url] * 2
    assert dead_letters(stack) == {}


def test_an_unexpected_error_is_retried_not_dead_lettered(
    games_queue: ModuleType, stack: Stack, logs: io.StringIO
) -> None:
    stack.dynamo_faults().fail("BatchGetItem", "ValidationException")

    answer, event = run(games_queue, stack, [queued(recent_game("g-bug"))])

    assert failed_ids(answer) == {event["Records"][0]["messageId"]}
    assert dead_letters(stack) == {}
    assert any(
        "ValidationException" in line.get("exception", "") for line in json_lines(logs.getvalue())
    )


def test_an_unranked_game_from_the_queue(
    games_queue: ModuleType, stack: Stack, capsys: pytest.CaptureFixture[str]
) -> None:
    body = recent_game("g-net", "alice", "bob")
    for player in body["players"]:
        player["network"] = "shared-wifi"

    answer, _ = run(games_queue, stack, [queued(body)])

    assert answer == {"batchItemFailures": []}
    assert wiring.service().get_game("backgammon", "g-net")["unranked_reason"] == "shared_network"
    assert metric_values(capsys.readouterr().out) == {"GamesUnranked[reason=shared_network]": 1}
