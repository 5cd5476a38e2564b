"""Pay a sanction's refunds, one bounded step at a time: each step decides one page of the
sanctioned player's ranked games in the refund window (docs/rules.md, "Sanctions and
refunds"), or its first games whose victims fit the step's budget, and saves how far it got.

The victims of a game are the players on the other sides who lost points (of a game of two,
the other player); the sanctioned player's teammates get nothing. Each victim of each game
gets one decision (`sanction_records.decision_ref`).

Every step is idempotent, so a step redone after a crash, or run twice at once, pays nothing
twice: a victim's decision is stored in the same commit as the refund it pays (the victim's
new state, over the version read, and their refund event), a decision already stored is
skipped, and a victim who played meanwhile makes that one refund read their state again. The
progress save is conditioned on the save before: of two runs of the same step, one saves and
the other learns it was overtaken and stops (`ratings.service.jobs.RunJob`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

from ratings.rules import Ladder
from ratings.rules.refunds import GAME_GONE, Victim, refund_for
from ratings.service.errors import AlreadyStored
from ratings.service.jobs import JobKind
from ratings.service.moderation_results import RefundEvent
from ratings.service.player import Player
from ratings.service.ports import JobRecords, SanctionStore
from ratings.service.results import json_of
from ratings.service.sanction_records import (
    REFUND_EVENT,
    SANCTION,
    GameAgainst,
    Loser,
    RefundDecision,
    RefundProgress,
    RefundReads,
    Sanction,
    decision_ref,
    losers_in,
    sanction_job_id,
)
from ratings.service.stored import Job, PlayerEvent, StoredGame
from ratings.service.unit_of_work import Retrier, UnitOfWork

if TYPE_CHECKING:
    from ratings.service.facade import Context

#: Games read per step: one page read, two batched reads, then one commit per refund.
GAMES_PER_STEP = 25
#: Decisions per step: a step decides the page's first games whose decisions (one per victim,
#: at least one a game) fit, and always the first (a game has at most 15 victims), so a step
#: of games of many players stays as bounded as one of games of two (one decision a game).
DECISIONS_PER_STEP = 25


@dataclass
class PayRefunds(JobKind):
    """The sanction job kind: each step decides the next page of games (a dataclass, not a
    NamedTuple: tools and tests set `games_per_step` and `decisions_per_step`)."""

    kind: ClassVar[str] = SANCTION

    context: Context
    sanctions: SanctionStore
    uow: UnitOfWork
    jobs: JobRecords
    retrier: Retrier
    games_per_step: int = GAMES_PER_STEP
    decisions_per_step: int = DECISIONS_PER_STEP

    def step(self, job: Job) -> Job:
        """Decide the next page of the sanction's games (or those of its first games the
        step's budget covers): the job after it (done once no game is left). The runner
        saves it over the version `job` came with."""
        sanction = Sanction.of_job(job)
        ladder = self.context.ladder(sanction.ladder)
        progress = sanction.progress
        window = sanction.window
        if window is None or progress.phase >= len(sanction.played_as):
            advanced = RefundProgress(len(sanction.played_as), None, progress.totals)
        else:
            player_id = sanction.played_as[progress.phase]
            page = self.sanctions.games_against(
                ladder.ladder_id, player_id, window, progress.after, self.games_per_step
            )
            decided, covered = self.decide(ladder, sanction, player_id, page.games)
            # The decisions of the games covered are counted with the save of the step that
            # decides them: once, whichever run of the step saves.
            totals = progress.totals.plus(decided)
            if page.games and (page.more or covered < len(page.games)):
                last = page.games[covered - 1]
                advanced = RefundProgress(progress.phase, (last.played_at, last.game_id), totals)
            else:
                advanced = RefundProgress(progress.phase + 1, None, totals)
        finished = self.context.now() if advanced.phase >= len(sanction.played_as) else None
        return sanction.advanced(advanced, finished_at=finished).job()

    def run(self, ladder_id: str, sanction_id: str) -> Sanction | None:
        """Every step of the sanction's job, each saved, until it is done (tests and tools;
        the worker runs jobs with `RunJob`). None when no such sanction is stored."""
        job_id = sanction_job_id(ladder_id, sanction_id)
        while True:
            job = self.jobs.get_job(SANCTION, job_id)
            if job is None or not job.pending:
                return None if job is None else Sanction.of_job(job)
            attempts = self.retrier.attempts("sanction step")
            while True:
                with attempts:
                    after = self.step(job)
                    break
            self.jobs.save_job(after)

    def decide(
        self, ladder: Ladder, sanction: Sanction, player_id: str, games: Sequence[GameAgainst]
    ) -> tuple[list[RefundDecision], int]:
        """Decide each victim of each game of `player_id` on the page not decided yet, oldest
        game first, as far as the step's budget covers the page: the decisions of the games
        covered then, those stored before included (a win decides nothing), and how many
        games of the page, from the first, they are."""
        if not games:
            return [], 0
        reads = self.sanctions.read_for_refunds(
            ladder.ladder_id, sanction.sanction_id, player_id, games, self.decisions_per_step
        )
        covered = games[: reads.covered]
        decisions: list[RefundDecision] = []
        # Victims' states as this step last stored or read them (one may have lost several).
        known: dict[str, Player] = {}
        raced: list[str] = []
        for game in covered:
            if game.game_id in reads.decided:  # a game of two, or one no longer stored
                decisions.append(reads.decided[game.game_id])
                continue
            stored = reads.games.get(game.game_id)
            losers = None if stored is None else losers_in(stored, player_id)
            if losers is None:  # gone (or not theirs): who lost what is no longer known
                losers, stored = [Loser("", 0, None)], None
            for loser in losers:
                ref = decision_ref(game.game_id, loser.seat)
                if ref in reads.decided:
                    decisions.append(reads.decided[ref])
                    continue
                refund = _Refund(self, ladder, sanction, game, loser, stored, reads, known)
                decided = refund.decide()
                if refund.raced:
                    raced.append(ref)
                elif decided is not None:
                    decisions.append(decided)
        if raced:
            # Decided by another run of this step meanwhile: what it decided, as stored.
            again = self.sanctions.read_for_refunds(
                ladder.ladder_id, sanction.sanction_id, player_id, covered
            )
            decisions.extend(again.decided[ref] for ref in raced if ref in again.decided)
        return decisions, len(covered)


@dataclass
class _Refund:
    """The decision about one victim of one game, retried from a fresh read of the victim's
    state when a concurrent write (the victim playing) got there first."""

    refunds: PayRefunds
    ladder: Ladder
    sanction: Sanction
    game: GameAgainst
    #: The victim as the stored game names them, what they lost and their seat (a game no
    #: longer stored: nobody, 0).
    loser: Loser
    #: The stored game (None: expired and deleted).
    stored: StoredGame | None
    reads: RefundReads
    known: dict[str, Player]
    #: Set when a commit failed: the next attempt reads the victim's state afresh.
    fresh: bool = False
    #: Set when another run stored the decision first.
    raced: bool = False

    def decide(self) -> RefundDecision | None:
        """The decision stored (None: `raced`)."""
        attempts = self.refunds.retrier.attempts("refund")
        while True:
            with attempts:
                return self._attempt()

    def _attempt(self) -> RefundDecision | None:
        refunds, game, loser = self.refunds, self.game, self.loser
        now = refunds.context.now()
        decision = RefundDecision(
            ladder=self.ladder.ladder_id,
            sanction_id=self.sanction.sanction_id,
            game_id=game.game_id,
            played_at=game.played_at,
            player_id=None,
            points=0,
            at=now,
            seat=loser.seat,
        )
        if self.stored is None:
            return self._withhold(decision._replace(withheld=GAME_GONE))
        victim = self._victim(loser.player_id)
        if victim is not None and victim.erasing:
            victim = None  # being erased: nobody to pay, and its state must not move
        provisional = victim is not None and self.ladder.ruleset.provisional(victim.before_game(0))
        verdict = refund_for(
            Victim(
                delta=loser.delta,
                stored=victim is not None,
                sanctioned=victim is not None and victim.sanctioned,
                provisional=provisional,
            )
        )
        assert verdict is not None  # a loss always gets a verdict
        if verdict.withheld is not None or victim is None:
            return self._withhold(decision._replace(withheld=verdict.withheld))
        after = victim.refunded(verdict.points)
        decision = decision._replace(
            player_id=victim.player_id,
            points=verdict.points,
            rating_after=after.rating,
            sequence=after.sequence,
        )
        event = PlayerEvent(
            ladder=victim.ladder,
            player_id=victim.player_id,
            at=now,
            event_type=REFUND_EVENT,
            ref_id=game.game_id,
            ranked=False,
            body=json_of(RefundEvent.of(decision)),
            expires_at=now + refunds.context.settings.history_retention,
        )
        try:
            refunds.sanctions.commit_refund(decision, after, event)
        except AlreadyStored:
            self.known.pop(victim.player_id, None)  # decided by another run, which paid
            self.raced = True
            return None
        except Exception:
            self.fresh = True  # a version moved (or worse): read the victim again
            raise
        self.known[victim.player_id] = after
        return decision

    def _withhold(self, decision: RefundDecision) -> RefundDecision | None:
        try:
            self.refunds.sanctions.record_withheld(decision)
        except AlreadyStored:  # decided by another run
            self.raced = True
            return None
        return decision

    def _victim(self, opponent: str) -> Player | None:
        """Who holds the rating that lost the points: the opponent, or the account that took
        over their state when they linked (None: nobody, erased)."""
        account = self.reads.links.get(opponent)
        ids = [opponent] if account is None else [account, opponent]
        # A refund goes into the current rating: each state brought into the current season
        # first (the standing of an ended one stays as it was).
        uow = self.refunds.uow
        states = uow.in_season(self.ladder.ladder_id, {**self.reads.states, **self.known})
        if self.fresh or any(pid not in states for pid in ids):
            read = uow.read_states(self.ladder.ladder_id, ids)
            states.update(read)
            self.known.update(read)
        if account is not None:
            holder = states.get(account)
            if holder is not None and holder.absorbed_id == opponent:
                return holder
        return states.get(opponent)
