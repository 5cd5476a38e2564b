"""The Api function's error answers: api.md's error body and status for every error, and
never a 500 for anything a caller sends."""

import io
import json
import time
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.faults import mentions
from support.games import recent_game
from support.handlers import Api, LambdaContext, Stack, json_lines
from support.lambda_events import rest_event

from ratings import budgets, wiring
from ratings.lambda_support.problems import MAX_BODY_BYTES

pytestmark = pytest.mark.filterwarnings("ignore:No application metrics:UserWarning")

GAMES = "/v1/ladders/backgammon/games"


def assert_error(reply: Any, status: int, code: str, *words: str) -> None:
    assert reply.status == status, reply.body
    assert reply.headers["Content-Type"] == "application/json"
    assert reply.error["code"] == code
    for word in words:
        assert word in reply.error["message"]


# 400 ------------------------------------------------------------------------------------


def test_invalid_field_names_the_field(api: Api) -> None:
    body = recent_game("s-bad", "ann", "ben")
    body["players"][1]["stats"] = {"bad_moves": -1}

    reply = api("POST", "/v1/ladders/sedma/games", body=body)

    assert_error(reply, 400, "invalid_request", "players[1].stats.bad_moves")


def test_field_of_another_ruleset_is_invalid(api: Api) -> None:
    reply = api("POST", "/v1/ladders/sedma/games", body=recent_game("s-cube", "ann", "ben", cube=2))

    assert_error(reply, 400, "invalid_request", "cube", "not a field of a sedma game")


@pytest.mark.parametrize(
    ("raw_body", "words"),
    [
        ("{bad", ("not valid JSON", "line 1 column 2")),
        ('{"game_id": NaN}', ("not valid JSON",)),
        ('{"cube": ' + "1" * 5000 + "}", ("not valid JSON",)),
        # Past 3.13's decoder limit (about 20,000 levels), still under the 64 KiB body limit.
        ("[" * 30_000 + "]" * 30_000, ("too deeply",)),
        ("[1, 2]", ("body must be a JSON object",)),
        ('"text"', ("body must be a JSON object",)),
        ("null", ("JSON body is required",)),
        ("", ("JSON body is required",)),
    ],
    ids=["syntax", "nan", "huge-int", "deep", "array", "string", "null", "empty"],
)
def test_body_that_is_not_a_json_object(api: Api, raw_body: str, words: tuple[str, ...]) -> None:
    reply = api("POST", GAMES, raw_body=raw_body)

    assert_error(reply, 400, "invalid_request", *words)


@pytest.mark.parametrize(
    "content_type",
    ["text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=x"],
)
def test_body_sent_as_something_else_than_json(api: Api, content_type: str) -> None:
    reply = api("POST", GAMES, raw_body="game_id=g-1", headers={"Content-Type": content_type})

    assert_error(reply, 400, "invalid_request", "Content-Type must be application/json")


def test_body_that_is_not_base64_or_utf8(api: Api) -> None:
    event = rest_event("POST", GAMES, raw_body="not base64!!")
    event["isBase64Encoded"] = True
    broken_utf8 = rest_event("POST", GAMES, raw_body="/w==")  # base64 of the byte 0xff
    broken_utf8["isBase64Encoded"] = True

    for request in (event, broken_utf8):
        answer = api.module.lambda_handler(request, _context())
        assert answer["statusCode"] == 400
        assert json.loads(answer["body"])["error"]["code"] == "invalid_request"


@pytest.mark.parametrize(
    ("sent", "words"),
    [
        (b"\xff\xfe\x00junk", ("JSON",)),
        (
            b'{"game_id": "caf\xe9", "players": [{"id": "a"}, {"id": "b"}], "winner": "a"}',
            ("game_id",),
        ),
        (b'{"game_id": "g-1", "players": [{"id": "\xff"}, {"id": "b"}], "winner": "b"}', ("id",)),
    ],
    ids=["bytes", "latin-1-game-id", "bad-byte-player-id"],
)
def test_a_body_that_was_not_utf8_is_a_400(api: Api, sent: bytes, words: tuple[str, ...]) -> None:
    """Deployed, API Gateway passes such a body as text, each byte that is not UTF-8 replaced
    by U+FFFD (the local gateway does the same): never a valid id, never a 500."""
    reply = api("POST", GAMES, raw_body=sent.decode("utf-8", errors="replace"))

    assert_error(reply, 400, "invalid_request", *words)


@pytest.mark.parametrize(
    ("path", "query", "field"),
    [
        ("/v1/ladders/backgammon/leaderboard", {"limit": "0"}, "limit"),
        ("/v1/ladders/backgammon/leaderboard", {"limit": "many"}, "limit"),
        ("/v1/ladders/backgammon/players/alice/history", {"limit": "101"}, "limit"),
        ("/v1/ladders/backgammon/players/bad!id", {}, "player_id"),
        ("/v1/ladders/backgammon/games/bad!id", {}, "game_id"),
        ("/v1/ladders/backgammon/tournaments/bad!id", {}, "tournament_id"),
    ],
)
def test_invalid_path_or_query_parameter(
    api: Api, path: str, query: dict[str, str], field: str
) -> None:
    reply = api("GET", path, query=query)

    assert_error(reply, 400, "invalid_request", field)


