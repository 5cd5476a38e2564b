"""Every answer the service gives conforms to the schema generated from its declaration (the
one in the OpenAPI document), and the declarations write the JSON the service answers."""

from typing import Any

import jsonschema
import pytest
from support.games import HOUR, NOW, game, podium, preview

from ratings.rules import DEFAULT_LADDERS
from ratings.service.facade import RatingService
from ratings.service.results import LadderKept, LinkResult, json_of
from ratings.storage.memory import InMemoryStorage
from ratings_local import openapi

SCHEMAS = openapi.document(DEFAULT_LADDERS)["components"]["schemas"]


def conforms(answer: Any, component: str) -> None:
    """Validate against the component, its references resolved in the components."""
    document = {"components": {"schemas": SCHEMAS}, **SCHEMAS[component]}
    jsonschema.Draft202012Validator(document).validate(answer)


def test_every_answer_of_a_season_conforms_to_its_declared_schema(
    service: RatingService, storage: InMemoryStorage
) -> None:
    assert service.link_identity({"anonymous_id": "anon", "account_id": "ann"})
    rated = service.submit_game("backgammon", game("g-1", "anon", "bob", cube=2)).result
    unranked = service.submit_game("sedma", game("s-1", "ann", "bob", mode="boosted")).result
    drawn = service.submit_game("classic", game("c-1", "ann", "bob", winner=None)).result
    previewed = service.preview_game(
        "backgammon", preview({"id": "ann", "rating": 1800}, {"id": "bob"})
    )
    awarded = service.award_podium(podium("t-1", "anon", "bob", finished_at=NOW - HOUR)).result
    service.refresh_standings("backgammon")

    conforms(rated, "result.gammon42")
    conforms(rated, "GameResult")
    assert rated["players"][0]["submitted_id"] == "anon"
    conforms(unranked, "result.sedma")
    assert unranked["unranked_reason"] == "mode"
    conforms(drawn, "result.classic")
    assert drawn["winner"] is None
    conforms(previewed, "preview_result.gammon42")
    assert previewed["preview"] is True
    conforms(awarded, "Tournament")
    assert awarded["awards"][0]["submitted_id"] == "anon"
    player = service.get_player("backgammon", "ann")
    conforms(player, "PlayerSummary")
    assert player["standing"] is not None
    history = service.get_history("backgammon", "ann")
    conforms(history, "History")
    assert {event["type"] for event in history["events"]} == {"game", "podium_bonus"}
    conforms(service.get_leaderboard("backgammon", 1), "Leaderboard")
    around = service.get_leaderboard("backgammon", 3, around="anon")
    conforms(around, "Leaderboard")
    assert around["around"] == "ann"
    conforms(service.get_game("backgammon", "g-1"), "GameResult")
    conforms(service.get_tournament("backgammon", "t-1"), "Tournament")
    conforms(service.ladders(), "Ladders")
    again = service.link_identity({"anonymous_id": "anon", "account_id": "ann"})
    conforms(again, "LinkResult")


def test_a_schema_refuses_what_its_declaration_does_not_allow() -> None:
    link = json_of(LinkResult("anon", "ann", [LadderKept("backgammon", "anonymous")]))
    conforms(link, "LinkResult")

    for wrong in ({**link, "extra": 1}, {**link, "ladders": [{"ladder": "x", "kept": "both"}]}):
        with pytest.raises(jsonschema.ValidationError):
            conforms(wrong, "LinkResult")
