"""The unit of work: what a use case that changes ratings reads, the one commit it ends in,
and the retry of an attempt that met a concurrent write.

A use case makes its attempts on one unit of work (`UnitOfWork.attempts`):

    attempts = uow.attempts("game")
    while True:
        with attempts:
            reads = uow.read_for_game(...)      # the versions read are remembered
            ...                                 # the rules, on plain values
            uow.commit_game(...)                # over those versions, all or nothing
            return answer

A commit stores each player's state only over the version this attempt read (`Player`
carries it: `replaces_version`); if another writer got there first it raises WriteConflict
and changes nothing. Inside `with attempts:` a WriteConflict or a TransientStorageError
(throttling) ends the attempt: the unit waits (full jitter, `RetryPolicy`) and the loop goes
round to read again, so a result is always computed from the state it replaces. When the
attempts or the time budget run out, RetryLater.

The unit also checks what a use case hands it: inside an attempt, a state may be written only
over the version this attempt read of it (a state kept from an earlier attempt would lose the
update made in between); a use case that breaks this is a bug, not a conflict.

The in-memory fake (`ratings.storage.memory`) and the DynamoDB unit
(`ratings.storage.dynamodb.unit_of_work`) implement it, held to it by the same contract tests.
"""

from __future__ import annotations

import random
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime, timedelta
from types import TracebackType
from typing import TYPE_CHECKING, NamedTuple, TypeVar

from ratings.rules import Ladder, Ruleset
from ratings.rules.seasons import Season, season_at
from ratings.service.errors import RetryLater, TransientStorageError, WriteConflict
from ratings.service.player import Player
from ratings.service.seasons import effective_season
from ratings.service.stored import (
    GameReads,
    Link,
    LinkReads,
    PlayerEvent,
    PodiumReads,
    Standings,
    StoredGame,
    StoredTournament,
)

if TYPE_CHECKING:
    from ratings.service.seasons import Seasons

#: The reads of a game's or a podium's players.
_Reads = TypeVar("_Reads", GameReads, PodiumReads)
#: A player's key in the versions an attempt remembers: (ladder, player id).
Key = tuple[str, str]


class RetryPolicy(NamedTuple):
    """Retries of an attempt that met a concurrent write, with full jitter: after attempt n it
    sleeps uniform(0, min(cap, base * 2**n)). It gives up after `attempts`, or before a sleep
    that would end past `budget_seconds` from the first attempt, whichever comes first.

    Contention is transient: a writer that keeps retrying gets through once the others are
    done, so the time budget, not a count, is what bounds it (a hot player's twelve concurrent
    writers outlast eight attempts). The budget is a share of the function's timeout
    (`ratings.budgets`); the cap keeps late attempts frequent enough to win a turn.
    """

    attempts: int = 64
    base_seconds: float = 0.01
    cap_seconds: float = 0.4
    budget_seconds: float = 4.0

    def delay(self, attempt: int, rng: random.Random) -> float:
        return rng.uniform(0, min(self.cap_seconds, self.base_seconds * 2**attempt))


class Retrier:
    """Makes the attempts of every use case of one service under one policy, and counts the
    attempts redone (for metrics and reports). Sleep, timer and randomness are injectable."""

    def __init__(
        self,
        policy: RetryPolicy | None = None,
        *,
        sleep: Callable[[float], None] = time.sleep,
        timer: Callable[[], float] = time.monotonic,
        rng: random.Random | None = None,
        on_retry: Callable[[str], None] | None = None,
    ) -> None:
        self.policy = policy or RetryPolicy()
        self.sleep = sleep
        self.timer = timer
        self.rng = rng or random.Random()
        self.on_retry = on_retry
        #: Attempts redone since this retrier was made.
        self.retries = 0

    def attempts(self, what: str, uow: UnitOfWork | None = None) -> Attempts:
        """The attempts at `what` (named in RetryLater's message and in `on_retry`); with
        `uow`, each attempt begins afresh on it."""
        return Attempts(self, what, uow)


