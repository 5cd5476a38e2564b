"""Every answer the service gives conforms to the schema generated from its declaration (the
one in the OpenAPI document), and the declarations write the JSON the service answers."""

from typing import Any

import jsonschema
import pytest
from support.games import HOUR, NOW, game, podium, preview
from support.sanctions import sanction

from ratings.declare.answers import json_of
from ratings.rules import DEFAULT_LADDERS
from ratings.service.facade import RatingService
from ratings.service.moderation_results import RefundWindow
from ratings.service.results import LadderKept, LinkResult
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


def test_every_moderation_answer_conforms_to_its_declared_schema_in_the_order_it_is_written(
    service: RatingService,
) -> None:
    assert service.link_identity({"anonymous_id": "anon-m", "account_id": "mallory"})
    service.submit_game("backgammon", game("g-1", "mallory", "alice", played_at=NOW))
    service.submit_game("backgammon", game("g-2", "anon-m", "trudy", played_at=NOW))
    refunds_nothing = service.sanction_player("backgammon", sanction("s-t", "trudy", refund_days=0))
    made = service.sanction_player("backgammon", sanction("s-1", "anon-m")).result
    service.pay_refunds.run("backgammon", "s-1")
    lifted = service.lift_sanction("backgammon", "s-1")
    nothing_stored = service.request_erasure("nobody")
    pending = service.request_erasure("alice")

    conforms(refunds_nothing.result, "Sanction")
    assert refunds_nothing.result["refund_window"] is None
    assert "submitted_id" not in refunds_nothing.result  # sent as the player's own id
    conforms(made, "Sanction")
    # The id sent comes last, after every field each sanction has, as it always has.
    assert list(made) == [
        "sanction_id",
        "ladder",
        "player_id",
        "reason",
        "refund_days",
        "status",
        "sanctioned_at",
        "refund_window",
        "completed_at",
        "lifted_at",
        "totals",
        "refunds",
        "withheld",
        "next_cursor",
        "submitted_id",
    ]
    assert (made["player_id"], made["submitted_id"]) == ("mallory", "anon-m")
    assert list(made["refund_window"]) == ["from", "to"]
    conforms(lifted, "Sanction")
    assert lifted["lifted_at"] is not None
    assert [refund["player_id"] for refund in lifted["refunds"]] == ["alice"]
    assert [kept["reason"] for kept in lifted["withheld"]] == ["victim_sanctioned"]
    history = service.get_history("backgammon", "alice")
    conforms(history, "History")
    conforms(history["events"][0], "RefundEvent")
    assert history["events"][0]["delta"] == lifted["refunds"][0]["delta"]
    conforms(nothing_stored, "Erasure")
    assert list(nothing_stored) == ["player_id", "status", "requested_at", "completed_at"]
    conforms(pending, "Erasure")
    assert list(pending) == ["player_id", "status", "requested_at"]


def test_a_field_named_apart_from_its_python_name_is_written_and_declared_under_it() -> None:
    window = json_of(RefundWindow(NOW - HOUR, NOW))
    declared = SCHEMAS["Sanction"]["properties"]["refund_window"]["anyOf"][0]

    assert window == {"from": "2026-11-29T11:00:00.000Z", "to": "2026-11-29T12:00:00.000Z"}
    assert list(declared["properties"]) == declared["required"] == ["from", "to"]
