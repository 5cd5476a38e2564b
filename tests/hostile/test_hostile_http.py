"""Hostile requests over HTTP on the local stack: oversize, deep, non-UTF-8, huge numbers, ids
and timestamps out of range, wrong content types, missing or wrong API keys.

Each is refused with api.md's error body (a 4xx, never a 5xx), names the field where there is
one, and changes nothing in the table.
"""

import base64
import json
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from support.games import game
from support.http import API_KEY, JSON, assert_error, send
from support.stack import table_digest

from ratings_local.stack import LocalStack

pytestmark = [
    pytest.mark.xdist_group("local_stack"),
    pytest.mark.filterwarnings("ignore:No application metrics:UserWarning"),
]

GAMES = "/v1/ladders/backgammon/games"
PREVIEW = "/v1/ladders/backgammon/preview"
PLAYER = "/v1/ladders/backgammon/players/"
LINK = "/v1/identities/link"
NO_KEY = object()


@dataclass(frozen=True)
class Hostile:
    """One refused request: what is sent, and the status, code and words of the answer."""

    name: str
    method: str
    path: str
    body: bytes | str | None
    status: int
    code: str
    words: tuple[str, ...] = ()
    headers: dict[str, str] = field(default_factory=lambda: dict(JSON))
    api_key: str | None = API_KEY


def raw(body: dict[str, Any], **replace_literal: str) -> str:
    """`body` as JSON, then each "__NAME__" string replaced by a literal (1e400, NaN...)."""
    text = json.dumps(body)
    for name, literal in replace_literal.items():
        text = text.replace(json.dumps(f"__{name}__"), literal)
    return text


def key_refused(
    name: str, method: str, path: str, body: str | None, *, api_key: str | None
) -> Hostile:
    """A request refused for its x-api-key (missing, wrong, empty, a prefix of the key)."""
    return Hostile(name, method, path, body, 403, "forbidden", ("x-api-key",), api_key=api_key)


def forged_cursor(rank: int, rating: int, player_id: str) -> str:
    """A leaderboard cursor of the service's format around a position of our choosing."""
    raw_position = json.dumps(["b", "backgammon", rank, rating, player_id], separators=(",", ":"))
    return base64.urlsafe_b64encode(raw_position.encode()).decode().rstrip("=")


def when(delta: timedelta) -> str:
    return (datetime.now(UTC) + delta).strftime("%Y-%m-%dT%H:%M:%SZ")


