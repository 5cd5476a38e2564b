"""The HTTP API's OpenAPI 3.1 document, generated from the declarations the service checks with.

Request bodies are the rules' own declarations (`game_body` per ladder, `LINK`), so the
document cannot drift from what the parsers accept; result schemas are the answers' own
declarations (`result_schemas`: `ratings.declare.answers.answer_schema` of each), so it
cannot drift from what the service answers either. Outside the Lambda runtime path: the local
stack serves it (/swagger, /openapi.json), for the ladders it runs, and `docs/openapi.json`
is its output for the ladders the layer ships (ladders.json):

    python -m ratings_local.openapi > docs/openapi.json
"""

import json
import sys
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

from ratings import wiring
from ratings.declare.answers import SchemaContext, answer_schema
from ratings.declare.kinds import ID, Schema, ref
from ratings.rules import Ladder
from ratings.rules.ladder_config import load_ladders
from ratings.rules.submission import game_body, parse_game, sides_body
from ratings.service import game_result, moderation_results, results, season_results
from ratings.service.parameters import MAX_PAGE
from ratings.service.requests import LINK, parse_link
from ratings.service.usecases.seasons import SEASON_ID
from ratings_local import openapi_moderation
from ratings_local.openapi_parts import json_body, ladder_parameter, page_parameters, parameter
from ratings_local.openapi_parts import responses as _responses
from ratings_local.stack import DEFAULT_TEMPLATE
from ratings_local.template import read_stack

#: The deployed stage's URL, as the stack output ApiUrl has it.
DEPLOYED_URL = "https://{restApiId}.execute-api.{region}.amazonaws.com/{stage}"
GAME_RULES = (
    "Besides the schema, a game is refused (400, naming the field) when its two players are "
    "the same id or the same account after linking, when `winner` is not one of the players' "
    "ids, or when `played_at` is more than 5 minutes in the future or more than 14 days old. "
    "A game with a player being erased is 503 erasure_pending (retry later); one with a "
    "player who has had the day's most games is 429 player_daily_limit."
)
SIDES_RULES = (
    " Sent as sides instead of players and winner: each side's players and place (1 the best; "
    "equal places tie where the ruleset has draws), as many sides and players a side as the "
    "ladder's sides and players_per_side (GET /v1/ladders), each player once (else 400 naming "
    "the field); its answer adds sides and each player's side. A ladder whose games are not "
    "one against one (more than 2 sides, or more than one player a side) takes sides only: "
    "players and winner are 400 naming the field."
)
LINK_RULES = (
    "Besides the schema: `account_id` must differ from `anonymous_id` (400), and a link that "
    "contradicts an existing one is 409 `already_linked` (api.md, identity linking)."
)

#: The answers of the HTTP API by their name in the document, and what it says of some as a
#: whole.
COMPONENTS: Mapping[str, type] = {
    **results.COMPONENTS,
    **season_results.COMPONENTS,
    **moderation_results.COMPONENTS,
}
DESCRIPTIONS: Mapping[type, str] = {**results.DESCRIPTIONS, **moderation_results.DESCRIPTIONS}


def result_schemas(ladders: Mapping[str, Ladder]) -> dict[str, Schema]:
    """Every answer's schema by its name in the document, and the request body of a link."""
    names = {answer: name for name, answer in COMPONENTS.items()}
    context = SchemaContext(ladders, names=names, descriptions=DESCRIPTIONS)
    schemas = {name: answer_schema(answer, context) for name, answer in COMPONENTS.items()}
    schemas["IdentityLink"] = LINK.schema()
    rulesets = {ladder.ruleset.name: ladder.ruleset for ladder in ladders.values()}
    for name, ruleset in rulesets.items():
        schemas[f"explain.{name}"] = game_result.explain_schema(ruleset)
        for prefix, answer, title, preview in results.RULESET_COMPONENTS:
            in_ruleset = context._replace(ruleset=ruleset, preview=preview)
            schemas[f"{prefix}.{name}"] = {
                **answer_schema(answer, in_ruleset),
                "title": f"{name} {title}",
            }
    schemas["GameResult"] = {"oneOf": [ref(f"result.{name}") for name in rulesets]}
    return schemas


# Examples ---------------------------------------------------------------------------------


def takes_players_and_winner(ladder: Ladder) -> bool:
    """Whether the ladder's games may be one against one, the players and winner form."""
    return ladder.sides.holds(2) and ladder.players_per_side.holds(1)


