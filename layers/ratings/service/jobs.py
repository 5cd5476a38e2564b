"""Resumable background jobs (an erasure, a sanction's refunds): a job kind's step, and the
runner that works a job in bounded, idempotent steps. The job record and its message are
values of `ratings.service.stored` (`Job`, `Progress`, `JobMessage`).

A job kind is a `JobKind`: its `step` does one bounded piece of the work from the job's saved
progress and returns the job as it stands after it (`Job.advanced` or `Job.finished`). The
runner (`RunJob`) saves that under a condition on `progress_version`, and steps again while the
invocation has time left; then it queues a fresh message for the same job (a continuation), so
no message is received more than a few times however long the job runs. Whatever stops an
invocation midway (a timeout, a crash, a failed save) loses at most the step in flight: its
message comes back after the queue's visibility timeout and the job resumes from its last
saved progress, so every step must be idempotent (doing it twice is doing it once).

Two workers on one job (a message sent twice) cannot both save the same progress: the second
save fails its condition, and that worker leaves the job to the one that got there first.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar, NamedTuple

from ratings.rules import InvalidInput
from ratings.service.errors import NotFound, WriteConflict
from ratings.service.ports import JobQueue, JobRecords
from ratings.service.stored import Job, JobMessage
from ratings.service.unit_of_work import Retrier

if TYPE_CHECKING:
    from ratings.service.facade import Clock


class JobKind(ABC):
    """One kind of job: how a step works it on from its saved progress."""

    #: The name in job records and messages (`Job.kind`).
    kind: ClassVar[str]

    @abstractmethod
    def step(self, job: Job) -> Job:
        """Do the next bounded piece of `job`'s work and return the job after it.

        Idempotent: the runner may call it again with the same job (the save after it was
        lost), and doing the work again must change nothing more. It must take well under
        the runner's reserve of time (`RunJob.reserve_seconds`)."""


class JobRun(NamedTuple):
    """What one invocation did with a job."""

    job: Job
    #: Steps done and saved in this invocation.
    steps: int
    #: A continuation message was queued: the job goes on in a later invocation.
    continued: bool = False
    #: Another worker saved progress first; this one left the job to it.
    superseded: bool = False


@dataclass(frozen=True)
class RunJob:
    """Works the job a message names, step by step, while the invocation has time."""

    records: JobRecords
    queue: JobQueue
    kinds: Mapping[str, JobKind]
    retrier: Retrier
    clock: Clock
    #: A step starts only while more than this is left of the invocation.
    reserve_seconds: float = field(default=15.0, kw_only=True)

    def __call__(self, body: object, seconds_left: Callable[[], float]) -> JobRun:
        """Work the job of the message `body` (its JSON value) until it is done, or until
        `seconds_left()` falls to the reserve (then a continuation is queued)."""
        message = JobMessage.parse(body)
        kind = self.kinds.get(message.kind)
        if kind is None:
            known = ", ".join(sorted(self.kinds))
            raise InvalidInput("job", f"job {message.kind!r} is no job kind; kinds: {known}")
        job = self.records.get_job(message.kind, message.job_id)
        if job is None:
            raise NotFound(f"no {message.kind} job {message.job_id!r} is stored")
        steps = 0
        while job.pending:
            if seconds_left() <= self.reserve_seconds:
                self.queue.send(job.message)
                return JobRun(job, steps, continued=True)
            after = self._step(kind, job)
            try:
                self.records.save_job(after)
            except WriteConflict:
                return JobRun(job, steps, superseded=True)
            job = after
            steps += 1
        return JobRun(job, steps)

    def _step(self, kind: JobKind, job: Job) -> Job:
        """One step, redone while it meets contention or throttling (bounded)."""
        attempts = self.retrier.attempts(f"{job.kind} step")
        while True:
            with attempts:
                return kind.step(job)


class NoJobQueue(JobQueue):
    """The queue of a service built without one: queueing a job there is a bug of the wiring."""

    def send(self, message: JobMessage) -> None:
        raise RuntimeError(f"no jobs queue is configured to queue the {message.kind} job")
