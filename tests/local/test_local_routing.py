"""The local gateway's routing, read from template.yaml: each method of a route reaches the
function whose Api event declares it, other methods the route's ANY, other paths the Api's
catch-all; the moderation methods are the signed ones."""

import pytest

from ratings_local.routing import Routing, Target
from ratings_local.stack import DEFAULT_TEMPLATE
from ratings_local.template import read_stack


@pytest.fixture(scope="module")
def routing() -> Routing:
    return Routing(read_stack(DEFAULT_TEMPLATE).functions.values())


@pytest.mark.parametrize(
    ("method", "path", "target"),
    [
        ("POST", "/v1/players/alice/erasure", Target("ModerationFunction", signed=True)),
        ("GET", "/v1/players/google:1/erasure", Target("ModerationFunction", signed=True)),
        ("DELETE", "/v1/players/alice/erasure", Target("ApiFunction")),
        ("GET", "/v1/ladders/backgammon/players/alice", Target("ApiFunction")),
        ("POST", "/v1/ladders/backgammon/games", Target("ApiFunction")),
        ("GET", "/v1/nothing/here", Target("ApiFunction")),
        ("GET", "/", Target("ApiFunction")),
    ],
)
def test_a_request_reaches_the_function_of_its_route(
    routing: Routing, method: str, path: str, target: Target
) -> None:
    assert routing.target(method, path) == target


def test_only_the_functions_with_api_events_serve_http(routing: Routing) -> None:
    assert routing.functions == {"ApiFunction", "ModerationFunction"}
