"""Numbers a caller can put into a request that reaches DynamoDB: DynamoDB refuses a number
of more than 38 significant digits (and magnitudes beyond 1E+126), so each one is bounded
before it is sent, and a forged one is the caller's error (400), never a 500 from the engine.
On both engines: DynamoDB Local refuses such numbers as DynamoDB does, moto does not.

The only such number is the rating inside a leaderboard cursor (a key condition of the
leaderboard index); `limit` is bounded to 1-100, and the history cursor's position is text.
"""

import base64
import json
from typing import Any

import pytest
from support.games import game

from ratings.service.errors import InvalidCursor, InvalidInput
from ratings.service.facade import RatingService


def forged(position: list[Any]) -> str:
    """A cursor as the service encodes one, around a position of the caller's choosing."""
    raw = json.dumps(position, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


@pytest.fixture
def ranked(service: RatingService) -> None:
    for number in range(3):
        service.submit_game("backgammon", game(f"g-{number}", f"p{number}", f"q{number}"))


@pytest.mark.parametrize(
    "rating",
    [10**38 + 1, -(10**38 + 1), 10**126, 2**200, 10**15, -(10**15)],
    ids=["39-digits", "minus-39-digits", "126-digits", "61-digits", "16-digits", "minus-16"],
)
def test_a_leaderboard_cursor_with_a_rating_no_player_can_have_is_invalid(
    service: RatingService, ranked: None, rating: int
) -> None:
    cursor = forged(["b", "backgammon", 1, rating, "p0"])

    with pytest.raises(InvalidCursor):
        service.get_leaderboard("backgammon", 10, cursor)


@pytest.mark.parametrize("rating", [10**15 - 1, -(10**15 - 1), 0, 1550])
def test_a_leaderboard_cursor_with_any_rating_a_player_can_have_reads_on(
    service: RatingService, ranked: None, rating: int
) -> None:
    page = service.get_leaderboard("backgammon", 10, forged(["b", "backgammon", 1, rating, "p"]))

    assert all(entry["rating"] <= rating for entry in page["entries"])


@pytest.mark.parametrize("rank", [-1, 10**15, 10**40])
def test_a_leaderboard_cursor_with_an_impossible_rank_is_invalid(
    service: RatingService, ranked: None, rank: int
) -> None:
    with pytest.raises(InvalidCursor):
        service.get_leaderboard("backgammon", 10, forged(["b", "backgammon", rank, 1500, "p0"]))


@pytest.mark.parametrize(
    "ref_id",
    ["\ud800", "a\u0000b", "x" * 600, "", 12],
    ids=["lone-surrogate", "nul", "long", "empty", "number"],
)
def test_a_history_cursor_naming_no_possible_event_is_invalid(
    service: RatingService, ranked: None, ref_id: object
) -> None:
    cursor = forged(["h", "backgammon", "p0", "2026-11-29T10:00:00.000Z", "game", ref_id])

    with pytest.raises(InvalidCursor):
        service.get_history("backgammon", "p0", 10, cursor)


@pytest.mark.parametrize("limit", ["101", "0", "1" + "0" * 40, "-1", "1e3"])
def test_a_page_limit_out_of_range_is_refused_before_any_read(
    service: RatingService, ranked: None, limit: str
) -> None:
    with pytest.raises(InvalidInput, match="limit"):
        service.get_leaderboard("backgammon", limit)
