"""DynamoDB's limits as the functions meet them, injected at the table's client (no engine here
throttles a BatchGetItem or fills a partition to 10 GB):

- a BatchGetItem whose keys stay unprocessed is sent again with backoff until the invocation's
  deadline is near, then answered as throttling is: 503 retry_later, or back to the queue;
- a player who has had the day's most games (the limit that keeps a partition well under the
  size limit) is a 429 player_daily_limit, or a dead letter with that reason;
- a write into a player's partition at its size limit (ItemCollectionSizeLimitExceeded) is a
  clear 507 player_storage_full, or a dead letter with that reason at once, never a 500 or a
  retry.
"""

import io
import json
from datetime import UTC, datetime, timedelta
from types import ModuleType
from typing import Any

import pytest
from support.faults import mentions
from support.games import recent_game
from support.handlers import (
    Api,
    LambdaContext,
    Stack,
    assert_retry_later,
    json_lines,
    timed_game_post,
)
from support.lambda_events import sqs_event
from support.queues import peek_messages, wait_for_messages
from support.template import parsed_template

from ratings import wiring
from ratings.lambda_support import invocation
from ratings.service.facade import daily_game_limit
from ratings.service.player import Player
from ratings.service.stored import StoredGame

pytestmark = pytest.mark.filterwarnings("ignore:No application metrics:UserWarning")

GAMES = "/v1/ladders/backgammon/games"
#: The items of a ranked game's transaction as sent: the game, two states, two events.
FULL_AT_AN_EVENT = ["None", "None", "None", "ItemCollectionSizeLimitExceeded", "None"]


def full_partition(stack: Stack) -> Any:
    faults = stack.dynamo_faults()
    faults.fail(
        "TransactWriteItems",
        "TransactionCanceledException",
        cancellation_reasons=FULL_AT_AN_EVENT,
        when=mentions("g-full"),
    )
    return faults


def queued(game_body: dict[str, Any]) -> str:
    return json.dumps({**game_body, "ladder": "backgammon"})


# UnprocessedKeys ----------------------------------------------------------------------------


def test_keys_left_unprocessed_until_the_deadline_are_a_503_in_time(
    functions: dict[str, ModuleType], stack: Stack
) -> None:
    faults = stack.dynamo_faults()
    faults.unprocessed()
    # 4 s left: 3.5 s once the margin is kept, 2 s of which one attempt may take.
    context = LambdaContext("api", 10, remaining_millis=4_000)

    answer, seconds = timed_game_post(functions["api"], "g-unread", context)

    assert_retry_later(answer)
    # Sent again after waits (50 ms doubling, jittered down to half: at most 6 fit in the
    # 1.5 s), not at once, and stopped in time.
    assert 3 <= len(faults.injected) <= 7
    assert 0.2 < seconds < 4.0 - invocation.MARGIN_SECONDS


def test_a_queued_game_whose_keys_stay_unprocessed_goes_back_to_the_queue(
    functions: dict[str, ModuleType], stack: Stack
) -> None:
    faults = stack.dynamo_faults()
    faults.unprocessed()
    body = queued(recent_game("g-unread-q"))
    # The consumer keeps 5 s for settling: 3.5 s left for the table, as for the Api above.
    context = LambdaContext("games-queue", 60, remaining_millis=9_000)

    answer = functions["games_queue"].lambda_handler(sqs_event(stack.games_arn, [body]), context)

    assert answer == {"batchItemFailures": []}
    assert len(faults.injected) >= 3
    (again,) = wait_for_messages(stack.sqs, stack.games_url)
    assert again["Body"] == body
    assert list(peek_messages(stack.sqs, stack.games_dlq_url)) == []


# The daily game limit ------------------------------------------------------------------------


def at_the_daily_limit(player_id: str) -> None:
    """Store `player_id`'s state as having had the day's most games (today, UTC)."""
    now = datetime.now(UTC)
    limit = daily_game_limit(timedelta(days=wiring.config().retention_days))
    state = Player("backgammon", player_id, 1500, 0, version=1)
    state = state._replace(games_day=now.date().isoformat(), games_that_day=limit)
    record = StoredGame("backgammon", f"seed-{player_id}", "seed", {}, now + timedelta(days=30))
    wiring.storage().unit_of_work().commit_game(record, [state], [])


