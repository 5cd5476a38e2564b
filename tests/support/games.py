"""A clock that tests move and game bodies as callers send them, for every test layer."""

from dataclasses import asdict
from datetime import UTC, datetime, timedelta
from typing import Any

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


def with_stats(first: Any, second: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """A rules `Game`'s player_options for two sedma players' SedmaStats."""
    return {"stats": asdict(first)}, {"stats": asdict(second)}