def cases() -> list[Hostile]:
    players = [{"id": "alice"}, {"id": "bob"}]
    sedma = "/v1/ladders/sedma/games"
    preview_players = [{"id": "alice", "rating": "__N__"}, {"id": "bob"}]
    return [
        # Size, depth, encoding
        Hostile(
            "oversize",
            "POST",
            GAMES,
            json.dumps(game(game_id="x" * 70_000)),
            413,
            "payload_too_large",
            ("64 KiB",),
        ),
        Hostile(
            "oversize-whitespace",
            "POST",
            GAMES,
            json.dumps(game()) + " " * 65_536,
            413,
            "payload_too_large",
        ),
        Hostile("oversize-not-utf8", "POST", GAMES, b"\xff" * 70_000, 413, "payload_too_large"),
        Hostile(
            "deep-arrays",
            "POST",
            GAMES,
            "[" * 10_000 + "]" * 10_000,
            400,
            "invalid_request",
            ("body", "deeply"),
        ),
        Hostile(
            "deep-objects",
            "POST",
            GAMES,
            '{"a":' * 10_000 + "1" + "}" * 10_000,
            400,
            "invalid_request",
            ("body", "deeply"),
        ),
        Hostile(
            "deep-in-a-field",
            "POST",
            GAMES,
            raw(game(winner="__D__"), D="[" * 10_000 + "]" * 10_000),
            400,
            "invalid_request",
            ("deeply",),
        ),
        # API Gateway passes the bytes that are not UTF-8 as U+FFFD, as the local gateway
        # does: the id they were in is refused.
        Hostile(
            "not-utf8",
            "POST",
            GAMES,
            b'{"game_id": "\xff\xfe", "winner": "a"}',
            400,
            "invalid_request",
            ("game_id",),
        ),
        Hostile(
            "latin1-id",
            "POST",
            GAMES,
            raw(game(game_id="caf\u00e9")).encode("latin-1"),
            400,
            "invalid_request",
        ),
        Hostile(
            "not-json", "POST", GAMES, "{game_id: g-1", 400, "invalid_request", ("not valid JSON",)
        ),
        Hostile("json-array", "POST", GAMES, "[]", 400, "invalid_request", ("JSON object",)),
        Hostile("empty-body", "POST", GAMES, b"", 400, "invalid_request", ("JSON body",)),
        # Numbers
        Hostile(
            "cube-1e400",
            "POST",
            GAMES,
            raw(game(cube="__N__"), N="1e400"),
            400,
            "invalid_request",
            ("cube",),
        ),
        Hostile(
            "cube-10**400",
            "POST",
            GAMES,
            raw(game(cube="__N__"), N="1" + "0" * 400),
            400,
            "invalid_request",
            ("cube",),
        ),
        Hostile(
            "cube-5000-digits",
            "POST",
            GAMES,
            raw(game(cube="__N__"), N="9" * 5000),
            400,
            "invalid_request",
            ("not valid JSON",),
        ),
        Hostile(
            "cube-minus-zero",
            "POST",
            GAMES,
            raw(game(cube="__N__"), N="-0"),
            400,
            "invalid_request",
            ("cube",),
        ),
        Hostile(
            "cube-NaN",
            "POST",
            GAMES,
            raw(game(cube="__N__"), N="NaN"),
            400,
            "invalid_request",
            ("NaN",),
        ),
        Hostile(
            "cube-Infinity",
            "POST",
            GAMES,
            raw(game(cube="__N__"), N="-Infinity"),
            400,
            "invalid_request",
            ("Infinity",),
        ),
        Hostile(
            "points-1e400",
            "POST",
            GAMES,
            raw(game(points="__N__"), N="1e400"),
            400,
            "invalid_request",
            ("points",),
        ),
        Hostile(
            "rating-1e400",
            "POST",
            PREVIEW,
            raw({"players": preview_players, "winner": "alice"}, N="1e400"),
            400,
            "invalid_request",
            ("players[0].rating",),
        ),
        Hostile(
            "rating-10**400",
            "POST",
            PREVIEW,
            raw({"players": preview_players, "winner": "alice"}, N="1" + "0" * 400),
            400,
            "invalid_request",
            ("players[0].rating",),
        ),
        Hostile(
            "stats-minus-1e400",
            "POST",
            sedma,
            raw(
                game(
                    players=[{"id": "a"}, {"id": "b", "stats": {"bad_moves": "__N__"}}], winner="a"
                ),
                N="-1e400",
            ),
            400,
            "invalid_request",
            ("players[1].stats.bad_moves",),
        ),
        Hostile(
            "limit-1e400",
            "GET",
            "/v1/ladders/backgammon/leaderboard?limit=1e400",
            None,
            400,
            "invalid_request",
            ("limit",),
        ),
        Hostile(
            "limit-400-digits",
            "GET",
            "/v1/ladders/backgammon/leaderboard?limit=" + "9" * 400,
            None,
            400,
            "invalid_request",
            ("limit",),
        ),
        # Ids outside the alphabet
        Hostile(
            "game-id-space",
            "POST",
            GAMES,
            json.dumps(game(game_id="g 1")),
            400,
            "invalid_request",
            ("game_id",),
        ),
        Hostile(
            "game-id-hash",
            "POST",
            GAMES,
            json.dumps(game(game_id="g#1")),
            400,
            "invalid_request",
            ("game_id",),
        ),
        Hostile(
            "game-id-unicode",
            "POST",
            GAMES,
            json.dumps(game(game_id="g\u00e91")),
            400,
            "invalid_request",
            ("game_id",),
        ),
        Hostile(
            "game-id-nul",
            "POST",
            GAMES,
            json.dumps(game(game_id="g\u00001")),
            400,
            "invalid_request",
            ("game_id",),
        ),
        Hostile(
            "game-id-129",
            "POST",
            GAMES,
            json.dumps(game(game_id="g" * 129)),
            400,
            "invalid_request",
            ("game_id",),
        ),
        Hostile(
            "game-id-number",
            "POST",
            GAMES,
            json.dumps(game(game_id=123)),
            400,
            "invalid_request",
            ("game_id",),
        ),
        Hostile(
            "player-1-space",
            "POST",
            GAMES,
            json.dumps(game(players=[{"id": "alice"}, {"id": "b b"}])),
            400,
            "invalid_request",
            ("players[1].id",),
        ),
        Hostile(
            "player-1-unicode",
            "POST",
            GAMES,
            json.dumps(game(players=[{"id": "alice"}, {"id": "\u0431\u043e\u0431"}])),
            400,
            "invalid_request",
            ("players[1].id",),
        ),
        Hostile(
            "player-0-129",
            "POST",
            GAMES,
            json.dumps(game(players=[{"id": "a" * 129}, {"id": "bob"}])),
            400,
            "invalid_request",
            ("players[0].id",),
        ),
        Hostile(
            "player-1-same",
            "POST",
            GAMES,
            json.dumps(game(players=players * 1)),
            400,
            "invalid_request",
            ("winner",),
        ),
        Hostile(
            "player-twice",
            "POST",
            GAMES,
            json.dumps(game(players=[{"id": "alice"}, {"id": "alice"}], winner="alice")),
            400,
            "invalid_request",
            ("players[1].id",),
        ),
        Hostile(
            "network-257",
            "POST",
            GAMES,
            json.dumps(
                game(players=[{"id": "alice", "network": "n" * 257}, {"id": "bob"}], winner="alice")
            ),
            400,
            "invalid_request",
            ("players[0].network",),
        ),
        Hostile(
            "unknown-field",
            "POST",
            GAMES,
            json.dumps(game(admin=True)),
            400,
            "invalid_request",
            ("admin",),
        ),
        Hostile(
            "link-id-hash",
            "POST",
            LINK,
            json.dumps({"anonymous_id": "a#1", "account_id": "acc"}),
            400,
            "invalid_request",
            ("anonymous_id",),
        ),
        Hostile(
            "link-id-129",
            "POST",
            LINK,
            json.dumps({"anonymous_id": "anon", "account_id": "a" * 129}),
            400,
            "invalid_request",
            ("account_id",),
        ),
        Hostile(
            "link-same",
            "POST",
            LINK,
            json.dumps({"anonymous_id": "anon", "account_id": "anon"}),
            400,
            "invalid_request",
            ("account_id",),
        ),
        Hostile(
            "path-player-space",
            "GET",
            PLAYER + "a%20b",
            None,
            400,
            "invalid_request",
            ("player_id",),
        ),
        Hostile(
            "path-player-hash",
            "GET",
            PLAYER + "a%23b",
            None,
            400,
            "invalid_request",
            ("player_id",),
        ),
        Hostile(
            "path-player-unicode",
            "GET",
            PLAYER + "%C3%A9",
            None,
            400,
            "invalid_request",
            ("player_id",),
        ),
        Hostile(
            "path-player-not-utf8",
            "GET",
            PLAYER + "%FF",
            None,
            400,
            "invalid_request",
            ("player_id",),
        ),
        Hostile(
            "path-player-129",
            "GET",
            PLAYER + "p" * 129,
            None,
            400,
            "invalid_request",
            ("player_id",),
        ),
        Hostile(
            "path-game-slash", "GET", GAMES + "/a%2Fb", None, 400, "invalid_request", ("game_id",)
        ),
        Hostile(
            "path-history-129",
            "GET",
            PLAYER + "p" * 129 + "/history",
            None,
            400,
            "invalid_request",
            ("player_id",),
        ),
        Hostile(
            "path-tournament-hash",
            "GET",
            "/v1/ladders/backgammon/tournaments/t%231",
            None,
            400,
            "invalid_request",
            ("tournament_id",),
        ),
        Hostile(
            "path-ladder-unknown",
            "GET",
            "/v1/ladders/%C3%A9/leaderboard",
            None,
            404,
            "not_found",
            ("ladder",),
        ),
        Hostile(
            "cursor-forged",
            "GET",
            "/v1/ladders/backgammon/leaderboard?cursor=eyJ4IjoxfQ",
            None,
            400,
            "invalid_cursor",
            ("cursor",),
        ),
        Hostile(
            # A rating of 39 significant digits, which DynamoDB refuses in a key condition.
            "cursor-rating-39-digits",
            "GET",
            "/v1/ladders/backgammon/leaderboard?cursor=" + forged_cursor(1, 10**38 + 1, "p"),
            None,
            400,
            "invalid_cursor",
            ("cursor",),
        ),
        # Timestamps
        Hostile(
            "year-0001",
            "POST",
            GAMES,
            json.dumps(game(played_at="0001-01-01T00:00:00Z")),
            400,
            "invalid_request",
            ("played_at", "14 days"),
        ),
        Hostile(
            "year-9999",
            "POST",
            GAMES,
            json.dumps(game(played_at="9999-12-31T23:59:59Z")),
            400,
            "invalid_request",
            ("played_at", "5 minutes"),
        ),
        Hostile(
            "no-offset",
            "POST",
            GAMES,
            json.dumps(game(played_at="2026-11-29T12:00:00")),
            400,
            "invalid_request",
            ("played_at", "offset"),
        ),
        Hostile(
            "date-only",
            "POST",
            GAMES,
            json.dumps(game(played_at="2026-11-29")),
            400,
            "invalid_request",
            ("played_at",),
        ),
        Hostile(
            "not-a-date",
            "POST",
            GAMES,
            json.dumps(game(played_at="yesterday")),
            400,
            "invalid_request",
            ("played_at",),
        ),
        Hostile(
            "played-at-number",
            "POST",
            GAMES,
            json.dumps(game(played_at=1_700_000_000)),
            400,
            "invalid_request",
            ("played_at",),
        ),
        Hostile(
            "15-days-old",
            "POST",
            GAMES,
            json.dumps(game(played_at=when(-timedelta(days=15)))),
            400,
            "invalid_request",
            ("played_at", "14 days"),
        ),
        # Hours ahead, not minutes: the cases are built when the tests are collected, and a
        # slow run must not bring a time "ahead" back within the 5 minutes allowed.
        Hostile(
            "6-hours-ahead",
            "POST",
            GAMES,
            json.dumps(game(played_at=when(timedelta(hours=6)))),
            400,
            "invalid_request",
            ("played_at", "5 minutes"),
        ),
        # Content types
        Hostile(
            "text-plain",
            "POST",
            GAMES,
            json.dumps(game()),
            400,
            "invalid_request",
            ("Content-Type",),
            {"content-type": "text/plain"},
        ),
        Hostile(
            "form",
            "POST",
            GAMES,
            "game_id=g-1&winner=a",
            400,
            "invalid_request",
            ("Content-Type",),
            {"content-type": "application/x-www-form-urlencoded"},
        ),
        Hostile(
            "multipart",
            "POST",
            GAMES,
            "--x\r\n\r\n{}\r\n--x--",
            400,
            "invalid_request",
            ("Content-Type",),
            {"content-type": "multipart/form-data; boundary=x"},
        ),
        Hostile(
            "xml",
            "POST",
            LINK,
            "<link/>",
            400,
            "invalid_request",
            ("Content-Type",),
            {"content-type": "application/xml"},
        ),
        # API key
        key_refused("no-key", "POST", GAMES, json.dumps(game()), api_key=None),
        key_refused("wrong-key", "POST", GAMES, json.dumps(game()), api_key=API_KEY + "x"),
        key_refused("empty-key", "GET", "/v1/ladders", None, api_key=""),
        key_refused("key-prefix", "GET", PLAYER + "alice", None, api_key=API_KEY[:-1]),
    ]


