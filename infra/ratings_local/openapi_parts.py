"""What the OpenAPI document's operations are made of (`ratings_local.openapi` and
`openapi_moderation`): their answers, with the error statuses every route may answer, and their
parameters, whose schemas are the declarations the service checks them with."""

from collections.abc import Mapping
from typing import Any

from ratings.declare.kinds import Choice, Kind, Schema, Text, ref
from ratings.service.cursors import MAX_CURSOR
from ratings.service.parameters import page_size

ERRORS = {
    400: "Invalid input, code `invalid_request`: the message names the field and what is "
    "allowed (also a body that is not JSON or not UTF-8); code `invalid_cursor`: a cursor "
    "that is not the next_cursor of a previous page of the same listing",
    403: "API Gateway: x-api-key missing or not a key of the usage plan (locally: only when "
    "the stack has a key); on a moderation route, also a request not signed by an identity "
    "allowed to call it (locally: without the stack's x-moderation-key, when it has one)",
    404: "Code `not_found`: unknown ladder, or a game, tournament, sanction or path that is "
    "not there; "
    "code `not_ranked`: the leaderboard around a player without ranked games",
    409: "Conflict: the id was already used with other content, or the link contradicts one, "
    "or the player is already under another sanction",
    413: "A body over 64 KiB",
    429: "API Gateway: more requests than the key's rate or quota allows; on a game, also "
    "code `player_daily_limit`: a player of the game has had the day's most games rated "
    "(UTC days; send it again after 00:00 UTC)",
    503: "Busy or briefly unavailable: retry later with backoff",
    507: "Code `player_storage_full`: a player's stored history is at the store's size limit; "
    "nothing was stored and sending it again does not help (report it)",
}
#: What every route may answer whatever it is: the key, the body size, throttling, capacity.
EVERY_ROUTE = (400, 403, 413, 429, 503)


def responses(
    success: Mapping[int, tuple[str, Schema]],
    *errors: int,
    texts: Mapping[int, str] = ERRORS,
    every: tuple[int, ...] = EVERY_ROUTE,
) -> dict[str, Any]:
    """The successes (description, schema), then each error status with the ErrorBody."""
    answers = {status: (text, schema) for status, (text, schema) in success.items()}
    answers.update({status: (texts[status], ref("ErrorBody")) for status in {*errors, *every}})
    return {
        str(status): {"description": text, "content": {"application/json": {"schema": schema}}}
        for status, (text, schema) in sorted(answers.items())
    }


def parameter(name: str, where: str, kind: Kind, description: str) -> Schema:
    """A path parameter (required) or a query parameter (optional) of a declared kind."""
    return {
        "name": name,
        "in": where,
        "required": where == "path",
        "schema": kind.schema(),
        "description": description,
    }


def ladder_parameter(ladders: Mapping[str, object]) -> Schema:
    return parameter("ladder", "path", Choice(tuple(ladders)), "The ladder's id (GET /v1/ladders)")


def page_parameters(maximum: int, size: str, cursor: str) -> list[Schema]:
    """A listing's `limit` and `cursor`, as `ratings.service.parameters` checks the limit."""
    return [
        parameter("limit", "query", page_size(maximum), size),
        parameter("cursor", "query", Text(MAX_CURSOR), cursor),
    ]


def json_body(schema: Schema, example: Any, description: str) -> dict[str, Any]:
    return {
        "required": True,
        "description": description,
        "content": {"application/json": {"schema": schema, "example": example}},
    }
