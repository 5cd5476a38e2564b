"""The local gateway meets AWS's limits as the deployed API does: a body that is not UTF-8
reaches the function as API Gateway passes it (text, each bad byte U+FFFD, never base64), a
function answer over Lambda's 6 MB response limit is API Gateway's 502, and API Gateway's own
answers are the template's GatewayResponses."""

import http.client
import json
import textwrap
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from ratings_local.environments import MAX_RESPONSE_BYTES
from ratings_local.functions import LocalFunction
from ratings_local.http_api import LocalApiServer, template_answers
from ratings_local.routing import Routing, Target
from ratings_local.template import DEFAULT_TEMPLATE, FunctionSpec, read_stack

GAMES = "/v1/ladders/backgammon/games"
#: What the template's DEFAULT_5XX makes of API Gateway's 502 for a failed invocation.
INTERNAL_ERROR = {"error": {"code": "internal_error", "message": "Internal server error"}}
Invoke = Callable[[Target, dict[str, Any]], Any]
#: A proxy response whose JSON is `size` bytes, as Lambda's Python runtime serializes it.
SIZED_HANDLER = textwrap.dedent(
    """
    import json


    def handler(event, context):
        size = json.loads(event["body"])["size"]
        response = {"statusCode": 200, "body": ""}
        response["body"] = "x" * (size - len(json.dumps(response)))
        return response
    """
)


@contextmanager
def serve(invoke: Invoke, api_key: str | None = None) -> Iterator[LocalApiServer]:
    routing = Routing(read_stack(DEFAULT_TEMPLATE).functions.values())
    server = LocalApiServer(("127.0.0.1", 0), invoke, lambda *_: None, api_key, routing)
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def post(
    server: LocalApiServer, body: bytes, headers: dict[str, str] | None = None
) -> tuple[int, dict[str, str], bytes]:
    host, port = server.server_address[:2]
    connection = http.client.HTTPConnection(str(host), port, timeout=60)
    connection.request("POST", GAMES, body=body, headers=headers or {})
    response = connection.getresponse()
    answer = response.status, dict(response.getheaders()), response.read()
    connection.close()
    return answer


def ok(target: Target, event: dict[str, Any]) -> dict[str, Any]:
    return {"statusCode": 200, "body": "{}"}


class Recording:
    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []

    def __call__(self, target: Target, event: dict[str, Any]) -> dict[str, Any]:
        self.events.append(event)
        return ok(target, event)


@pytest.mark.parametrize(
    "body",
    [b"\xff\xfe", b'{"game_id": "caf\xe9"}', b"ok \xc3", b"\xed\xa0\x80 surrogate"],
    ids=["bytes", "latin-1", "truncated", "surrogate"],
)
def test_a_body_that_is_not_utf8_reaches_the_function_as_text_never_base64(body: bytes) -> None:
    """Without binaryMediaTypes API Gateway reads a body as UTF-8 and replaces what is not
    (each bad byte becomes U+FFFD, EF BF BD); it base64-encodes only binary media types."""
    recording = Recording()
    with serve(recording) as server:
        assert post(server, body, {"Content-Type": "application/json"})[0] == 200

    (event,) = recording.events
    assert event["isBase64Encoded"] is False
    assert event["body"] == body.decode("utf-8", errors="replace")
    assert "\ufffd" in event["body"]


def test_a_utf8_body_reaches_the_function_unchanged() -> None:
    recording = Recording()
    body = '{"game_id": "café ♞"}'.encode()
    with serve(recording) as server:
        post(server, body)

    assert recording.events[0]["body"] == body.decode()
    assert recording.events[0]["isBase64Encoded"] is False


@pytest.fixture
def sized_function(tmp_path: Path) -> Iterator[LocalFunction]:
    (tmp_path / "fn").mkdir()
    (tmp_path / "fn" / "app.py").write_text(SIZED_HANDLER)
    spec = FunctionSpec("SizedFunction", "fn", "app.handler", 30, {}, ())
    local = LocalFunction(spec, tmp_path, "us-east-1", {}, 1)
    yield local
    local.stop()


def test_an_answer_over_lambdas_response_limit_is_api_gateways_502(
    sized_function: LocalFunction,
) -> None:
    """Lambda fails an invocation whose result is over 6,291,556 bytes of JSON
    (Function.ResponseSizeTooLarge); API Gateway answers that function error 502."""
    invoke: Invoke = lambda target, event: sized_function.invoke(event)  # noqa: E731
    with serve(invoke) as server:
        at_limit = post(server, json.dumps({"size": MAX_RESPONSE_BYTES}).encode())
        over = post(server, json.dumps({"size": MAX_RESPONSE_BYTES + 1}).encode())

    assert MAX_RESPONSE_BYTES == 6_291_556
    assert at_limit[0] == 200
    assert len(at_limit[2]) == MAX_RESPONSE_BYTES - len('{"statusCode": 200, "body": ""}')
    assert over[0] == 502
    assert json.loads(over[2]) == INTERNAL_ERROR


def test_a_result_over_the_limit_fails_the_invocation_as_lambda_reports_it(
    sized_function: LocalFunction,
) -> None:
    with pytest.raises(Exception, match="ResponseSizeTooLarge") as failure:
        sized_function.invoke({"body": json.dumps({"size": MAX_RESPONSE_BYTES + 1})})

    assert "(6291556 bytes)" in str(failure.value)


def test_a_failed_invocation_and_a_malformed_answer_are_the_default_5xx_answer() -> None:
    def failing(target: Target, event: dict[str, Any]) -> Any:
        raise RuntimeError("Sandbox.Timedout: Task timed out after 10.00 seconds")

    def malformed(target: Target, event: dict[str, Any]) -> Any:
        return {"body": "no status"}

    for invoke in (failing, malformed):
        with serve(invoke) as server:
            status, headers, body = post(server, b"{}")
        assert status == 502
        assert headers["Content-Type"] == "application/json"
        assert json.loads(body) == INTERNAL_ERROR


def test_a_missing_or_wrong_api_key_gets_the_templates_answer() -> None:
    responses = read_stack(DEFAULT_TEMPLATE).gateway_responses
    expected = json.loads(responses["INVALID_API_KEY"]["ResponseTemplates"]["application/json"])

    with serve(ok, api_key="the-key") as server:
        missing = post(server, b"{}")
        wrong = post(server, b"{}", {"x-api-key": "another"})
        right = post(server, b"{}", {"x-api-key": "the-key"})

    for status, _, body in (missing, wrong):
        assert status == 403
        assert json.loads(body) == expected
        assert expected["error"]["code"] == "forbidden"
    assert right[0] == 200


def test_answers_keep_the_template_status_and_headers() -> None:
    status, headers, body = template_answers().answer("THROTTLED", 429, "Too Many Requests")

    assert status == 429
    assert headers["Retry-After"] == "1"
    assert json.loads(body)["error"]["code"] == "throttled"
    # A type the template leaves alone gets its default's body and API Gateway's status.
    status, _, body = template_answers().answer("BAD_REQUEST_BODY", 400, "Invalid request body")
    assert status == 400
    assert json.loads(body) == {"error": {"code": "bad_request", "message": "Invalid request body"}}
