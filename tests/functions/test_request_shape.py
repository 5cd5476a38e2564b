"""The shape of one warm POST /v1/ladders/backgammon/games, as benchmarks.request_trace traces
it through the Api's real handler: the project's modules it enters and the module-to-module
edges it takes stay within what a newcomer can follow (docs/service-layer.md walks them)."""

import os
from collections.abc import Iterator

import pytest

from benchmarks.request_trace import traced_request
from ratings import wiring

MOST_MODULES = 16
MOST_EDGES = 24


@pytest.fixture
def own_environment() -> Iterator[None]:
    """The trace sets the Api's environment and builds its container: both are undone."""
    saved = dict(os.environ)
    wiring.reset()
    yield
    os.environ.clear()
    os.environ.update(saved)
    wiring.reset()


@pytest.mark.usefixtures("own_environment")
def test_a_warm_game_request_enters_at_most_16_modules_through_at_most_24_edges() -> None:
    shape = traced_request()

    entered = sorted(shape.modules)
    assert "ratings.service.usecases.submit_game" in entered  # the walk reached the use case
    assert "ratings.storage.dynamodb.unit_of_work" in entered  # and the store
    assert len(entered) <= MOST_MODULES, entered
    edges = sorted(shape.edges)
    assert len(edges) <= MOST_EDGES, edges