class Attempts:
    """One `with` block is one attempt. A WriteConflict or TransientStorageError raised in it
    is swallowed after a wait, so the loop around it makes the next attempt; once the
    attempts or the time budget are spent, RetryLater is raised instead. Anything else, and
    the block's own return, pass through."""

    def __init__(self, retrier: Retrier, what: str, uow: UnitOfWork | None) -> None:
        self._retrier = retrier
        self._what = what
        self._uow = uow
        self._started = retrier.timer()
        self._made = 0

    def __enter__(self) -> None:
        if self._uow is not None:
            self._uow.begin()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> bool:
        if self._uow is not None:
            self._uow.end()
        if not isinstance(error, WriteConflict | TransientStorageError):
            return False
        retrier = self._retrier
        policy = retrier.policy
        retrier.retries += 1
        if retrier.on_retry is not None:
            retrier.on_retry(self._what)
        delay = policy.delay(self._made, retrier.rng)
        self._made += 1
        out_of_time = retrier.timer() - self._started + delay > policy.budget_seconds
        if self._made == policy.attempts or out_of_time:
            raise RetryLater(
                f"the {self._what} could not be stored after {self._made} attempts "
                "because of concurrent updates or throttling; retry later"
            ) from None
        retrier.sleep(delay)
        return True


