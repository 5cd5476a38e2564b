"""Hostile games queue messages: arbitrary text and JSON, and games with one field replaced by
arbitrary JSON, through the GamesQueue function of the local stack (SQS events, as Lambda's
event source mapping builds them).

Whatever the body: no unhandled exception, no record left for a retry (an input problem is
never transient), and each record either stored (readable over HTTP) or in the games DLQ with
its body and a reason.
"""

import json
import uuid
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from support.games import game
from support.http import send
from support.stack import fuzz_settings, sqs_client

from ratings_local.stack import LocalStack, sqs_record

pytestmark = [
    pytest.mark.xdist_group("local_stack"),
    pytest.mark.filterwarnings("ignore:No application metrics:UserWarning"),
]

#: Batches (of 1 to 10 messages) generated.
EXAMPLES = 60
#: The reasons of messages that can never succeed (problems.py codes of 4xx answers).
POISON_REASONS = {"invalid_request", "not_found", "game_conflict", "payload_too_large"}

json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=10**300, max_value=10**400)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=40),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=4)
    ),
    max_leaves=10,
)
game_fields = st.sampled_from(
    ["game_id", "played_at", "players", "winner", "mode", "cube", "ending", "points", "ladder"]
)


@st.composite
def near_games(draw: st.DrawFn) -> str:
    """A valid game message with one field replaced by anything (or a player's field)."""
    body: dict[str, Any] = {**game(), "ladder": draw(st.sampled_from(["backgammon", "classic"]))}
    if draw(st.booleans()):
        body[draw(game_fields)] = draw(json_values)
    else:
        player = body["players"][draw(st.integers(0, 1))]
        player[draw(st.sampled_from(["id", "network", "bot", "stats", "rating"]))] = draw(
            json_values
        )
    return json.dumps(body)


valid_games = st.sampled_from(["backgammon", "classic"]).map(
    lambda ladder: json.dumps({**game(), "ladder": ladder})
)
bodies = st.one_of(
    valid_games,
    st.text(max_size=200),
    json_values.map(json.dumps),
    near_games(),
    st.sampled_from(
        [
            "",
            "[" * 10_000 + "]" * 10_000,
            '{"ladder": "backgammon", "cube": NaN}',
            '{"ladder": "backgammon", "cube": 1e400}',
            '{"ladder": "backgammon", "cube": ' + "1" * 5000 + "}",
            '"\\ud800"',
        ]
    ),
)


@pytest.fixture(scope="module")
def sqs(stack: LocalStack) -> Any:
    return sqs_client(stack)


def invoke(stack: LocalStack, messages: list[str]) -> tuple[dict[str, Any], list[str]]:
    """Invoke GamesQueue with one record per body; the answer and the records' ids."""
    assert stack.resources is not None
    queue_arn = stack.resources.queue_arns["GamesQueue"]
    ids = [str(uuid.uuid4()) for _ in messages]
    records = [
        sqs_record(
            {"MessageId": message_id, "ReceiptHandle": f"handle-{message_id}", "Body": body},
            queue_arn,
            stack.options.region,
        )
        for message_id, body in zip(ids, messages, strict=True)
    ]
    answer = stack.functions["GamesQueueFunction"].invoke({"Records": records})
    return answer, ids


def dead_letters(sqs: Any, url: str) -> Iterator[dict[str, Any]]:
    """Every message waiting in the DLQ, deleted as it is read."""
    while True:
        messages = sqs.receive_message(
            QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=0, MessageAttributeNames=["All"]
        ).get("Messages", [])
        if not messages:
            return
        for message in messages:
            sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
            yield message


def assert_each_stored_or_dead_lettered(
    stack: LocalStack, sqs: Any, messages: list[str], ids: list[str]
) -> dict[str, dict[str, str]]:
    dlq = stack.endpoints()["queues"]["games_dlq"]
    found = {}
    for message in dead_letters(sqs, dlq):
        attributes = {
            name: value["StringValue"] for name, value in message["MessageAttributes"].items()
        }
        found[attributes["source_message_id"]] = {"body": message["Body"], **attributes}
    for message_id, body in zip(ids, messages, strict=True):
        letter = found.get(message_id)
        if letter is not None:
            assert letter["body"] == body
            assert letter["reason"] in POISON_REASONS, letter
            assert letter["reason_message"].strip(), letter
            continue
        # Not dead-lettered: then it was a game, and it is stored.
        sent = json.loads(body)
        path = f"/v1/ladders/{sent['ladder']}/games/{sent['game_id']}"
        reply = send(stack.api_url, "GET", path, None)
        assert reply.status == 200, (body[:300], reply.status, reply.raw[:300])
    return found


def test_any_message_is_stored_or_dead_lettered_never_retried(stack: LocalStack, sqs: Any) -> None:
    outcomes: Counter[str] = Counter()

    @fuzz_settings(EXAMPLES)
    @given(messages=st.lists(bodies, min_size=1, max_size=9), repeat=st.booleans())
    def check(messages: list[str], repeat: bool) -> None:
        if repeat:  # a redelivery in the same batch: stored once, then "already stored"
            messages = [*messages, messages[0]]
        answer, ids = invoke(stack, messages)

        assert answer == {"batchItemFailures": []}, (answer, messages)
        found = assert_each_stored_or_dead_lettered(stack, sqs, messages, ids)
        outcomes["dead-lettered"] += len(found)
        outcomes["stored"] += len(messages) - len(found)

    check()
    print(f"\nGamesQueue: {sum(outcomes.values())} messages, {dict(outcomes)}")
    # Not vacuous: some messages were games, most were not.
    assert outcomes["stored"] > 0
    assert outcomes["dead-lettered"] > outcomes["stored"]


def test_a_poison_message_says_which_field(stack: LocalStack, sqs: Any) -> None:
    body = {**game(), "ladder": "backgammon"}
    body["players"][1]["id"] = "b#b"
    messages = [json.dumps(body), "not json", json.dumps({**game()})]

    answer, ids = invoke(stack, messages)

    assert answer == {"batchItemFailures": []}
    found = assert_each_stored_or_dead_lettered(stack, sqs, messages, ids)
    assert found[ids[0]]["field"] == "players[1].id"
    assert "players[1].id" in found[ids[0]]["reason_message"]
    assert found[ids[1]]["reason"] == "invalid_request"
    assert "message body" in found[ids[1]]["reason_message"]
    assert found[ids[2]]["field"] == "ladder"


def test_a_timestamp_out_of_range_is_poison_not_a_retry(stack: LocalStack, sqs: Any) -> None:
    messages = [json.dumps({**game(played_at="0001-01-01T00:00:00+14:00"), "ladder": "classic"})]

    answer, ids = invoke(stack, messages)

    assert answer == {"batchItemFailures": []}
    found = assert_each_stored_or_dead_lettered(stack, sqs, messages, ids)
    assert found[ids[0]]["field"] == "played_at"


def test_a_message_over_64_kib_is_poison(stack: LocalStack, sqs: Any) -> None:
    text = json.dumps({**game(), "ladder": "backgammon"})
    messages = [text + " " * (64 * 1024 + 1 - len(text))]

    answer, ids = invoke(stack, messages)

    assert answer == {"batchItemFailures": []}
    found = assert_each_stored_or_dead_lettered(stack, sqs, messages, ids)
    assert found[ids[0]]["reason"] == "payload_too_large"