#: The players of the examples, as many as the largest example game needs.
EXAMPLE_NAMES = ("alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi")


def game_example(ladder: Ladder, *, preview: bool) -> dict[str, Any]:
    """A body of the declared examples that is accepted as it stands (checked here): players
    and winner where the ladder takes one against one, else its smallest game as sides."""
    versions = tuple(ladder.versions) if preview else None
    player_examples = {
        entry.name: entry.example for entry in ladder.ruleset.player_fields if entry.example
    }
    if takes_players_and_winner(ladder):
        body = game_body(ladder.ruleset, versions).example()
        body["players"] = [{"id": "alice", **player_examples}, {"id": "bob", **player_examples}]
        body["winner"] = "alice"
    else:
        body = sides_body(ladder.ruleset, versions, *shape_of(ladder)).example()
        count, size = ladder.sides.min, ladder.players_per_side.min
        names = iter(EXAMPLE_NAMES)
        body["sides"] = [
            {"players": [{"id": next(names), **player_examples} for _ in range(size)], "place": n}
            for n in range(1, count + 1)
        ]
    parse_game(
        body,
        ladder.ruleset,
        datetime.now(UTC),
        preview_versions=versions,
        sides=(ladder.sides.min, ladder.sides.max),
        players_per_side=(ladder.players_per_side.min, ladder.players_per_side.max),
    )
    return body


def shape_of(ladder: Ladder) -> tuple[tuple[int, int], tuple[int, int]]:
    """The (min, max) of the ladder's sides and of its players a side."""
    return (
        (ladder.sides.min, ladder.sides.max),
        (ladder.players_per_side.min, ladder.players_per_side.max),
    )


def either_body(ladder: Ladder, preview_versions: tuple[str, ...] | None) -> Schema:
    """A game of the ladder as players and winner, or as sides; as sides only where the
    ladder's games are not one against one."""
    by_sides = sides_body(ladder.ruleset, preview_versions, *shape_of(ladder)).schema()
    if not takes_players_and_winner(ladder):
        return by_sides
    return {"oneOf": [game_body(ladder.ruleset, preview_versions).schema(), by_sides]}


def link_example() -> dict[str, Any]:
    body = LINK.example()
    parse_link(body)
    return body


# Operations -------------------------------------------------------------------------------


