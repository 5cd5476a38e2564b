"""The OpenAPI document: generated from the declarations the service checks with, committed as
docs/openapi.json, and current (regenerate with `python -m ratings_local.openapi`)."""

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from ratings.rules.ladder_config import load_ladders
from ratings.rules.seasons import check_season_id, parse_reset
from ratings.rules.submission import game_body, parse_game, sides_body
from ratings.service.requests import LINK, parse_link, parse_sanction
from ratings_local import openapi

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "docs" / "openapi.json"
#: The ladders the layer ships, which the committed document describes.
LADDERS = load_ladders()


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    return openapi.document(LADDERS)


def test_the_committed_document_is_the_generated_one(document: dict[str, Any]) -> None:
    committed = json.loads(COMMITTED.read_text())

    assert committed == document, (
        "docs/openapi.json is stale: run `python -m ratings_local.openapi > docs/openapi.json`"
    )


def test_the_document_is_valid_openapi_3_1(document: dict[str, Any]) -> None:
    from openapi_spec_validator import validate

    validate(document)


@pytest.mark.parametrize("ladder_id", sorted(LADDERS))
def test_each_ladder_has_its_own_bodies(document: dict[str, Any], ladder_id: str) -> None:
    ladder = LADDERS[ladder_id]
    submit = document["paths"][f"/v1/ladders/{ladder_id}/games"]["post"]
    preview = document["paths"][f"/v1/ladders/{ladder_id}/preview"]["post"]

    def body_schema(operation: dict[str, Any]) -> Any:
        return operation["requestBody"]["content"]["application/json"]["schema"]

    versions = tuple(ladder.versions)
    shape = openapi.shape_of(ladder)
    if ladder.sides.holds(2) and ladder.players_per_side.holds(1):  # may be one against one
        assert body_schema(submit) == {
            "oneOf": [
                game_body(ladder.ruleset).schema(),
                sides_body(ladder.ruleset, None, *shape).schema(),
            ]
        }
        assert body_schema(preview) == {
            "oneOf": [
                game_body(ladder.ruleset, versions).schema(),
                sides_body(ladder.ruleset, versions, *shape).schema(),
            ]
        }
        forms = body_schema(submit)["oneOf"]
    else:  # teams or more sides: the sides form only
        assert body_schema(submit) == sides_body(ladder.ruleset, None, *shape).schema()
        assert body_schema(preview) == sides_body(ladder.ruleset, versions, *shape).schema()
        forms = [body_schema(submit)]
    assert all(form["additionalProperties"] is False for form in forms)
    assert set(submit["responses"]) == {
        "200",
        "201",
        "400",
        "403",
        "409",
        "413",
        "429",
        "503",
        "507",
    }
    assert "422" not in json.dumps(document["paths"])


def test_the_rulesets_own_fields_are_where_they_belong(document: dict[str, Any]) -> None:
    paths = document["paths"]

    def properties(ladder_id: str) -> Any:
        body = paths[f"/v1/ladders/{ladder_id}/games"]["post"]["requestBody"]
        return body["content"]["application/json"]["schema"]["oneOf"][0]["properties"]

    assert "cube" in properties("backgammon")
    assert "cube" not in properties("sedma")
    assert "stats" in properties("sedma")["players"]["items"]["properties"]
    assert {"type": "null"} in properties("classic")["winner"]["anyOf"]
    assert properties("backgammon")["winner"]["type"] == "string"


def _examples(document: dict[str, Any]) -> list[tuple[str, Any]]:
    return [
        (path, operation["requestBody"]["content"]["application/json"]["example"])
        for path, item in document["paths"].items()
        for operation in item.values()
        if "requestBody" in operation
    ]


