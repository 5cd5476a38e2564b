"""Pay a sanction's refunds, one bounded step at a time: each step decides one page of the
sanctioned player's ranked games in the refund window (docs/rules.md, "Sanctions and
refunds") and saves how far it got.

Every step is idempotent, so a step redone after a crash, or run twice at once, pays nothing
twice: a game's decision is stored in the same commit as the refund it pays (the victim's new
state, over the version read, and their refund event), a decision already stored is skipped,
and a victim who played meanwhile makes that one refund read their state again. The progress
save is conditioned on the save before: of two runs of the same step, one saves and the other
learns it was overtaken and stops (`ratings.service.jobs.RunJob`).
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
    RefundDecision,
    RefundProgress,
    RefundReads,
    Sanction,
    opponent_in,
    sanction_job_id,
)
from ratings.service.stored import Job, PlayerEvent
from ratings.service.unit_of_work import Retrier, UnitOfWork

if TYPE_CHECKING:
    from ratings.service.facade import Context

#: Games decided per step: one page read, one batched read, then one commit per refund.
GAMES_PER_STEP = 25


@dataclass
class PayRefunds(JobKind):
    """The sanction job kind: each step decides the next page of games (a dataclass, not a
    NamedTuple: tools and tests set `games_per_step`)."""

    kind: ClassVar[str] = SANCTION

    context: Context
    sanctions: SanctionStore
    uow: UnitOfWork
    jobs: JobRecords
    retrier: Retrier
    games_per_step: int = GAMES_PER_STEP

    def step(self, job: Job) -> Job:
        """Decide the next page of the sanction's games: the job after it (done once no
        game is left). The runner saves it over the version `job` came with."""
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
            # The page's decisions are counted with the save of the step that decides it:
            # once, whichever run of the step saves.
            totals = progress.totals.plus(self.decide(ladder, sanction, player_id, page.games))
            if page.more and page.games:
                last = page.games[-1]
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
    ) -> list[RefundDecision]:
        """Decide each game of `player_id` on the page not decided yet, oldest first: the
        page's decisions then, those stored before included (a win decides nothing)."""
        if not games:
            return []
        reads = self.sanctions.read_for_refunds(
            ladder.ladder_id, sanction.sanction_id, player_id, games
        )
        decisions = [reads.decided[game.game_id] for game in games if game.game_id in reads.decided]
        # Victims' states as this step last stored or read them (one may have lost several).
        known: dict[str, Player] = {}
        raced: list[GameAgainst] = []
        for game in games:
            if game.game_id in reads.decided:
                continue
            refund = _Refund(self, ladder, sanction, player_id, game, reads, known)
            decided = refund.decide()
            if refund.raced:
                raced.append(game)
            elif decided is not None:
                decisions.append(decided)
        if raced:
            # Decided by another run of this step meanwhile: what it decided, as stored.
            again = self.sanctions.read_for_refunds(
                ladder.ladder_id, sanction.sanction_id, player_id, raced
            )
            decisions.extend(again.decided.values())
        return decisions


@dataclass
class _Refund:
    """The decision about one game, retried from a fresh read of the victim's state when a
    concurrent write (the victim playing) got there first."""

    refunds: PayRefunds
    ladder: Ladder
    sanction: Sanction
    #: The sanctioned player, as the id these games were played under.
    player_id: str
    game: GameAgainst
    reads: RefundReads
    known: dict[str, Player]
    #: Set when a commit failed: the next attempt reads the victim's state afresh.
    fresh: bool = False
    #: Set when another run stored the game's decision first.
    raced: bool = False

    def decide(self) -> RefundDecision | None:
        """The decision stored (None: nothing to decide, or `raced`)."""
        attempts = self.refunds.retrier.attempts("refund")
        while True:
            with attempts:
                return self._attempt()

    def _attempt(self) -> RefundDecision | None:
        refunds, game = self.refunds, self.game
        now = refunds.context.now()
        decision = RefundDecision(
            ladder=self.ladder.ladder_id,
            sanction_id=self.sanction.sanction_id,
            game_id=game.game_id,
            played_at=game.played_at,
            player_id=None,
            points=0,
            at=now,
        )
        stored = self.reads.games.get(game.game_id)
        opponent = None if stored is None else opponent_in(stored, self.player_id)
        if stored is None or opponent is None:
            return self._withhold(decision._replace(withheld=GAME_GONE))
        loss = _delta_of(stored.result, opponent)
        if loss is None or loss >= 0:
            return None  # a win or a gain: nothing to refund, nothing to record
        victim = self._victim(opponent)
        if victim is not None and victim.erasing:
            victim = None  # being erased: nobody to pay, and its state must not move
        provisional = victim is not None and self.ladder.ruleset.provisional(victim.before_game(0))
        verdict = refund_for(
            Victim(
                delta=loss,
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
            player_id=victim.player_id, points=verdict.points, rating_after=after.rating
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


def _delta_of(result: dict[str, object], player_id: str) -> int | None:
    """The delta of `player_id` in a stored game's result (None: not a player of it)."""
    players = result.get("players")
    if not isinstance(players, list):
        return None
    for entry in players:
        if isinstance(entry, dict) and entry.get("id") == player_id:
            delta = entry.get("delta")
            return delta if isinstance(delta, int) else None
    return None
