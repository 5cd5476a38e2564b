"""The answers of the moderation routes, declared once as typed values (annotated as
`ratings.declare.answers` describes): a sanction with its refunds, a refund's history event, an
erasure's status, and the summary the moderation worker logs of a job's run. The OpenAPI
document's schemas of the first three are generated from `COMPONENTS` and `DESCRIPTIONS`
(`ratings_local.openapi`), beside those of `service.results`.

They are apart from `service.results` because they are made of the moderation records
(`service.sanction_records`, `service.stored`'s jobs), which are themselves made of answers
of `service.results`.
"""

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Annotated, NamedTuple

from ratings.declare.answers import POSITIVE, Doc, Key
from ratings.declare.kinds import ABSENT, ID, Absent, Integer, Json
from ratings.rules.refunds import WITHHELD_REASONS
from ratings.service.sanction_records import (
    REFUND_EVENT,
    RefundDecision,
    RefundTotals,
    Sanction,
)
from ratings.service.stored import DONE, PENDING, Job

if TYPE_CHECKING:
    from ratings.service.jobs import JobRun

#: Where a background job stands (a sanction's refunds, an erasure).
JOB_STATUS = Json({"enum": [PENDING, DONE]})
COUNT = Integer(0)


# A sanction ---------------------------------------------------------------------------------


class RefundWindow(NamedTuple):
    since: Annotated[datetime, Key("from")]
    until: Annotated[datetime, Key("to")]


class Refund(NamedTuple):
    """A refund paid to a victim of the sanctioned player, for one game."""

    player_id: Annotated[str, ID]
    game_id: Annotated[str, ID]
    delta: Annotated[int, POSITIVE]
    played_at: datetime
    at: datetime
    rating_after: int

    @classmethod
    def of(cls, decision: RefundDecision) -> "Refund":
        # Only a decision that paid is a refund: it names the victim and their rating after.
        assert decision.player_id is not None
        assert decision.rating_after is not None
        return cls(
            decision.player_id,
            decision.game_id,
            decision.points,
            decision.played_at,
            decision.at,
            decision.rating_after,
        )


class Withheld(NamedTuple):
    """A loss to the sanctioned player that is not refunded, and why."""

    game_id: Annotated[str, ID]
    played_at: datetime
    reason: Annotated[str, Json({"enum": list(WITHHELD_REASONS)})]


class SanctionTotals(NamedTuple):
    """What the sanction's decisions add up to, whatever page is shown."""

    refunds: Annotated[int, COUNT, Doc("Refunds paid")]
    points: Annotated[int, COUNT, Doc("The points they gave back, together")]
    withheld: Annotated[int, COUNT, Doc("Losses not refunded")]

    @classmethod
    def of(cls, totals: RefundTotals) -> "SanctionTotals":
        return cls(totals.refunds, totals.points, totals.withheld)


class SanctionResult(NamedTuple):
    """What POST, GET and DELETE of a sanction answer: the sanction, where its refunds stand,
    what its decisions add up to, and one page of those decisions by game id (refunds paid,
    and the games whose refund is withheld), with the cursor of the next page."""

    sanction_id: Annotated[str, ID]
    ladder: Annotated[str, ID]
    player_id: Annotated[
        str,
        ID,
        Doc("The sanctioned player (an account when the id sent is an anonymous id linked to it)"),
    ]
    reason: str | None
    refund_days: int
    status: Annotated[str, JOB_STATUS]
    sanctioned_at: datetime
    refund_window: RefundWindow | None
    completed_at: datetime | None
    lifted_at: datetime | None
    totals: SanctionTotals
    refunds: Annotated[list[Refund], Doc("The page's refunds paid, by game id")]
    withheld: Annotated[
        list[Withheld], Doc("The page's losses not refunded, and why (docs/rules.md), by game id")
    ]
    next_cursor: Annotated[
        str | None,
        Doc("GET the sanction with it as `cursor` for the next page of decisions (null: none)"),
    ]
    submitted_id: Annotated[str | Absent, ID, Doc("The id sent, when it is linked")] = ABSENT

    @classmethod
    def of(
        cls, sanction: Sanction, decisions: Sequence[RefundDecision], next_cursor: str | None
    ) -> "SanctionResult":
        window = sanction.window
        linked = sanction.submitted_id != sanction.player_id
        return cls(
            sanction_id=sanction.sanction_id,
            ladder=sanction.ladder,
            player_id=sanction.player_id,
            submitted_id=sanction.submitted_id if linked else ABSENT,
            reason=sanction.reason,
            refund_days=sanction.refund_days,
            status=sanction.status,
            sanctioned_at=sanction.sanctioned_at,
            refund_window=None if window is None else RefundWindow(window.since, window.until),
            completed_at=sanction.completed_at,
            lifted_at=sanction.lifted_at,
            totals=SanctionTotals.of(sanction.progress.totals),
            refunds=[Refund.of(paid) for paid in decisions if paid.withheld is None],
            withheld=[
                Withheld(kept.game_id, kept.played_at, kept.withheld)
                for kept in decisions
                if kept.withheld is not None
            ],
            next_cursor=next_cursor,
        )


class RefundEvent(NamedTuple):
    """The victim's history event of a refund (stored as its JSON)."""

    type: Annotated[str, Json({"const": REFUND_EVENT})]
    sanction_id: Annotated[str, ID]
    game_id: Annotated[str, ID]
    at: datetime
    delta: Annotated[int, POSITIVE]
    rating_after: int

    @classmethod
    def of(cls, decision: RefundDecision) -> "RefundEvent":
        assert decision.rating_after is not None  # a refund paid
        return cls(
            REFUND_EVENT,
            decision.sanction_id,
            decision.game_id,
            decision.at,
            decision.points,
            decision.rating_after,
        )


# An erasure ---------------------------------------------------------------------------------


class ErasureResult(NamedTuple):
    """What both erasure routes answer: where the erasure of `player_id` stands."""

    player_id: Annotated[str, ID]
    status: Annotated[str, JOB_STATUS]
    requested_at: Annotated[datetime, Doc("When the erasure was (last) requested")]
    completed_at: Annotated[datetime | Absent, Doc("When it was done (only once done)")] = ABSENT

    @classmethod
    def of(cls, player_id: str, job: Job) -> "ErasureResult":
        done = ABSENT if job.completed_at is None else job.completed_at
        return cls(player_id, job.status, job.requested_at, done)


# The moderation worker's summary (logged, not in the HTTP API) -----------------------------


class JobWorked(NamedTuple):
    """What one invocation of the moderation worker did with a job."""

    job: str
    status: Annotated[str, JOB_STATUS]
    phase: str
    steps: int
    continued: bool
    superseded: bool

    @classmethod
    def of(cls, run: "JobRun") -> "JobWorked":
        job = run.job
        return cls(
            job.kind, job.status, job.progress.phase, run.steps, run.continued, run.superseded
        )


#: The moderation answers of the HTTP API, by their name in the OpenAPI document.
COMPONENTS: Mapping[str, type] = {
    "Sanction": SanctionResult,
    "RefundEvent": RefundEvent,
    "Erasure": ErasureResult,
}
#: What the document says of an answer as a whole, where it says anything.
DESCRIPTIONS: Mapping[type, str] = {
    RefundWindow: (
        "The played_at range of the games refunded, both ends included (null: refund_days 0, "
        "nothing refunded)"
    ),
    SanctionTotals: (
        "Every decision of the refund steps done so far, counted on the sanction (no page "
        "needed); while pending, the pages may already list the decisions of the step under "
        "way, at most 25 games more"
    ),
}
