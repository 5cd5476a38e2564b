"""The HTTP API's OpenAPI 3.1 document, generated from the declarations the service checks with.

Request bodies are the rules' own declarations (`game_body` per ladder, `LINK`), so the
document cannot drift from what the parsers accept; result documents are written here as JSON
Schema from each ruleset's fields and `explain_fields`. Outside the Lambda runtime path: the
local stack serves it (/swagger, /openapi.json) and `docs/openapi.json` is its output:

    python -m ratings_local.openapi > docs/openapi.json
"""

import json
import sys
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import Any

from ratings.rules import Ladder, Ruleset
from ratings.rules.fields import ID, Field, Record
from ratings.rules.ladders import RULESET_VERSIONS
from ratings.rules.ranked import MODES, UNRANKED_REASONS
from ratings.rules.submission import game_body, parse_game
from ratings.service.inputs import LINK, parse_link
from ratings.service.pages import MAX_PAGE
from ratings.wiring import LADDERS
from ratings_local import openapi_moderation, openapi_sanctions
from ratings_local.stack import DEFAULT_TEMPLATE
from ratings_local.template import read_stack

Schema = dict[str, Any]

#: The deployed stage's URL, as the stack output ApiUrl has it.
DEPLOYED_URL = "https://{restApiId}.execute-api.{region}.amazonaws.com/{stage}"
GAME_RULES = (
    "Besides the schema, a game is refused (400, naming the field) when its two players are "
    "the same id or the same account after linking, when `winner` is not one of the players' "
    "ids, or when `played_at` is more than 5 minutes in the future or more than 14 days old. "
    "A game with a player being erased is 503 erasure_pending (retry later)."
)
LINK_RULES = (
    "Besides the schema: `account_id` must differ from `anonymous_id` (400), and a link that "
    "contradicts an existing one is 409 `already_linked` (api.md, identity linking)."
)

# Answers ----------------------------------------------------------------------------------

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
    429: "API Gateway: more requests than the key's rate or quota allows",
    503: "Busy or briefly unavailable: retry later with backoff",
}
#: What every route may answer whatever it is: the key, the body size, throttling, capacity.
EVERY_ROUTE = (400, 403, 413, 429, 503)


def _ref(name: str) -> Schema:
    return {"$ref": f"#/components/schemas/{name}"}


def _nullable(schema: Schema) -> Schema:
    return {"anyOf": [schema, {"type": "null"}]}


def _object(properties: Mapping[str, Schema], optional: Iterable[str] = ()) -> Schema:
    """A closed object: every property required except `optional`, nothing else allowed."""
    skipped = set(optional)
    return {
        "type": "object",
        "properties": dict(properties),
        "required": [name for name in properties if name not in skipped],
        "additionalProperties": False,
    }


INTEGER: Schema = {"type": "integer"}
STRING: Schema = {"type": "string"}
TIME: Schema = {"type": "string", "format": "date-time"}
ID_SCHEMA = ID.schema()


def _as_answered(field: Field) -> Schema:
    """A declared field as a result shows it: always present, its default when not sent."""
    schema = field.schema()
    for key in ("default", "example"):
        schema.pop(key, None)
    if isinstance(field.kind, Record):
        nested = field.kind.schema()
        nested["required"] = [entry.name for entry in field.kind.fields]
        schema = nested if not field.nullable else _nullable(nested)
    return schema


def explain_schema(ruleset: Ruleset) -> Schema:
    schema = _object(
        {
            entry.name: {
                "type": "number" if entry.number else "string",
                "description": entry.description,
            }
            for entry in ruleset.explain_fields
        }
    )
    schema["description"] = f"The formula's inputs under {ruleset.name} (null when unranked)"
    return schema


