"""The in-memory fake of the sanctions port, over the fake's tables (`ratings.storage.memory`):
its commits go through the same checked commit as the unit of work's, so a refund and a game
of the victim conflict here exactly as they do on DynamoDB."""

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from ratings.rules.refunds import Window
from ratings.service.errors import AlreadyStored, WriteConflict
from ratings.service.game_result import GAME_EVENT
from ratings.service.player import Player
from ratings.service.ports import SanctionStore
from ratings.service.sanction_records import (
    SANCTION,
    GameAgainst,
    GamePosition,
    GamesPage,
    NamedInSanctions,
    RefundDecision,
    RefundReads,
    Sanction,
    SanctionReads,
    SanctionView,
    plan_refunds,
    sanction_job_id,
)
from ratings.service.stored import PlayerEvent

if TYPE_CHECKING:
    from ratings.storage.memory import InMemoryStorage


class SanctionTables:
    """The fake's lifts and decisions, by (ladder, sanction id), the decisions then by
    `decision_ref`; the sanctions' records are job records (`InMemoryStorage.job_records`)."""

    def __init__(self) -> None:
        self.lifts: dict[tuple[str, str], datetime] = {}
        self.decisions: dict[tuple[str, str], dict[str, RefundDecision]] = {}
        #: (ladder, sanctioned player) -> their sanctions' ids (the pointers DynamoDB keeps in
        #: the player's partition, for an erasure).
        self.pointers: dict[tuple[str, str], set[str]] = {}


