"""A player's state in one ladder: the one shape of it through the service.

A use case reads `Player` values through its unit of work, asks them what a game, a podium or a
link makes of them (each method returns the state to store, one version on), and commits
those. The rules see a player as `PlayerState` (`before_game`), the table as its item; between
the two, nothing else describes a player.
"""

from bisect import bisect_left
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, NamedTuple

from ratings.rules import InvalidInput, PlayerState, Ruleset
from ratings.rules.seasons import ALL_TIME
from ratings.rules.submission import MAX_AGE, MAX_FUTURE
from ratings.service.errors import PlayerErasing

if TYPE_CHECKING:
    from ratings.service.stored import PlayerEvent

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MS = timedelta(milliseconds=1)
#: Room for the clocks of two Lambdas to disagree, wherever a bound rests on "now".
CLOCK_MARGIN = timedelta(hours=1)


def millis(at: datetime) -> int:
    """`at` in milliseconds since the epoch, truncated like the table's timestamps
    (`ratings.timestamps.format_utc_millis`)."""
    return (at - _EPOCH) // _MS


class RecentGames(NamedTuple):
    """The played_at times of some of a player's ranked games (milliseconds since the epoch,
    oldest first), from which the recent-games window is counted without a read.

    Two promises, kept by every state that carries them:

    - each time is a distinct ranked game of the player (or of the anonymous id they
      absorbed): a count of `times` never exceeds the true count;
    - every such game played at or after `floor` is among `times` (None: every one ever).

    So the count of a window [since, until) is exact when `since >= floor`, and known to be
    at least the cap when `times` alone reach it. Otherwise it is not known here.
    """

    times: tuple[int, ...] = ()
    floor: int | None = None

    def in_window(self, since: datetime, until: datetime, cap: int) -> int | None:
        """Ranked games with `since <= played_at < until` (to the millisecond), up to `cap`;
        None when the times kept cannot tell."""
        start, end = millis(since), millis(until)
        counted = max(0, bisect_left(self.times, end) - bisect_left(self.times, start))
        if counted >= cap:
            return cap
        if self.floor is None or start >= self.floor:
            return counted
        return None

    def adding(self, at: datetime, keep: int, horizon: datetime) -> "RecentGames":
        """These times with a ranked game played at `at`, then at most the `keep` newest of
        those at or after `horizon` (older ones can no longer fall in a window)."""
        times = sorted((*self.times, millis(at)))
        return RecentGames(tuple(times), self.floor).trimmed(keep, millis(horizon))

    def merged(self, other: "RecentGames") -> "RecentGames":
        """The times of two ids' games together (an account and the id it absorbs), as many
        as the longer of the two kept; complete from the later floor on."""
        floors = [floor for floor in (self.floor, other.floor) if floor is not None]
        merged = RecentGames(tuple(sorted(self.times + other.times)), max(floors, default=None))
        return merged.trimmed(max(len(self.times), len(other.times)), None)

    def trimmed(self, keep: int, horizon: int | None) -> "RecentGames":
        """At most `keep` of the newest times, none before `horizon`; the floor raised past
        every time dropped, so what is kept stays complete from it on."""
        times = self.times
        start = 0 if horizon is None else bisect_left(times, horizon)
        start = max(start, len(times) - keep)
        if start <= 0:
            return self
        dropped = times[start - 1] + 1
        floor = dropped if self.floor is None else max(self.floor, dropped)
        return RecentGames(times[start:], floor)


#: Kept by a player never stored: no ranked games anywhere, so every window is known.
NO_GAMES = RecentGames()


