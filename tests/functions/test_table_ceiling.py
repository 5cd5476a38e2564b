"""The table's on-demand maximum (TableMaxReadRequestUnits, TableMaxWriteRequestUnits) reached:
DynamoDB throttles what goes beyond it, with ThrottlingException or
ProvisionedThroughputExceededException (the reason MaxOnDemandThroughputExceeded). No engine
here enforces a maximum, so the errors are injected: over HTTP the caller is answered 503
retry_later, and a game from the queue goes back to it to be rated later, never to the DLQ.

On moto only: the errors are injected into the client, before any engine sees the request."""

import json
from types import ModuleType

import pytest
from support.games import recent_game
from support.handlers import Api, LambdaContext, Stack
from support.lambda_events import sqs_event
from support.queues import peek_messages, wait_for_messages

pytestmark = [
    pytest.mark.filterwarnings("ignore:No application metrics:UserWarning"),
    pytest.mark.parametrize("table_engine", ["moto"], indirect=True),
]

THROTTLES = ("ThrottlingException", "ProvisionedThroughputExceededException")
READS = ("GetItem", "BatchGetItem", "Query")


@pytest.mark.parametrize("code", THROTTLES)
def test_a_write_over_the_ceiling_is_answered_503_retry_later(
    api: Api, stack: Stack, code: str
) -> None:
    stack.dynamo_faults().fail("TransactWriteItems", code)

    reply = api("POST", "/v1/ladders/backgammon/games", body=recent_game("g-ceiling"))

    assert reply.status == 503
    assert reply.error["code"] == "retry_later"
    assert reply.headers["Retry-After"] == "1"


@pytest.mark.parametrize("code", THROTTLES)
def test_a_read_over_the_ceiling_is_answered_503_retry_later(
    api: Api, stack: Stack, code: str
) -> None:
    faults = stack.dynamo_faults()
    for operation in READS:
        faults.fail(operation, code)

    reply = api("GET", "/v1/ladders/backgammon/players/alice")

    assert faults.injected
    assert reply.status == 503
    assert reply.error["code"] == "retry_later"


@pytest.mark.parametrize("code", THROTTLES)
def test_a_queued_game_over_the_ceiling_goes_back_to_its_queue(
    games_queue: ModuleType, stack: Stack, code: str
) -> None:
    stack.dynamo_faults().fail("TransactWriteItems", code)
    event = sqs_event(
        stack.games_arn,
        [json.dumps({**recent_game("g-ceiling", "alice", "bob"), "ladder": "backgammon"})],
    )

    answer = games_queue.lambda_handler(event, LambdaContext(function_name="games-queue"))

    assert answer == {"batchItemFailures": []}  # settled: a copy waits in the queue
    (again,) = wait_for_messages(stack.sqs, stack.games_url)
    assert '"g-ceiling"' in again["Body"]
    assert list(peek_messages(stack.sqs, stack.games_dlq_url)) == []
