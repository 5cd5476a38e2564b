"""Lift a sanction: the player is back on the leaderboard and their games rate again; the
refunds already paid stay, and those still to be decided are still paid. Lifting twice
answers like lifting once."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, NamedTuple

from ratings.service.errors import AlreadyStored, WriteConflict
from ratings.service.ports import SanctionStore, SeasonStore
from ratings.service.results import JsonObject
from ratings.service.sanction_records import Sanction
from ratings.service.unit_of_work import UnitOfWork
from ratings.service.usecases.read_sanction import ReadSanction, sanction_answer

if TYPE_CHECKING:
    from ratings.service.facade import Context


class LiftSanction(NamedTuple):
    """Lifts through `sanctions`, resolving a link through `uow` (whose attempts redo a
    contended one)."""

    context: Context
    sanctions: SanctionStore
    uow: UnitOfWork
    #: Where the player's frozen standings come back to their seasons' leaderboards.
    seasons: SeasonStore | None = None

    def run(self, ladder_id: str, sanction_id: str) -> JsonObject:
        ladder = self.context.ladder(ladder_id)
        now = self.context.now()
        attempts = self.uow.attempts("lift")
        while True:
            with attempts:
                answer, sanction = self._attempt(ladder.ladder_id, sanction_id, now)
                break
        if self.seasons is not None:
            # Back on the standings of past seasons, unless under another sanction by now.
            states = self.uow.read_states(ladder.ladder_id, list(sanction.played_as))
            for player_id in sanction.played_as:
                state = states.get(player_id)
                if state is None or not state.sanctioned:
                    self.seasons.hide_standings(ladder.ladder_id, player_id, False)
        return answer

    def _attempt(
        self, ladder_id: str, sanction_id: str, now: datetime
    ) -> tuple[JsonObject, Sanction]:
        sanction, view = ReadSanction(self.context, self.sanctions).stored(ladder_id, sanction_id)
        if sanction.lifted_at is None:
            # The states that carry the sanction: the player's, and their account's when the
            # player is an anonymous id linked since (the sanction followed them).
            ids = list(dict.fromkeys([sanction.player_id, self.uow.resolve(sanction.player_id)]))
            states = self.uow.read_states(ladder_id, ids)
            # A player being erased keeps their state as marked: it is deleted soon.
            carrying = [
                p for p in states.values() if p.sanction_id == sanction_id and not p.erasing
            ]
            sanction = sanction._replace(lifted_at=now)
            try:
                self.sanctions.commit_lift(sanction, [player.lifted() for player in carrying])
            except AlreadyStored:
                raise WriteConflict(sanction_id) from None  # lifted meanwhile: answer that
        return sanction_answer(sanction, view), sanction  # the first page; GET reads on
