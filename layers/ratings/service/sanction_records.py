"""What the sanctions port stores and gives back: a sanction (its record, which is the job
record of its refunds, and its lift), the decision about one game (a refund, or a refund
withheld), the sanctioned player's games the refunds page through, and what the sanction's
use cases read first.

A sanction's refunds are decided game by game, each exactly once: the decision about a game
is stored in the same atomic commit as what it pays (the victim's state and refund event),
and a decision already stored is never made again.
"""

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import NamedTuple

from ratings.declare.answers import JsonObject, format_utc_millis, parse_utc_millis
from ratings.rules.refunds import Window
from ratings.service.player import Player
from ratings.service.stored import DONE, PENDING, Job, Progress, StoredGame

#: The job kind of a sanction's refunds (`ratings.service.jobs`): the sanction's record is
#: its job record.
SANCTION = "sanction"
#: The job's phases: paying refunds, then done.
REFUNDS_PHASE = "refunds"

#: The kind of history event a refund writes.
REFUND_EVENT = "refund"
#: The kind of a sanctioned player's own item that points at their sanction (how an
#: erasure of the player finds the sanctions that name them).
SANCTION_POINTER = "sanction_pointer"

#: Where a page of a player's games starts after: the (played_at, game_id) of the last one.
GamePosition = tuple[datetime, str]


def sanction_job_id(ladder: str, sanction_id: str) -> str:
    """The job id of a sanction: ids never hold `#`, so the pair cannot be mistaken."""
    return f"{ladder}#{sanction_id}"


class RefundTotals(NamedTuple):
    """What a sanction's decisions add up to: the refunds paid, the points they gave back,
    and the refunds withheld. Kept on the sanction's record, counted step by step, so no
    answer reads every decision to summarise them."""

    refunds: int = 0
    points: int = 0
    withheld: int = 0

    def plus(self, decisions: Iterable["RefundDecision"]) -> "RefundTotals":
        decided = list(decisions)
        paid = [decision.points for decision in decided if decision.withheld is None]
        return RefundTotals(
            self.refunds + len(paid),
            self.points + sum(paid),
            self.withheld + len(decided) - len(paid),
        )


class RefundProgress(NamedTuple):
    """How far the refunds have come: `phase` indexes `Sanction.played_as`, `after` is the
    last game of that id already decided (None: none yet), `totals` counts the decisions
    of the steps saved so far."""

    phase: int = 0
    after: GamePosition | None = None
    totals: RefundTotals = RefundTotals()

    def position(self) -> JsonObject:
        after = None if self.after is None else [format_utc_millis(self.after[0]), self.after[1]]
        return {"played_as": self.phase, "after": after, "totals": self.totals._asdict()}

    @classmethod
    def of(cls, position: JsonObject | None) -> "RefundProgress":
        if not position:
            return cls()
        after = position.get("after")
        return cls(
            int(position.get("played_as", 0)),
            None if after is None else (parse_utc_millis(after[0]), str(after[1])),
            RefundTotals(**{name: int(n) for name, n in position.get("totals", {}).items()}),
        )


class Sanction(NamedTuple):
    """One sanction of one player in one ladder: its job record (`job`, `of_job`) and
    whether it was lifted (kept apart from the record, which only the refunds' steps save)."""

    ladder: str
    sanction_id: str
    #: The sanctioned player: the account, when the id sent is an anonymous id linked to one.
    player_id: str
    #: The id as the sanction named it.
    submitted_id: str
    reason: str | None
    refund_days: int
    #: A hash of the content sent: the same sanction id with other content is a conflict.
    fingerprint: str
    sanctioned_at: datetime
    #: The played_at range of the games it refunds (None: it refunds nothing).
    window: Window | None
    #: The ids the player played under whose games it refunds: the player's own, then the
    #: anonymous id linked to them, if any.
    played_as: tuple[str, ...]
    status: str = PENDING
    completed_at: datetime | None = None
    lifted_at: datetime | None = None
    progress: RefundProgress = RefundProgress()
    #: The job record's version: each save is conditioned on the one before, so two runs of
    #: the same work never both advance it.
    progress_version: int = 1

    @property
    def done(self) -> bool:
        return self.status == DONE

    def advanced(self, progress: RefundProgress, *, finished_at: datetime | None) -> "Sanction":
        """The record one progress save on; `finished_at` marks it done."""
        return self._replace(
            progress=progress,
            progress_version=self.progress_version + 1,
            status=DONE if finished_at is not None else PENDING,
            completed_at=finished_at,
        )

    def job(self) -> Job:
        window = self.window
        return Job(
            kind=SANCTION,
            job_id=sanction_job_id(self.ladder, self.sanction_id),
            status=self.status,
            requested_at=self.sanctioned_at,
            progress=Progress(DONE if self.done else REFUNDS_PHASE, self.progress.position()),
            details={
                "ladder": self.ladder,
                "sanction_id": self.sanction_id,
                "player_id": self.player_id,
                "submitted_id": self.submitted_id,
                "reason": self.reason,
                "refund_days": self.refund_days,
                "fingerprint": self.fingerprint,
                "window": None
                if window is None
                else [format_utc_millis(window.since), format_utc_millis(window.until)],
                "played_as": list(self.played_as),
            },
            progress_version=self.progress_version,
            completed_at=self.completed_at,
        )

    @classmethod
    def of_job(cls, job: Job, lifted_at: datetime | None = None) -> "Sanction":
        details = job.details
        window = details.get("window")
        return cls(
            ladder=details["ladder"],
            sanction_id=details["sanction_id"],
            player_id=details["player_id"],
            submitted_id=details["submitted_id"],
            reason=details["reason"],
            refund_days=int(details["refund_days"]),
            fingerprint=details["fingerprint"],
            sanctioned_at=job.requested_at,
            window=None
            if window is None
            else Window(parse_utc_millis(window[0]), parse_utc_millis(window[1])),
            played_as=tuple(details["played_as"]),
            status=job.status,
            completed_at=job.completed_at,
            lifted_at=lifted_at,
            progress=RefundProgress.of(job.progress.position),
            progress_version=job.progress_version,
        )


