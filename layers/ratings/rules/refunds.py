"""Refunds after a sanction: which games a sanction looks at, and what the sanctioned player's
opponent gets back for one of them. Standard library only; docs/rules.md ("Sanctions and
refunds") explains the same rules to players, with a worked example.

The rule: an opponent who lost points in a ranked game against the sanctioned player, played
in the sanction's window, gets exactly those points back, added to their current rating.
Nothing is recomputed: not the game, not the games played since. The exceptions withhold
the whole refund of a game; they never shrink it.
"""

from datetime import datetime, timedelta
from typing import NamedTuple

from ratings.rules.submission import MAX_FUTURE

#: The reasons a loss to a sanctioned player is not refunded, in the order they are checked.
#: The game's record is no longer stored (the work reached it after the retention period):
#: what the victim lost is no longer known.
GAME_GONE = "game_gone"
#: The victim's state is gone (erased): there is nobody to pay.
VICTIM_GONE = "victim_gone"
#: The victim is under a sanction in the ladder too: points lost between two sanctioned
#: players (a boosting pair, two cheaters) stay lost.
VICTIM_SANCTIONED = "victim_sanctioned"
#: The victim's rating is still provisional (classic's first 30 ranked games): it moves with
#: the fast K of a new player and finds its level again by itself, as lichess reasons too.
PROVISIONAL = "provisional"
WITHHELD_REASONS = (GAME_GONE, VICTIM_GONE, VICTIM_SANCTIONED, PROVISIONAL)


class Victim(NamedTuple):
    """The sanctioned player's opponent in one game, when the refund of it is decided."""

    #: Their rating change in that game (negative: they lost points).
    delta: int
    #: Whether their state is still stored.
    stored: bool = True
    #: Whether they are sanctioned in the ladder now.
    sanctioned: bool = False
    #: Whether their ruleset calls their rating provisional now.
    provisional: bool = False


class Refund(NamedTuple):
    """The decision for one game: `points` paid back, or 0 and the reason it is withheld."""

    points: int
    withheld: str | None = None


def refund_for(victim: Victim) -> Refund | None:
    """The refund of one game; None when the victim lost nothing in it (a win, or a draw
    that gained them points): there is nothing to refund and nothing to record."""
    if victim.delta >= 0:
        return None
    if not victim.stored:
        return Refund(0, VICTIM_GONE)
    if victim.sanctioned:
        return Refund(0, VICTIM_SANCTIONED)
    if victim.provisional:
        return Refund(0, PROVISIONAL)
    return Refund(-victim.delta)


class Window(NamedTuple):
    """The played_at range of the games a sanction refunds, both ends included."""

    since: datetime
    until: datetime

    def __contains__(self, played_at: object) -> bool:
        return isinstance(played_at, datetime) and self.since <= played_at <= self.until


def refund_window(
    sanctioned_at: datetime, refund_days: int, previous_until: datetime | None = None
) -> Window | None:
    """The games a sanction made at `sanctioned_at` refunds: those played in the
    `refund_days` before it, up to the latest played_at a game rated before it could carry
    (a submission may be stamped up to MAX_FUTURE ahead). None when it refunds nothing
    (`refund_days` 0, or nothing left after an earlier sanction's window).

    `previous_until` is the end of the player's previous sanction's window in the ladder:
    a later window starts after it, so no game is refunded twice however often the player
    is sanctioned and lifted.
    """
    if refund_days <= 0:
        return None
    since = sanctioned_at - timedelta(days=refund_days)
    until = sanctioned_at + MAX_FUTURE
    if previous_until is not None and previous_until >= since:
        since = previous_until + timedelta(milliseconds=1)  # stored times are to the ms
    if since > until:
        return None
    return Window(since, until)
