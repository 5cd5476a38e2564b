"""The bounded retry of a use case's attempt that met a concurrent write or throttling: the
whole attempt (reads, rules, commit) is redone, so a result is always computed from the state
it replaces."""

import random
import time
from collections.abc import Callable
from typing import NamedTuple, TypeVar

from ratings.service.errors import RetryLater, TransientStorageError, WriteConflict

Answer = TypeVar("Answer")


class RetryPolicy(NamedTuple):
    """Retries of an attempt that met a concurrent write, with full jitter: after attempt n it
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


class Retrier:
    """Runs attempts under a policy, and counts the retries it made (for metrics, reports)."""

    def __init__(
        self,
        policy: RetryPolicy | None = None,
        *,
        sleep: Callable[[float], None] = time.sleep,
        timer: Callable[[], float] = time.monotonic,
        rng: random.Random | None = None,
        on_retry: Callable[[str], None] | None = None,
    ) -> None:
        self.policy = policy or RetryPolicy()
        self._sleep = sleep
        self._timer = timer
        self._rng = rng or random.Random()
        self._on_retry = on_retry
        #: Attempts redone since this retrier was made.
        self.retries = 0

    def run(self, what: str, attempt: Callable[[], Answer]) -> Answer:
        """The answer of the first attempt that is not met by WriteConflict or
        TransientStorageError; RetryLater once the attempts or the time budget ran out."""
        policy = self.policy
        started = self._timer()
        number = 0
        while True:
            try:
                return attempt()
            except (WriteConflict, TransientStorageError):
                self.retries += 1
                if self._on_retry is not None:
                    self._on_retry(what)
                delay = policy.delay(number, self._rng)
                number += 1
                out_of_time = self._timer() - started + delay > policy.budget_seconds
                if number == policy.attempts or out_of_time:
                    break
                self._sleep(delay)
        raise RetryLater(
            f"the {what} could not be stored after {number} attempts "
            "because of concurrent updates or throttling; retry later"
        )
