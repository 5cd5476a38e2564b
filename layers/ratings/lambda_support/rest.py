"""What the REST functions (the game Api, Moderation) share: their routes (registered with the
resolver, path parameters decoded, listed by path for `Allow`), and their answers in api.md's
shapes: a JSON body with its status, and an error as api.md's error body (Retry-After when
retrying may help), a 405 with `Allow` or a 404 for a request no route takes."""

import base64
import functools
import re
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, TypeVar
from urllib.parse import unquote

from aws_lambda_powertools.event_handler import Response, content_types

from ratings.declare.answers import json_text
from ratings.errors import Disposition
from ratings.lambda_support.problems import (
    MAX_BODY_BYTES,
    PayloadTooLarge,
    Problem,
    problem_for,
    refused,
)
from ratings.service.errors import InvalidInput

if TYPE_CHECKING:
    from aws_lambda_powertools import Logger
    from aws_lambda_powertools.event_handler import APIGatewayRestResolver
    from aws_lambda_powertools.utilities.data_classes import APIGatewayProxyEvent

JsonObject = dict[str, Any]
Handler = TypeVar("Handler", bound=Callable[..., Any])
#: Each route's path, as API Gateway declares it (/v1/ladders/{ladder}), and its methods.
RouteMethods = dict[str, set[str]]


def routing(
    app: "APIGatewayRestResolver", routes: RouteMethods
) -> Callable[[str, str], Callable[[Handler], Handler]]:
    """The `route(method, path)` decorator of a function: it registers the route with `app`
    (which writes parameters as <name>) and in `routes`.

    The route is called with its path parameters decoded (`decoded_path_parameters`).
    """

    def route(method: str, path: str) -> Callable[[Handler], Handler]:
        routes.setdefault(path, set()).add(method)
        resolver_path = re.sub(r"\{(\w+)\}", r"<\1>", path)

        def register(handler: Handler) -> Handler:
            @functools.wraps(handler)
            def with_decoded_parameters(**matched: str) -> Any:
                return handler(**decoded_path_parameters(app.current_event, matched))

            app.route(resolver_path, method=method)(with_decoded_parameters)
            return handler

        return register

    return route


def decoded_path_parameters(
    event: "APIGatewayProxyEvent", matched: dict[str, str]
) -> dict[str, str]:
    """The route's path parameters as API Gateway decoded them (`pathParameters`).

    The resolver matches its routes against the event's `path`, which API Gateway passes on
    percent-encoded as the client sent it, so what it matched is still encoded: `google%3A123`
    where `encodeURIComponent` sent the id `google:123`. An event without the decoded value
    (one not from API Gateway) gets the matched segment decoded the same way.
    """
    decoded = event.path_parameters
    return {name: decoded.get(name, unquote(value)) for name, value in matched.items()}


def json_response(status: int, body: JsonObject) -> Response[JsonObject]:
    return Response(status_code=status, content_type=content_types.APPLICATION_JSON, body=body)


def problem_response(
    problem: Problem, headers: dict[str, str] | None = None
) -> Response[JsonObject]:
    sent = dict(headers or {})
    if problem.retryable:
        sent["Retry-After"] = "1"
    return Response(
        status_code=problem.status,
        content_type=content_types.APPLICATION_JSON,
        body=problem.body(),
        headers=sent or None,
    )


def error_response(
    error: Exception, logger: "Logger", event: "APIGatewayProxyEvent"
) -> Response[JsonObject]:
    """The answer to any error a route raised, by the disposition of its problem."""
    problem = problem_for(error)
    if problem.disposition is Disposition.BUG:
        # Not the caller: log it with the request id (the correlation id) and say so.
        logger.exception("unexpected error")
        request_id = event.request_context.request_id
        problem = problem._replace(message=f"{problem.message}; request id {request_id}")
    elif problem.disposition is Disposition.RETRY_LATER:
        logger.warning("retry later", extra={"reason": problem.code, "error": repr(error)})
    elif problem.status >= 500:
        # Refused for a limit of the store (507): the operator must hear of it.
        logger.error("refused: the store's limit", extra={"reason": problem.code})
    return problem_response(problem)


def no_route_response(
    event: "APIGatewayProxyEvent", routes: Iterable[tuple[str, Iterable[str]]]
) -> Response[JsonObject]:
    """A 405 with `Allow` when the path is on one of `routes` (path, methods), else a 404."""
    allowed = methods_of(event.path, routes)
    if allowed:
        message = f"{event.http_method} is not allowed on {event.path}; allowed: {allowed}"
        return problem_response(refused("method_not_allowed", message, 405), {"Allow": allowed})
    message = f"no route {event.http_method} {event.path}; the API's routes start with /v1"
    return problem_response(Problem(404, "not_found", message, Disposition.NOT_FOUND))


def methods_of(path: str, routes: Iterable[tuple[str, Iterable[str]]]) -> str:
    """The methods of the routes `path` is on, as an Allow header; empty for no route."""
    methods: set[str] = set()
    for template, route_methods in routes:
        if re.fullmatch(re.sub(r"\{\w+\}", "[^/]+", template), path):  # ids have no "/"
            methods |= set(route_methods)
    return ", ".join(sorted(methods))


def refused_body_response(problem: Problem) -> dict[str, Any]:
    """The proxy answer to a body refused before anything parsed it (the resolver never ran)."""
    return {
        "statusCode": problem.status,
        "headers": {"Content-Type": content_types.APPLICATION_JSON},
        "body": json_text(problem.body()),
        "isBase64Encoded": False,
    }


# Reading a request's body ----------------------------------------------------------------------

_BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})
_JSON = "application/json"


def required(value: Any) -> Any:
    """A request's JSON body as parsed, which must be there: no body, an empty one or JSON
    null is InvalidInput."""
    if value is None:
        raise InvalidInput("body", "a JSON body is required")
    return value


def refuse_request_body(event: Mapping[str, Any]) -> Problem | None:
    """Why an API Gateway (REST proxy) request's body is refused before parsing, if it is.

    Over 64 KiB is 413; a body that is not UTF-8, or that is sent as something other than
    JSON, is 400. Parsing the JSON is left to the route (see `parse_json`).
    """
    body = event.get("body")
    if not body:
        return None
    try:
        if event.get("isBase64Encoded"):
            raw = base64.b64decode(str(body), validate=True)
            size = len(raw)
            if size <= MAX_BODY_BYTES:
                raw.decode("utf-8")
        else:
            size = len(str(body).encode("utf-8", "surrogatepass"))
    except ValueError:  # not base64, or not UTF-8
        return refused("invalid_request", "the body must be JSON encoded as UTF-8")
    if size > MAX_BODY_BYTES:
        return problem_for(PayloadTooLarge(size))
    method = str(event.get("httpMethod", "")).upper()
    content_type = _header(event, "content-type")
    if method in _BODY_METHODS and content_type and not content_type.startswith(_JSON):
        return refused(
            "invalid_request",
            f"Content-Type must be application/json, not {content_type[:100]!r}",
        )
    return None


def _header(event: Mapping[str, Any], name: str) -> str:
    headers = event.get("headers") or {}
    for key, value in headers.items():
        if key.lower() == name:
            return str(value).strip().lower()
    return ""
