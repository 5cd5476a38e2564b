"""Fakes for background jobs: a jobs queue that keeps what is sent, a clock of an invocation's
remaining time, and a toy job kind that counts to a target one number a step."""

from collections.abc import Callable
from datetime import datetime

from ratings.service.jobs import JobKind
from ratings.service.ports import JobQueue
from ratings.service.stored import PENDING, Job, JobMessage, Progress


class RecordingJobQueue(JobQueue):
    """Keeps every message sent, in order; `failing` sends raise (a broken queue)."""

    def __init__(self) -> None:
        self.sent: list[JobMessage] = []
        self.failing = False

    def send(self, message: JobMessage) -> None:
        if self.failing:
            raise ConnectionError("the queue is unreachable")
        self.sent.append(message)

    def take(self) -> list[JobMessage]:
        """What was sent since the last take."""
        sent, self.sent = self.sent, []
        return sent


class Countdown:
    """An invocation's remaining seconds, falling by `per_call` each time it is asked."""

    def __init__(self, seconds: float, per_call: float = 0.0) -> None:
        self.seconds = seconds
        self.per_call = per_call

    def __call__(self) -> float:
        left = self.seconds
        self.seconds -= self.per_call
        return left


class Counting(JobKind):
    """Counts to `details["target"]`, one number a step; every number counted is recorded in
    `counted` (to see that nothing is done twice). `crash_after` steps, it raises."""

    kind = "counting"

    def __init__(self, clock: Callable[[], datetime]) -> None:
        self.clock = clock
        self.counted: list[int] = []
        self.crash_after: int | None = None

    def step(self, job: Job) -> Job:
        if self.crash_after is not None:
            if self.crash_after == 0:
                raise RuntimeError("the worker stopped midway")
            self.crash_after -= 1
        position = job.progress.position or {"next": 1}
        number = position["next"]
        if number > job.details["target"]:
            return job.finished(self.clock(), {"counted": job.details["target"]})
        self.counted.append(number)
        return job.advanced(Progress("counting", {"next": number + 1}))


def counting_job(job_id: str, target: int, at: datetime) -> Job:
    return Job("counting", job_id, PENDING, at, Progress("counting"), {"target": target})
