"""The JSON documents of sanctions: the sanction's answer (with the refunds decided so far)
and the refund's history event."""

from collections.abc import Sequence
from datetime import datetime

from ratings.service.sanction_records import REFUND_EVENT, RefundDecision, Sanction
from ratings.service.stored import JsonObject
from ratings.timestamps import format_utc_millis


def sanction_answer(sanction: Sanction, decisions: Sequence[RefundDecision]) -> JsonObject:
    """What POST, GET and DELETE of a sanction answer: the sanction, where its refunds stand,
    and every decision made so far (refunds paid, and the games whose refund is withheld)."""
    window = sanction.window
    answer: JsonObject = {
        "sanction_id": sanction.sanction_id,
        "ladder": sanction.ladder,
        "player_id": sanction.player_id,
        "reason": sanction.reason,
        "refund_days": sanction.refund_days,
        "status": sanction.status,
        "sanctioned_at": format_utc_millis(sanction.sanctioned_at),
        "refund_window": None
        if window is None
        else {"from": format_utc_millis(window.since), "to": format_utc_millis(window.until)},
        "completed_at": _time(sanction.completed_at),
        "lifted_at": _time(sanction.lifted_at),
        "refunds": [
            {
                "player_id": decision.player_id,
                "game_id": decision.game_id,
                "delta": decision.points,
                "played_at": format_utc_millis(decision.played_at),
                "at": format_utc_millis(decision.at),
                "rating_after": decision.rating_after,
            }
            for decision in decisions
            if decision.withheld is None
        ],
        "withheld": [
            {
                "game_id": decision.game_id,
                "played_at": format_utc_millis(decision.played_at),
                "reason": decision.withheld,
            }
            for decision in decisions
            if decision.withheld is not None
        ],
    }
    if sanction.submitted_id != sanction.player_id:
        answer["submitted_id"] = sanction.submitted_id
    return answer


def refund_event(decision: RefundDecision) -> JsonObject:
    """The victim's history event of a refund."""
    return {
        "type": REFUND_EVENT,
        "sanction_id": decision.sanction_id,
        "game_id": decision.game_id,
        "at": format_utc_millis(decision.at),
        "delta": decision.points,
        "rating_after": decision.rating_after,
    }


def _time(at: datetime | None) -> str | None:
    return None if at is None else format_utc_millis(at)