@pytest.mark.parametrize(
    ("path", "cursor"),
    [
        ("/v1/ladders/backgammon/leaderboard", "garbage"),
        ("/v1/ladders/backgammon/players/alice/history", "garbage"),
        ("/v1/ladders/backgammon/players/alice/history", "2026-11-29T12:00:00.000Z#game#g-5"),
        ("/v1/ladders/backgammon/leaderboard", "eyJ4IjoxfQ"),  # base64 of {"x":1}
    ],
)
def test_a_cursor_that_is_no_next_cursor_is_invalid_cursor(
    api: Api, path: str, cursor: str
) -> None:
    reply = api("GET", path, query={"cursor": cursor})

    assert_error(reply, 400, "invalid_cursor", "cursor", "next_cursor")


def test_a_cursor_of_another_listing_is_invalid_cursor(api: Api) -> None:
    for number in range(3):
        api(
            "POST", "/v1/ladders/backgammon/games", body=recent_game(f"g-c{number}", "alice", "bob")
        )
    history = api("GET", "/v1/ladders/backgammon/players/alice/history", query={"limit": "1"})
    board = api("GET", "/v1/ladders/backgammon/leaderboard", query={"limit": "1"})
    alice_cursor, board_cursor = history.body["next_cursor"], board.body["next_cursor"]
    assert alice_cursor is not None
    assert board_cursor is not None
    assert set(alice_cursor) <= set(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
    )  # URL-safe as it stands

    foreign = [
        ("/v1/ladders/backgammon/players/bob/history", alice_cursor),  # another player's
        ("/v1/ladders/classic/players/alice/history", alice_cursor),  # another ladder's
        ("/v1/ladders/classic/leaderboard", board_cursor),
        ("/v1/ladders/backgammon/leaderboard", alice_cursor),  # a history's
        ("/v1/ladders/backgammon/players/alice/history", board_cursor),
    ]
    for path, cursor in foreign:
        assert_error(api("GET", path, query={"cursor": cursor}), 400, "invalid_cursor")
    more = api(
        "GET", "/v1/ladders/backgammon/players/alice/history", query={"cursor": alice_cursor}
    )
    assert more.status == 200
    assert len(more.body["events"]) == 2


def test_link_of_an_id_to_itself(api: Api) -> None:
    body = {"anonymous_id": "same", "account_id": "same"}

    reply = api("POST", "/v1/identities/link", body=body)

    assert_error(reply, 400, "invalid_request", "account_id")


# 404 ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path", "body"),
    [
        ("POST", "/v1/ladders/chess/games", recent_game("g-1")),
        ("POST", "/v1/ladders/chess/preview", recent_game("g-1")),
        ("GET", "/v1/ladders/chess/games/g-1", None),
        ("GET", "/v1/ladders/chess/players/alice", None),
        ("GET", "/v1/ladders/chess/players/alice/history", None),
        ("GET", "/v1/ladders/chess/leaderboard", None),
        ("GET", "/v1/ladders/chess/tournaments/t-1", None),
    ],
)
def test_unknown_ladder(api: Api, method: str, path: str, body: Any) -> None:
    reply = api(method, path, body=body)

    assert_error(reply, 404, "not_found", "chess", "backgammon")


def test_unknown_game_and_tournament(api: Api) -> None:
    assert_error(api("GET", "/v1/ladders/backgammon/games/g-none"), 404, "not_found", "g-none")
    assert_error(
        api("GET", "/v1/ladders/backgammon/tournaments/t-none"), 404, "not_found", "t-none"
    )


@pytest.mark.parametrize(
    ("method", "path"), [("GET", "/v2/ladders"), ("GET", "/"), ("GET", "/swagger")]
)
def test_unknown_route(api: Api, method: str, path: str) -> None:
    reply = api(method, path)

    assert_error(reply, 404, "not_found", "/v1")


# 405 ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("method", "path", "allowed"),
    [
        ("DELETE", "/v1/ladders", "GET"),
        ("GET", "/v1/ladders/backgammon/games", "POST"),
        ("PUT", "/v1/ladders/chess/games/g-1", "GET"),
        ("OPTIONS", "/v1/identities/link", "POST"),
        ("TRACE", "/v1/ladders/sedma/leaderboard", "GET"),
    ],
)
def test_wrong_method_on_a_known_route(api: Api, method: str, path: str, allowed: str) -> None:
    reply = api(method, path)

    assert_error(reply, 405, "method_not_allowed", method, allowed)
    assert reply.headers["Allow"] == allowed


# 409 ------------------------------------------------------------------------------------


