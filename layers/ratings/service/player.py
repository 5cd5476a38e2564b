"""A player's state in one ladder: the one shape of it through the service.

A use case reads `Player` values from the writes port, asks them what a game, a podium or a
link makes of them (each method returns the state to store, one version on), and commits
those. The rules see a player as `PlayerState` (`before_game`), the table as its item; between
the two, nothing else describes a player.
"""

from collections.abc import Mapping
from datetime import datetime
from typing import NamedTuple

from ratings.rules import PlayerState


class Player(NamedTuple):
    """A player's state in one ladder. `version` counts the commits that wrote it: 0 is a
    player never stored (at the ladder's starting rating).

    The state a method returns is one version on, and a commit stores it only over the stored
    version it came from (`version - 1`; none stored for 1): if another writer got there
    first, the commit fails with WriteConflict and changes nothing.
    """

    ladder: str
    player_id: str
    rating: int
    ranked_games: int = 0
    version: int = 0
    #: An anonymous id whose state this player took over when linking; its recent ranked
    #: games keep counting in this player's window.
    absorbed_id: str | None = None
    #: False for an anonymous id linked to an account: it resolves to the account, so only
    #: the account may appear on the leaderboard.
    listed: bool = True
    #: The sanction the player is under in this ladder, if any: off the leaderboard, and no
    #: game with them rates.
    sanction_id: str | None = None
    #: The end of the refund window of the player's last sanction in this ladder (kept after
    #: it is lifted): a later sanction refunds only games played after it.
    refunded_until: datetime | None = None
    #: The player is being erased (`usecases.erase_player`): no game, podium or link may
    #: change this state, and it is on no leaderboard, until the erasure deletes it.
    erasing: bool = False
    #: The UTC day (YYYY-MM-DD, of receipt) of the player's last game, and how many games
    #: were rated that day, ranked or not: the daily game limit (`ratings.service.context`).
    games_day: str | None = None
    games_that_day: int = 0

    @property
    def stored(self) -> bool:
        return self.version > 0

    @property
    def sanctioned(self) -> bool:
        return self.sanction_id is not None

    @property
    def on_the_board(self) -> bool:
        """Whether the leaderboard lists the player: a ranked game, and neither a linked id,
        nor under a sanction, nor being erased."""
        return (
            self.ranked_games > 0 and self.listed and self.sanction_id is None and not self.erasing
        )

    @property
    def replaces_version(self) -> int:
        """The stored version a commit of this state is conditioned on (0: none stored)."""
        return self.version - 1

    def before_game(self, recent_ranked_games: int) -> PlayerState:
        """The player as the rules see them before a game."""
        return PlayerState(self.player_id, self.rating, self.ranked_games, recent_ranked_games)

    def supposing(self, overrides: Mapping[str, int]) -> "Player":
        """The player as a preview supposes them: its `rating` and `ranked_games` overridden
        where `overrides` has them (nothing is stored, so the version stays)."""
        return self._replace(
            rating=overrides.get("rating", self.rating),
            ranked_games=overrides.get("ranked_games", self.ranked_games),
        )

    def games_on(self, day: str) -> int:
        """Games of the player rated on the UTC `day` (YYYY-MM-DD)."""
        return self.games_that_day if self.games_day == day else 0

    def counting(self, day: str) -> "Player":
        """This state with one more game counted on the UTC `day`; the version unchanged (it
        goes with `rated` or `played`, which move it on)."""
        return self._replace(games_day=day, games_that_day=self.games_on(day) + 1)

    def played(self) -> "Player":
        """The state after an unranked game: its rating unchanged, one version on (stored, so
        the game counts towards the daily limit)."""
        return self._replace(version=self.version + 1)

    def rated(self, rating_after: int) -> "Player":
        """The state after a ranked game that left the player at `rating_after`."""
        return self._replace(
            version=self.version + 1, rating=rating_after, ranked_games=self.ranked_games + 1
        )

    def awarded(self, bonus: int) -> "Player":
        """The state after a podium bonus."""
        return self._replace(version=self.version + 1, rating=self.rating + bonus)

    def refunded(self, points: int) -> "Player":
        """The state after a refund of `points` lost to a sanctioned player: added to the
        current rating, nothing else moves."""
        return self._replace(version=self.version + 1, rating=self.rating + points)

    def sanctioned_by(self, sanction_id: str, window_until: datetime | None) -> "Player":
        """The state once under the sanction `sanction_id`, whose refund window ends at
        `window_until` (None: it refunds nothing, and an earlier window still counts)."""
        until = self.refunded_until
        if window_until is not None and (until is None or window_until > until):
            until = window_until
        return self._replace(
            version=self.version + 1, sanction_id=sanction_id, refunded_until=until
        )

    def lifted(self) -> "Player":
        """The state once its sanction is lifted: back on the board (the rating as it was)."""
        return self._replace(version=self.version + 1, sanction_id=None)

    def unlisted(self) -> "Player":
        """This anonymous id's state once linked to an account: unchanged, but off the board.

        Written even so, conditioned on the version read: a game of the anonymous id
        committed meanwhile (or one in flight, which then conflicts and re-reads the link)
        can never be lost to the account."""
        return self._replace(version=self.version + 1, listed=False)

    def marked_erasing(self) -> "Player":
        """This state (or the starting state of a player never stored) marked as being
        erased: stored over the version read, so a write that read before the mark cannot
        commit after it."""
        return self._replace(version=self.version + 1, erasing=True)

    def absorbing(self, anonymous: "Player") -> "Player":
        """This account's state once it takes over `anonymous`'s rating and ranked games (and
        its sanction, unless the account is under one: see `linked_with`)."""
        return self._replace(
            version=self.version + 1,
            rating=anonymous.rating,
            ranked_games=anonymous.ranked_games,
            absorbed_id=anonymous.player_id,
            listed=True,
            sanction_id=self.sanction_id or anonymous.sanction_id,
            refunded_until=_latest(self.refunded_until, anonymous.refunded_until),
        )

    def linked_with(self, anonymous: "Player") -> "Player | None":
        """This account's state once `anonymous` is linked to it without being absorbed: the
        same, but under the anonymous id's sanction when it has one and the account none (a
        sanction follows the person, who now plays as the account); None when nothing moves."""
        if anonymous.sanction_id is None or self.sanction_id is not None:
            return None
        return self.sanctioned_by(anonymous.sanction_id, anonymous.refunded_until)


def _latest(first: datetime | None, second: datetime | None) -> datetime | None:
    if first is None or second is None:
        return first or second
    return max(first, second)