def test_a_game_past_the_daily_limit_is_a_429(api: Api) -> None:
    at_the_daily_limit("busy")

    reply = api("POST", GAMES, body=recent_game("g-busy", "calm", "busy"))

    assert reply.status == 429, reply.body
    assert reply.error["code"] == "player_daily_limit"
    assert "players[1]" in reply.error["message"]
    assert "00:00 UTC" in reply.error["message"]
    assert api("GET", f"{GAMES}/g-busy").status == 404
    assert api("POST", GAMES, body=recent_game("g-calm", "calm", "other")).status == 201


def test_a_queued_game_past_the_daily_limit_is_dead_lettered_with_its_reason(
    functions: dict[str, ModuleType], stack: Stack
) -> None:
    at_the_daily_limit("busy")
    body = queued(recent_game("g-busy-q", "busy", "calm"))

    answer = functions["games_queue"].lambda_handler(
        sqs_event(stack.games_arn, [body]), LambdaContext("games-queue")
    )

    assert answer == {"batchItemFailures": []}
    (letter,) = peek_messages(stack.sqs, stack.games_dlq_url)
    assert letter["Body"] == body
    assert letter["MessageAttributes"]["reason"]["StringValue"] == "player_daily_limit"
    assert list(peek_messages(stack.sqs, stack.games_url)) == []


# ItemCollectionSizeLimitExceeded -----------------------------------------------------------


def test_a_full_partition_is_a_507_not_retried(api: Api, stack: Stack, logs: io.StringIO) -> None:
    faults = full_partition(stack)

    reply = api("POST", GAMES, body=recent_game("g-full", "alice", "bob"))

    assert reply.status == 507, reply.body
    assert reply.error["code"] == "player_storage_full"
    assert "size limit" in reply.error["message"]
    assert "Retry-After" not in reply.headers
    assert faults.injected == ["TransactWriteItems"]  # refused at once: no retry
    assert api("GET", f"{GAMES}/g-full").status == 404
    assert api("GET", "/v1/ladders/backgammon/players/alice").body["ranked_games"] == 0
    logged = [line for line in json_lines(logs.getvalue()) if line.get("level") == "ERROR"]
    assert [line.get("reason") for line in logged] == ["player_storage_full"]
    # The players' other games are not held up.
    assert api("POST", GAMES, body=recent_game("g-other", "alice", "bob")).status == 201


def test_a_queued_game_meeting_a_full_partition_is_dead_lettered_with_its_reason(
    functions: dict[str, ModuleType], stack: Stack
) -> None:
    faults = full_partition(stack)
    body = queued(recent_game("g-full", "alice", "bob"))
    event = sqs_event(stack.games_arn, [body])

    answer = functions["games_queue"].lambda_handler(event, LambdaContext("games-queue"))

    assert answer == {"batchItemFailures": []}
    assert faults.injected == ["TransactWriteItems"]
    (letter,) = peek_messages(stack.sqs, stack.games_dlq_url)
    attributes = {name: value["StringValue"] for name, value in letter["MessageAttributes"].items()}
    assert letter["Body"] == body
    assert attributes["reason"] == "player_storage_full"
    assert "size limit" in attributes["reason_message"]
    assert attributes["source_message_id"] == event["Records"][0]["messageId"]
    assert list(peek_messages(stack.sqs, stack.games_url)) == []  # not sent back for a retry


def test_a_dead_lettered_game_raises_the_games_dead_letter_alarm() -> None:
    # What reaches the games DLQ, player_storage_full included, sets off this alarm.
    alarm = parsed_template()["Resources"]["GamesDeadLetterAlarm"]["Properties"]
    (dimension,) = alarm["Dimensions"]
    assert dimension["Value"] == {"Fn::GetAtt": ["GamesDeadLetterQueue", "QueueName"]}
    assert alarm["MetricName"] == "ApproximateNumberOfMessagesVisible"
    assert alarm["Threshold"] == 1
    assert alarm["ComparisonOperator"] == "GreaterThanOrEqualToThreshold"
    assert alarm["AlarmActions"]
