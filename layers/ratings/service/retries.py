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
    """Bounded retries with full jitter: attempt n sleeps uniform(0, min(cap, base * 2**n))."""

    attempts: int = 8
    base_seconds: float = 0.01
    cap_seconds: float = 0.4

    def delay(self, attempt: int, rng: random.Random) -> float:
        return rng.uniform(0, min(self.cap_seconds, self.base_seconds * 2**attempt))


class Retrier:
    """Runs attempts under a policy, and counts the retries it made (for metrics, reports)."""

    def __init__(
        self,
        policy: RetryPolicy | None = None,
        *,
        sleep: Callable[[float], None] = time.sleep,
        rng: random.Random | None = None,
        on_retry: Callable[[str], None] | None = None,
    ) -> None:
        self.policy = policy or RetryPolicy()
        self._sleep = sleep
        self._rng = rng or random.Random()
        self._on_retry = on_retry
        #: Attempts redone since this retrier was made.
        self.retries = 0

    def run(self, what: str, attempt: Callable[[], Answer]) -> Answer:
        """The answer of the first attempt that is not met by WriteConflict or
        TransientStorageError; RetryLater once every attempt was."""
        attempts = self.policy.attempts
        for number in range(attempts):
            try:
                return attempt()
            except (WriteConflict, TransientStorageError):
                self.retries += 1
                if self._on_retry is not None:
                    self._on_retry(what)
                if number + 1 < attempts:
                    self._sleep(self.policy.delay(number, self._rng))
        raise RetryLater(
            f"the {what} could not be stored after {attempts} attempts "
            "because of concurrent updates or throttling; retry later"
        )