def test_game_id_reused_with_other_content(api: Api) -> None:
    api("POST", GAMES, body=recent_game("g-dup", "alice", "bob"))

    reply = api("POST", GAMES, body=recent_game("g-dup", "alice", "bob", winner="bob"))

    assert_error(reply, 409, "game_conflict", "g-dup")


# 413 ------------------------------------------------------------------------------------


def padded(size: int, filler: str = "x") -> str:
    """A JSON object of exactly `size` bytes as UTF-8 (`filler` of one or two bytes)."""
    skeleton = '{"padding": ""}'
    width = len(filler.encode())
    count, rest = divmod(size - len(skeleton), width)
    return '{"padding": "' + filler * count + " " * rest + '"}'


def test_body_over_64_kib_is_refused_before_parsing(api: Api) -> None:
    at_limit = api("POST", GAMES, raw_body=padded(MAX_BODY_BYTES))
    over = api("POST", GAMES, raw_body=padded(MAX_BODY_BYTES + 1))
    over_in_bytes = api("POST", GAMES, raw_body=padded(MAX_BODY_BYTES + 2, "é"))
    over_base64 = api("POST", GAMES, raw_body=padded(MAX_BODY_BYTES + 1), base64_encoded=True)
    not_json_at_all = api("POST", GAMES, raw_body="{" * (MAX_BODY_BYTES + 1))

    assert_error(at_limit, 400, "invalid_request", "padding")  # read, then found invalid
    for reply in (over, over_in_bytes, over_base64, not_json_at_all):
        assert_error(reply, 413, "payload_too_large", "64 KiB")


# 503 and 500 ------------------------------------------------------------------------------


def test_throttled_writes_answer_503_retry_later(api: Api, stack: Stack) -> None:
    faults = stack.dynamo_faults()
    faults.fail("TransactWriteItems", "ThrottlingException")
    started = time.monotonic()

    reply = api("POST", GAMES, body=recent_game("g-throttled"))

    assert_error(reply, 503, "retry_later", "retry later")
    assert reply.headers["Retry-After"] == "1"
    # Retried for the service's time budget (4 s of the Api's 10), not a count: the first
    # nine sleeps add up to 1.43 s at most, so more than eight attempts always fit.
    budget = budgets.retry_seconds(wiring.config().function_timeout)
    assert budget == 4.0
    assert len(faults.injected) > 8
    assert time.monotonic() - started < budget + 1


def test_throttled_read_answers_503(api: Api, stack: Stack) -> None:
    stack.dynamo_faults().fail("GetItem", "ProvisionedThroughputExceededException")

    reply = api("GET", "/v1/ladders/backgammon/games/g-1")

    assert_error(reply, 503, "retry_later")


def test_a_bug_answers_500_and_logs_the_request_id(
    api: Api, stack: Stack, logs: io.StringIO
) -> None:
    stack.dynamo_faults().fail("Query", "ValidationException", when=mentions("leaderboard"))
    event = rest_event("GET", "/v1/ladders/backgammon/leaderboard")
    request_id = event["requestContext"]["requestId"]

    answer = api.module.lambda_handler(event, _context())

    assert answer["statusCode"] == 500
    error = json.loads(answer["body"])["error"]
    assert error["code"] == "internal_error"
    assert request_id in error["message"]
    (logged,) = [line for line in json_lines(logs.getvalue()) if line.get("exception")]
    assert logged["message"] == "unexpected error"
    assert logged["correlation_id"] == request_id
    assert "ValidationException" in logged["exception"]


# Whatever a caller sends ------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(
            st.sampled_from(["game_id", "players", "winner", "id", "stats", "cube", "x"]),
            children,
            max_size=4,
        )
    ),
    max_leaves=12,
)
segments = st.text(st.characters(codec="utf-8", exclude_characters="/?#"), min_size=1, max_size=12)


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    route=st.sampled_from(
        [
            ("POST", "/v1/ladders/{}/games"),
            ("POST", "/v1/ladders/{}/preview"),
            ("POST", "/v1/identities/link"),
            ("GET", "/v1/ladders/{}/players/{}/history"),
            ("GET", "/v1/ladders/{}/leaderboard"),
            ("GET", "/v1/ladders/{}/games/{}"),
        ]
    ),
    ladder=st.sampled_from(["backgammon", "sedma", "classic"]) | segments,
    identifier=segments,
    body=json_values,
    query=st.dictionaries(st.sampled_from(["limit", "cursor"]), st.text(max_size=10)),
)
def test_no_caller_input_gets_a_500(
    api: Api,
    route: tuple[str, str],
    ladder: str,
    identifier: str,
    body: Any,
    query: dict[str, str],
) -> None:
    method, template = route
    path = template.format(ladder, identifier)

    reply = api(method, path, body=body if method == "POST" else None, query=query)

    assert reply.status < 500, reply.body
    if reply.status >= 400:
        assert reply.error["code"]


def _context() -> LambdaContext:
    return LambdaContext(function_name="api")
