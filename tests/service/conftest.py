"""Fixtures of the service tests: a movable clock, the in-memory storage and the service."""

import random

import pytest
from servicekit import FixedClock

from ratings.rules import DEFAULT_LADDERS
from ratings.service.usecases import RatingService
from ratings.storage.memory import InMemoryStorage


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock()


@pytest.fixture
def storage() -> InMemoryStorage:
    return InMemoryStorage()


@pytest.fixture
def service(storage: InMemoryStorage, clock: FixedClock) -> RatingService:
    return RatingService(
        storage,
        DEFAULT_LADDERS,
        clock=clock,
        sleep=lambda seconds: None,
        rng=random.Random(20261129),
    )
