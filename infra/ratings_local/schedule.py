"""The local stack's schedules: EventBridge's rate rules, and Lambda's asynchronous invocation
of the function they target.

EventBridge sends an event at every tick, whether the last run has ended or not. Lambda queues
it; with the function's concurrency taken (a reservation of 1 and a run in progress) the event
is throttled and retried until it is older than the function's MaximumEventAgeInSeconds, then
dropped. A run that fails is run again up to MaximumRetryAttempts times.

Here one thread per schedule does the same, so two runs of one schedule never overlap: a tick
that comes while a run is in progress waits for it to end, and is dropped once older than the
maximum event age (`ScheduledRuns.dropped`).
"""

import threading
import time
from collections.abc import Callable
from typing import Any, Protocol

from ratings_local.template import FunctionSpec


class Invocable(Protocol):
    """What a schedule needs of a function: its template entry, and a way to invoke it."""

    @property
    def spec(self) -> FunctionSpec: ...

    def invoke(self, event: dict[str, Any]) -> Any: ...


class ScheduledRuns:
    """One function's schedule: a run every `interval` seconds, never two at once."""

    def __init__(
        self,
        function: Invocable,
        interval: float,
        event: Callable[[], dict[str, Any]],
        stopping: threading.Event,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.function = function
        self.interval = interval
        self._event = event
        self._stopping = stopping
        self._clock = clock
        #: Runs started, ticks whose event aged out while a run was in progress, runs that
        #: failed after their retries.
        self.runs = 0
        self.dropped = 0
        self.failed = 0

    def run(self) -> None:
        """Tick until `stopping` is set."""
        pending: list[float] = []  # ticks whose event waits for the run in progress to end
        next_tick = self._clock() + self.interval
        while True:
            wait = 0.0 if pending else max(0.0, next_tick - self._clock())
            if self._stopping.wait(wait):
                return
            now = self._clock()
            while next_tick <= now:
                pending.append(next_tick)
                next_tick += self.interval
            young = [tick for tick in pending if now - tick <= self.function.spec.maximum_event_age]
            self.dropped += len(pending) - len(young)
            pending = young
            if pending:
                pending.pop(0)
                self._run_once()

    def _run_once(self) -> None:
        self.runs += 1
        attempts = 1 + self.function.spec.maximum_retry_attempts
        for attempt in range(1, attempts + 1):
            try:
                self.function.invoke(self._event())
                return
            except Exception as error:
                name = self.function.spec.logical_id
                print(f"[{name}] scheduled run failed ({attempt}/{attempts}): {error}")
            if self._stopping.is_set():
                break
        self.failed += 1
