"""The sanction routes' part of the OpenAPI document (`ratings_local.openapi`): their paths and
their request body; they take the moderation credential (`openapi_moderation`). The request
body is the service's own declaration (`sanction_body`), so the document cannot drift from the
parser; the answer ("Sanction") is generated from its declaration with the other answers.
"""

from collections.abc import Callable, Mapping
from typing import Any

from ratings.declare.kinds import ID
from ratings.rules import Ladder
from ratings.service.cursors import MAX_CURSOR
from ratings.service.parameters import DEFAULT_SANCTION_LIMIT, MAX_SANCTION_PAGE
from ratings.service.requests import parse_sanction, sanction_body
from ratings.service.settings import Settings
from ratings_local.openapi_moderation import SECURITY

Schema = dict[str, Any]
#: The retention period the committed document describes (the template's default).
RETENTION_DAYS = Settings().history_retention.days

SANCTION_RULES = (
    "Besides the schema: a player already under another sanction in the ladder is 409 "
    "`already_sanctioned` (lift it first); the same `sanction_id` with other content is 409 "
    "`sanction_conflict`. The player is off the leaderboard from the answer on; the refunds "
    "are paid in the background (`status` pending, then done: read it again with GET)."
)
#: A page of the sanction's decisions, on GET (POST and DELETE answer the first page).
DECISION_PAGE_PARAMETERS = [
    {
        "name": "limit",
        "in": "query",
        "required": False,
        "schema": {"type": "integer", "minimum": 1, "maximum": MAX_SANCTION_PAGE},
        "description": f"Decisions per page (refunds and withheld together), 1 to "
        f"{MAX_SANCTION_PAGE}; default {DEFAULT_SANCTION_LIMIT}",
    },
    {
        "name": "cursor",
        "in": "query",
        "required": False,
        "schema": {"type": "string", "maxLength": MAX_CURSOR},
        "description": "The next_cursor of the previous page of this sanction, as it was answered",
    },
]


def sanction_example() -> dict[str, Any]:
    """A body of the declared examples that is accepted as it stands (checked here)."""
    body = {
        entry.name: entry.example
        for entry in sanction_body(RETENTION_DAYS).fields
        if entry.example is not None
    }
    parse_sanction(body, RETENTION_DAYS)
    return body


def sanction_schemas() -> dict[str, Schema]:
    """The request body of a sanction (its answer is generated with the other answers:
    `ratings_local.openapi.result_schemas`)."""
    return {"SanctionBody": sanction_body(RETENTION_DAYS).schema()}


def sanction_paths(
    ladders: Mapping[str, Ladder],
    responses: Callable[..., dict[str, Any]],
    ref: Callable[[str], Schema],
) -> dict[str, Any]:
    """The three sanction operations (`responses` and `ref` are the document's own)."""
    ladder = {
        "name": "ladder",
        "in": "path",
        "required": True,
        "schema": {"type": "string", "enum": list(ladders)},
        "description": "The ladder's id (GET /v1/ladders)",
    }
    sanction_id = {
        "name": "sanction_id",
        "in": "path",
        "required": True,
        "schema": ID.schema(),
        "description": "The sanction's id",
    }
    answered = ref("Sanction")
    return {
        "/v1/ladders/{ladder}/sanctions": {
            "post": {
                "operationId": "sanction_player",
                "summary": "Take a player off a ladder and refund their victims, once per "
                "sanction_id (moderation credential)",
                "tags": ["moderation"],
                "security": SECURITY,
                "parameters": [ladder],
                "requestBody": {
                    "required": True,
                    "description": SANCTION_RULES,
                    "content": {
                        "application/json": {
                            "schema": ref("SanctionBody"),
                            "example": sanction_example(),
                        }
                    },
                },
                "responses": responses(
                    {
                        200: ("Done: every refund paid (or the same sanction again)", answered),
                        202: ("Made: the player is off the ladder, refunds pending", answered),
                    },
                    404,
                    409,
                    507,
                ),
            }
        },
        "/v1/ladders/{ladder}/sanctions/{sanction_id}": {
            "get": {
                "operationId": "get_sanction",
                "summary": "A sanction, its totals and a page of its decisions so far, by game "
                "id (moderation credential)",
                "tags": ["moderation"],
                "security": SECURITY,
                "parameters": [ladder, sanction_id, *DECISION_PAGE_PARAMETERS],
                "responses": responses(
                    {200: ("The sanction, with one page of its decisions", answered)}, 404
                ),
            },
            "delete": {
                "operationId": "lift_sanction",
                "summary": "Lift a sanction: the player is back on the ladder, the refunds "
                "stay (moderation credential)",
                "tags": ["moderation"],
                "security": SECURITY,
                "parameters": [ladder, sanction_id],
                "responses": responses({200: ("Lifted (now or before)", answered)}, 404),
            },
        },
    }