def test_every_example_passes_the_schema_and_the_parsers(document: dict[str, Any]) -> None:
    now = datetime.now(UTC)
    examples = _examples(document)
    components = document["components"]["schemas"]

    assert len(examples) == 2 * len(LADDERS) + 3
    for path, example in examples:
        operation = document["paths"][path]["post"]
        schema = operation["requestBody"]["content"]["application/json"]["schema"]
        # The components beside the schema, so its $refs resolve.
        jsonschema.validate(example, {"allOf": [schema], "components": {"schemas": components}})
        if path == "/v1/identities/link":
            assert example == {entry.name: entry.example for entry in LINK.fields}
            parse_link(example)
            continue
        if path == "/v1/ladders/{ladder}/sanctions":
            parse_sanction(example, 30)
            continue
        if path == "/v1/ladders/{ladder}/seasons":  # an operator's start
            check_season_id(example["season_id"])
            parse_reset(example["reset"], "reset")
            continue
        ladder = LADDERS[path.split("/")[3]]
        versions = tuple(ladder.versions) if path.endswith("/preview") else None
        parse_game(
            example,
            ladder.ruleset,
            now,
            preview_versions=versions,
            sides=(ladder.sides.min, ladder.sides.max),
            players_per_side=(ladder.players_per_side.min, ladder.players_per_side.max),
        )
        if "sides" in example:  # a ladder of teams or more sides: its smallest game
            assert len(example["sides"]) == ladder.sides.min
            assert {len(side["players"]) for side in example["sides"]} == {
                ladder.players_per_side.min
            }
            ids = [player["id"] for side in example["sides"] for player in side["players"]]
            assert len(set(ids)) == len(ids)
        else:
            assert example["players"][0]["id"] != example["players"][1]["id"]


def test_a_ladder_of_teams_or_more_sides_has_a_sides_example(document: dict[str, Any]) -> None:
    def example(ladder_id: str) -> Any:
        body = document["paths"][f"/v1/ladders/{ladder_id}/games"]["post"]["requestBody"]
        return body["content"]["application/json"]["example"]

    assert [len(side["players"]) for side in example("sedma-pairs")["sides"]] == [2, 2]
    assert [len(side["players"]) for side in example("classic-ffa")["sides"]] == [1, 1, 1]
    assert "players" in example("classic")


def test_the_served_document_points_at_the_local_api() -> None:
    served = openapi.document(server_url="http://127.0.0.1:3999")
    committed = openapi.document()

    assert served["servers"] == [{"url": "http://127.0.0.1:3999", "description": "The local stack"}]
    assert committed["servers"][0]["url"] == openapi.DEPLOYED_URL
    assert committed["servers"][0]["variables"]["stage"]["default"] == "live"
    assert served["paths"] == committed["paths"]


def test_a_sanctions_answers_and_the_refund_event_conform_to_the_document(
    document: dict[str, Any],
) -> None:
    from support.games import NOW, FixedClock, game
    from support.sanctions import sanction
    from support.services import rating_service

    from ratings.storage.memory import InMemoryStorage

    components = {"components": document["components"]}

    def check(value: Any, name: str) -> None:
        jsonschema.validate(value, {"$ref": f"#/components/schemas/{name}", **components})

    service = rating_service(InMemoryStorage(), FixedClock())
    service.submit_game("backgammon", game("g-1", "mallory", "alice", played_at=NOW))
    service.submit_game("backgammon", game("g-2", "mallory", "trudy", played_at=NOW))
    service.sanction_player("backgammon", sanction("s-t", "trudy", refund_days=0))
    made = service.sanction_player("backgammon", sanction()).result
    service.pay_refunds.run("backgammon", "s-1")
    lifted = service.lift_sanction("backgammon", "s-1")

    check(made, "Sanction")
    check(lifted, "Sanction")
    assert (len(lifted["refunds"]), len(lifted["withheld"])) == (1, 1)
    check(service.get_player("backgammon", "mallory"), "PlayerSummary")
    check(service.get_history("backgammon", "alice"), "History")
    assert service.get_history("backgammon", "alice")["events"][0]["type"] == "refund"