class RefundDecision(NamedTuple):
    """What a sanction decided about one game: the points paid back to the victim, or 0 and
    the reason they are withheld. A withheld decision names no player: nothing of the victim
    is kept for it (an erasure could not find it there)."""

    ladder: str
    sanction_id: str
    game_id: str
    played_at: datetime
    #: The player paid (None when withheld).
    player_id: str | None
    points: int
    #: When it was decided (the refund event's `at`).
    at: datetime
    #: The victim's rating once paid (None when withheld).
    rating_after: int | None = None
    withheld: str | None = None


class GameAgainst(NamedTuple):
    """A ranked game of the sanctioned player (its opponent is in the stored game)."""

    game_id: str
    played_at: datetime


class GamesPage(NamedTuple):
    games: Sequence[GameAgainst]
    #: Whether more games may follow the last of `games`.
    more: bool


class SanctionView(NamedTuple):
    """A sanction as a read finds it, with one page of the decisions stored so far, by game
    id, and whether more follow the page's last."""

    sanction: Sanction | None
    decisions: Sequence[RefundDecision] = ()
    more: bool = False


class NamedInSanctions(NamedTuple):
    """The sanctions and decisions an erasure rewrites, read together (missing: not stored)."""

    sanctions: Mapping[str, Sanction]
    #: (sanction id, game id) -> the decision.
    decisions: Mapping[tuple[str, str], RefundDecision]


class SanctionReads(NamedTuple):
    """What making a sanction reads first, fetched together."""

    sanction: Sanction | None
    #: The account the id sent is linked to, when it is an anonymous id.
    account_of: str | None
    #: The anonymous id linked to the id sent, when it is an account.
    anonymous_of: str | None
    #: player id -> state, for the id sent (missing: never stored).
    states: Mapping[str, Player]


class RefundReads(NamedTuple):
    """What deciding a page of games reads first, fetched together."""

    #: game id -> the decision already stored.
    decided: Mapping[str, RefundDecision]
    #: game id -> the stored game (missing: expired and deleted).
    games: Mapping[str, StoredGame]
    #: opponent id -> account, for the opponents (in the stored games not decided yet) that
    #: are linked anonymous ids.
    links: Mapping[str, str]
    #: opponent id -> state (missing: never stored, or erased).
    states: Mapping[str, Player]


def opponent_in(game: StoredGame, player_id: str) -> str | None:
    """The other player of a stored game of `player_id` (None: not theirs)."""
    ids = [entry.get("id") for entry in game.result.get("players", ()) if isinstance(entry, dict)]
    if player_id not in ids:
        return None
    others = [other for other in ids if other != player_id and isinstance(other, str)]
    return others[0] if others else None


def opponents_undecided(
    games: Mapping[str, StoredGame], decided: Mapping[str, RefundDecision], player_id: str
) -> list[str]:
    """The opponents of `player_id` in the stored games not decided yet: whose states a page
    of refunds reads."""
    found = (
        opponent_in(game, player_id) for game_id, game in games.items() if game_id not in decided
    )
    return list(dict.fromkeys(pid for pid in found if pid is not None))
