"""What the sanctions port stores and gives back: a sanction (its record, which is the job
record of its refunds, and its lift), the decision about one game (a refund, or a refund
withheld), the sanctioned player's games the refunds page through, and what the sanction's
use cases read first.

A sanction's refunds are decided game by game and victim by victim, each exactly once: the
decision about a victim of a game is stored in the same atomic commit as what it pays (the
victim's state and refund event), and a decision already stored is never made again.

A decision is known by its `decision_ref`: the game id alone for a game of two players (as
every decision was before games had sides, so those stored then are still found), the game id
and the victim's seat (their index in the result's players) for a game of more players.
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


def decision_ref(game_id: str, seat: int | None) -> str:
    """What tells a decision from the sanction's others: the game id (a game of two players,
    or a game no longer stored), or the game id and the victim's seat, `{game_id}#{seat:02}`
    (ids never hold `#`; two digits, so the refs of a game sort by seat)."""
    return game_id if seat is None else f"{game_id}#{seat:02d}"


class RefundDecision(NamedTuple):
    """What a sanction decided about one victim of one game: the points paid back to them, or
    0 and the reason they are withheld. A withheld decision names no player: nothing of the
    victim is kept for it (an erasure could not find it there)."""

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
    #: The victim's seat, their index in the game's result players, when the game has more
    #: than two players (None: a game of two, or a game no longer stored).
    seat: int | None = None
    #: The victim's `Player.sequence` once paid (None when withheld).
    sequence: int | None = None

    @property
    def ref(self) -> str:
        return decision_ref(self.game_id, self.seat)


class GameAgainst(NamedTuple):
    """A ranked game of the sanctioned player (its other players are in the stored game)."""

    game_id: str
    played_at: datetime


class GamesPage(NamedTuple):
    games: Sequence[GameAgainst]
    #: Whether more games may follow the last of `games`.
    more: bool


class SanctionView(NamedTuple):
    """A sanction as a read finds it, with one page of the decisions stored so far, by
    `decision_ref` (game id, then seat), and whether more follow the page's last."""

    sanction: Sanction | None
    decisions: Sequence[RefundDecision] = ()
    more: bool = False


class NamedInSanctions(NamedTuple):
    """The sanctions and decisions an erasure rewrites, read together (missing: not stored)."""

    sanctions: Mapping[str, Sanction]
    #: (sanction id, decision ref) -> the decision: every decision of each game asked for
    #: (a game of more than two players may have several).
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

    #: decision ref -> the decision already stored, for the games covered.
    decided: Mapping[str, RefundDecision]
    #: game id -> the stored game (missing: expired and deleted).
    games: Mapping[str, StoredGame]
    #: victim id -> account, for the victims (of the games covered, not decided yet) that are
    #: linked anonymous ids.
    links: Mapping[str, str]
    #: victim id -> state (missing: never stored, or erased).
    states: Mapping[str, Player]
    #: How many of the games asked for, from the first, these reads cover: those whose
    #: victims fit the step's budget (`plan_refunds`).
    covered: int


class Loser(NamedTuple):
    """A player of a game who lost points to the sanctioned player: one on another side."""

    #: Their id as the game's result names them.
    player_id: str
    #: What they lost (negative).
    delta: int
    #: Their index in the result's players when the game has more than two (None: two).
    seat: int | None


def losers_in(game: StoredGame, player_id: str) -> list[Loser] | None:
    """The victims of `player_id` in a stored game: each player on another side who lost
    points, in the result's order (None: not a game of `player_id`). A game sent as sides
    gives each player's side; a game without sides has two players, on two sides. Teammates
    are on the player's side: they lost with them, and get nothing back."""
    players = game.result.get("players")
    if not isinstance(players, list):
        return None
    own = next(
        (entry for entry in players if isinstance(entry, dict) and entry.get("id") == player_id),
        None,
    )
    if own is None:
        return None
    side = own.get("side")
    many = len(players) > 2
    found = []
    for seat, entry in enumerate(players):
        if not isinstance(entry, dict) or entry is own:
            continue
        other, delta = entry.get("id"), entry.get("delta")
        if not isinstance(other, str) or (side is not None and entry.get("side") == side):
            continue
        if isinstance(delta, int) and delta < 0:
            found.append(Loser(other, delta, seat if many else None))
    return found


class RefundPlan(NamedTuple):
    """What a page of games needs read once its stored games and game-id decisions are."""

    #: How many games of the page, from the first, the step decides.
    covered: int
    #: The decision refs by seat to look up (the covered games of more than two players).
    refs: list[str]
    #: The victims whose links and states to read (of the covered games not decided yet).
    victims: list[str]


def plan_refunds(
    games: Sequence[GameAgainst],
    stored: Mapping[str, StoredGame],
    decided: Mapping[str, RefundDecision],
    player_id: str,
    budget: int | None,
) -> RefundPlan:
    """Which games of the page a step decides: from the first, as long as their decisions
    (one for a game decided by its id or no longer stored, one per victim otherwise, at
    least one a game) stay within `budget` (None: every game); the first game always, so a
    step never decides more than `budget` plus a game's victims. Counted from the games
    alone, not from what is decided already: a step redone covers the same games."""
    covered = spent = 0
    refs: list[str] = []
    victims: list[str] = []
    for game in games:
        game_id = game.game_id
        stored_game = stored.get(game_id)
        losers = None
        if game_id not in decided and stored_game is not None:
            losers = losers_in(stored_game, player_id)
        cost = max(1, len(losers or ()))
        if covered and budget is not None and spent + cost > budget:
            break
        covered, spent = covered + 1, spent + cost
        for loser in losers or ():
            if loser.seat is not None:
                refs.append(decision_ref(game_id, loser.seat))
            victims.append(loser.player_id)
    return RefundPlan(covered, refs, list(dict.fromkeys(victims)))
