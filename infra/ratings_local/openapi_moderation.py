"""The moderation routes' part of the OpenAPI document (`ratings_local.openapi`): sanctioning a
player and erasing one. The sanction's body is the service's own declaration (`sanction_body`),
so the document cannot drift from the parser; the answers ("Sanction", "Erasure") are generated
from their declarations with the other answers.

Their methods take a credential of their own: deployed, a request signed with AWS Signature
Version 4 (which OpenAPI cannot describe, and Swagger UI cannot make); locally, the stack's
moderation key in x-moderation-key, when one is configured.
"""

from collections.abc import Mapping
from typing import Any

from ratings.declare.kinds import ID, Schema, ref
from ratings.service.facade import Settings
from ratings.service.parameters import DEFAULT_SANCTION_LIMIT, MAX_SANCTION_PAGE
from ratings.service.requests import parse_sanction, sanction_body
from ratings_local.openapi_parts import json_body, ladder_parameter, page_parameters, parameter
from ratings_local.openapi_parts import responses as _responses

ERASURE_PATH = "/v1/players/{player_id}/erasure"
SECURITY_SCHEME = "moderationKey"
SECURITY: list[dict[str, list[str]]] = [{"apiKey": [], SECURITY_SCHEME: []}]
#: The retention period the committed document describes (the template's default).
RETENTION_DAYS = Settings().history_retention.days

SANCTION_RULES = (
    "Besides the schema: a player already under another sanction in the ladder is 409 "
    "`already_sanctioned` (lift it first); the same `sanction_id` with other content is 409 "
    "`sanction_conflict`. The player is off the leaderboard from the answer on; the refunds "
    "are paid in the background (`status` pending, then done: read it again with GET)."
)
ERASURE_ERRORS = {
    400: "Code `invalid_request`: player_id is not an id (1-128 characters of A-Z a-z 0-9 . _ : -)",
    403: "No moderation credential: deployed, the request is not signed (SigV4) by an "
    "identity allowed to call it (ModerationInvokePolicy), or the x-api-key is wrong; locally, "
    "x-moderation-key is not the stack's moderation key (when one is configured)",
    404: "Code `not_found`: no erasure of this id was requested",
    409: "Code `already_linked`: the id is an anonymous id linked to an account (erase the "
    "account: its linked anonymous id is erased with it)",
    413: "A body over 64 KiB (the route takes none)",
    429: "API Gateway: more requests than the key's rate or quota allows",
    503: "Busy or briefly unavailable, or the work could not be queued: send the same request "
    "again",
}


def security_scheme() -> Schema:
    return {
        "type": "apiKey",
        "name": "x-moderation-key",
        "in": "header",
        "description": "The moderation credential. Locally: the stack's --moderation-key. "
        "Deployed: not this header but a request signed with AWS Signature Version 4 by an "
        "identity with the stack's ModerationInvokePolicy (docs/api.md, Moderation).",
    }


def sanction_example() -> dict[str, Any]:
    """A body of the declared examples that is accepted as it stands (checked here)."""
    body = sanction_body(RETENTION_DAYS).example()
    parse_sanction(body, RETENTION_DAYS)
    return body


#: The body of an operator's season start.
SEASON_START: Schema = {
    "type": "object",
    "additionalProperties": False,
    "required": ["season_id"],
    "properties": {
        "season_id": {"type": "string", "pattern": "^[a-z0-9][a-z0-9_-]{0,47}$"},
        "reset": {
            "type": "object",
            "additionalProperties": False,
            "required": ["kind"],
            "properties": {
                "kind": {"enum": ["none", "hard", "soft"]},
                "target": {"type": "integer", "minimum": 1, "maximum": 10000},
                "squish": {"type": "number", "minimum": 0, "maximum": 1},
            },
        },
    },
}


def schemas() -> dict[str, Schema]:
    """The request body of a sanction (the answers are generated with the other answers)."""
    return {"SanctionBody": sanction_body(RETENTION_DAYS).schema()}