def game_result_schema(ruleset: Ruleset, *, preview: bool) -> Schema:
    """A game's result under `ruleset` (any published version of it)."""
    versions = list(RULESET_VERSIONS.get(ruleset.name, {ruleset.version: ruleset}))
    player = _object(
        {
            "id": {**ID_SCHEMA, "description": "The player's id (the account, once linked)"},
            "rating_before": INTEGER,
            "rating_after": INTEGER,
            "delta": INTEGER,
            "explain": _nullable(_ref(f"explain.{ruleset.name}")),
            "bot": {"type": "boolean"},
            "submitted_id": {**ID_SCHEMA, "description": "The id sent, when it is linked"},
            **{entry.name: _as_answered(entry) for entry in ruleset.player_fields},
        },
        optional=["submitted_id"],
    )
    properties: dict[str, Schema] = {
        "game_id": ID_SCHEMA if not preview else _nullable(ID_SCHEMA),
        "ladder": ID_SCHEMA,
        "played_at": TIME,
        "ruleset": {"const": ruleset.name},
        "ruleset_version": {"enum": versions},
        "ranked": {"type": "boolean"},
        "unranked_reason": {"enum": [*UNRANKED_REASONS, None]},
        "winner": _nullable(ID_SCHEMA) if ruleset.draws_allowed else ID_SCHEMA,
        "mode": {"enum": list(MODES)},
        "players": {"type": "array", "items": player, "minItems": 2, "maxItems": 2},
        **{entry.name: _as_answered(entry) for entry in ruleset.game_fields},
    }
    if preview:
        properties["preview"] = {"const": True}
    kind = "preview" if preview else "game"
    return {**_object(properties), "title": f"{ruleset.name} {kind} result"}


def _rulesets(ladders: Mapping[str, Ladder]) -> dict[str, Ruleset]:
    return {ladder.ruleset.name: ladder.ruleset for ladder in ladders.values()}


