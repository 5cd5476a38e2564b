"""The handlers' shared pieces without AWS: the error mapping, body reading, log keys."""

import json
from typing import Any

import pytest
from botocore.exceptions import ClientError, EndpointConnectionError, ReadTimeoutError
from pynamodb.exceptions import GetError, PutError, QueryError, VerboseClientError

from ratings.declare.kinds import parse_json
from ratings.errors import is_transient
from ratings.lambda_support import invocation
from ratings.lambda_support.problems import (
    MAX_BODY_BYTES,
    STATUS,
    PayloadTooLarge,
    Problem,
    problem_for,
)
from ratings.lambda_support.queues import body_size, queued_game
from ratings.lambda_support.rest import refuse_request_body
from ratings.service.errors import (
    AlreadyLinked,
    Disposition,
    GameConflict,
    InvalidCursor,
    InvalidInput,
    NotFound,
    NotRanked,
    PlayerStorageFull,
    RetryLater,
    TournamentConflict,
    TransientStorageError,
    WriteConflict,
)
from ratings.storage.dynamodb.table import FULL_COLLECTION_CODE, transient_as_storage_error


def client_error(code: str, status: int = 400) -> ClientError:
    response: Any = {
        "Error": {"Code": code, "Message": code},
        "ResponseMetadata": {"HTTPStatusCode": status},
    }
    return ClientError(response, "TransactWriteItems")


@pytest.mark.parametrize(
    ("error", "status", "code"),
    [
        (InvalidInput("cube", "cube must be 1, 2, 4, ..."), 400, "invalid_request"),
        (InvalidCursor(), 400, "invalid_cursor"),
        (NotFound("ladder 'chess' does not exist"), 404, "not_found"),
        (NotRanked("player 'p' has no ranked games"), 404, "not_ranked"),
        (GameConflict("game_id 'g-1' was already used"), 409, "game_conflict"),
        (TournamentConflict("tournament_id 't-1' was already awarded"), 409, "tournament_conflict"),
        (AlreadyLinked("anonymous_id 'a' is already linked"), 409, "already_linked"),
        (PayloadTooLarge(MAX_BODY_BYTES + 1), 413, "payload_too_large"),
        (RetryLater("could not be stored after 8 attempts"), 503, "retry_later"),
        (TransientStorageError("throttled"), 503, "retry_later"),
        (WriteConflict("P#backgammon#alice"), 503, "retry_later"),
        (client_error("ThrottlingException"), 503, "retry_later"),
        (client_error("InternalServerError", 500), 503, "retry_later"),
        (EndpointConnectionError(endpoint_url="https://dynamodb"), 503, "retry_later"),
        (ReadTimeoutError(endpoint_url="https://dynamodb"), 503, "retry_later"),
        (KeyError("a bug"), 500, "internal_error"),
    ],
)
def test_every_error_has_one_answer(error: Exception, status: int, code: str) -> None:
    problem = problem_for(error)

    assert problem is not None
    assert (problem.status, problem.code) == (status, code)
    assert problem.message
    assert problem.retryable is (status == 503)
    assert problem.status == STATUS[problem.disposition] or problem.status == 413
    assert problem.body() == {"error": {"code": code, "message": problem.message}}


def test_domain_messages_are_passed_on_verbatim() -> None:
    problem = problem_for(InvalidInput("players[1].id", "players[1].id must differ"))

    assert problem == Problem(
        400, "invalid_request", "players[1].id must differ", Disposition.REFUSED
    )


def test_a_wrapped_throttle_is_transient_but_a_wrapped_bug_is_not() -> None:
    throttled = QueryError("Failed to query items", client_error("ThrottlingException"))
    as_pynamodb_raises = VerboseClientError(
        {"Error": {"Code": "ThrottlingException", "Message": "Rate exceeded"}}, "Query", {}
    )
    invalid = GetError("Failed to get item", client_error("ValidationException"))

    assert is_transient(throttled)
    assert is_transient(QueryError("Failed to query items", as_pynamodb_raises))
    assert problem_for(invalid).disposition is Disposition.BUG
    assert problem_for(KeyError("bug")).disposition is Disposition.BUG