CASES = cases()


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_hostile_request_is_refused_with_the_error_body(stack: LocalStack, case: Hostile) -> None:
    reply = send(
        stack.api_url, case.method, case.path, case.body, case.headers, api_key=case.api_key
    )

    message = assert_error(reply, case.status, case.code)
    for word in case.words:
        assert word in message, message


# Found by these tests (fixed): a played_at whose offset moves it out of datetime's range
# (year 1 or 9999) used to raise OverflowError in parse_timestamp, answered as a 500.
@pytest.mark.parametrize(
    ("path", "played_at"),
    [
        (GAMES, "9999-12-31T23:59:59-23:59"),
        (GAMES, "0001-01-01T00:00:00+14:00"),
        (PREVIEW, "0001-01-01T00:00:00+14:00"),
    ],
    ids=["submit-year-10000", "submit-year-0", "preview-year-0"],
)
def test_a_timestamp_shifted_out_of_range_is_a_400(
    stack: LocalStack, path: str, played_at: str
) -> None:
    reply = send(stack.api_url, "POST", path, json.dumps(game(played_at=played_at)))

    message = assert_error(reply, 400, "invalid_request")
    assert "played_at" in message


def test_refused_requests_change_nothing(stack: LocalStack) -> None:
    # Something stored first, so the digest covers players, games and history.
    assert send(stack.api_url, "POST", GAMES, json.dumps(game())).status == 201
    before = table_digest(stack)

    for case in CASES:
        reply = send(
            stack.api_url, case.method, case.path, case.body, case.headers, api_key=case.api_key
        )
        assert 400 <= reply.status < 500, (case.name, reply.status, reply.raw[:300])

    assert table_digest(stack) == before


