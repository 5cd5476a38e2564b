"""The storage the use cases need, as one small abstract interface.

Everything a use case writes for one request goes through a single `commit_*` call that is
atomic: all of it lands or none of it does. Player states carry a version; a commit whose
expected versions no longer hold raises `WriteConflict` and changes nothing, so the caller
re-reads and tries again. The DynamoDB adapter and the in-memory fake both implement this.

The records are NamedTuples rather than frozen dataclasses: as immutable and comparable, but
nothing is generated for them while a Lambda cold-starts (docs/performance.md).
"""

from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime
from types import MappingProxyType
from typing import Any, NamedTuple

from ratings.rules.standings import RatingHistogram

JsonObject = dict[str, Any]


class WriteConflict(Exception):
    """A version condition failed or a concurrent transaction got there first: re-read, retry."""


class TransientStorageError(Exception):
    """The store throttled or failed in a way that retrying later can cure."""


class AlreadyStored(Exception):
    """The record a commit creates (game, tournament, identity link) exists already."""


class PlayerRecord(NamedTuple):
    """A player's stored state in one ladder. `version` 0 means never stored."""

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


class StateWrite(NamedTuple):
    """New values for a player's state, valid only while its version is `expected_version`."""

    ladder: str
    player_id: str
    expected_version: int
    rating: int
    ranked_games: int
    absorbed_id: str | None = None
    listed: bool = True

    def record(self) -> PlayerRecord:
        """The state this write leaves once committed: its version is one past the expected."""
        return PlayerRecord(
            ladder=self.ladder,
            player_id=self.player_id,
            rating=self.rating,
            ranked_games=self.ranked_games,
            version=self.expected_version + 1,
            absorbed_id=self.absorbed_id,
            listed=self.listed,
        )


class PlayerEvent(NamedTuple):
    """One line of a player's history: a game (ranked or not) or a podium bonus.

    Ranked games are what the recent-games window counts, by `at` (the game's played_at).
    `expires_at` is when the store may drop the record; reads never rely on it.
    """

    ladder: str
    player_id: str
    at: datetime
    kind: str  # "game" | "podium_bonus"
    ref_id: str  # game id or tournament id
    ranked: bool
    body: JsonObject
    expires_at: datetime


class StoredGame(NamedTuple):
    """A rated (or recorded) game: the full result and a fingerprint of what was submitted."""

    ladder: str
    game_id: str
    fingerprint: str
    result: JsonObject
    expires_at: datetime


class StoredTournament(NamedTuple):
    ladder: str
    tournament_id: str
    fingerprint: str
    result: JsonObject


class PodiumReads(NamedTuple):
    """What awarding a podium needs to read first, fetched together."""

    tournament: "StoredTournament | None"
    #: player id -> account id, for the ids that are linked anonymous ids.
    links: Mapping[str, str]
    #: player id -> state, for the ids asked for (missing: never stored).
    states: Mapping[str, PlayerRecord]


class GameReads(NamedTuple):
    """What rating a game needs to read first, fetched together."""

    game: StoredGame | None
    #: player id -> account id, for the ids that are linked anonymous ids.
    links: Mapping[str, str]
    #: player id -> state, for the ids asked for (missing: never stored).
    states: Mapping[str, PlayerRecord]


class LeaderboardRow(NamedTuple):
    player_id: str
    rating: int
    ranked_games: int


class Standings(NamedTuple):
    """A ladder's rating histogram, as the last refresh counted it at `refreshed_at`."""

    ladder: str
    histogram: RatingHistogram
    refreshed_at: datetime


class HistoryPage(NamedTuple):
    events: Sequence[PlayerEvent]
    #: Whether the store may hold events after the last of `events`.
    more: bool = False


#: Where a history page stopped: the (at, kind, ref_id) of the last event read.
EventPosition = tuple[datetime, str, str]


class Link(NamedTuple):
    anonymous_id: str
    account_id: str


class LinkReads(NamedTuple):
    """Existing links of both ids: what the anonymous id is linked to, what the account absorbed."""

    anonymous_linked_to: str | None
    account_absorbed: str | None
    #: The account id is itself an anonymous id linked to this account.
    account_linked_to: str | None
    #: The anonymous id is itself an account that absorbed this anonymous id.
    anonymous_absorbed: str | None
    states: Mapping[tuple[str, str], PlayerRecord] = MappingProxyType({})


