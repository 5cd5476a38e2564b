"""Every AWS call ends inside the function's timeout. pynamodb's defaults (15 s to connect,
30 s to read, 3 retries) and botocore's for SQS would outlast the Api's 10 s, so a slow store
killed the invocation and API Gateway answered a bare 5xx. The timeouts now come from the
template's Timeout (RATINGS_FUNCTION_TIMEOUT, `ratings.budgets`), and an attempt that could
not end before the invocation's deadline is not started: the answer is a 503 with
Retry-After, or the message goes back to its queue.

A store that hangs is a server that accepts connections and never answers.
"""

import json
import time
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest
from support.faults import silent_endpoint
from support.games import recent_game
from support.handlers import LambdaContext, Stack, assert_retry_later, timed_game_post
from support.lambda_events import sqs_event
from support.queues import wait_for_messages
from support.template import parsed_template

from ratings import budgets, wiring
from ratings.lambda_support import invocation

pytestmark = [
    pytest.mark.filterwarnings("ignore:No application metrics:UserWarning"),
    # The table behind the hanging endpoint stands for either engine: one run is enough.
    pytest.mark.parametrize("table_engine", ["moto"], indirect=True),
]


def template_timeout(function: str) -> int:
    properties = parsed_template()["Resources"][function]["Properties"]
    timeout: int = properties.get("Timeout", parsed_template()["Globals"]["Function"]["Timeout"])
    return timeout


@pytest.fixture
def hanging_store(stack: Stack, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The functions' table behind an endpoint that never answers (SQS stays on moto)."""
    with silent_endpoint() as url:
        monkeypatch.setenv("AWS_ENDPOINT_URL_DYNAMODB", url)
        wiring.reset()  # a new container, whose table client meets the hanging store
        wiring.service()  # warm: the time under test goes to the calls, not to the clients
        yield url


def test_the_clients_timeouts_are_cut_from_the_template_timeout(stack: Stack) -> None:
    told = parsed_template()["Globals"]["Function"]["Environment"]["Variables"]
    timeouts = budgets.call_timeouts(float(told["RATINGS_FUNCTION_TIMEOUT"]))
    table: Any = wiring.storage().connection.client.meta.config
    sqs: Any = wiring.sqs_client().meta.config

    assert wiring.config().function_timeout == template_timeout("ApiFunction") == 10
    assert (table.connect_timeout, table.read_timeout) == (0.5, 1.5)
    assert table.retries == {"total_max_attempts": 2, "mode": "standard"}
    assert (sqs.connect_timeout, sqs.read_timeout) == (0.5, 2.0)  # room for a 1 s long poll
    assert sqs.retries == {"total_max_attempts": 2, "mode": "standard"}
    # One call and its retry, at the worst: half the Api's time, not the defaults' 3 minutes.
    assert timeouts.call_seconds == 5.0 <= template_timeout("ApiFunction") / 2


def test_a_store_that_hangs_is_a_503_with_retry_after_inside_the_api_timeout(
    functions: dict[str, ModuleType], hanging_store: str
) -> None:
    timeout = template_timeout("ApiFunction")
    context = LambdaContext("api", timeout, remaining_millis=timeout * 1000)

    answer, seconds = timed_game_post(functions["api"], "g-hang", context)

    assert_retry_later(answer)
    # Each read timed out twice (1.5 s each, one retry), the service tried again while its
    # 4 s budget lasted, and no attempt began that could not end in time: an answer in time.
    assert 3.0 <= seconds < timeout - invocation.MARGIN_SECONDS


def test_an_attempt_that_could_not_end_in_time_is_not_started(
    functions: dict[str, ModuleType], hanging_store: str
) -> None:
    # 2.8 s left, 0.5 s of which the answer keeps: the first attempt may take its 2 s (and
    # times out after 1.5), the retry could not end in time and is refused.
    context = LambdaContext("api", 10, remaining_millis=2_800)

    answer, seconds = timed_game_post(functions["api"], "g-late", context)

    assert_retry_later(answer)
    assert 1.5 <= seconds < 2.8 - invocation.MARGIN_SECONDS


def test_a_game_from_the_queue_meeting_a_hanging_store_goes_back_to_the_queue_in_time(
    functions: dict[str, ModuleType], stack: Stack, hanging_store: str
) -> None:
    timeout = template_timeout("GamesQueueFunction")
    body = json.dumps({**recent_game("g-hang-q"), "ladder": "backgammon"})
    context = LambdaContext("games-queue", timeout, remaining_millis=timeout * 1000)
    started = time.monotonic()

    answer = functions["games_queue"].lambda_handler(sqs_event(stack.games_arn, [body]), context)

    assert time.monotonic() - started < timeout - invocation.MARGIN_SECONDS
    assert answer == {"batchItemFailures": []}
    (again,) = wait_for_messages(stack.sqs, stack.games_url)
    assert again["Body"] == body


def test_the_guard_refuses_before_sending_when_time_is_short(hanging_store: str) -> None:
    client: Any = wiring.storage().connection.client
    attempt = wiring.call_timeouts(wiring.config()).attempt_seconds
    # Less than one attempt's time once the margin is kept.
    context = LambdaContext("api", 10, remaining_millis=int((attempt + 0.4) * 1000))
    started = time.monotonic()

    with invocation.deadline(context), pytest.raises(invocation.OutOfTime):
        client.describe_table(TableName="any")

    assert time.monotonic() - started < 0.2  # refused at once, no connection waited on
    assert invocation.time_left() == float("inf")  # outside an invocation, no deadline