def test_an_error_raised_while_handling_a_throttle_is_still_a_bug() -> None:
    def handle() -> None:
        try:
            raise client_error("ThrottlingException")
        except ClientError:
            raise KeyError("a bug in an except block") from None

    with pytest.raises(KeyError) as raised:
        handle()

    assert raised.value.__context__ is not None
    assert problem_for(raised.value).disposition is Disposition.BUG


def test_only_a_service_error_answers_with_its_own_code() -> None:
    class LooksLikeOne(Exception):
        code = "not_found"
        disposition = Disposition.RETRY_LATER

    assert problem_for(LooksLikeOne("not ours")).disposition is Disposition.BUG
    assert not is_transient(LooksLikeOne("not ours"))
    assert is_transient(WriteConflict("P#backgammon#alice"))


@pytest.mark.parametrize(
    ("cause", "raised"),
    [
        (EndpointConnectionError(endpoint_url="https://dynamodb"), TransientStorageError),
        (ReadTimeoutError(endpoint_url="https://dynamodb"), TransientStorageError),
        (client_error("ProvisionedThroughputExceededException"), TransientStorageError),
        (client_error("InternalServerError", 500), TransientStorageError),
        (client_error(FULL_COLLECTION_CODE), PlayerStorageFull),
        (client_error("ValidationException"), PutError),
    ],
)
def test_the_storage_adapter_reads_a_failed_request_with_the_same_is_transient(
    cause: Exception, raised: type[Exception]
) -> None:
    def put() -> None:
        try:
            raise cause
        except Exception as error:
            raise PutError("Failed to put item", error)  # noqa: B904 (as pynamodb: .cause only)

    with pytest.raises(raised), transient_as_storage_error():
        put()


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("{", "not valid JSON"),
        ("Infinity", "not valid JSON"),
        # Past the decoder's limit on 3.13, whose C decoder nests deeper than 3.11's did.
        ("[" * 30_000, "too deeply"),
        ("1" * 5000, "not valid JSON"),
        (b"\xff", "not valid JSON"),
    ],
)
def test_parse_json_refuses_what_is_not_strict_json(text: str | bytes, words: str) -> None:
    with pytest.raises(InvalidInput) as raised:
        parse_json(text, "message body")

    assert raised.value.field == "message body"
    assert words in raised.value.message


def test_queued_game_splits_the_ladder_off() -> None:
    ladder, body = queued_game(json.dumps({"ladder": "sedma", "game_id": "g-1"}))

    assert (ladder, body) == ("sedma", {"game_id": "g-1"})
    with pytest.raises(InvalidInput) as raised:
        queued_game(json.dumps({"ladder": 7}))
    assert raised.value.field == "ladder"


def test_body_size_counts_utf8_bytes() -> None:
    assert body_size("abc") == 3
    big = "é" * (MAX_BODY_BYTES // 2 + 1)
    assert body_size(big) == len(big.encode()) > MAX_BODY_BYTES


def test_a_large_body_is_refused_on_any_method() -> None:
    event = {"httpMethod": "GET", "body": "x" * (MAX_BODY_BYTES + 1), "headers": {}}

    problem = refuse_request_body(event)

    assert problem is not None
    assert problem.status == 413


def test_a_body_with_a_json_content_type_and_charset_is_accepted() -> None:
    event = {
        "httpMethod": "POST",
        "body": "{}",
        "headers": {"content-type": "application/json; charset=utf-8"},
    }

    assert refuse_request_body(event) is None


@pytest.mark.parametrize(
    ("value", "logged"),
    [("g-000123", "g-000123"), ("a" * 128, "a" * 128), ("a" * 129, None), ("x y", None),
     ("", None), (42, None), (None, None), ("g\nforged", None)],
)  # fmt: skip
def test_only_well_formed_ids_reach_the_log_keys(value: object, logged: str | None) -> None:
    assert invocation.loggable_id(value) == logged
