"""Moderation: the moderation routes of api.md (erasing a player, sanctions), on a function
and a role of their own, so the game Api never holds what they need (docs/security.md).
Deployed, their methods take a SigV4-signed request (AWS_IAM) besides the API key.

Like the Api, it parses nothing itself: the use cases check the parameters, and every error
becomes api.md's error body in `answer_error`. Its routes are `MODERATION_ROUTES`; the Api
answers their other methods (405 with Allow).
"""

from ratings.lambda_support import invocation

invocation.pause_collector()  # before the imports below: see ratings.lambda_support.invocation

# isort: split

from typing import Any

from aws_lambda_powertools import Logger
from aws_lambda_powertools.event_handler import APIGatewayRestResolver, Response
from aws_lambda_powertools.event_handler.exceptions import NotFoundError
from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.utilities.typing import LambdaContext

from ratings import wiring
from ratings.declare.kinds import parse_json
from ratings.lambda_support import rest
from ratings.lambda_support.rest import JsonObject, json_response
from ratings.lambda_support.routes import MODERATION_ROUTES

logger = Logger()
app = APIGatewayRestResolver(json_body_deserializer=parse_json)

#: Each route's path, as API Gateway declares it, and the methods served here.
ROUTES: rest.RouteMethods = {}
route = rest.routing(app, ROUTES)


@route("POST", "/v1/players/{player_id}/erasure")
def request_erasure(player_id: str) -> Response[JsonObject]:
    erasure = wiring.service().request_erasure(player_id)
    return json_response(200 if erasure["status"] == "done" else 202, erasure)


@route("GET", "/v1/players/{player_id}/erasure")
def get_erasure(player_id: str) -> Response[JsonObject]:
    return json_response(200, wiring.service().get_erasure(player_id))


@route("POST", "/v1/ladders/{ladder}/sanctions")
def sanction_player(ladder: str) -> Response[JsonObject]:
    sanction = wiring.service().sanction_player(ladder, request_body()).result
    return json_response(200 if sanction["status"] == "done" else 202, sanction)


@route("GET", "/v1/ladders/{ladder}/sanctions/{sanction_id}")
def get_sanction(ladder: str, sanction_id: str) -> Response[JsonObject]:
    # A page of its decisions: `limit` and `cursor` as sent (the use case checks them).
    event = app.current_event
    limit, cursor = event.get_query_string_value("limit"), event.get_query_string_value("cursor")
    return json_response(200, wiring.service().get_sanction(ladder, sanction_id, limit, cursor))


@route("DELETE", "/v1/ladders/{ladder}/sanctions/{sanction_id}")
def lift_sanction(ladder: str, sanction_id: str) -> Response[JsonObject]:
    return json_response(200, wiring.service().lift_sanction(ladder, sanction_id))


@route("POST", "/v1/ladders/{ladder}/seasons")
def start_season(ladder: str) -> Response[JsonObject]:
    started = wiring.service().start_season(ladder, request_body())
    return json_response(201 if started.created else 200, started.result)


def request_body() -> Any:
    """The JSON value of the body, as sent (the use case checks it); a body is required."""
    return rest.required(app.current_event.json_body)


# Errors ---------------------------------------------------------------------------------


@app.exception_handler(Exception)  # type: ignore[untyped-decorator]
def answer_error(error: Exception) -> Response[JsonObject]:
    return rest.error_response(error, logger, app.current_event)


@app.not_found
def unknown_route(error: NotFoundError) -> Response[JsonObject]:
    # API Gateway sends only MODERATION_ROUTES' methods here; anything else is a wiring slip.
    return rest.no_route_response(app.current_event, MODERATION_ROUTES.items())


# Entry point ----------------------------------------------------------------------------


@logger.inject_lambda_context(
    correlation_id_path=correlation_paths.API_GATEWAY_REST, clear_state=True
)
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    try:
        refused = rest.refuse_request_body(event)  # before anything parses a body
        if refused is not None:
            return rest.refused_body_response(refused)
        return app.resolve(event, context)
    finally:
        invocation.resume_collector()  # a cold start's paused collector, once answered
