"""The bodies of sanctions, and a way to run a sanction's refunds to the end, for every test
layer."""

from typing import Any

from ratings.service.facade import RatingService


def sanction(sanction_id: str = "s-1", player_id: str = "mallory", **extra: Any) -> dict[str, Any]:
    """A sanction's body (reason "cheating"; the default refund_days unless `extra` sets it)."""
    return {"sanction_id": sanction_id, "player_id": player_id, "reason": "cheating", **extra}


def sanction_and_refund(
    service: RatingService, body: dict[str, Any], ladder: str = "backgammon"
) -> dict[str, Any]:
    """Make the sanction and run its refunds to the end: the sanction's answer then."""
    service.sanction_player(ladder, body)
    service.pay_refunds.run(ladder, body["sanction_id"])
    answer: dict[str, Any] = service.get_sanction(ladder, body["sanction_id"])
    return answer


def refunds_of(answer: dict[str, Any]) -> dict[str, list[tuple[str, int]]]:
    """The refunds of a sanction's answer: player id -> [(game id, points)], by game id."""
    paid: dict[str, list[tuple[str, int]]] = {}
    for refund in answer["refunds"]:
        paid.setdefault(refund["player_id"], []).append((refund["game_id"], refund["delta"]))
    return paid
