"""Api: the HTTP API of api.md on API Gateway (REST), one route per use case.

Routes parse nothing themselves: bodies and parameters go to the use case as sent, and the
service's parsers say what is wrong. Every error becomes api.md's error body in `answer_error`.
"""

from ratings.lambda_support import startup

startup.pause_collector()  # before the imports below: see ratings.lambda_support.startup

# isort: split

from functools import cache
from typing import Annotated, Any

from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.event_handler import APIGatewayRestResolver, Response, content_types
from aws_lambda_powertools.event_handler.exceptions import NotFoundError
from aws_lambda_powertools.event_handler.openapi.exceptions import (
    RequestUnsupportedContentType,
    RequestValidationError,
)
from aws_lambda_powertools.event_handler.openapi.params import Body, Query
from aws_lambda_powertools.logging import correlation_paths
from aws_lambda_powertools.utilities.typing import LambdaContext
from pydantic import Field, SkipValidation

from ratings import wiring
from ratings.lambda_support import payloads, schemas, telemetry
from ratings.lambda_support.problems import Problem, problem_for
from ratings.service.usecases import describe_ladders

logger = Logger()
metrics = Metrics()
app = APIGatewayRestResolver(enable_validation=True, json_body_deserializer=payloads.parse_json)
SWAGGER_PATH = "/swagger"

JsonObject = dict[str, Any]
# The models document the bodies; the use cases validate them (see schemas).
GameBody = Annotated[schemas.GameSubmission, SkipValidation, Body()]
PreviewBody = Annotated[schemas.GamePreview, SkipValidation, Body()]
LinkBody = Annotated[schemas.LinkRequest, SkipValidation, Body()]
PageSize = SkipValidation[Annotated[int, Field(ge=1, le=100)]]
Limit = Annotated[PageSize | None, Query(description="Page size, 1 to 100")]
Cursor = Annotated[
    SkipValidation[str] | None, Query(description="The next_cursor of the previous page")
]


@app.get(
    "/v1/ladders",
    summary="The ladders, their rulesets and parameters",
    responses=schemas.responses(200, schemas.Ladders, "The configured ladders"),
)
def list_ladders() -> JsonObject:
    return describe_ladders(wiring.LADDERS)  # configuration only: no table, no client


@app.post(
    "/v1/ladders/<ladder>/games",
    summary="Submit a finished game: 201 the first time, 200 for an identical retry",
    responses=schemas.responses(201, schemas.GameResult, "Rated and stored", 400, 404, 409, 413),
)
def submit_game(ladder: str, game: GameBody) -> Response[JsonObject]:
    if isinstance(game, dict) and (game_id := telemetry.loggable_id(game.get("game_id"))):
        logger.append_keys(game_id=game_id)
    service = wiring.service()
    with telemetry.counting_retries(metrics, service):
        submitted = service.submit_game(ladder, game)
    telemetry.record_game(metrics, submitted)
    return Response(
        status_code=201 if submitted.created else 200,
        content_type=content_types.APPLICATION_JSON,
        body=submitted.result,
    )


@app.post(
    "/v1/ladders/<ladder>/preview",
    summary="What a game would change (with optional overrides); stores nothing",
    responses=schemas.responses(200, schemas.PreviewResult, "The would-be result", 400, 404, 413),
)
def preview_game(ladder: str, game: PreviewBody) -> JsonObject:
    return wiring.service().preview_game(ladder, game)


@app.get(
    "/v1/ladders/<ladder>/games/<game_id>",
    summary="A stored game's result, while retained",
    responses=schemas.responses(200, schemas.GameResult, "The stored result", 400, 404),
)
def get_game(ladder: str, game_id: str) -> JsonObject:
    return wiring.service().get_game(ladder, game_id)


@app.get(
    "/v1/ladders/<ladder>/players/<player_id>",
    summary="A player's rating and counters (a new player has the starting rating)",
    responses=schemas.responses(200, schemas.PlayerSummary, "The player's state", 400, 404),
)
def get_player(ladder: str, player_id: str) -> JsonObject:
    return wiring.service().get_player(ladder, player_id)


@app.get(
    "/v1/ladders/<ladder>/players/<player_id>/history",
    summary="A player's games and podium bonuses, newest first",
    responses=schemas.responses(200, schemas.History, "One page of events", 400, 404),
)
def get_history(
    ladder: str, player_id: str, limit: Limit = None, cursor: Cursor = None
) -> JsonObject:
    return wiring.service().get_history(ladder, player_id, limit, cursor)


