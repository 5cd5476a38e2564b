"""The job runner over the in-memory fake: a job is worked step by step while the invocation
has time, goes on in a continuation message when it has not, resumes from its saved progress
after an interruption, and is never worked twice by two workers at once."""

import pytest
from support.games import NOW, FixedClock
from support.jobs import Countdown, Counting, RecordingJobQueue, counting_job

from ratings.rules import InvalidInput
from ratings.service.errors import AlreadyStored, NotFound, WriteConflict
from ratings.service.jobs import RunJob
from ratings.service.stored import DONE, JobMessage
from ratings.service.unit_of_work import Retrier
from ratings.storage.memory import InMemoryStorage


@pytest.fixture
def kind(clock: FixedClock) -> Counting:
    return Counting(clock)


@pytest.fixture
def queue() -> RecordingJobQueue:
    return RecordingJobQueue()


@pytest.fixture
def run(
    storage: InMemoryStorage, queue: RecordingJobQueue, kind: Counting, clock: FixedClock
) -> RunJob:
    retrier = Retrier(sleep=lambda seconds: None)
    return RunJob(storage.jobs, queue, {kind.kind: kind}, retrier, clock, reserve_seconds=10)


def body(job_id: str) -> dict[str, str]:
    return {"job": "counting", "job_id": job_id}


def test_a_job_with_time_enough_is_worked_to_done_in_one_invocation(
    storage: InMemoryStorage, run: RunJob, kind: Counting, queue: RecordingJobQueue
) -> None:
    storage.jobs.create_job(counting_job("j1", 5, NOW))

    done = run(body("j1"), Countdown(60))

    assert done.job.status == DONE
    assert done.steps == 6  # five numbers, then the step that finds nothing left
    assert kind.counted == [1, 2, 3, 4, 5]
    assert queue.sent == []
    stored = storage.jobs.get_job("counting", "j1")
    assert stored == done.job
    assert stored is not None
    assert stored.details == {"counted": 5}
    assert stored.completed_at == NOW


def test_a_job_goes_on_in_a_continuation_when_the_time_runs_short(
    storage: InMemoryStorage, run: RunJob, kind: Counting, queue: RecordingJobQueue
) -> None:
    storage.jobs.create_job(counting_job("j1", 10, NOW))

    # 14 s left, one second a step: the reserve (10 s) is reached after four steps.
    first = run(body("j1"), Countdown(14, per_call=1))

    assert (first.steps, first.continued) == (4, True)
    assert queue.take() == [JobMessage("counting", "j1")]
    saved = storage.jobs.get_job("counting", "j1")
    assert saved is not None
    assert saved.pending
    assert saved.progress.position == {"next": 5}

    second = run(body("j1"), Countdown(60))  # the continuation's body

    assert second.job.status == DONE
    assert kind.counted == list(range(1, 11))  # each number once over both invocations


def test_an_interrupted_job_resumes_from_its_saved_progress_and_nothing_is_done_twice(
    storage: InMemoryStorage, run: RunJob, kind: Counting, queue: RecordingJobQueue
) -> None:
    storage.jobs.create_job(counting_job("j1", 8, NOW))
    kind.crash_after = 3

    with pytest.raises(RuntimeError, match="midway"):
        run(body("j1"), Countdown(60))

    assert kind.counted == [1, 2, 3]
    assert queue.sent == []  # the message itself comes back (SQS redelivers it)
    kind.crash_after = None
    resumed = run(body("j1"), Countdown(60))

    assert resumed.job.status == DONE
    assert kind.counted == list(range(1, 9))


def test_a_step_whose_save_was_lost_is_done_again_with_the_same_effect(
    storage: InMemoryStorage, run: RunJob, kind: Counting
) -> None:
    """The save after a step is what counts: a step redone from the last saved progress
    repeats the same piece of work (which each kind makes idempotent)."""
    job = counting_job("j1", 3, NOW)
    storage.jobs.create_job(job)
    stored = storage.jobs.get_job("counting", "j1")
    assert stored is not None
    kind.step(stored)  # a worker stepped, then stopped before its save

    run(body("j1"), Countdown(60))

    assert kind.counted == [1, 1, 2, 3]  # number 1 twice: the step, not the effect, repeats


def test_a_worker_that_loses_the_race_for_a_save_stops_without_a_continuation(
    storage: InMemoryStorage, queue: RecordingJobQueue, kind: Counting, clock: FixedClock
) -> None:
    storage.jobs.create_job(counting_job("j1", 5, NOW))

    class Racing(Counting):
        def step(self, job):  # type: ignore[no-untyped-def]
            after = super().step(job)
            storage.jobs.save_job(after)  # another worker saves the same step first
            return after

    racing = Racing(clock)
    run = RunJob(storage.jobs, queue, {"counting": racing}, Retrier(sleep=lambda s: None), clock)

    outcome = run(body("j1"), Countdown(60))

    assert (outcome.superseded, outcome.steps, outcome.continued) == (True, 0, False)
    assert queue.sent == []


def test_a_done_job_is_not_worked_again(
    storage: InMemoryStorage, run: RunJob, kind: Counting
) -> None:
    storage.jobs.create_job(counting_job("j1", 2, NOW))
    run(body("j1"), Countdown(60))

    again = run(body("j1"), Countdown(60))

    assert (again.job.status, again.steps) == (DONE, 0)
    assert kind.counted == [1, 2]


@pytest.mark.parametrize(
    ("message", "field"),
    [
        ([], "message body"),
        ({"job_id": "j1"}, "job"),
        ({"job": "counting"}, "job_id"),
        ({"job": "counting", "job_id": 7}, "job_id"),
        ({"job": "juggling", "job_id": "j1"}, "job"),
    ],
)
def test_a_message_that_names_no_job_is_refused(run: RunJob, message: object, field: str) -> None:
    with pytest.raises(InvalidInput) as refused:
        run(message, Countdown(60))

    assert refused.value.field == field


def test_a_message_for_a_job_never_stored_is_not_found(run: RunJob) -> None:
    with pytest.raises(NotFound):
        run(body("nobody"), Countdown(60))


def test_job_records_are_created_once_and_saved_over_their_version(
    storage: InMemoryStorage,
) -> None:
    job = counting_job("j1", 1, NOW)
    storage.jobs.create_job(job)

    with pytest.raises(AlreadyStored):
        storage.jobs.create_job(job)
    with pytest.raises(WriteConflict):
        storage.jobs.save_job(job)  # version 1 again: not one on from the stored one
    storage.jobs.save_job(job.advanced(job.progress))
    stored = storage.jobs.get_job("counting", "j1")
    assert stored is not None
    assert stored.progress_version == 2
