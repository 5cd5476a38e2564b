"""Api: the HTTP API of api.md on API Gateway (REST), one route per use case.

Routes parse nothing themselves: bodies and parameters go to the use case as sent, and the
service's parsers say what is wrong. Every error becomes api.md's error body in `answer_error`.
Nothing here serves only documentation: the OpenAPI document is generated outside the
function, from the same declarations the parsers check with (`ratings_local.openapi`).
"""

from ratings.lambda_support import startup

startup.pause_collector()  # before the imports below: see ratings.lambda_support.startup

# isort: split

import functools
import re
from collections.abc import Callable
from typing import Any, TypeVar
from urllib.parse import unquote

from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.event_handler import APIGatewayRestResolver, Response, content_types
from aws_lambda_powertools.event_handler.exceptions import NotFoundError
from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.utilities.typing import LambdaContext

from ratings import wiring
from ratings.lambda_support import deadline, payloads, telemetry
from ratings.lambda_support.problems import Problem, problem_for, refused
from ratings.lambda_support.routes import MODERATION_ROUTES
from ratings.service.errors import Disposition, InvalidInput
from ratings.service.results import LadderList, json_of

logger = Logger()
metrics = Metrics()
app = APIGatewayRestResolver(json_body_deserializer=payloads.parse_json)

JsonObject = dict[str, Any]
Handler = TypeVar("Handler", bound=Callable[..., Any])
#: Each route's path, as API Gateway declares it (/v1/ladders/{ladder}), and its methods.
ROUTES: dict[str, set[str]] = {}


def route(method: str, path: str) -> Callable[[Handler], Handler]:
    """Register a route with the resolver (which writes parameters as <name>) and in ROUTES.

    The route is called with its path parameters decoded (`decoded_path_parameters`).
    """
    ROUTES.setdefault(path, set()).add(method)
    resolver_path = re.sub(r"\{(\w+)\}", r"<\1>", path)

    def register(handler: Handler) -> Handler:
        @functools.wraps(handler)
        def with_decoded_parameters(**matched: str) -> Any:
            return handler(**decoded_path_parameters(matched))

        app.route(resolver_path, method=method)(with_decoded_parameters)
        return handler

    return register


def decoded_path_parameters(matched: dict[str, str]) -> dict[str, str]:
    """The route's path parameters as API Gateway decoded them (`pathParameters`).

    The resolver matches its routes against the event's `path`, which API Gateway passes on
    percent-encoded as the client sent it, so what it matched is still encoded: `google%3A123`
    where `encodeURIComponent` sent the id `google:123`. An event without the decoded value
    (one not from API Gateway) gets the matched segment decoded the same way.
    """
    decoded = app.current_event.path_parameters
    return {name: decoded.get(name, unquote(value)) for name, value in matched.items()}


@route("GET", "/v1/ladders")
def list_ladders() -> JsonObject:
    return json_of(LadderList.of(wiring.LADDERS))  # configuration only: no table, no client


@route("POST", "/v1/ladders/{ladder}/games")
def submit_game(ladder: str) -> Response[JsonObject]:
    game = request_body()
    if isinstance(game, dict) and (game_id := telemetry.loggable_id(game.get("game_id"))):
        logger.append_keys(game_id=game_id)
    service = wiring.service()
    with telemetry.counting_retries(metrics, service):
        submitted = service.submit_game(ladder, game)
    telemetry.count_game(metrics, submitted)
    return Response(
        status_code=201 if submitted.created else 200,
        content_type=content_types.APPLICATION_JSON,
        body=submitted.result,
    )


@route("POST", "/v1/ladders/{ladder}/preview")
def preview_game(ladder: str) -> JsonObject:
    return wiring.service().preview_game(ladder, request_body())


@route("GET", "/v1/ladders/{ladder}/games/{game_id}")
def get_game(ladder: str, game_id: str) -> JsonObject:
    return wiring.service().get_game(ladder, game_id)


@route("GET", "/v1/ladders/{ladder}/players/{player_id}")
def get_player(ladder: str, player_id: str) -> JsonObject:
    return wiring.service().get_player(ladder, player_id)


