"""Fixtures of the service tests: a movable clock, the in-memory storage and the service."""

import pytest
from support.services import clock, job_queue, service

from ratings.storage.memory import InMemoryStorage

__all__ = ["clock", "job_queue", "service"]  # the shared fixtures, by name


@pytest.fixture
def storage() -> InMemoryStorage:
    return InMemoryStorage()