def paths(ladders: Mapping[str, Ladder]) -> dict[str, Any]:
    ladder = ladder_parameter(ladders)
    found: dict[str, Any] = {
        "/v1/ladders": {
            "get": {
                "operationId": "list_ladders",
                "summary": "The ladders, their rulesets and parameters",
                "responses": _responses({200: ("The configured ladders", ref("Ladders"))}),
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
                "requestBody": json_body(
                    either_body(entry, None),
                    game_example(entry, preview=False),
                    GAME_RULES + SIDES_RULES,
                ),
                "responses": _responses(
                    {
                        200: ("An identical retry: the stored result", ref(f"result.{name}")),
                        201: ("Rated and stored", ref(f"result.{name}")),
                    },
                    409,
                    507,
                ),
            }
        }
        found[f"/v1/ladders/{ladder_id}/preview"] = {
            "post": {
                "operationId": f"preview_{ladder_id}_game",
                "summary": f"What a {ladder_id} game would change (with optional overrides); "
                "stores nothing",
                "tags": [ladder_id],
                "requestBody": json_body(
                    either_body(entry, tuple(entry.versions)),
                    game_example(entry, preview=True),
                    GAME_RULES + SIDES_RULES,
                ),
                "responses": _responses(
                    {200: ("The would-be result", ref(f"preview_result.{name}"))}
                ),
            }
        }
    season = parameter(
        "season_id",
        "path",
        SEASON_ID,
        "YYYY-Www, YYYY-MM, YYYY-Qn, all-time, or the id an operator started it with",
    )
    reads: list[tuple[str, str, str, list[Schema], str, Schema, bool]] = [
        (
            "/v1/ladders/{ladder}/games/{game_id}",
            "get_game",
            "A stored game's result, while retained",
            [parameter("game_id", "path", ID, "The game's id")],
            "The stored result",
            ref("GameResult"),
            False,
        ),
        (
            "/v1/ladders/{ladder}/players/{player_id}",
            "get_player",
            "A player's rating and counters (a new player has the starting rating)",
            [parameter("player_id", "path", ID, "The player's id")],
            "The player's state",
            ref("PlayerSummary"),
            False,
        ),
        (
            "/v1/ladders/{ladder}/players/{player_id}/history",
            "get_history",
            "A player's games and podium bonuses, newest first",
            [parameter("player_id", "path", ID, "The player's id")],
            "One page of events",
            ref("History"),
            True,
        ),
        (
            "/v1/ladders/{ladder}/leaderboard",
            "get_leaderboard",
            "Players with ranked games by rating, highest first",
            [],
            "One page of the leaderboard",
            ref("Leaderboard"),
            True,
        ),
        (
            "/v1/ladders/{ladder}/seasons",
            "list_seasons",
            "The ladder's seasons that have begun, newest first",
            [],
            "One page of seasons",
            ref("SeasonList"),
            True,
        ),
        (
            "/v1/ladders/{ladder}/seasons/{season_id}",
            "get_season",
            "One season, with how many stand on its leaderboard (400 for a malformed id, 404 "
            "for a season that does not exist or has not begun)",
            [season],
            "The season",
            ref("Season"),
            False,
        ),
        (
            "/v1/ladders/{ladder}/seasons/{season_id}/leaderboard",
            "get_season_leaderboard",
            "A season's leaderboard: live while it runs, its final standings once it ended "
            "(frozen as they stood)",
            [season],
            "One page of the season's leaderboard",
            ref("Leaderboard"),
            True,
        ),
        (
            "/v1/ladders/{ladder}/players/{player_id}/seasons",
            "get_player_seasons",
            "A player's final standing in each ended season they stood on the leaderboard "
            "of, newest first (none while under a sanction)",
            [parameter("player_id", "path", ID, "The player's id")],
            "One page of the player's past standings",
            ref("PastStandings"),
            True,
        ),
        (
            "/v1/ladders/{ladder}/tournaments/{tournament_id}",
            "get_tournament",
            "A tournament's podium awards, once awarded",
            [parameter("tournament_id", "path", ID, "The tournament's id")],
            "The awards",
            ref("Tournament"),
            False,
        ),
    ]
    around = parameter(
        "around",
        "query",
        ID,
        "A player's id: the page of `limit` entries with that player as near the middle as the "
        "board allows (not with cursor; 404 not_ranked for a player without ranked games)",
    )
    page = page_parameters(
        MAX_PAGE,
        f"Page size, 1 to {MAX_PAGE}",
        "The next_cursor of the previous page, as it was answered",
    )
    for path, operation_id, summary, parameters, answered, schema, paged in reads:
        if operation_id in ("get_leaderboard", "get_season_leaderboard"):
            parameters = [*parameters, around]
        found[path] = {
            "get": {
                "operationId": operation_id,
                "summary": summary,
                "parameters": [ladder, *parameters, *(page if paged else [])],
                "responses": _responses({200: (answered, schema)}, 404),
            }
        }
    found["/v1/identities/link"] = {
        "post": {
            "operationId": "link_identity",
            "summary": "Link an anonymous id to an account, once",
            "requestBody": json_body(ref("IdentityLink"), link_example(), LINK_RULES),
            "responses": _responses(
                {200: ("Linked (first time or repeated)", ref("LinkResult"))}, 409, 507
            ),
        }
    }
    # A path served by both functions (the seasons: the Api lists, the Moderation starts) has
    # the operations of each.
    for path, operations in openapi_moderation.paths(ladders).items():
        found[path] = {**found.get(path, {}), **operations}
    return found


def document(
    ladders: Mapping[str, Ladder] | None = None, server_url: str | None = None
) -> dict[str, Any]:
    """The OpenAPI document of `ladders` (default: this process's, `wiring.ladders`);
    `servers` is `server_url`, or the deployed stage's URL."""
    if ladders is None:
        ladders = wiring.ladders()
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
        "paths": paths(ladders),
        "components": {
            "schemas": {
                **result_schemas(ladders),
                **openapi_moderation.schemas(),
            },
            "securitySchemes": {
                "apiKey": {"type": "apiKey", "name": "x-api-key", "in": "header"},
                openapi_moderation.SECURITY_SCHEME: openapi_moderation.security_scheme(),
            },
        },
    }


def main() -> None:
    # The layer's own ladders.json, whatever RATINGS_LADDERS_FILE says: what is deployed.
    json.dump(document(load_ladders()), sys.stdout, indent=2)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
