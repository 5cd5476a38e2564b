"""The moderation routes' part of the OpenAPI document (`ratings_local.openapi`): erasing a
player (its answer, "Erasure", is generated from its declaration with the other answers).
Their methods take a credential of their own: deployed, a request signed with AWS Signature
Version 4 (which OpenAPI cannot describe, and Swagger UI cannot make); locally, the stack's
moderation key in x-moderation-key, when one is configured.
"""

from typing import Any

from ratings.declare.kinds import ID

Schema = dict[str, Any]

ERASURE_PATH = "/v1/players/{player_id}/erasure"
SECURITY_SCHEME = "moderationKey"
SECURITY: list[dict[str, list[str]]] = [{"apiKey": [], SECURITY_SCHEME: []}]

ERRORS = {
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


def _responses(success: dict[int, str], *errors: int) -> dict[str, Any]:
    answers: dict[str, Any] = {
        str(status): {
            "description": text,
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Erasure"}}},
        }
        for status, text in success.items()
    }
    for status in errors:
        answers[str(status)] = {
            "description": ERRORS[status],
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorBody"}}},
        }
    return dict(sorted(answers.items()))


def paths() -> dict[str, Any]:
    player = {
        "name": "player_id",
        "in": "path",
        "required": True,
        "schema": ID.schema(),
        "description": "The account's id (its linked anonymous id is erased with it)",
    }
    return {
        ERASURE_PATH: {
            "post": {
                "operationId": "request_erasure",
                "summary": "Erase a player (account deletion, right to erasure): everything "
                "that names the id, or its linked anonymous id, is deleted or pseudonymized on "
                "every ladder, in the background. Asking again answers the current status.",
                "tags": ["moderation"],
                "security": SECURITY,
                "parameters": [player],
                "responses": _responses(
                    {
                        200: "Done (an id with nothing stored is done at once)",
                        202: "Pending: the work runs in the background",
                    },
                    400,
                    403,
                    409,
                    413,
                    429,
                    503,
                ),
            },
            "get": {
                "operationId": "get_erasure",
                "summary": "Where an erasure stands",
                "tags": ["moderation"],
                "security": SECURITY,
                "parameters": [player],
                "responses": _responses({200: "Pending or done"}, 400, 403, 404, 429, 503),
            },
        }
    }
