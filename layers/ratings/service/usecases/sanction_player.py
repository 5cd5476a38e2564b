"""Sanction a player: take them off a ladder's leaderboard and open the refunds of their
victims, once per sanction id (a retry answers where the sanction stands).

The sanction is stored together with the player's state, which from then on carries it (off
the board; no game with them rates), under the version read: a game of theirs committed
meanwhile makes the attempt read again. The refunds themselves are paid afterwards, page by
page (`pay_refunds`); a new sanction answers `pending`.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, NamedTuple

from ratings.rules import Ladder
from ratings.rules.refunds import refund_window
from ratings.service.errors import (
    AlreadySanctioned,
    AlreadyStored,
    RetryLater,
    SanctionConflict,
    WriteConflict,
)
from ratings.service.game_result import Submitted
from ratings.service.parameters import DEFAULT_SANCTION_LIMIT
from ratings.service.player import refuse_erasing
from ratings.service.ports import JobQueue, SanctionStore, SeasonStore
from ratings.service.requests import SanctionInput, parse_sanction
from ratings.service.sanction_records import Sanction, SanctionView
from ratings.service.unit_of_work import UnitOfWork, players_of
from ratings.service.usecases.read_sanction import sanction_answer

if TYPE_CHECKING:
    from ratings.service.facade import Context


class SanctionPlayer(NamedTuple):
    """Stores sanctions through `sanctions`, reads a linked account's state through `uow`
    (whose attempts redo a contended one), and queues the refunds' job on `queue`."""

    context: Context
    sanctions: SanctionStore
    uow: UnitOfWork
    queue: JobQueue
    #: Where the player's standings frozen in past seasons are hidden while sanctioned.
    seasons: SeasonStore | None = None

    def run(self, ladder_id: str, body: object) -> Submitted:
        """Make the sanction once; the same sanction again answers its current status."""
        ladder = self.context.ladder(ladder_id)
        sent = parse_sanction(body, self.context.settings.history_retention.days)
        now = self.context.now()
        attempts = self.uow.attempts("sanction")
        while True:
            with attempts:
                sanction, answer = self._attempt(ladder, sent, now)
                break
        if sanction.lifted_at is None and self.seasons is not None:
            # Off the standings of every past season too (each read also leaves them out,
            # by the state; this keeps the counted ranks closed up). Done again on a retry.
            for player_id in sanction.played_as:
                self.seasons.hide_standings(ladder.ladder_id, player_id, True)
        if not sanction.done:
            try:
                self.queue.send(sanction.job().message)
            except Exception as error:
                raise RetryLater(
                    "the sanction is recorded (the player is off the ladder) but its refunds "
                    "could not be queued; send the same request again"
                ) from error
        return answer

    def _attempt(
        self, ladder: Ladder, sent: SanctionInput, now: datetime
    ) -> tuple[Sanction, Submitted]:
        reads = self.sanctions.read_for_sanction(ladder.ladder_id, sent.sanction_id, sent.player_id)
        if reads.sanction is not None:
            return self._repeated(reads.sanction, sent)
        # An anonymous id linked to an account is that account: the account is sanctioned,
        # and the games of both ids are refunded.
        account = reads.account_of or sent.player_id
        anonymous = sent.player_id if reads.account_of else reads.anonymous_of
        links = {sent.player_id: account} if reads.account_of else {}
        (player,) = players_of(self.uow, ladder, [account], links, reads.states)
        refuse_erasing([player])
        if player.sanction_id is not None:
            raise AlreadySanctioned(
                f"player {account!r} is already under sanction {player.sanction_id!r} in "
                f"ladder {ladder.ladder_id!r}; lift it first to sanction them anew"
            )
        window = refund_window(now, sent.refund_days, player.refunded_until)
        sanction = Sanction(
            ladder=ladder.ladder_id,
            sanction_id=sent.sanction_id,
            player_id=account,
            submitted_id=sent.player_id,
            reason=sent.reason,
            refund_days=sent.refund_days,
            fingerprint=sent.fingerprint,
            sanctioned_at=now,
            window=window,
            played_as=(account,) if anonymous is None else (account, anonymous),
        )
        until = None if window is None else window.until
        try:
            self.sanctions.commit_sanction(sanction, player.sanctioned_by(sent.sanction_id, until))
        except AlreadyStored:
            # Made meanwhile (a concurrent copy of this request, or another): read again.
            raise WriteConflict(sent.sanction_id) from None
        return sanction, Submitted(sanction_answer(sanction, SanctionView(sanction)), created=True)

    def _repeated(self, sanction: Sanction, sent: SanctionInput) -> tuple[Sanction, Submitted]:
        if sanction.fingerprint != sent.fingerprint:
            raise SanctionConflict(
                f"sanction_id {sent.sanction_id!r} was already used with other content in "
                f"ladder {sanction.ladder!r}; send the same content to read it, or use a new "
                "sanction_id"
            )
        # The answer's first page of decisions; GET reads on with its next_cursor.
        view = self.sanctions.read_sanction(
            sanction.ladder, sanction.sanction_id, None, DEFAULT_SANCTION_LIMIT
        )
        current = view.sanction or sanction
        return current, Submitted(sanction_answer(current, view), created=False)
