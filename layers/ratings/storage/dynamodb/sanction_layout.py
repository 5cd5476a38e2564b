"""The table layout of sanctions (docs/table-layout.md, "Sanctions"): one partition per
sanction, `N#{ladder}#{sanction_id}`, holding its record (the job record of its refunds,
`job_layout.JobItem`), its lift and its decisions; and a pointer to the sanction in the
sanctioned player's own partition. Items <-> values.
"""

from pynamodb.attributes import NumberAttribute, UnicodeAttribute

from ratings.declare.answers import format_utc_millis, parse_utc_millis
from ratings.service.sanction_records import (
    SANCTION,
    GamePosition,
    RefundDecision,
    Sanction,
    sanction_job_id,
)
from ratings.storage.dynamodb.job_layout import job_key
from ratings.storage.dynamodb.layout import (
    RatingsItem,
    player_key,
)

LIFT_SK = "LIFTED"
DECISION_SK_PREFIX = "R#"
#: The pointer's sort key prefix in the sanctioned player's partition.
SANCTION_POINTER_PREFIX = "SANCTION#"


def sanction_key(ladder: str, sanction_id: str) -> str:
    """The sanction's partition: its job record (`job_layout.job_key`), its lift, its decisions."""
    pk, _sort_key = job_key(SANCTION, sanction_job_id(ladder, sanction_id))
    return pk


def decision_sort_key(ref: str) -> str:
    """The sort key of a decision: `R#{game_id}` (a game of two players: the key every
    decision had before games had sides), or `R#{game_id}#{seat:02}` (a victim of a game of
    more: `sanction_records.decision_ref`)."""
    return f"{DECISION_SK_PREFIX}{ref}"


def game_decisions_range(game_id: str) -> tuple[str, str]:
    """The sort keys of every decision of one game, both ends included: `R#{game_id}` and
    each `R#{game_id}#{seat}`, and nothing of another game (`#` sorts below every id
    character, `~` above them)."""
    return decision_sort_key(game_id), f"{decision_sort_key(game_id)}#~"


class LiftItem(RatingsItem, discriminator="sanction_lift"):
    """That the sanction was lifted, and when: beside its record, which only the refunds'
    progress saves write (so neither write can undo the other)."""

    lifted_at = UnicodeAttribute()


class DecisionItem(RatingsItem, discriminator="refund"):
    game_id = UnicodeAttribute()
    played_at = UnicodeAttribute()
    player_id = UnicodeAttribute(null=True)
    points = NumberAttribute()
    at = UnicodeAttribute()
    rating_after = NumberAttribute(null=True)
    withheld = UnicodeAttribute(null=True)
    #: The victim's seat in a game of more than two players (absent: a game of two).
    seat = NumberAttribute(null=True)
    #: The victim's sequence once paid (`RefundDecision.sequence`); absent when withheld.
    seq = NumberAttribute(null=True)


class SanctionPointerItem(RatingsItem, discriminator="sanction_pointer"):
    """In the sanctioned player's partition, for good: how an erasure of the player finds
    the sanctions that name them."""

    ladder = UnicodeAttribute()
    sanction_id = UnicodeAttribute()


def position_text(position: GamePosition | None) -> str | None:
    return None if position is None else f"{format_utc_millis(position[0])}#{position[1]}"


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
        decision_sort_key(decision.ref),
        game_id=decision.game_id,
        played_at=format_utc_millis(decision.played_at),
        player_id=decision.player_id,
        points=decision.points,
        at=format_utc_millis(decision.at),
        rating_after=decision.rating_after,
        withheld=decision.withheld,
        seat=decision.seat,
        seq=decision.sequence,
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
        seat=None if item.seat is None else int(item.seat),
        sequence=None if item.seq is None else int(item.seq),
    )
