"""The template's functions in the local stack: each one a pool of execution environments.

An invocation takes an idle environment or, when all are busy, starts a new one (a cold
start), up to the function's concurrency (its ReservedConcurrentExecutions when it has one);
beyond it, invocations wait for an environment as Lambda's throttled callers would retry.
What an environment is, and why each is a process of its own: `ratings_local.environments`.
"""

import threading
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from ratings_local.environments import (
    EnvironmentSpec,
    ExecutionEnvironment,
    FunctionError,
    Invocation,
    Metrics,
)
from ratings_local.template import FunctionSpec

#: Concurrent environments of one function when nothing in the template bounds them (Lambda
#: allows the account's unreserved concurrency; this machine has fewer cores than that).
DEFAULT_MAX_CONCURRENCY = 16


class LocalFunction:
    """One function of the template, invocable concurrently."""

    def __init__(
        self,
        spec: FunctionSpec,
        root: Path,
        region: str,
        environment: dict[str, str],
        max_concurrency: int = DEFAULT_MAX_CONCURRENCY,
        print_logs: bool = True,
    ) -> None:
        self.spec = spec
        module_name, _, attribute = spec.handler.rpartition(".")
        path = root / spec.code_uri / (module_name.replace(".", "/") + ".py")
        if not path.is_file():
            raise FileNotFoundError(f"{spec.logical_id}: handler file {path} not found")
        self._environment_spec = EnvironmentSpec(
            function_name=spec.logical_id,
            handler_path=str(path),
            handler_attribute=attribute,
            environment=environment,
            timeout_seconds=spec.timeout,
            memory_mb=spec.memory_size,
            region=region,
            print_logs=print_logs,
        )
        # A reservation bounds the function, as Lambda throttles it beyond its reservation
        # (locally an invocation over it waits for an environment).
        if spec.reserved_concurrency is not None:
            max_concurrency = min(max_concurrency, spec.reserved_concurrency)
        self.max_concurrency = max_concurrency
        self._idle: list[ExecutionEnvironment] = []
        self._all: list[ExecutionEnvironment] = []
        self._starting = 0
        self._started = 0
        self._changed = threading.Condition()
        self._stopped = False
        #: The metrics every invocation published so far, summed by name.
        self.metrics: Metrics = defaultdict(float)
        #: Environments started so far (cold starts).
        self.cold_starts = 0
        #: The longest invocation so far, in seconds (from the call to its answer).
        self.longest_seconds = 0.0
        #: Bytes the invocations logged so far (metrics aside).
        self.log_bytes = 0

    @property
    def logical_id(self) -> str:
        return self.spec.logical_id

    @property
    def environments(self) -> int:
        """Environments alive now (idle or busy)."""
        with self._changed:
            return len(self._all)

    def warm(self) -> None:
        """Start one environment now, so that the first invocation finds it ready."""
        environment = self._acquire()
        self._release(environment)

    def invoke(self, event: dict[str, Any]) -> Any:
        """Run the handler once on `event` in an idle environment (or a new one); a failed
        invocation raises `environments.FunctionError`."""
        return self.invoke_measured(event).result

    def invoke_measured(self, event: dict[str, Any]) -> Invocation:
        """`invoke`, with the metrics the invocation published."""
        environment = self._acquire()
        started = time.monotonic()
        try:
            invocation = environment.invoke(event)
        except FunctionError as failure:
            if failure.invocation is not None:
                self._count(failure.invocation)
            raise
        finally:
            self._release(environment)
            with self._changed:
                self.longest_seconds = max(self.longest_seconds, time.monotonic() - started)
        self._count(invocation)
        return invocation

    def _count(self, invocation: Invocation) -> None:
        with self._changed:
            for name, value in invocation.metrics.items():
                self.metrics[name] += value
            self.log_bytes += invocation.log_bytes

    def _acquire(self) -> ExecutionEnvironment:
        with self._changed:
            while True:
                if self._stopped:
                    raise RuntimeError(f"{self.logical_id} is stopped")
                if self._idle:
                    return self._idle.pop()
                if len(self._all) + self._starting < self.max_concurrency:
                    self._starting += 1
                    self._started += 1
                    number = self._started
                    break
                self._changed.wait()
        try:
            environment = ExecutionEnvironment(self._environment_spec, number)
        except BaseException:
            with self._changed:
                self._starting -= 1
                self._changed.notify()
            raise
        with self._changed:
            self._starting -= 1
            self._all.append(environment)
            self.cold_starts += 1
        return environment

    def _release(self, environment: ExecutionEnvironment) -> None:
        with self._changed:
            if environment.usable and not self._stopped:
                self._idle.append(environment)
            elif environment in self._all:
                self._all.remove(environment)
            self._changed.notify()
        if not environment.usable:
            environment.stop()

    def stop(self) -> None:
        """End every environment (busy ones too: their invocations fail)."""
        with self._changed:
            self._stopped = True
            environments, self._all, self._idle = list(self._all), [], []
            self._changed.notify_all()
        for environment in environments:
            environment.stop()
