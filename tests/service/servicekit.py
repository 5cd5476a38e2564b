"""Shared helpers of the service tests: a clock that tests move, and game bodies as callers
send them. Imported by the tests and by conftest.py (this directory has no __init__.py, so
pytest puts it on the import path like any rootdir-less test directory)."""

from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from typing import Any

from ratings.service.usecases import RatingService, Submitted

#: The fixed "now" every test starts at.
NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
MS = timedelta(milliseconds=1)
DAY = timedelta(days=1)
WEEK = timedelta(days=7)

#: Marker for "the first player wins" (not a valid id, so it never collides with one).
FIRST = "<first>"


class FixedClock:
    """A clock that stands still until the test moves it."""

    def __init__(self, now: datetime = NOW) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now

    def advance(self, delta: timedelta) -> datetime:
        self.now += delta
        return self.now

    def set(self, at: datetime) -> None:
        self.now = at


def ts(at: datetime) -> str:
    """RFC 3339 in UTC with milliseconds and a Z, the way the service echoes it."""
    at = at.astimezone(UTC)
    return at.strftime("%Y-%m-%dT%H:%M:%S.") + f"{at.microsecond // 1000:03d}Z"


def game(
    game_id: str,
    a: str = "alice",
    b: str = "bob",
    *,
    winner: str | None = FIRST,
    played_at: datetime | None = None,
    **extra: Any,
) -> dict[str, Any]:
    """A submit body for a game between `a` and `b`; the first player wins unless told."""
    body: dict[str, Any] = {
        "game_id": game_id,
        "players": [{"id": a}, {"id": b}],
        "winner": a if winner == FIRST else winner,
    }
    if played_at is not None:
        body["played_at"] = ts(played_at)
    body.update(extra)
    return body


def preview(
    a: dict[str, Any], b: dict[str, Any], *, winner: str | None = FIRST, **extra: Any
) -> dict[str, Any]:
    """A preview body (no game_id) from two player objects."""
    return {
        "players": [a, b],
        "winner": a["id"] if winner == FIRST else winner,
        **extra,
    }


def build_week(
    service: RatingService,
    hero: str,
    times: Iterable[datetime],
    *,
    prefix: str = "hist",
    ladder: str = "backgammon",
    **extra: Any,
) -> list[Submitted]:
    """Submit one game of `hero` at each time against a fresh opponent.

    The hero loses the first, wins the second, and so on: starting from 1500 under gammon42
    with K 32, every pair of games brings them back to exactly 1500 (-16, then +16).
    """
    done = []
    for index, at in enumerate(times):
        opponent = f"{prefix}-opp-{index}"
        winner = opponent if index % 2 == 0 else hero
        done.append(
            service.submit_game(
                ladder,
                game(f"{prefix}-{index}", hero, opponent, winner=winner, played_at=at, **extra),
            )
        )
    return done


def minutes_before(
    t: datetime, count: int, *, start: timedelta = timedelta(hours=1)
) -> list[datetime]:
    """`count` distinct times inside [t - 7 days, t): one minute apart, ending `start` before t."""
    return [t - start - timedelta(minutes=index) for index in range(count)]