def kept_for(cap: int) -> int:
    """How many times a state keeps for a K rule that counts up to `cap` games: `cap`, and a
    quarter more, so that a game arriving after a few later ones of the player (a queue
    delivers out of order) still finds `cap` kept games before it (62 for gammon42's 50)."""
    return cap + cap // 4


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
    #: were rated that day, ranked or not: the daily game limit (`ratings.service.facade`).
    games_day: str | None = None
    games_that_day: int = 0
    #: The played_at times of the player's latest ranked games, so that a ruleset with a
    #: recent-games window counts it without a read (`RecentGames`, `recent_ranked_games`).
    #: None: not kept (a state stored before they were, or in a ladder whose ruleset has no
    #: window): the window is then read from the history.
    recent: RecentGames | None = NO_GAMES
    #: The season of the ladder this state is in (`ratings.service.seasons`): a state is
    #: brought into a later season, reset and its standing frozen, when it is next read for a
    #: change (`SeasonEntry`), and its index entry is on that season's leaderboard.
    season_id: str = ALL_TIME
    #: When that season started (None: all-time, which has no start).
    season_start: datetime | None = None
    #: Ranked games within the season (its leaderboard's `min_games` counts these); None:
    #: every ranked game of the player is in it (a state that never changed season).
    season_games: int | None = None
    #: Configuration, not stored: the ranked games within the season the ladder's leaderboard
    #: asks of a player (`SeasonPlan.min_games`), set when the state is read.
    min_games: int = 1
    #: What bringing the state into its season left to store with its next write: the
    #: standing frozen in the season it left, and the history line of its reset. None when the
    #: state was read in its season. Not stored on the state itself.
    entered: "SeasonEntry | None" = None
    #: How many changes of the player's rating in this ladder the events reported: one more
    #: with each ranked game, podium bonus and refund (an event's `sequences`, docs/api.md,
    #: "Events"). 0 for a state stored before it was kept.
    sequence: int = 0

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
        return self.stood and self.sanction_id is None

    @property
    def board(self) -> str:
        """The id of the leaderboard the state is on (or would be): its season's."""
        return board_id(self.ladder, self.season_id)

    @property
    def games_in_season(self) -> int:
        """Ranked games within the player's season."""
        return self.ranked_games if self.season_games is None else self.season_games

    @property
    def stood(self) -> bool:
        """Whether the player qualifies for the season's leaderboard, a sanction aside: enough
        ranked games in the season, and neither a linked id nor being erased."""
        return (
            self.ranked_games > 0
            and self.games_in_season >= self.min_games
            and self.listed
            and not self.erasing
        )

    @property
    def replaces_version(self) -> int:
        """The stored version a commit of this state is conditioned on (0: none stored)."""
        return self.version - 1

    def recent_ranked_games(self, since: datetime, until: datetime, cap: int) -> int | None:
        """The player's ranked games with `since <= played_at < until` (the absorbed id's
        included), up to `cap`, when the state knows them; None when only the history can
        tell (the caller then counts it there)."""
        recent = self._recent_known()
        return None if recent is None else recent.in_window(since, until, cap)

    def _recent_known(self) -> RecentGames | None:
        # A state that keeps no times but has never had a ranked game (nor absorbed an id
        # that had) knows its window all the same: empty.
        if self.recent is None and self.ranked_games == 0 and self.absorbed_id is None:
            return NO_GAMES
        return self.recent

    def with_recent_game(self, played_at: datetime, now: datetime, ruleset: Ruleset) -> "Player":
        """This state with a ranked game played at `played_at` among its recent ones, as far
        as `ruleset`'s window can use them: the newest of those that a game accepted from `now`
        on can still count, `recent_games_needed` and a quarter more (`kept_for`). The version
        unchanged (it goes with `rated`). A ruleset without a window keeps none.

        A state that kept none starts with this game, complete from a floor later than any
        played_at accepted until `now`: its windows are read from the history until they
        start after it, a week on."""
        cap = ruleset.recent_games_needed
        if cap is None:
            return self._replace(recent=None)
        recent = self._recent_known()
        if recent is None:
            recent = RecentGames(floor=millis(now + MAX_FUTURE + CLOCK_MARGIN))
        window = timedelta(days=ruleset.recent_window_days)
        horizon = now - MAX_AGE - window - CLOCK_MARGIN
        return self._replace(recent=recent.adding(played_at, kept_for(cap), horizon))

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
            version=self.version + 1,
            sequence=self.sequence + 1,
            rating=rating_after,
            ranked_games=self.ranked_games + 1,
            season_games=None if self.season_games is None else self.season_games + 1,
        )

    def awarded(self, bonus: int) -> "Player":
        """The state after a podium bonus."""
        return self._replace(
            version=self.version + 1, sequence=self.sequence + 1, rating=self.rating + bonus
        )

    def refunded(self, points: int) -> "Player":
        """The state after a refund of `points` lost to a sanctioned player: added to the
        current rating, nothing else moves."""
        return self._replace(
            version=self.version + 1, sequence=self.sequence + 1, rating=self.rating + points
        )

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
            season_games=anonymous.season_games,
            absorbed_id=anonymous.player_id,
            recent=_merged(self._recent_known(), anonymous._recent_known()),
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


#: Between a ladder's id and a season's in the id of that season's leaderboard.
BOARD_SEPARATOR = "@"


def board_id(ladder: str, season_id: str) -> str:
    """The id of a season's leaderboard, as the leaderboard and rank views take it: the
    ladder's own for all-time (so a ladder without seasons keeps the keys it always had),
    `{ladder}@{season}` for any other."""
    return ladder if season_id == ALL_TIME else f"{ladder}{BOARD_SEPARATOR}{season_id}"


def board_season(board: str) -> tuple[str, str]:
    """The (ladder, season id) of a leaderboard's id."""
    ladder, _, season_id = board.partition(BOARD_SEPARATOR)
    return ladder, season_id or ALL_TIME


class FrozenStanding(NamedTuple):
    """A player's final standing in a season they left: kept for good, and listed on that
    season's leaderboard unless `hidden` (the player was under a sanction)."""

    ladder: str
    player_id: str
    season_id: str
    season_start: datetime | None
    rating: int
    ranked_games: int
    hidden: bool = False


class SeasonEntry(NamedTuple):
    """What bringing a state into a later season leaves to store with it."""

    frozen: FrozenStanding | None
    #: The history line of the reset (None when it changed nothing).
    reset_event: "PlayerEvent | None"


def _merged(first: RecentGames | None, second: RecentGames | None) -> RecentGames | None:
    if first is None or second is None:
        return None
    return first.merged(second)


def _latest(first: datetime | None, second: datetime | None) -> datetime | None:
    if first is None or second is None:
        return first or second
    return max(first, second)


def resolve_pair(ids: Sequence[str], links: Mapping[str, str]) -> list[str]:
    """A game's ids as their accounts; they must stay as many people."""
    resolved = [links.get(player_id, player_id) for player_id in ids]
    first: dict[str, int] = {}
    for index, account in enumerate(resolved):
        if account in first:
            raise InvalidInput(
                f"players[{index}].id",
                f"players[{index}].id and players[{first[account]}].id belong to the same "
                "account after linking",
            )
        first[account] = index
    return resolved


def refuse_erasing(players: Sequence[Player]) -> None:
    """PlayerErasing when one of `players` is being erased (a write must wait for it)."""
    if any(player.erasing for player in players):
        raise PlayerErasing
