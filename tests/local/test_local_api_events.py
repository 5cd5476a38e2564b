"""The local API Gateway hands the Api the REST proxy event API Gateway would: the path as the
client sent it, the template's resource and the decoded path parameters, header names as
written, repeated headers and query parameters in the multi-value fields."""

import http.client
import json
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from ratings_local.http_api import ApiRoutes, LocalApiServer
from ratings_local.routing import Routing, Target
from ratings_local.template import DEFAULT_TEMPLATE, read_stack


class RecordingApi:
    """Stands in for the Api function: keeps each event, answers 200 with an empty object."""

    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []

    def __call__(self, target: Target, event: dict[str, Any]) -> dict[str, Any]:
        self.events.append(event)
        return {"statusCode": 200, "headers": {"Content-Type": "application/json"}, "body": "{}"}


@pytest.fixture
def gateway() -> Iterator[tuple[LocalApiServer, RecordingApi]]:
    routing = Routing(read_stack(DEFAULT_TEMPLATE).functions.values())
    recorder = RecordingApi()
    server = LocalApiServer(("127.0.0.1", 0), recorder, lambda *_: None, None, routing)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield server, recorder
    server.shutdown()
    server.server_close()


def send(server: LocalApiServer, path: str, headers: list[tuple[str, str]]) -> int:
    """A GET of `path` exactly as written, with `headers` in order (repeats included)."""
    host, port = server.server_address[:2]
    connection = http.client.HTTPConnection(str(host), port, timeout=10)
    connection.putrequest("GET", path, skip_accept_encoding=True)
    for name, value in headers:
        connection.putheader(name, value)
    connection.endheaders()
    response = connection.getresponse()
    response.read()
    connection.close()
    return response.status


def test_the_event_is_the_rest_proxy_event_of_the_request(
    gateway: tuple[LocalApiServer, RecordingApi],
) -> None:
    server, recorder = gateway
    path = "/v1/ladders/backgammon/players/google%3A123/history?limit=2&tag=a&tag=b+c&cursor="
    headers = [("X-Game-Backend", "one"), ("accept", "*/*")]

    assert send(server, path, headers) == 200

    (event,) = recorder.events
    assert event["resource"] == "/v1/ladders/{ladder}/players/{player_id}/history"
    assert event["path"] == "/v1/ladders/backgammon/players/google%3A123/history"
    assert event["pathParameters"] == {"ladder": "backgammon", "player_id": "google:123"}
    assert event["httpMethod"] == "GET"
    # Names as written, not folded to one case.
    assert event["headers"]["X-Game-Backend"] == "one"
    assert event["headers"]["accept"] == "*/*"
    assert event["multiValueHeaders"]["X-Game-Backend"] == ["one"]
    assert "x-game-backend" not in event["headers"]
    assert event["queryStringParameters"] == {"limit": "2", "tag": "b c", "cursor": ""}
    assert event["multiValueQueryStringParameters"] == {
        "limit": ["2"],
        "tag": ["a", "b c"],
        "cursor": [""],
    }
    context = event["requestContext"]
    assert context["resourcePath"] == event["resource"]
    assert context["path"] == "/local" + event["path"]
    assert context["identity"]["sourceIp"] == "127.0.0.1"
    assert event["body"] is None
    assert event["isBase64Encoded"] is False
    json.dumps(event)  # what Lambda hands a function is JSON


def test_a_repeated_header_keeps_its_last_value_and_all_of_them(
    gateway: tuple[LocalApiServer, RecordingApi],
) -> None:
    server, recorder = gateway

    send(server, "/v1/ladders", [("X-Trace", "first"), ("X-Trace", "second")])

    (event,) = recorder.events
    assert event["resource"] == "/v1/ladders"
    assert event["pathParameters"] is None
    assert event["headers"]["X-Trace"] == "second"
    assert event["multiValueHeaders"]["X-Trace"] == ["first", "second"]


def test_a_path_on_no_resource_reaches_the_function_as_a_proxy_path(
    gateway: tuple[LocalApiServer, RecordingApi],
) -> None:
    server, recorder = gateway

    send(server, "/v2/nothing%20here", [])

    (event,) = recorder.events
    assert event["path"] == "/v2/nothing%20here"
    assert (event["resource"], event["pathParameters"]) == (
        "/{proxy+}",
        {"proxy": "v2/nothing here"},
    )


def test_the_most_specific_resource_wins() -> None:
    routes = ApiRoutes(["/a/{x}", "/a/b", "/a/{x}/c", "/{proxy+}"])

    assert routes.match("/a/b") == ("/a/b", {})
    assert routes.match("/a/b%3Ab") == ("/a/{x}", {"x": "b:b"})
    assert routes.match("/a/b/c") == ("/a/{x}/c", {"x": "b"})
    assert routes.match("/z/y") == ("/{proxy+}", {"proxy": "z/y"})