class InMemorySanctions(SanctionStore):
    def __init__(self, tables: "InMemoryStorage") -> None:
        self._tables = tables
        self._own = tables.sanction_tables

    def _sanction(self, ladder: str, sanction_id: str) -> Sanction | None:
        job = self._tables.job_records.get((SANCTION, sanction_job_id(ladder, sanction_id)))
        if job is None:
            return None
        return Sanction.of_job(job, self._own.lifts.get((ladder, sanction_id)))

    def read_for_sanction(self, ladder: str, sanction_id: str, player_id: str) -> SanctionReads:
        tables = self._tables
        with tables.lock:
            return SanctionReads(
                sanction=self._sanction(ladder, sanction_id),
                account_of=tables.links.get(player_id),
                anonymous_of=tables.absorbed.get(player_id),
                states=tables.shared_unit.read_states(ladder, [player_id]),
            )

    def read_sanction(
        self, ladder: str, sanction_id: str, after: str | None, limit: int
    ) -> SanctionView:
        with self._tables.lock:
            sanction = self._sanction(ladder, sanction_id)
            if sanction is None:
                return SanctionView(None)
            decided = self._own.decisions.get((ladder, sanction_id), {})
            # By ref, as DynamoDB sorts their keys (ASCII, `#` below every id character).
            following = sorted(ref for ref in decided if after is None or ref > after)
            return SanctionView(
                sanction,
                [decided[ref] for ref in following[:limit]],
                more=len(following) > limit,
            )

    def games_against(
        self,
        ladder: str,
        player_id: str,
        window: Window,
        after: GamePosition | None,
        limit: int,
    ) -> GamesPage:
        with self._tables.lock:
            events = list(self._tables.events.get((ladder, player_id), []))
        games = sorted(
            (
                GameAgainst(event.ref_id, event.at)
                for event in events
                if event.event_type == GAME_EVENT and event.ranked and event.at in window
            ),
            key=lambda game: (game.played_at, game.game_id),
        )
        if after is not None:
            games = [game for game in games if (game.played_at, game.game_id) > after]
        return GamesPage(games[:limit], more=len(games) > limit)

    def read_for_refunds(
        self,
        ladder: str,
        sanction_id: str,
        player_id: str,
        games: Sequence[GameAgainst],
        budget: int | None = None,
    ) -> RefundReads:
        tables = self._tables
        with tables.lock:
            decided = self._own.decisions.get((ladder, sanction_id), {})
            found = {g.game_id: decided[g.game_id] for g in games if g.game_id in decided}
            stored = {
                g.game_id: tables.games[(ladder, g.game_id)]
                for g in games
                if (ladder, g.game_id) in tables.games
            }
            plan = plan_refunds(games, stored, found, player_id, budget)
            covered = {g.game_id for g in games[: plan.covered]}
            found = {gid: decision for gid, decision in found.items() if gid in covered}
            found.update({ref: decided[ref] for ref in plan.refs if ref in decided})
            return RefundReads(
                decided=found,
                games={gid: game for gid, game in stored.items() if gid in covered},
                links={pid: tables.links[pid] for pid in plan.victims if pid in tables.links},
                states=tables.shared_unit.read_states(ladder, plan.victims),
                covered=plan.covered,
            )

    def commit_sanction(self, sanction: Sanction, player: Player) -> None:
        job = sanction.job()
        records = self._tables.job_records

        pointers = self._own.pointers

        def create() -> Callable[[], None]:
            if (job.kind, job.job_id) in records:
                raise AlreadyStored(sanction.sanction_id)

            def apply() -> None:
                records[(job.kind, job.job_id)] = job
                key = (sanction.ladder, sanction.player_id)
                pointers.setdefault(key, set()).add(sanction.sanction_id)

            return apply

        self._tables.shared_unit.commit_checked([player], [], create)

    def commit_lift(self, sanction: Sanction, players: Sequence[Player]) -> None:
        key = (sanction.ladder, sanction.sanction_id)
        lifts = self._own.lifts
        lifted_at = sanction.lifted_at
        assert lifted_at is not None

        def lift() -> Callable[[], None]:
            if key in lifts:
                raise AlreadyStored(sanction.sanction_id)
            return lambda: lifts.__setitem__(key, lifted_at)

        self._tables.shared_unit.commit_checked(players, [], lift)

    def commit_refund(self, decision: RefundDecision, victim: Player, event: PlayerEvent) -> None:
        self._tables.shared_unit.commit_checked([victim], [event], self._deciding(decision))

    def record_withheld(self, decision: RefundDecision) -> None:
        self._tables.shared_unit.commit_checked([], [], self._deciding(decision))

    def read_named(
        self,
        ladder: str,
        sanction_ids: Sequence[str],
        decision_keys: Sequence[tuple[str, str]],
    ) -> NamedInSanctions:
        with self._tables.lock:
            sanctions = {
                sid: found
                for sid in sanction_ids
                if (found := self._sanction(ladder, sid)) is not None
            }
            # Every decision of each game: by its id alone, or by its id and a seat.
            decisions = {
                (sid, ref): decision
                for sid, gid in decision_keys
                for ref, decision in self._own.decisions.get((ladder, sid), {}).items()
                if ref == gid or ref.startswith(f"{gid}#")
            }
            return NamedInSanctions(sanctions, decisions)

    def rename(self, sanctions: Sequence[Sanction], decisions: Sequence[RefundDecision]) -> None:
        tables = self._tables
        with tables.lock:
            for sanction in sanctions:
                job = sanction.job()
                stored = tables.job_records.get((job.kind, job.job_id))
                if stored is None or stored.progress_version != job.progress_version - 1:
                    raise WriteConflict(sanction.sanction_id)
            for decision in decisions:
                held = self._own.decisions.get((decision.ladder, decision.sanction_id), {})
                if decision.ref not in held:
                    raise WriteConflict(decision.game_id)
            for sanction in sanctions:
                job = sanction.job()
                tables.job_records[(job.kind, job.job_id)] = job
            for decision in decisions:
                self._own.decisions[(decision.ladder, decision.sanction_id)][decision.ref] = (
                    decision
                )

    def _deciding(self, decision: RefundDecision) -> Callable[[], Callable[[], None]]:
        decided = self._own.decisions.setdefault((decision.ladder, decision.sanction_id), {})

        def check() -> Callable[[], None]:
            if decision.ref in decided:
                raise AlreadyStored(decision.ref)
            return lambda: decided.__setitem__(decision.ref, decision)

        return check
