"""Moderation: the moderation routes of api.md (erasing a player, sanctions), on a function
and a role of their own, so the game Api never holds what they need (docs/security.md).
Deployed, their methods take a SigV4-signed request (AWS_IAM) besides the API key.

Like the Api, it parses nothing itself: the use cases check the parameters, and every error
becomes api.md's error body in `answer_error`. Its routes are `MODERATION_ROUTES`; the Api
answers their other methods (405 with Allow).
"""

from ratings.lambda_support import startup

startup.pause_collector()  # before the imports below: see ratings.lambda_support.startup

# isort: split

import re
from collections.abc import Callable
from typing import Any, TypeVar

from aws_lambda_powertools import Logger
from aws_lambda_powertools.event_handler import APIGatewayRestResolver, Response
from aws_lambda_powertools.event_handler.exceptions import NotFoundError
from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.utilities.typing import LambdaContext

from ratings import wiring
from ratings.lambda_support import payloads
from ratings.lambda_support.problems import Problem, problem_for, refused
from ratings.lambda_support.rest import json_response, problem_response
from ratings.lambda_support.routes import MODERATION_ROUTES
from ratings.service.errors import Disposition

logger = Logger()
app = APIGatewayRestResolver(json_body_deserializer=payloads.parse_json)

JsonObject = dict[str, Any]
Handler = TypeVar("Handler", bound=Callable[..., Any])
#: Each route's path, as API Gateway declares it, and the methods served here.
ROUTES: dict[str, set[str]] = {}


def route(method: str, path: str) -> Callable[[Handler], Handler]:
    ROUTES.setdefault(path, set()).add(method)
    register: Callable[[Handler], Handler] = app.route(
        re.sub(r"\{(\w+)\}", r"<\1>", path), method=method
    )
    return register


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
    return json_response(200, wiring.service().get_sanction(ladder, sanction_id))


@route("DELETE", "/v1/ladders/{ladder}/sanctions/{sanction_id}")
def lift_sanction(ladder: str, sanction_id: str) -> Response[JsonObject]:
    return json_response(200, wiring.service().lift_sanction(ladder, sanction_id))


def request_body() -> Any:
    """The JSON value of the body, as sent (the use case checks it); a body is required."""
    return payloads.required(app.current_event.json_body)


# Errors ---------------------------------------------------------------------------------


@app.exception_handler(Exception)  # type: ignore[untyped-decorator]
def answer_error(error: Exception) -> Response[JsonObject]:
    problem = problem_for(error)
    if problem.disposition is Disposition.BUG:
        logger.exception("unexpected error")
        request_id = app.current_event.request_context.request_id
        problem = problem._replace(message=f"{problem.message}; request id {request_id}")
    elif problem.disposition is Disposition.RETRY_LATER:
        logger.warning("retry later", extra={"reason": problem.code, "error": repr(error)})
    return problem_response(problem)


@app.not_found
def unknown_route(error: NotFoundError) -> Response[JsonObject]:
    # API Gateway sends only MODERATION_ROUTES' methods here; anything else is a wiring slip.
    event = app.current_event
    for template, methods in MODERATION_ROUTES.items():
        if re.fullmatch(re.sub(r"\{\w+\}", "[^/]+", template), event.path):
            allowed = ", ".join(sorted(methods))
            message = f"{event.http_method} is not allowed on {event.path}; allowed: {allowed}"
            return problem_response(refused("method_not_allowed", message, 405), {"Allow": allowed})
    message = f"no route {event.http_method} {event.path}; the API's routes start with /v1"
    return problem_response(Problem(404, "not_found", message, Disposition.NOT_FOUND))


# Entry point ----------------------------------------------------------------------------


@startup.resumes_collector
@logger.inject_lambda_context(
    correlation_id_path=correlation_paths.API_GATEWAY_REST, clear_state=True
)
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    refused_body = payloads.refuse_request_body(event)  # before anything parses a body
    if refused_body is not None:
        return {
            "statusCode": refused_body.status,
            "headers": {"Content-Type": "application/json"},
            "body": payloads.json_text(refused_body.body()),
            "isBase64Encoded": False,
        }
    return app.resolve(event, context)
