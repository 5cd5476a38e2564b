"""A clock that tests move, and the bodies callers send to the service (games, podiums,
previews), for every test layer."""

import uuid
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from functools import partial
from typing import Any

from ratings.service.facade import RatingService
from ratings.service.game_result import Submitted

#: The fixed "now" every test on a FixedClock starts at.
NOW = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)
MS = timedelta(milliseconds=1)
MINUTE = timedelta(minutes=1)
HOUR = timedelta(hours=1)
DAY = timedelta(days=1)
WEEK = timedelta(days=7)

#: The handler tests run the service on the real clock: their games were played ten minutes
#: before the test process started, their tournaments finished an hour before.
STARTED = datetime.now(UTC).replace(microsecond=0)

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


def parse_ts(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def unique(prefix: str) -> str:
    """A fresh id: tests that share one stack never see each other's players or games."""
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


def game(
    game_id: Any = None,
    a: str | None = None,
    b: str | None = None,
    *,
    winner: Any = FIRST,
    played_at: Any = None,
    **extra: Any,
) -> dict[str, Any]:
    """A submit body for a game between `a` and `b`; the first player wins unless told.

    Without a game_id the ids are fresh (the game's, and the players' not named); with one,
    the players are alice and bob unless named. `played_at` a datetime is sent as RFC 3339,
    anything else as it is (hostile values), None not at all (the time of receipt). `extra`
    fields are added or replace the body's (`players=[...]`).
    """
    fresh = game_id is None
    first = a or (unique("alice") if fresh else "alice")
    second = b or (unique("bob") if fresh else "bob")
    body: dict[str, Any] = {
        "game_id": unique("g") if game_id is None else game_id,
        "players": [{"id": first}, {"id": second}],
        "winner": first if winner == FIRST else winner,
    }
    if played_at is not None:
        body["played_at"] = ts(played_at) if isinstance(played_at, datetime) else played_at
    body.update(extra)
    return body


def podium(
    tournament_id: str,
    *places: str,
    ladder: str = "backgammon",
    finished_at: datetime = NOW - HOUR,
    public: bool = True,
) -> dict[str, Any]:
    """A podium message: `places[0]` first, `places[1]` second... (alice, bob, carol if none)."""
    return {
        "tournament_id": tournament_id,
        "ladder": ladder,
        "finished_at": ts(finished_at),
        "public": public,
        "podium": [
            {"place": place, "player_id": player_id}
            for place, player_id in enumerate(places or ("alice", "bob", "carol"), start=1)
        ],
    }


#: A game played ten minutes before the tests started (for a service on the real clock).
recent_game = partial(game, played_at=STARTED - 10 * MINUTE)
#: A podium of a tournament finished an hour before the tests started (real clock).
recent_podium = partial(podium, finished_at=STARTED - HOUR)


def preview(
    a: dict[str, Any], b: dict[str, Any], *, winner: str | None = FIRST, **extra: Any
) -> dict[str, Any]:
    """A preview body (no game_id) from two player objects."""
    return {
        "players": [a, b],
        "winner": a["id"] if winner == FIRST else winner,
        **extra,
    }


def play_series(
    service: RatingService,
    hero: str,
    times: Iterable[datetime],
    *,
    prefix: str = "hist",
    ladder: str = "backgammon",
    **extra: Any,
) -> list[Submitted]:
    """Submit one game of `hero` at each time, each against a fresh opponent.

    The hero loses the first, wins the second, and so on: starting from 1500 under gammon42
    with K 32, every pair of games brings them back to exactly 1500 (-16, then +16).
    """
    done = []
    for index, at in enumerate(times):
        opponent = f"{prefix}-opp-{index}"
        winner = opponent if index % 2 == 0 else hero
        body = game(f"{prefix}-{index}", hero, opponent, winner=winner, played_at=at, **extra)
        done.append(service.submit_game(ladder, body))
    return done


def minutes_before(t: datetime, count: int, *, start: timedelta = HOUR) -> list[datetime]:
    """`count` distinct times inside [t - 7 days, t): one minute apart, ending `start` before t."""
    return [t - start - index * MINUTE for index in range(count)]


def side(result: dict[str, Any], player_id: str) -> dict[str, Any]:
    """One player's entry of a game result."""
    (entry,) = [player for player in result["players"] if player["id"] == player_id]
    return dict(entry)