def _operation(summary: str, parameters: list[Schema], answers: dict[str, Any]) -> Schema:
    return {
        "summary": summary,
        "tags": ["moderation"],
        "security": SECURITY,
        "parameters": parameters,
        "responses": answers,
    }


def paths(ladders: Mapping[str, object]) -> dict[str, Any]:
    """The three sanction operations and the two of an erasure."""
    ladder = ladder_parameter(ladders)
    sanction_id = parameter("sanction_id", "path", ID, "The sanction's id")
    answered = ref("Sanction")
    decisions = page_parameters(
        MAX_SANCTION_PAGE,
        f"Decisions per page (refunds and withheld together), 1 to {MAX_SANCTION_PAGE}; "
        f"default {DEFAULT_SANCTION_LIMIT}",
        "The next_cursor of the previous page of this sanction, as it was answered",
    )
    player = parameter(
        "player_id", "path", ID, "The account's id (its linked anonymous id is erased with it)"
    )

    def erasure(success: Mapping[int, str], *errors: int) -> dict[str, Any]:
        done = {status: (text, ref("Erasure")) for status, text in success.items()}
        return _responses(done, *errors, texts=ERASURE_ERRORS, every=())

    made = _operation(
        "Take a player off a ladder and refund their victims, once per sanction_id "
        "(moderation credential)",
        [ladder],
        _responses(
            {
                200: ("Done: every refund paid (or the same sanction again)", answered),
                202: ("Made: the player is off the ladder, refunds pending", answered),
            },
            404,
            409,
            507,
        ),
    )
    made["requestBody"] = json_body(ref("SanctionBody"), sanction_example(), SANCTION_RULES)
    started = _operation(
        "Start the ladder's next season: it begins 2 seconds after the request, once per "
        "season_id (moderation credential)",
        [ladder],
        _responses(
            {
                201: ("Started", ref("Season")),
                200: ("The same request again: the same season", ref("Season")),
            },
            404,
            409,
        ),
    )
    started["requestBody"] = json_body(
        SEASON_START,
        {"season_id": "launch-week", "reset": {"kind": "soft", "target": 1500, "squish": 0.5}},
        "season_id: 1 to 48 lower-case letters, digits, '-' or '_', not of a scheduled season's "
        "form; 409 season_conflict for an id used before. reset (optional, the ladder's by "
        "default): none, hard, or soft with target (1 to 10000, default the starting rating) "
        "and squish (0 to 1, default 0.5).",
    )
    return {
        "/v1/ladders/{ladder}/seasons": {"post": {"operationId": "start_season", **started}},
        "/v1/ladders/{ladder}/sanctions": {"post": {"operationId": "sanction_player", **made}},
        "/v1/ladders/{ladder}/sanctions/{sanction_id}": {
            "get": {
                "operationId": "get_sanction",
                **_operation(
                    "A sanction, its totals and a page of its decisions so far, by game id "
                    "(moderation credential)",
                    [ladder, sanction_id, *decisions],
                    _responses(
                        {200: ("The sanction, with one page of its decisions", answered)}, 404
                    ),
                ),
            },
            "delete": {
                "operationId": "lift_sanction",
                **_operation(
                    "Lift a sanction: the player is back on the ladder, the refunds stay "
                    "(moderation credential)",
                    [ladder, sanction_id],
                    _responses({200: ("Lifted (now or before)", answered)}, 404),
                ),
            },
        },
        ERASURE_PATH: {
            "post": {
                "operationId": "request_erasure",
                **_operation(
                    "Erase a player (account deletion, right to erasure): everything that names "
                    "the id, or its linked anonymous id, is deleted or pseudonymized on every "
                    "ladder, in the background. Asking again answers the current status.",
                    [player],
                    erasure(
                        {
                            200: "Done (an id with nothing stored is done at once)",
                            202: "Pending: the work runs in the background",
                        },
                        *(400, 403, 409, 413, 429, 503),
                    ),
                ),
            },
            "get": {
                "operationId": "get_erasure",
                **_operation(
                    "Where an erasure stands",
                    [player],
                    erasure({200: "Pending or done"}, 400, 403, 404, 429, 503),
                ),
            },
        },
    }
