"""What every group of use cases shares: the injected storage, ladders, settings and clock, the
bounded retry of a write that met a concurrent one, and reading players' stored states."""

import random
import time
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timedelta
from typing import NamedTuple

from ratings.rules import InvalidInput, Ladder, Ruleset
from ratings.service.errors import NotFound, RetryLater
from ratings.service.inputs import utc_now
from ratings.service.ports import (
    JsonObject,
    PlayerRecord,
    Storage,
    TransientStorageError,
    WriteConflict,
)

#: A cap on any window count, for rulesets that never look at it (only shown to callers).
DISPLAY_RECENT_LIMIT = 1000
#: The window shown for rulesets without one of their own.
DISPLAY_WINDOW_DAYS = 7


class RetryPolicy(NamedTuple):
    """Retries of a write that met a concurrent one, with full jitter: after attempt n it
    sleeps uniform(0, min(cap, base * 2**n)). It gives up after `attempts`, or before a sleep
    that would end past `budget_seconds` from the first attempt, whichever comes first.

    Contention is transient: a writer that keeps retrying gets through once the others are
    done, so the time budget, not a count, is what bounds it (a hot player's twelve concurrent
    writers outlast eight attempts). The budget is a share of the function's timeout
    (`ratings.budgets`); the cap keeps late attempts frequent enough to win a turn.
    """

    attempts: int = 64
    base_seconds: float = 0.01
    cap_seconds: float = 0.4
    budget_seconds: float = 4.0

    def delay(self, attempt: int, rng: random.Random) -> float:
        return rng.uniform(0, min(self.cap_seconds, self.base_seconds * 2**attempt))


class Settings(NamedTuple):
    #: How long per-player history records live (their TTL), counted from the event's time.
    history_retention: timedelta = timedelta(days=30)
    #: How long a game's record (and so duplicate detection) lives, counted from receipt.
    game_retention: timedelta = timedelta(days=30)
    #: Ranks up to this are counted exactly on the leaderboard index; beyond, estimated.
    exact_rank_limit: int = 1000


class Submitted(NamedTuple):
    """The answer to a write: the result, and whether this call stored it."""

    result: JsonObject
    created: bool


class ServiceBase:
    """The service's dependencies and the steps its use cases share."""

    def __init__(
        self,
        storage: Storage,
        ladders: Mapping[str, Ladder],
        *,
        settings: Settings | None = None,
        clock: Callable[[], datetime] = utc_now,
        retry: RetryPolicy | None = None,
        sleep: Callable[[float], None] = time.sleep,
        timer: Callable[[], float] = time.monotonic,
        rng: random.Random | None = None,
        on_retry: Callable[[str], None] | None = None,
    ) -> None:
        self._storage = storage
        self._ladders = ladders
        self._settings = settings or Settings()
        self._clock = clock
        self._retry = retry or RetryPolicy()
        self._sleep = sleep
        self._timer = timer
        self._rng = rng or random.Random()
        self._on_retry = on_retry
        #: Conflicts retried since this service was made (for metrics and reports).
        self.retries = 0

    def ladder(self, ladder_id: str) -> Ladder:
        ladder = self._ladders.get(ladder_id)
        if ladder is None:
            known = ", ".join(self._ladders)
            raise NotFound(f"ladder {ladder_id!r} does not exist; ladders: {known}")
        return ladder

    def _with_retries(self, what: str, attempt: Callable[[], Submitted]) -> Submitted:
        policy = self._retry
        started = self._timer()
        for number in range(policy.attempts):
            try:
                return attempt()
            except (WriteConflict, TransientStorageError):
                self.retries += 1
                if self._on_retry is not None:
                    self._on_retry(what)
                delay = policy.delay(number, self._rng)
                if number + 1 == policy.attempts:
                    break
                if self._timer() - started + delay > policy.budget_seconds:
                    break
                self._sleep(delay)
        raise RetryLater(
            f"the {what} could not be stored after {number + 1} attempts "
            "because of concurrent updates or throttling; retry later"
        )

    @staticmethod
    def _resolve_pair(ids: Sequence[str], links: Mapping[str, str]) -> list[str]:
        resolved = [links.get(player_id, player_id) for player_id in ids]
        if resolved[0] == resolved[1]:
            raise InvalidInput(
                "players[1].id",
                "players[1].id and players[0].id belong to the same account after linking",
            )
        return resolved

    def _records(
        self,
        ladder: Ladder,
        resolved: Sequence[str],
        links: Mapping[str, str],
        states: Mapping[str, PlayerRecord],
    ) -> list[PlayerRecord]:
        """The stored (or starting) state of each resolved id, reading accounts if needed."""
        missing = [pid for pid in resolved if pid in links.values() and pid not in states]
        extra = self._storage.read_states(ladder.ladder_id, missing) if missing else {}
        records = []
        for player_id in resolved:
            record = states.get(player_id) or extra.get(player_id)
            if record is None:
                record = PlayerRecord(ladder.ladder_id, player_id, ladder.starting_rating)
            records.append(record)
        return records

    def _recent(
        self,
        ladder: Ladder,
        ruleset: Ruleset,
        record: PlayerRecord,
        until: datetime,
        *,
        display: bool = False,
    ) -> int:
        """Ranked games of the player in the window before `until`, as far as the rule needs."""
        limit = ruleset.recent_games_needed
        if limit is None:
            if not display:
                return 0
            limit = DISPLAY_RECENT_LIMIT
        if record.version == 0:
            return 0  # never stored: no games anywhere
        window = timedelta(days=ruleset.recent_window_days or DISPLAY_WINDOW_DAYS)
        since = until - window
        count = self._storage.count_ranked_games(
            ladder.ladder_id, record.player_id, since, until, limit
        )
        if record.absorbed_id is not None and count < limit:
            count += self._storage.count_ranked_games(
                ladder.ladder_id, record.absorbed_id, since, until, limit - count
            )
        return min(count, limit)
