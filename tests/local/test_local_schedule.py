"""The local schedules run a scheduled function as the deployed stack does: never two runs of
one function at once, a tick that waits longer than the function's MaximumEventAgeInSeconds
dropped, a failed run retried only MaximumRetryAttempts times."""

import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from ratings_local.functions import LocalFunction
from ratings_local.schedule import ScheduledRuns
from ratings_local.sources import InFlight
from ratings_local.template import DEFAULT_TEMPLATE, FunctionSpec, read_stack

SCHEDULED = ("AwardPodiumsFunction", "RefreshStandingsFunction")


class SlowFunction:
    """Stands in for a scheduled function whose runs outlast the schedule's rate."""

    def __init__(self, spec: FunctionSpec, seconds: float, fail: bool = False) -> None:
        self.spec = spec
        self.seconds = seconds
        self.fail = fail
        self.invocations = InFlight()

    def invoke(self, event: dict[str, Any]) -> Any:
        with self.invocations.call():
            time.sleep(self.seconds)
        if self.fail:
            raise RuntimeError("asked to fail")
        return {}


def spec_of(name: str, **changes: Any) -> FunctionSpec:
    return replace(read_stack(DEFAULT_TEMPLATE).functions[name], **changes)


def run_for(function: SlowFunction, interval: float, seconds: float) -> ScheduledRuns:
    stopping = threading.Event()
    runs = ScheduledRuns(function, interval, dict, stopping)
    thread = threading.Thread(target=runs.run, daemon=True)
    thread.start()
    time.sleep(seconds)
    stopping.set()
    thread.join(timeout=5)
    assert not thread.is_alive()
    return runs


@pytest.mark.parametrize("name", SCHEDULED)
def test_the_template_gives_the_scheduled_functions_one_run_no_retry_and_a_minute(
    name: str,
) -> None:
    spec = read_stack(DEFAULT_TEMPLATE).functions[name]

    assert spec.reserved_concurrency == 1
    assert spec.maximum_retry_attempts == 0
    assert spec.maximum_event_age == 60


@pytest.mark.parametrize("name", SCHEDULED)
def test_a_scheduled_function_has_one_environment_locally(name: str) -> None:
    """Its reservation bounds it, so even a run invoked by hand waits for the scheduled one."""
    repo = Path(DEFAULT_TEMPLATE).parent
    function = LocalFunction(read_stack(DEFAULT_TEMPLATE).functions[name], repo, "us-east-1", {})

    assert function.max_concurrency == 1


def test_runs_longer_than_the_rate_never_overlap_and_old_ticks_are_dropped() -> None:
    # Runs of 0.25 s every 0.05 s; a tick waits at most 0.1 s for the run in progress.
    function = SlowFunction(spec_of("RefreshStandingsFunction", maximum_event_age=0.1), 0.25)

    runs = run_for(function, 0.05, 1.2)

    assert function.invocations.most == 1
    assert runs.runs >= 3
    assert runs.dropped >= runs.runs  # about four ticks a run, one of them run
    assert runs.failed == 0


def test_ticks_young_enough_wait_for_the_run_in_progress() -> None:
    function = SlowFunction(spec_of("AwardPodiumsFunction", maximum_event_age=3600), 0.1)

    runs = run_for(function, 0.05, 0.8)

    assert function.invocations.most == 1
    assert runs.dropped == 0
    assert runs.runs >= 4


@pytest.mark.parametrize("retries", [0, 2])
def test_a_failed_run_is_retried_only_as_configured(retries: int) -> None:
    spec = spec_of("AwardPodiumsFunction", maximum_retry_attempts=retries)
    function = SlowFunction(spec, 0.0, fail=True)

    runs = run_for(function, 0.2, 0.5)

    assert runs.runs == runs.failed == 2
    assert function.invocations.started == runs.runs * (1 + retries)
