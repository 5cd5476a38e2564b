"""Api: the HTTP API of api.md on API Gateway (REST), one route per use case.

Routes parse nothing themselves: bodies and parameters go to the use case as sent, and the
service's parsers say what is wrong. Every error becomes api.md's error body in `answer_error`.
Nothing here serves only documentation: the OpenAPI document is generated outside the
function, from the same declarations the parsers check with (`ratings_local.openapi`).
"""

from ratings.lambda_support import invocation

invocation.pause_collector()  # before the imports below: see ratings.lambda_support.invocation

# isort: split

from typing import Any

from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.event_handler import APIGatewayRestResolver, Response
from aws_lambda_powertools.event_handler.exceptions import NotFoundError
from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.utilities.typing import LambdaContext

from ratings import wiring
from ratings.declare.kinds import parse_json
from ratings.lambda_support import invocation, rest
from ratings.lambda_support.rest import JsonObject
from ratings.lambda_support.routes import MODERATION_ROUTES

logger = Logger()
metrics = Metrics()
app = APIGatewayRestResolver(json_body_deserializer=parse_json)

#: Each route's path, as API Gateway declares it (/v1/ladders/{ladder}), and its methods.
ROUTES: rest.RouteMethods = {}
route = rest.routing(app, ROUTES)


@route("GET", "/v1/ladders")
def list_ladders() -> JsonObject:
    return wiring.service().ladders()  # the configuration, and each ladder's current season


@route("POST", "/v1/ladders/{ladder}/games")
def submit_game(ladder: str) -> Response[JsonObject]:
    game = request_body()
    if isinstance(game, dict) and (game_id := invocation.loggable_id(game.get("game_id"))):
        logger.append_keys(game_id=game_id)
    service = wiring.service()
    with invocation.counting_retries(metrics, service):
        submitted = service.submit_game(ladder, game)
    invocation.count_game(metrics, submitted)
    return rest.json_response(201 if submitted.created else 200, submitted.result)


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


@route("GET", "/v1/ladders/{ladder}/seasons")
def list_seasons(ladder: str) -> JsonObject:
    limit, cursor = page_parameters()
    return wiring.service().list_seasons(ladder, limit, cursor)


@route("GET", "/v1/ladders/{ladder}/seasons/{season_id}")
def get_season(ladder: str, season_id: str) -> JsonObject:
    return wiring.service().get_season(ladder, season_id)


@route("GET", "/v1/ladders/{ladder}/seasons/{season_id}/leaderboard")
def get_season_leaderboard(ladder: str, season_id: str) -> JsonObject:
    limit, cursor = page_parameters()
    around = app.current_event.get_query_string_value("around")
    return wiring.service().get_season_leaderboard(ladder, season_id, limit, cursor, around)


@route("GET", "/v1/ladders/{ladder}/players/{player_id}/seasons")
def get_player_seasons(ladder: str, player_id: str) -> JsonObject:
    limit, cursor = page_parameters()
    return wiring.service().get_player_seasons(ladder, player_id, limit, cursor)


@route("GET", "/v1/ladders/{ladder}/tournaments/{tournament_id}")
def get_tournament(ladder: str, tournament_id: str) -> JsonObject:
    return wiring.service().get_tournament(ladder, tournament_id)


@route("POST", "/v1/identities/link")
def link_identity() -> JsonObject:
    body = request_body()
    service = wiring.service()
    with invocation.counting_retries(metrics, service):
        return service.link_identity(body)


# Reading the request ----------------------------------------------------------------------


def request_body() -> Any:
    """The JSON value of the body, as sent (the use case checks it); a body is required."""
    return rest.required(app.current_event.json_body)  # parse_json parses it


def page_parameters() -> tuple[str | None, str | None]:
    """`limit` and `cursor` of the query string, as sent (the use case checks them)."""
    event = app.current_event
    return event.get_query_string_value("limit"), event.get_query_string_value("cursor")


# Errors ---------------------------------------------------------------------------------


@app.exception_handler(Exception)  # type: ignore[untyped-decorator]
def answer_error(error: Exception) -> Response[JsonObject]:
    return rest.error_response(error, logger, app.current_event)


@app.not_found
def unknown_route(error: NotFoundError) -> Response[JsonObject]:
    # The Moderation function's routes are on this API too: their other methods are 405 here.
    return rest.no_route_response(app.current_event, [*ROUTES.items(), *MODERATION_ROUTES.items()])


# Entry point ----------------------------------------------------------------------------


@logger.inject_lambda_context(
    correlation_id_path=correlation_paths.API_GATEWAY_REST, clear_state=True
)
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    """Every AWS call ends before the function's timeout (`deadline`): a slow store is a 503
    with Retry-After, never an invocation that Lambda ends (which API Gateway answers bare)."""
    try:
        refused = rest.refuse_request_body(event)  # before anything parses a body
        if refused is not None:
            logger.info("body refused", extra={"reason": refused.code, "status": refused.status})
            return rest.refused_body_response(refused)
        with invocation.deadline(context):
            return app.resolve(event, context)
    finally:
        invocation.resume_collector()  # a cold start's paused collector, once answered