class UnitOfWork(ABC):
    """The reads a commit is conditioned on (strongly consistent players' states, links,
    recent-games windows), remembered per attempt, and the commits. Previews and the player
    read use the same reads, since they show what a write would see."""

    #: Makes this unit's attempts (each adapter sets it when made).
    retrier: Retrier
    #: The versions this attempt read, while one is open (None: outside any attempt, as
    #: tools and tests seeding a store write).
    _seen: dict[Key, int] | None = None
    #: Brings every state read into its ladder's current season (`ratings.service.seasons`);
    #: None: states are handed out as stored (tools and tests that seed a store).
    seasons: Seasons | None = None

    def attempts(self, what: str) -> Attempts:
        """The attempts of one use case on this unit (see the module's docstring)."""
        return self.retrier.attempts(what, self)

    def begin(self) -> None:
        """An attempt opens: nothing read yet."""
        self._seen = {}

    def end(self) -> None:
        self._seen = None

    # The reads, each remembering the versions it read (0: none stored).

    def read_for_game(
        self, ladder: str, game_id: str | None, player_ids: Sequence[str]
    ) -> GameReads:
        """The game's result (when `game_id` is given), the links and the states of
        `player_ids`, in one round trip."""
        reads = self._read_for_game(ladder, game_id, player_ids, self._starts_stale(ladder))
        return self._remembered(ladder, player_ids, reads)

    def read_for_podium(
        self, ladder: str, tournament_id: str, player_ids: Sequence[str]
    ) -> PodiumReads:
        """As `read_for_game`, with the tournament's result in the place of a game's."""
        stale = self._starts_stale(ladder)
        reads = self._read_for_podium(ladder, tournament_id, player_ids, stale)
        return self._remembered(ladder, player_ids, reads)

    def read_for_link(
        self, anonymous_id: str, account_id: str, ladders: Sequence[str]
    ) -> LinkReads:
        """Existing links of both ids, both ids' states in each of `ladders`, and which of
        them has an erasure pending."""
        stale = [ladder for ladder in ladders if self._starts_stale(ladder)]
        reads = self._read_for_link(anonymous_id, account_id, ladders, stale)
        if self.seasons is not None:
            for ladder, starts in reads.season_starts.items():
                self.seasons.learn(ladder, starts)
        states = dict(reads.states)
        for ladder in ladders:
            ids = (anonymous_id, account_id)
            found = {
                pid: reads.states[(ladder, pid)] for pid in ids if (ladder, pid) in reads.states
            }
            self._remember(ladder, ids, found)
            for pid, player in self.in_season(ladder, found).items():
                states[(ladder, pid)] = player
        return reads._replace(states=states)

    def read_states(self, ladder: str, player_ids: Sequence[str]) -> Mapping[str, Player]:
        """The stored states of `player_ids` (missing: never stored), strongly consistent."""
        states = self._read_states(ladder, player_ids)
        self._remember(ladder, player_ids, states)
        return self.in_season(ladder, states)

    def new_player(self, ladder: Ladder, player_id: str) -> Player:
        """The state of a player never stored: the starting rating, in the current season."""
        if self.seasons is None:
            return Player(ladder.ladder_id, player_id, ladder.starting_rating)
        season = self.seasons.current(ladder)
        return self.seasons.new_player(ladder, player_id, season)

    def season_of(self, ladder: Ladder, players: Sequence[Player], at: datetime) -> Season:
        """The season a write of `players` (read by this unit) at `at` counts in: the ladder's
        then, or a later one a state is already in (another function's clock passed the
        boundary first)."""
        if self.seasons is None:
            return season_at(ladder.season, (), at)
        return effective_season(self.seasons.current(ladder, at), players)

    def _remembered(self, ladder: str, player_ids: Iterable[str], reads: _Reads) -> _Reads:
        self._remember(ladder, player_ids, reads.states)
        if self.seasons is not None and reads.season_starts is not None:
            self.seasons.learn(ladder, reads.season_starts)
        return reads._replace(states=self.in_season(ladder, reads.states))

    def _starts_stale(self, ladder: str) -> bool:
        """Whether the ladder's operator-started seasons are to be read with the states (the
        seasons' copy is out of date): one round trip for both."""
        return self.seasons is not None and self.seasons.stale(ladder)

    def in_season(self, ladder: str, states: Mapping[str, Player]) -> dict[str, Player]:
        """`states` (read elsewhere: the moderation stores) brought into the ladder's current
        season, as this unit's own reads bring theirs."""
        if self.seasons is None:
            return dict(states)
        return self.seasons.bring(ladder, states)

    def _remember(
        self, ladder: str, player_ids: Iterable[str], found: Mapping[str, Player]
    ) -> None:
        if self._seen is not None:
            for player_id in player_ids:
                player = found.get(player_id)
                self._seen[(ladder, player_id)] = 0 if player is None else player.version

    @abstractmethod
    def count_ranked_games(
        self, ladder: str, player_id: str, since: datetime, until: datetime, limit: int
    ) -> int:
        """Ranked games of the player with `since <= at < until`, counting at most `limit`."""

    @abstractmethod
    def resolve(self, player_id: str) -> str:
        """The account a linked anonymous id resolves to, or the id itself."""

    # The commits, each all or nothing, and each checked first: inside an attempt, a state
    # goes only over the version this attempt read of it.

    def commit_game(
        self,
        game: StoredGame,
        players: Sequence[Player],
        events: Sequence[PlayerEvent],
        *,
        now: datetime | None = None,
    ) -> StoredGame | None:
        """Store the game, the players' new states and the events together, or nothing.

        None when stored. When the game id was stored meanwhile, nothing is and the record
        stored under it comes back (the caller answers it as a retry, or as a conflict);
        WriteConflict when a state's version moved (or that record is gone again),
        TransientStorageError when the store asks to slow down. With `now`, a stored game
        whose `expires_at` is at or before it counts as absent, and is replaced: expired
        records are deleted late (DynamoDB's TTL takes up to two days), and what a caller is
        answered must not depend on when.
        """
        self._check_read(players)
        return self._commit_game(game, players, events, now)

    def commit_tournament(
        self,
        tournament: StoredTournament,
        players: Sequence[Player],
        events: Sequence[PlayerEvent],
        unchanged: Sequence[Player] = (),
        podium_ids: Sequence[str] = (),
    ) -> StoredTournament | None:
        """Like commit_game, for a tournament's podium awards, and only while each of
        `unchanged` (states read, not written) is still at its version; with a pointer to the
        tournament for each of `podium_ids` (the players its awards name), kept for good like
        the tournament."""
        self._check_read(players)
        self._check_read(unchanged, written=False)
        return self._commit_tournament(tournament, players, events, unchanged, podium_ids)

    def commit_link(self, link: Link, players: Sequence[Player]) -> None:
        """Record the link both ways and the states it moves, or nothing; only while neither
        id has an erasure pending.

        Raises AlreadyStored when either side is linked already, WriteConflict as above (an
        erasure requested meanwhile included).
        """
        self._check_read(players)
        self._commit_link(link, players)

    def _check_read(self, players: Iterable[Player], *, written: bool = True) -> None:
        """ValueError when a state goes to a commit over a version this attempt did not read
        (`written`: a new state, one version on; else a state only checked)."""
        if self._seen is None:
            return
        for player in players:
            base = player.replaces_version if written else player.version
            read = self._seen.get((player.ladder, player.player_id))
            if read != base:
                raise ValueError(
                    f"the state of {player.player_id!r} in {player.ladder!r} goes over "
                    f"version {base}, but this attempt read {read}"
                )

    @abstractmethod
    def put_standings(self, standings: Standings) -> bool:
        """Store the histogram unless one refreshed later is stored; True when stored."""

    # What each store does: the reads and commits above, as it sends them.

    # With `with_starts`, the reads of a game or podium bring the ladder's operator-started
    # seasons too (`season_starts`).

    @abstractmethod
    def _read_for_game(
        self, ladder: str, game_id: str | None, player_ids: Sequence[str], with_starts: bool
    ) -> GameReads: ...

    @abstractmethod
    def _read_for_podium(
        self, ladder: str, tournament_id: str, player_ids: Sequence[str], with_starts: bool
    ) -> PodiumReads: ...

    @abstractmethod
    def _read_for_link(
        self,
        anonymous_id: str,
        account_id: str,
        ladders: Sequence[str],
        starts_of: Sequence[str],
    ) -> LinkReads:
        """With the operator-started seasons of the ladders `starts_of`."""

    @abstractmethod
    def _read_states(self, ladder: str, player_ids: Sequence[str]) -> Mapping[str, Player]: ...

    @abstractmethod
    def _commit_game(
        self,
        game: StoredGame,
        players: Sequence[Player],
        events: Sequence[PlayerEvent],
        now: datetime | None,
    ) -> StoredGame | None: ...

    @abstractmethod
    def _commit_tournament(
        self,
        tournament: StoredTournament,
        players: Sequence[Player],
        events: Sequence[PlayerEvent],
        unchanged: Sequence[Player],
        podium_ids: Sequence[str],
    ) -> StoredTournament | None: ...

    @abstractmethod
    def _commit_link(self, link: Link, players: Sequence[Player]) -> None: ...


