"""The service as production builds it, over any storage, with the test's clock; the
fixtures that give a test one; and the contract check that a scenario of use cases answers
alike on a storage and on the in-memory fake."""

import random
from collections.abc import Callable
from datetime import datetime
from typing import Any

import pytest

from ratings.rules import DEFAULT_LADDERS
from ratings.service.facade import RatingService, Settings
from ratings.service.ports import JobQueue, Storage
from ratings.service.unit_of_work import Retrier
from ratings.storage.memory import InMemoryStorage
from support.games import FixedClock
from support.jobs import RecordingJobQueue


def rating_service(
    storage: Storage,
    clock: Callable[[], datetime],
    job_queue: JobQueue | None = None,
    *,
    settings: Settings | None = None,
) -> RatingService:
    """The default ladders over `storage`, on `clock`, with `settings` (the defaults unless
    given); retries jittered by a seeded random and never slept; background jobs queued to
    `job_queue` (one that keeps them, unless given)."""
    return RatingService(
        storage,
        DEFAULT_LADDERS,
        settings=settings,
        clock=clock,
        retrier=Retrier(sleep=lambda seconds: None, rng=random.Random(20261129)),
        job_queue=RecordingJobQueue() if job_queue is None else job_queue,
    )


def answers_alike(
    scenario: Callable[[Storage], dict[str, Any]], storage: Storage
) -> dict[str, Any]:
    """`scenario`'s answers (by label) on `storage`, once they are found to be every one the
    in-memory fake gives: the test then checks a few of them absolutely, so that the
    comparison is not between two wrong answers."""
    reference = scenario(InMemoryStorage())

    answers = scenario(storage)

    assert answers.keys() == reference.keys()
    for label in reference:
        assert answers[label] == reference[label], label
    return answers


# Fixtures of the layers that run the service over a storage (each conftest defines `storage`
# and imports these by name).


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock()


@pytest.fixture
def job_queue() -> RecordingJobQueue:
    return RecordingJobQueue()


@pytest.fixture
def service(storage: Storage, clock: FixedClock, job_queue: RecordingJobQueue) -> RatingService:
    return rating_service(storage, clock, job_queue)
