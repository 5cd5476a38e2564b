"""Shared helpers of the service tests: a clock that tests move, and game bodies as callers
send them. Imported by the tests and by conftest.py (this directory has no __init__.py, so
pytest puts it on the import path like any rootdir-less test directory)."""

from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Any

from support.games import DAY, FIRST, MS, NOW, WEEK, FixedClock, game, ts

from ratings.service.usecases import RatingService, Submitted

__all__ = ["DAY", "FIRST", "MS", "NOW", "WEEK", "FixedClock", "game", "ts"]


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
