"""Fixtures of the service tests: a movable clock, the in-memory storage and the service."""

import pytest
from support.games import FixedClock
from support.services import rating_service

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
    return rating_service(storage, clock)