@route("GET", "/v1/ladders/{ladder}/players/{player_id}/history")
def get_history(ladder: str, player_id: str) -> JsonObject:
    limit, cursor = page_parameters()
    return wiring.service().get_history(ladder, player_id, limit, cursor)


@route("GET", "/v1/ladders/{ladder}/leaderboard")
def get_leaderboard(ladder: str) -> JsonObject:
    limit, cursor = page_parameters()
    around = app.current_event.get_query_string_value("around")
    return wiring.service().get_leaderboard(ladder, limit, cursor, around)


@route("GET", "/v1/ladders/{ladder}/tournaments/{tournament_id}")
def get_tournament(ladder: str, tournament_id: str) -> JsonObject:
    return wiring.service().get_tournament(ladder, tournament_id)


@route("POST", "/v1/identities/link")
def link_identity() -> JsonObject:
    body = request_body()
    service = wiring.service()
    with telemetry.counting_retries(metrics, service):
        return service.link_identity(body)


# Reading the request ----------------------------------------------------------------------


def request_body() -> Any:
    """The JSON value of the body, as sent (the use case checks it); a body is required."""
    value = app.current_event.json_body  # payloads.parse_json: InvalidInput if not JSON
    if value is None:  # no body, an empty one, or JSON null
        raise InvalidInput("body", "a JSON body is required")
    return value


def page_parameters() -> tuple[str | None, str | None]:
    """`limit` and `cursor` of the query string, as sent (the use case checks them)."""
    event = app.current_event
    return event.get_query_string_value("limit"), event.get_query_string_value("cursor")


# Errors ---------------------------------------------------------------------------------


@app.exception_handler(Exception)  # type: ignore[untyped-decorator]
def answer_error(error: Exception) -> Response[JsonObject]:
    problem = problem_for(error)
    if problem.disposition is Disposition.BUG:
        # Not the caller: log it with the request id (the correlation id) and say so.
        logger.exception("unexpected error")
        request_id = app.current_event.request_context.request_id
        problem = problem._replace(message=f"{problem.message}; request id {request_id}")
    elif problem.disposition is Disposition.RETRY_LATER:
        logger.warning("retry later", extra={"reason": problem.code, "error": repr(error)})
    return problem_response(problem)


@app.not_found
def unknown_route(error: NotFoundError) -> Response[JsonObject]:
    event = app.current_event
    allowed = methods_of(event.path)
    if allowed:
        message = f"{event.http_method} is not allowed on {event.path}; allowed: {allowed}"
        return problem_response(refused("method_not_allowed", message, 405), {"Allow": allowed})
    message = f"no route {event.http_method} {event.path}; the API's routes start with /v1"
    return problem_response(Problem(404, "not_found", message, Disposition.NOT_FOUND))


def methods_of(path: str) -> str:
    """The methods of the route `path` is on (the Moderation function's included), as an
    Allow header; empty for no route."""
    methods: set[str] = set()
    for template, route_methods in [*ROUTES.items(), *MODERATION_ROUTES.items()]:
        if re.fullmatch(re.sub(r"\{\w+\}", "[^/]+", template), path):  # ids have no "/"
            methods |= route_methods
    return ", ".join(sorted(methods))


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


# Entry point ----------------------------------------------------------------------------


@startup.resumes_collector
@logger.inject_lambda_context(
    correlation_id_path=correlation_paths.API_GATEWAY_REST, clear_state=True
)
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    """Every AWS call ends before the function's timeout (`deadline`): a slow store is a 503
    with Retry-After, never an invocation that Lambda ends (which API Gateway answers bare)."""
    refused = payloads.refuse_request_body(event)  # before anything parses a body
    if refused is not None:
        logger.info("body refused", extra={"reason": refused.code, "status": refused.status})
        return {
            "statusCode": refused.status,
            "headers": {"Content-Type": content_types.APPLICATION_JSON},
            "body": payloads.json_text(refused.body()),
            "isBase64Encoded": False,
        }
    with deadline.invocation(context):
        return app.resolve(event, context)
