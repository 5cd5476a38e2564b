"""The table layout of sanctions (docs/table-layout.md, "Sanctions"): the sanction's record
and its decisions in one partition, `N#{ladder}#{sanction_id}`, and a pointer to the sanction
in the sanctioned player's own partition; items <-> values.
"""

import json
from datetime import datetime

from pynamodb.attributes import NumberAttribute, UnicodeAttribute

from ratings.rules.refunds import Window
from ratings.service.sanction_records import (
    GamePosition,
    RefundDecision,
    RefundProgress,
    Sanction,
)
from ratings.storage.dynamodb.layout import RatingsItem, compact_json, player_key
from ratings.timestamps import format_utc_millis, parse_utc_millis

SANCTION_SK = "SANCTION"
DECISION_SK_PREFIX = "R#"
#: The pointer's sort key prefix in the sanctioned player's partition.
SANCTION_POINTER_PREFIX = "SANCTION#"


def sanction_key(ladder: str, sanction_id: str) -> str:
    return f"N#{ladder}#{sanction_id}"


def decision_sort_key(game_id: str) -> str:
    return f"{DECISION_SK_PREFIX}{game_id}"


class SanctionItem(RatingsItem, discriminator="sanction"):
    ladder = UnicodeAttribute()
    sanction_id = UnicodeAttribute()
    player_id = UnicodeAttribute()
    submitted_id = UnicodeAttribute()
    reason = UnicodeAttribute(null=True)
    refund_days = NumberAttribute()
    fingerprint = UnicodeAttribute()
    sanctioned_at = UnicodeAttribute()
    window_since = UnicodeAttribute(null=True)
    window_until = UnicodeAttribute(null=True)
    #: JSON list of the ids whose games are refunded.
    played_as = UnicodeAttribute()
    status = UnicodeAttribute()
    completed_at = UnicodeAttribute(null=True)
    lifted_at = UnicodeAttribute(null=True)
    progress_phase = NumberAttribute()
    #: `{played_at}#{game_id}` of the last game decided in the phase (null: none yet).
    progress_after = UnicodeAttribute(null=True)
    progress_version = NumberAttribute()


class DecisionItem(RatingsItem, discriminator="refund"):
    game_id = UnicodeAttribute()
    played_at = UnicodeAttribute()
    player_id = UnicodeAttribute(null=True)
    points = NumberAttribute()
    at = UnicodeAttribute()
    rating_after = NumberAttribute(null=True)
    withheld = UnicodeAttribute(null=True)


class SanctionPointerItem(RatingsItem, discriminator="sanction_pointer"):
    """In the sanctioned player's partition, for good: how an erasure of the player finds
    the sanctions that name them."""

    ladder = UnicodeAttribute()
    sanction_id = UnicodeAttribute()


def _time(at: datetime | None) -> str | None:
    return None if at is None else format_utc_millis(at)


def _parsed(text: str | None) -> datetime | None:
    return None if text is None else parse_utc_millis(text)


def position_text(position: GamePosition | None) -> str | None:
    return None if position is None else f"{format_utc_millis(position[0])}#{position[1]}"


def position_of(text: str | None) -> GamePosition | None:
    if text is None:
        return None
    at, game_id = text.split("#", 1)
    return parse_utc_millis(at), game_id


def sanction_item(sanction: Sanction) -> SanctionItem:
    window = sanction.window
    return SanctionItem(
        sanction_key(sanction.ladder, sanction.sanction_id),
        SANCTION_SK,
        ladder=sanction.ladder,
        sanction_id=sanction.sanction_id,
        player_id=sanction.player_id,
        submitted_id=sanction.submitted_id,
        reason=sanction.reason,
        refund_days=sanction.refund_days,
        fingerprint=sanction.fingerprint,
        sanctioned_at=format_utc_millis(sanction.sanctioned_at),
        window_since=None if window is None else format_utc_millis(window.since),
        window_until=None if window is None else format_utc_millis(window.until),
        played_as=compact_json(list(sanction.played_as)),
        status=sanction.status,
        completed_at=_time(sanction.completed_at),
        lifted_at=_time(sanction.lifted_at),
        progress_phase=sanction.progress.phase,
        progress_after=position_text(sanction.progress.after),
        progress_version=sanction.progress_version,
    )


def sanction_of(item: SanctionItem) -> Sanction:
    window = None
    if item.window_since is not None and item.window_until is not None:
        window = Window(parse_utc_millis(item.window_since), parse_utc_millis(item.window_until))
    return Sanction(
        ladder=item.ladder,
        sanction_id=item.sanction_id,
        player_id=item.player_id,
        submitted_id=item.submitted_id,
        reason=item.reason,
        refund_days=int(item.refund_days),
        fingerprint=item.fingerprint,
        sanctioned_at=parse_utc_millis(item.sanctioned_at),
        window=window,
        played_as=tuple(json.loads(item.played_as)),
        status=item.status,
        completed_at=_parsed(item.completed_at),
        lifted_at=_parsed(item.lifted_at),
        progress=RefundProgress(int(item.progress_phase), position_of(item.progress_after)),
        progress_version=int(item.progress_version),
    )


def pointer_item(sanction: Sanction) -> SanctionPointerItem:
    return SanctionPointerItem(
        player_key(sanction.ladder, sanction.player_id),
        f"{SANCTION_POINTER_PREFIX}{sanction.sanction_id}",
        ladder=sanction.ladder,
        sanction_id=sanction.sanction_id,
    )


def decision_item(decision: RefundDecision) -> DecisionItem:
    return DecisionItem(
        sanction_key(decision.ladder, decision.sanction_id),
        decision_sort_key(decision.game_id),
        game_id=decision.game_id,
        played_at=format_utc_millis(decision.played_at),
        player_id=decision.player_id,
        points=decision.points,
        at=format_utc_millis(decision.at),
        rating_after=decision.rating_after,
        withheld=decision.withheld,
    )


def decision_of(ladder: str, sanction_id: str, item: DecisionItem) -> RefundDecision:
    return RefundDecision(
        ladder=ladder,
        sanction_id=sanction_id,
        game_id=item.game_id,
        played_at=parse_utc_millis(item.played_at),
        player_id=item.player_id,
        points=int(item.points),
        at=parse_utc_millis(item.at),
        rating_after=None if item.rating_after is None else int(item.rating_after),
        withheld=item.withheld,
    )