def test_the_right_key_is_accepted(stack: LocalStack) -> None:
    body = game()

    stored = send(stack.api_url, "POST", GAMES, json.dumps(body))
    again = send(stack.api_url, "POST", GAMES, json.dumps(body))
    ladders = send(stack.api_url, "GET", "/v1/ladders", None)

    assert (stored.status, again.status, ladders.status) == (201, 200, 200)
    assert stored.json == again.json
    assert {ladder["id"] for ladder in ladders.json["ladders"]} >= {"backgammon", "classic"}


def test_an_exactly_64_kib_body_is_read(stack: LocalStack) -> None:
    # The limit is 64 KiB, not less: padding to exactly 65,536 bytes is still a game.
    text = json.dumps(game())
    padded = text + " " * (64 * 1024 - len(text.encode()))

    reply = send(stack.api_url, "POST", GAMES, padded)

    assert len(padded.encode()) == 64 * 1024
    assert reply.status == 201, reply.raw[:300]


def test_an_unknown_route_is_a_404_in_the_error_body(stack: LocalStack) -> None:
    for method, path in [("GET", "/v2/ladders"), ("TRACE", "/v2/ladders"), ("GET", "/%FF")]:
        reply = send(stack.api_url, method, path, None)
        assert_error(reply, 404, "not_found")


def test_a_wrong_method_on_a_known_route_is_a_405_with_allow(stack: LocalStack) -> None:
    for method in ("DELETE", "GET", "TRACE", "BREW"):
        reply = send(stack.api_url, method, GAMES, None)
        assert_error(reply, 405, "method_not_allowed")
        assert reply.headers["allow"] == "POST"