# Reading the players of a use case: resolving linked ids to accounts, their states (or the
# starting state of a player never stored), and the recent-games window the K rule reads.

#: A cap on any window count, for rulesets that never look at it (only shown to callers).
DISPLAY_RECENT_LIMIT = 1000
#: The window shown for rulesets without one of their own.
DISPLAY_WINDOW_DAYS = 7


def players_of(
    uow: UnitOfWork,
    ladder: Ladder,
    resolved: Sequence[str],
    links: Mapping[str, str],
    states: Mapping[str, Player],
) -> list[Player]:
    """The stored (or starting) state of each resolved id. `states` were read with `links`:
    an account reached through a link was not among them, so it is read now."""
    missing = [pid for pid in resolved if pid in links.values() and pid not in states]
    extra = uow.read_states(ladder.ladder_id, missing) if missing else {}
    players = []
    for player_id in resolved:
        player = states.get(player_id) or extra.get(player_id)
        if player is None:
            player = uow.new_player(ladder, player_id)
        players.append(player)
    return players


def recent_ranked_games(
    uow: UnitOfWork, ruleset: Ruleset, player: Player, until: datetime, *, display: bool = False
) -> int:
    """Ranked games of the player in the ruleset's window before `until`, counted as far as
    the K rule needs; with `display`, also for a ruleset that never looks (up to
    DISPLAY_RECENT_LIMIT, over DISPLAY_WINDOW_DAYS). From the state when it knows them
    (`Player.recent_ranked_games`), else on the history."""
    limit = ruleset.recent_games_needed
    if limit is None:
        if not display:
            return 0
        limit = DISPLAY_RECENT_LIMIT
    if not player.stored:
        return 0  # never stored: no games anywhere
    window = timedelta(days=ruleset.recent_window_days or DISPLAY_WINDOW_DAYS)
    since = until - window
    known = player.recent_ranked_games(since, until, limit)
    if known is not None:
        return known  # the state keeps every game the window can count
    # A late game whose window starts before the times the state dropped, or a state that
    # keeps none (stored before they were kept): the window is counted on the history, a
    # Query per id.
    count = uow.count_ranked_games(player.ladder, player.player_id, since, until, limit)
    if player.absorbed_id is not None and count < limit:
        count += uow.count_ranked_games(
            player.ladder, player.absorbed_id, since, until, limit - count
        )
    return min(count, limit)