def result_schemas(ladders: Mapping[str, Ladder]) -> dict[str, Schema]:
    rulesets = _rulesets(ladders)
    schemas: dict[str, Schema] = {
        "ErrorBody": _object(
            {
                "error": _object(
                    {
                        "code": {**STRING, "description": "Stable, machine-readable"},
                        "message": {**STRING, "description": "The field, the fault, the rule"},
                    }
                )
            }
        ),
        "Ladders": _object(
            {
                "ladders": {
                    "type": "array",
                    "items": _object(
                        {
                            "id": ID_SCHEMA,
                            "ruleset": {"enum": sorted(rulesets)},
                            "version": STRING,
                            "starting_rating": INTEGER,
                            "podium_bonuses": {"type": "array", "items": INTEGER},
                            "parameters": {"type": "object"},
                        }
                    ),
                }
            }
        ),
        "PlayerSummary": _object(
            {
                "player_id": ID_SCHEMA,
                "ladder": ID_SCHEMA,
                "rating": INTEGER,
                "ranked_games": INTEGER,
                "recent_ranked_games": INTEGER,
                "k": INTEGER,
                "provisional": {"type": "boolean"},
                "sanctioned": {
                    "type": "boolean",
                    "description": "Under a sanction in the ladder: off its leaderboard (no "
                    "standing), no game with them rates; the rating is kept",
                },
                "standing": _nullable(_ref("Standing")),
            }
        ),
        "Standing": {
            **_object(
                {
                    "rank": _nullable({"type": "integer", "minimum": 1}),
                    "of": _nullable({"type": "integer", "minimum": 1}),
                    "exact": {"type": "boolean"},
                    "as_of": _nullable(TIME),
                }
            ),
            "description": "Where the player stands on the leaderboard: exact up to the "
            "deployment's exact-rank limit, else estimated from the rating histogram of the last "
            "refresh (as_of); rank and of are null before a ladder's first refresh",
        },
        "GameEvent": _object(
            {
                "type": {"const": "game"},
                "game_id": ID_SCHEMA,
                "at": TIME,
                "opponent": ID_SCHEMA,
                "ranked": {"type": "boolean"},
                "unranked_reason": {"enum": [*UNRANKED_REASONS, None]},
                "delta": INTEGER,
                "rating_after": INTEGER,
                "explain": {
                    "anyOf": [{"type": "null"}, *(_ref(f"explain.{name}") for name in rulesets)]
                },
            }
        ),
        "PodiumBonusEvent": _object(
            {
                "type": {"const": "podium_bonus"},
                "tournament_id": ID_SCHEMA,
                "place": {"type": "integer", "minimum": 1, "maximum": 3},
                "at": TIME,
                "delta": INTEGER,
                "rating_after": INTEGER,
            }
        ),
        "History": _object(
            {
                "player_id": ID_SCHEMA,
                "ladder": ID_SCHEMA,
                "events": {
                    "type": "array",
                    "items": {
                        "oneOf": [
                            _ref("GameEvent"),
                            _ref("PodiumBonusEvent"),
                            _ref("RefundEvent"),
                        ]
                    },
                },
                "next_cursor": _nullable(STRING),
            }
        ),
        "Leaderboard": _object(
            {
                "ladder": ID_SCHEMA,
                "entries": {
                    "type": "array",
                    "items": _object(
                        {
                            "rank": _nullable({"type": "integer", "minimum": 1}),
                            "player_id": ID_SCHEMA,
                            "rating": INTEGER,
                            "ranked_games": INTEGER,
                        }
                    ),
                },
                "next_cursor": _nullable(STRING),
                # Only on a page around a player:
                "around": ID_SCHEMA,
                "exact": {"type": "boolean"},
                "as_of": _nullable(TIME),
            },
            optional=("around", "exact", "as_of"),
        ),
        "Tournament": _object(
            {
                "tournament_id": ID_SCHEMA,
                "ladder": ID_SCHEMA,
                "status": {"const": "awarded"},
                "public": {"type": "boolean"},
                "finished_at": TIME,
                "awards": {
                    "type": "array",
                    "items": _object(
                        {
                            "place": {"type": "integer", "minimum": 1, "maximum": 3},
                            "player_id": ID_SCHEMA,
                            "delta": INTEGER,
                            "rating_after": INTEGER,
                            "submitted_id": ID_SCHEMA,
                        },
                        optional=["submitted_id"],
                    ),
                },
            }
        ),
        "LinkResult": _object(
            {
                "anonymous_id": ID_SCHEMA,
                "account_id": ID_SCHEMA,
                "ladders": {
                    "type": "array",
                    "items": _object(
                        {"ladder": ID_SCHEMA, "kept": {"enum": ["anonymous", "account"]}}
                    ),
                },
            }
        ),
        "IdentityLink": LINK.schema(),
        **openapi_sanctions.sanction_schemas(_object, _nullable),
    }
    for name, ruleset in rulesets.items():
        schemas[f"explain.{name}"] = explain_schema(ruleset)
        schemas[f"result.{name}"] = game_result_schema(ruleset, preview=False)
        schemas[f"preview_result.{name}"] = game_result_schema(ruleset, preview=True)
    schemas["GameResult"] = {"oneOf": [_ref(f"result.{name}") for name in rulesets]}
    return schemas


# Examples ---------------------------------------------------------------------------------


def game_example(ladder: Ladder, *, preview: bool) -> dict[str, Any]:
    """A body of the declared examples that is accepted as it stands (checked here)."""
    versions = tuple(ladder.versions) if preview else None
    record = game_body(ladder.ruleset, versions)
    body = {entry.name: entry.example for entry in record.fields if entry.example is not None}
    player_examples = {
        entry.name: entry.example for entry in ladder.ruleset.player_fields if entry.example
    }
    body["players"] = [{"id": "alice", **player_examples}, {"id": "bob", **player_examples}]
    body["winner"] = "alice"
    parse_game(body, ladder.ruleset, datetime.now(UTC), preview_versions=versions)
    return body


def link_example() -> dict[str, Any]:
    body = {entry.name: entry.example for entry in LINK.fields}
    parse_link(body)
    return body


