"""Dead letters are always sendable: their reason attributes may quote what a hostile sender
wrote (a field name), and SQS refuses a whole message whose attribute values hold a character
outside XML's (a NUL, a lone surrogate, U+FFFE) or whose size is over its limit. A refused
dead letter would leave the message for a retry, again and again until its receives ran out.

moto takes such attributes, so the function's SQS client here answers as SQS does
(`support.queues.enforce_sqs_rules`, from the rules SQS documents).
"""

import json
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.games import recent_game
from support.handlers import LambdaContext, Stack
from support.lambda_events import sqs_event
from support.queues import (
    SQS_MAX_MESSAGE_BYTES,
    enforce_sqs_rules,
    peek_messages,
    sqs_refusal,
)

from ratings import wiring
from ratings.lambda_support.problems import Problem
from ratings.lambda_support.queues import dead_letter_attributes
from ratings.service.errors import Disposition

pytestmark = pytest.mark.filterwarnings("ignore:No application metrics:UserWarning")

#: Field names a hostile game body can carry, and how each reads in the `field` attribute.
HOSTILE_FIELDS = {
    "nul": ("\u0000", "players[0].\\u0000"),
    "lone-surrogate": ("\ud800", "players[0].\\ud800"),
    "noncharacters": ("\ufffe\uffff", "players[0].\\ufffe\\uffff"),
    "escape-sequence": ("\x1b[31mred", "players[0].\\u001b[31mred"),
    "bell-and-backspace": ("a\x07\x08b", "players[0].a\\u0007\\u0008b"),
}


def hostile_game(field_name: str) -> str:
    body = recent_game("g-hostile", "alice", "bob")
    body["players"][0][field_name] = 1
    return json.dumps({**body, "ladder": "backgammon"})  # JSON escapes: SQS takes the text


def settle(games_queue: ModuleType, stack: Stack, bodies: list[str]) -> dict[str, Any]:
    answer: dict[str, Any] = games_queue.lambda_handler(
        sqs_event(stack.games_arn, bodies), LambdaContext(function_name="games-queue")
    )
    return answer


def dead_letters(stack: Stack) -> list[dict[str, Any]]:
    return list(peek_messages(stack.sqs, stack.games_dlq_url))


def values(message: dict[str, Any]) -> dict[str, str]:
    return {name: value["StringValue"] for name, value in message["MessageAttributes"].items()}


@pytest.mark.parametrize("case", list(HOSTILE_FIELDS), ids=list(HOSTILE_FIELDS))
def test_a_field_name_sqs_would_refuse_is_dead_lettered_with_it_escaped(
    games_queue: ModuleType, stack: Stack, case: str
) -> None:
    refused = enforce_sqs_rules(wiring.sqs_client())
    field_name, shown = HOSTILE_FIELDS[case]

    answer = settle(games_queue, stack, [hostile_game(field_name)])

    assert answer == {"batchItemFailures": []}  # settled at once, never retried
    assert refused == []
    (letter,) = dead_letters(stack)
    attributes = values(letter)
    assert attributes["reason"] == "invalid_request"
    assert attributes["field"] == shown
    assert shown in attributes["reason_message"]
    assert json.loads(letter["Body"])["game_id"] == "g-hostile"  # the body as it came


def test_a_field_name_as_long_as_a_body_allows_is_cut_in_its_attribute(
    games_queue: ModuleType, stack: Stack
) -> None:
    refused = enforce_sqs_rules(wiring.sqs_client())

    answer = settle(games_queue, stack, [hostile_game("f" * 60_000)])

    assert answer == {"batchItemFailures": []}
    assert refused == []
    (letter,) = dead_letters(stack)
    attributes = values(letter)
    assert attributes["field"].startswith("players[0].fff")
    assert len(attributes["field"]) <= 256
    assert len(attributes["reason_message"]) <= 1000


def test_a_message_at_sqs_size_limit_is_dead_lettered_with_what_still_fits(
    games_queue: ModuleType, stack: Stack
) -> None:
    refused = enforce_sqs_rules(wiring.sqs_client())
    # As large as SQS delivers (the queue's limit), so over our 64 KiB: payload_too_large.
    padding = SQS_MAX_MESSAGE_BYTES - len(json.dumps({"ladder": "backgammon", "pad": ""})) - 40
    body = json.dumps({"ladder": "backgammon", "pad": "x" * padding})

    answer = settle(games_queue, stack, [body])

    assert answer == {"batchItemFailures": []}
    assert refused == []
    (letter,) = dead_letters(stack)
    assert letter["Body"] == body
    assert values(letter) == {"reason": "payload_too_large"}  # only the reason had room


# The attributes on their own, for any text a problem or a field can hold -----------------

SQS_TEXT = st.text(
    st.characters(blacklist_categories=["Cs"], blacklist_characters="\ufffe\uffff")
).filter(lambda text: all(char in "\t\n\r" or ord(char) >= 0x20 for char in text))


@settings(max_examples=300, deadline=None)
@given(
    body=SQS_TEXT.filter(bool),
    padding=st.integers(0, SQS_MAX_MESSAGE_BYTES),
    code=st.sampled_from(["invalid_request", "game_conflict", "payload_too_large"]),
    message=st.text(),
    field=st.none() | st.text(),
    source_message_id=st.uuids().map(str),
)
def test_dead_letter_attributes_are_always_sendable_with_their_body(
    body: str,
    padding: int,
    code: str,
    message: str,
    field: str | None,
    source_message_id: str,
) -> None:
    # A body SQS delivered: sendable itself, of any size up to SQS's limit.
    body = (body + "p" * padding).encode()[:SQS_MAX_MESSAGE_BYTES].decode("utf-8", "ignore")

    attributes = dead_letter_attributes(
        body,
        Problem(400, code, message, Disposition.REFUSED),
        source_message_id=source_message_id,
        field=field,
    )

    assert sqs_refusal(body, attributes) is None
    room = SQS_MAX_MESSAGE_BYTES - len(body.encode())
    if room >= len("reason") + len("String") + len(code):
        assert attributes["reason"]["StringValue"] == code


def test_the_rules_checker_refuses_what_sqs_documents_it_refuses() -> None:
    """The fake above is only as good as its rules: each refusal SQS documents is one here."""
    ok = {"DataType": "String", "StringValue": "v"}
    assert sqs_refusal("body", {"reason": ok}) is None
    assert sqs_refusal("a\u0000b", {}) is not None
    assert sqs_refusal("body", {"reason": {"DataType": "String", "StringValue": "\ud800"}})
    assert sqs_refusal("body", {"reason": {"DataType": "String", "StringValue": "\ufffe"}})
    assert sqs_refusal("body", {"reason": {"DataType": "String", "StringValue": ""}})
    for name in ("AWS.x", "amazon.x", ".x", "x.", "a..b", "a b", "f" * 257, ""):
        assert sqs_refusal("body", {name: ok}) is not None, name
    assert sqs_refusal("body", {f"a{n}": ok for n in range(11)}) is not None
    assert sqs_refusal("x" * (SQS_MAX_MESSAGE_BYTES - 7), {"n": ok}) is not None  # 1 byte over
    assert sqs_refusal("x" * (SQS_MAX_MESSAGE_BYTES - 8), {"n": ok}) is None  # "n" "String" "v"
    assert sqs_refusal("x" * (SQS_MAX_MESSAGE_BYTES - 8), {}) is None