@app.get(
    "/v1/ladders/<ladder>/leaderboard",
    summary="Players with ranked games by rating, highest first",
    responses=schemas.responses(200, schemas.Leaderboard, "One page of the leaderboard", 400, 404),
)
def get_leaderboard(ladder: str, limit: Limit = None, cursor: Cursor = None) -> JsonObject:
    return wiring.service().get_leaderboard(ladder, limit, cursor)


@app.get(
    "/v1/ladders/<ladder>/tournaments/<tournament_id>",
    summary="A tournament's podium awards, once awarded",
    responses=schemas.responses(200, schemas.Tournament, "The awards", 400, 404),
)
def get_tournament(ladder: str, tournament_id: str) -> JsonObject:
    return wiring.service().get_tournament(ladder, tournament_id)


@app.post(
    "/v1/identities/link",
    summary="Link an anonymous id to an account, once",
    responses=schemas.responses(200, schemas.LinkResult, "Linked", 400, 409, 413),
)
def link_identity(link: LinkBody) -> JsonObject:
    service = wiring.service()
    with telemetry.counting_retries(metrics, service):
        return service.link_identity(link)


# Errors ---------------------------------------------------------------------------------


@app.exception_handler(Exception)  # type: ignore[untyped-decorator]
def answer_error(error: Exception) -> Response[JsonObject]:
    problem = problem_for(error)
    if problem is None:
        # A bug, not the caller: log it with the request id (the correlation id) and say so.
        logger.exception("unexpected error")
        request_id = app.current_event.request_context.request_id
        problem = Problem(
            500, "internal_error", f"an unexpected error happened; request id {request_id}"
        )
    elif problem.retryable:
        logger.warning("retry later", extra={"reason": problem.code, "error": repr(error)})
    return problem_response(problem)


@app.exception_handler([RequestValidationError, RequestUnsupportedContentType])  # type: ignore[untyped-decorator]
def answer_invalid_request(
    error: RequestValidationError | RequestUnsupportedContentType,
) -> Response[JsonObject]:
    # Only the shape powertools checks before the use case: a body is missing or not JSON.
    details = error.errors()
    first = details[0] if details else {}
    where = ".".join(str(part) for part in first.get("loc", ("body",)))
    if first.get("type") == "missing" and where == "body":
        message = "a JSON body is required"
    else:
        message = f"{where}: {first.get('msg', 'invalid')}"
    return problem_response(Problem(400, "invalid_request", message))


@app.not_found
def unknown_route(error: NotFoundError) -> Response[JsonObject]:
    event = app.current_event
    message = f"no route {event.http_method} {event.path}; the API's routes start with /v1"
    return problem_response(Problem(404, "not_found", message))


def problem_response(problem: Problem) -> Response[JsonObject]:
    headers = {"Retry-After": "1"} if problem.retryable else None
    return Response(
        status_code=problem.status,
        content_type=content_types.APPLICATION_JSON,
        body=problem.body(),
        headers=headers,
    )


# The document ---------------------------------------------------------------------------


@cache
def enable_swagger() -> None:
    """Serve the OpenAPI document at /swagger (HTML; ?format=json for the JSON).

    Registered by the first request for it: Powertools' OpenAPI models take longer to import
    than the rest of a cold start, and the deployed API never routes /swagger (local only).
    """
    from aws_lambda_powertools.event_handler.openapi.models import APIKey

    app.enable_swagger(
        path=SWAGGER_PATH,
        title="Elo ratings",
        version="1",
        description="Rate games; read ratings, histories, leaderboards and podiums (api.md).",
        security_schemes={"apiKey": APIKey.model_validate({"name": "x-api-key", "in": "header"})},
        security=[{"apiKey": []}],
    )


# Entry point ----------------------------------------------------------------------------


@startup.resumes_collector
@logger.inject_lambda_context(
    correlation_id_path=correlation_paths.API_GATEWAY_REST, clear_state=True
)
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    if event.get("path") == SWAGGER_PATH:
        enable_swagger()
    refused = payloads.refuse_request_body(event)  # before anything parses a body
    if refused is not None:
        logger.info("body refused", extra={"reason": refused.code, "status": refused.status})
        return {
            "statusCode": refused.status,
            "headers": {"Content-Type": content_types.APPLICATION_JSON},
            "body": payloads.json_text(refused.body()),
            "isBase64Encoded": False,
        }
    return app.resolve(event, context)