class Storage(ABC):
    """The store behind the rating service."""

    # Reads -------------------------------------------------------------------------------

    @abstractmethod
    def read_for_game(
        self, ladder: str, game_id: str | None, player_ids: Sequence[str]
    ) -> GameReads:
        """The game record (when `game_id` is given), the links and the states of
        `player_ids`, in one round trip."""

    @abstractmethod
    def read_states(self, ladder: str, player_ids: Sequence[str]) -> Mapping[str, PlayerRecord]:
        """The stored states of `player_ids` (missing: never stored), strongly consistent."""

    @abstractmethod
    def count_ranked_games(
        self, ladder: str, player_id: str, since: datetime, until: datetime, limit: int
    ) -> int:
        """Ranked games of the player with `since <= at < until`, counting at most `limit`."""

    @abstractmethod
    def get_game(self, ladder: str, game_id: str) -> StoredGame | None: ...

    @abstractmethod
    def read_for_podium(
        self, ladder: str, tournament_id: str, player_ids: Sequence[str]
    ) -> PodiumReads:
        """The tournament record, the links and the states of `player_ids`, in one round
        trip."""

    @abstractmethod
    def get_tournament(self, ladder: str, tournament_id: str) -> StoredTournament | None: ...

    @abstractmethod
    def resolve(self, player_id: str) -> str:
        """The account a linked anonymous id resolves to, or the id itself."""

    @abstractmethod
    def read_for_link(
        self, anonymous_id: str, account_id: str, ladders: Sequence[str]
    ) -> LinkReads:
        """Existing links of both ids and both ids' states in each of `ladders`."""

    @abstractmethod
    def history(
        self, ladder: str, player_id: str, limit: int, after: EventPosition | None
    ) -> HistoryPage:
        """At most `limit` of the player's events, newest first, from just after the event
        at `after` (not included), expired or not."""

    @abstractmethod
    def leaderboard(
        self, ladder: str, limit: int, after: tuple[int, str] | None
    ) -> Sequence[LeaderboardRow]:
        """Players with at least one ranked game by rating descending, then id ascending,
        starting after the (rating, player_id) position `after`."""

    @abstractmethod
    def leaderboard_before(
        self, ladder: str, limit: int, before: tuple[int, str]
    ) -> Sequence[LeaderboardRow]:
        """The `limit` players just ahead of the (rating, player_id) position `before`, in
        leaderboard order (the nearest last)."""

    @abstractmethod
    def count_ahead(self, ladder: str, rating: int, player_id: str, limit: int) -> int | None:
        """Players ahead of (rating, player_id) in leaderboard order, other than `player_id`
        itself; None when there are `limit` or more, or when it is not known within a bounded
        read: more than 2 * limit + 2 entries rate `rating` or more (an entry of the player's
        own included)."""

    @abstractmethod
    def leaderboard_entries(self, ladder: str) -> Iterator[tuple[str, int]]:
        """(player_id, rating) of every leaderboard player, in no particular order. Read while
        ratings change, a player may come twice (at two ratings) or not at all."""

    @abstractmethod
    def read_standings(self, ladder: str) -> Standings | None:
        """The ladder's last stored histogram, if any."""

    @abstractmethod
    def put_standings(self, standings: Standings) -> bool:
        """Store the histogram unless one refreshed later is stored; True when stored."""

    @abstractmethod
    def stored_games(self, ladder: str) -> Iterator[StoredGame]:
        """Every game record of the ladder still stored, in no particular order (exports)."""

    # Atomic writes -----------------------------------------------------------------------

    @abstractmethod
    def commit_game(
        self,
        game: StoredGame,
        states: Sequence[StateWrite],
        events: Sequence[PlayerEvent],
        *,
        now: datetime | None = None,
    ) -> None:
        """Store the game, the new states and the events together, or nothing.

        Raises AlreadyStored when the game id is stored already, WriteConflict when a state's
        version moved, TransientStorageError when the store asks to slow down. With `now`, a
        stored game whose `expires_at` is at or before it counts as absent and is replaced:
        expired records are deleted late (DynamoDB's TTL takes up to days), and what a caller
        is answered must not depend on when.
        """

    @abstractmethod
    def commit_tournament(
        self,
        tournament: StoredTournament,
        states: Sequence[StateWrite],
        events: Sequence[PlayerEvent],
    ) -> None:
        """Like commit_game, for a tournament's podium awards."""

    @abstractmethod
    def commit_link(self, link: Link, states: Sequence[StateWrite]) -> None:
        """Record the link both ways and the states it moves, or nothing.

        Raises AlreadyStored when either side is linked already, WriteConflict as above.
        """