# Operations -------------------------------------------------------------------------------


def _responses(success: Mapping[int, tuple[str, Schema]], *errors: int) -> dict[str, Any]:
    answers: dict[int, Any] = {
        status: {"description": text, "content": {"application/json": {"schema": schema}}}
        for status, (text, schema) in success.items()
    }
    for status in sorted({*errors, *EVERY_ROUTE}):
        answer: dict[str, Any] = {
            "description": ERRORS[status],
            "content": {"application/json": {"schema": _ref("ErrorBody")}},
        }
        answers[status] = answer
    return {str(status): answers[status] for status in sorted(answers)}


def _path_parameter(name: str, schema: Schema, description: str) -> Schema:
    return {
        "name": name,
        "in": "path",
        "required": True,
        "schema": schema,
        "description": description,
    }


PAGE_PARAMETERS = [
    {
        "name": "limit",
        "in": "query",
        "required": False,
        "schema": {"type": "integer", "minimum": 1, "maximum": MAX_PAGE},
        "description": f"Page size, 1 to {MAX_PAGE}",
    },
    {
        "name": "cursor",
        "in": "query",
        "required": False,
        "schema": {"type": "string", "maxLength": 1024},
        "description": "The next_cursor of the previous page, as it was answered",
    },
]


def _json_body(schema: Schema, example: Any, description: str) -> dict[str, Any]:
    return {
        "required": True,
        "description": description,
        "content": {"application/json": {"schema": schema, "example": example}},
    }


def paths(ladders: Mapping[str, Ladder]) -> dict[str, Any]:
    ladder_ids = list(ladders)
    ladder = _path_parameter(
        "ladder", {"type": "string", "enum": ladder_ids}, "The ladder's id (GET /v1/ladders)"
    )
    found: dict[str, Any] = {
        "/v1/ladders": {
            "get": {
                "operationId": "list_ladders",
                "summary": "The ladders, their rulesets and parameters",
                "responses": _responses({200: ("The configured ladders", _ref("Ladders"))}),
            }
        }
    }
    for ladder_id, entry in ladders.items():
        name = entry.ruleset.name
        found[f"/v1/ladders/{ladder_id}/games"] = {
            "post": {
                "operationId": f"submit_{ladder_id}_game",
                "summary": f"Submit a finished {ladder_id} game ({name}): 201 the first time, "
                "200 for an identical retry",
                "tags": [ladder_id],
                "requestBody": _json_body(
                    game_body(entry.ruleset).schema(),
                    game_example(entry, preview=False),
                    GAME_RULES,
                ),
                "responses": _responses(
                    {
                        200: ("An identical retry: the stored result", _ref(f"result.{name}")),
                        201: ("Rated and stored", _ref(f"result.{name}")),
                    },
                    409,
                ),
            }
        }
        found[f"/v1/ladders/{ladder_id}/preview"] = {
            "post": {
                "operationId": f"preview_{ladder_id}_game",
                "summary": f"What a {ladder_id} game would change (with optional overrides); "
                "stores nothing",
                "tags": [ladder_id],
                "requestBody": _json_body(
                    game_body(entry.ruleset, tuple(entry.versions)).schema(),
                    game_example(entry, preview=True),
                    GAME_RULES,
                ),
                "responses": _responses(
                    {200: ("The would-be result", _ref(f"preview_result.{name}"))}
                ),
            }
        }
    reads: list[tuple[str, str, str, list[Schema], str, Schema, bool]] = [
        (
            "/v1/ladders/{ladder}/games/{game_id}",
            "get_game",
            "A stored game's result, while retained",
            [_path_parameter("game_id", ID_SCHEMA, "The game's id")],
            "The stored result",
            _ref("GameResult"),
            False,
        ),
        (
            "/v1/ladders/{ladder}/players/{player_id}",
            "get_player",
            "A player's rating and counters (a new player has the starting rating)",
            [_path_parameter("player_id", ID_SCHEMA, "The player's id")],
            "The player's state",
            _ref("PlayerSummary"),
            False,
        ),
        (
            "/v1/ladders/{ladder}/players/{player_id}/history",
            "get_history",
            "A player's games and podium bonuses, newest first",
            [_path_parameter("player_id", ID_SCHEMA, "The player's id")],
            "One page of events",
            _ref("History"),
            True,
        ),
        (
            "/v1/ladders/{ladder}/leaderboard",
            "get_leaderboard",
            "Players with ranked games by rating, highest first",
            [],
            "One page of the leaderboard",
            _ref("Leaderboard"),
            True,
        ),
        (
            "/v1/ladders/{ladder}/tournaments/{tournament_id}",
            "get_tournament",
            "A tournament's podium awards, once awarded",
            [_path_parameter("tournament_id", ID_SCHEMA, "The tournament's id")],
            "The awards",
            _ref("Tournament"),
            False,
        ),
    ]
    around = {
        "name": "around",
        "in": "query",
        "required": False,
        "schema": ID_SCHEMA,
        "description": "A player's id: the page of `limit` entries with that player as near "
        "the middle as the board allows (not with cursor; 404 not_ranked for a player without "
        "ranked games)",
    }
    for path, operation_id, summary, parameters, answered, schema, paged in reads:
        if operation_id == "get_leaderboard":
            parameters = [*parameters, around]
        found[path] = {
            "get": {
                "operationId": operation_id,
                "summary": summary,
                "parameters": [ladder, *parameters, *(PAGE_PARAMETERS if paged else [])],
                "responses": _responses({200: (answered, schema)}, 404),
            }
        }
    found["/v1/identities/link"] = {
        "post": {
            "operationId": "link_identity",
            "summary": "Link an anonymous id to an account, once",
            "requestBody": _json_body(_ref("IdentityLink"), link_example(), LINK_RULES),
            "responses": _responses(
                {200: ("Linked (first time or repeated)", _ref("LinkResult"))}, 409
            ),
        }
    }
    found.update(openapi_sanctions.sanction_paths(ladders, _responses, _ref))
    return found


def document(
    ladders: Mapping[str, Ladder] = LADDERS, server_url: str | None = None
) -> dict[str, Any]:
    """The OpenAPI document; `servers` is `server_url`, or the deployed stage's URL."""
    servers: list[dict[str, Any]]
    if server_url is not None:
        servers = [{"url": server_url, "description": "The local stack"}]
    else:
        stage = str(read_stack(DEFAULT_TEMPLATE).parameters.get("StageName") or "live")
        servers = [
            {
                "url": DEPLOYED_URL,
                "description": "The deployed stage (the stack output ApiUrl)",
                "variables": {
                    "restApiId": {"default": "abcdef0123", "description": "The API's id"},
                    "region": {"default": "us-east-1"},
                    "stage": {"default": stage, "description": "The StageName parameter"},
                },
            }
        ]
    return {
        "openapi": "3.1.0",
        "info": {
            "title": "Elo ratings",
            "version": "1",
            "description": (
                "Rate games; read ratings, histories, leaderboards and podiums; erase a player "
                "(docs/api.md). "
                "Every answer is JSON; every error has the body ErrorBody. A known path with a "
                "method it does not take is 405 method_not_allowed with an Allow header."
            ),
        },
        "servers": servers,
        "security": [{"apiKey": []}],
        "paths": {**paths(ladders), **openapi_moderation.paths()},
        "components": {
            "schemas": {**result_schemas(ladders), **openapi_moderation.schemas()},
            "securitySchemes": {
                "apiKey": {"type": "apiKey", "name": "x-api-key", "in": "header"},
                openapi_moderation.SECURITY_SCHEME: openapi_moderation.security_scheme(),
            },
        },
    }


def main() -> None:
    json.dump(document(), sys.stdout, indent=2)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
