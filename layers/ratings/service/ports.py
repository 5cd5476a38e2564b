"""The storage the use cases need: one writes port and four read views, each a small abstract
class that the in-memory fake (`ratings.storage.memory`) and the DynamoDB adapter
(`ratings.storage.dynamodb`) both implement, so each can be understood, faked and measured
on its own. `Storage` is what a service is built over: one of each.

- `Writes`: what a use case that changes ratings reads first (strongly consistent players'
  states, links and recent-games windows: the versions its commit is conditioned on) and
  the one atomic commit it ends in. Previews and the player read use the same reads, since
  they show what a write would see.
- `ResultsView`: stored game and tournament results (reads, retries, exports).
- `HistoryView`: a player's history, page by page.
- `LeaderboardView`: leaderboard pages, from the top, after or before a position.
- `RankView`: how many stand ahead of a position, and the ladder's rating histogram.

Every commit is atomic: all of it lands or none of it does. A commit stores each player's
state only over the version it came from (`Player.replaces_version`); if that no longer holds
it raises `WriteConflict` and changes nothing, so the caller re-reads and tries again.
"""

from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime
from typing import Protocol

from ratings.service import stored
from ratings.service.player import Player
from ratings.service.stored import Events, Players, StoredGame


class Writes(ABC):
    """The writes port: the reads a commit is conditioned on, and the commits."""

    @abstractmethod
    def read_for_game(
        self, ladder: str, game_id: str | None, player_ids: Sequence[str]
    ) -> stored.GameReads:
        """The game's result (when `game_id` is given), the links and the states of
        `player_ids`, in one round trip."""

    @abstractmethod
    def read_for_podium(
        self, ladder: str, tournament_id: str, player_ids: Sequence[str]
    ) -> stored.PodiumReads:
        """The tournament's result, the links and the states of `player_ids`, in one round
        trip."""

    @abstractmethod
    def read_for_link(
        self, anonymous_id: str, account_id: str, ladders: Sequence[str]
    ) -> stored.LinkReads:
        """Existing links of both ids and both ids' states in each of `ladders`."""

    @abstractmethod
    def read_states(self, ladder: str, player_ids: Sequence[str]) -> Mapping[str, Player]:
        """The stored states of `player_ids` (missing: never stored), strongly consistent."""

    @abstractmethod
    def count_ranked_games(
        self, ladder: str, player_id: str, since: datetime, until: datetime, limit: int
    ) -> int:
        """Ranked games of the player with `since <= at < until`, counting at most `limit`."""

    @abstractmethod
    def resolve(self, player_id: str) -> str:
        """The account a linked anonymous id resolves to, or the id itself."""

    @abstractmethod
    def commit_game(
        self, game: StoredGame, players: Players, events: Events, *, now: datetime | None = None
    ) -> None:
        """Store the game, the players' new states and the events together, or nothing.

        Raises AlreadyStored when the game id is stored already, WriteConflict when a state's
        version moved, TransientStorageError when the store asks to slow down. With `now`, a
        stored game whose `expires_at` is at or before it counts as absent and is replaced:
        expired records are deleted late (DynamoDB's TTL takes up to two days), and what a
        caller is answered must not depend on when.
        """

    @abstractmethod
    def commit_tournament(
        self, tournament: stored.StoredTournament, players: stored.Players, events: stored.Events
    ) -> None:
        """Like commit_game, for a tournament's podium awards."""

    @abstractmethod
    def commit_link(self, link: stored.Link, players: stored.Players) -> None:
        """Record the link both ways and the states it moves, or nothing.

        Raises AlreadyStored when either side is linked already, WriteConflict as above.
        """

    @abstractmethod
    def put_standings(self, standings: stored.Standings) -> bool:
        """Store the histogram unless one refreshed later is stored; True when stored."""


class ResultsView(ABC):
    """Stored results, as the commits stored them."""

    @abstractmethod
    def get_game(self, ladder: str, game_id: str) -> stored.StoredGame | None: ...

    @abstractmethod
    def get_tournament(self, ladder: str, tournament_id: str) -> stored.StoredTournament | None: ...

    @abstractmethod
    def stored_games(self, ladder: str) -> Iterator[stored.StoredGame]:
        """Every game result of the ladder still stored, in no particular order (exports)."""


class HistoryView(ABC):
    @abstractmethod
    def history(
        self, ladder: str, player_id: str, limit: int, after: stored.EventPosition | None
    ) -> stored.HistoryPage:
        """At most `limit` of the player's events, newest first, from just after the event
        at `after` (not included), expired or not."""


class LeaderboardView(ABC):
    @abstractmethod
    def leaderboard(
        self, ladder: str, limit: int, after: tuple[int, str] | None
    ) -> Sequence[stored.LeaderboardRow]:
        """Players with at least one ranked game by rating descending, then id ascending,
        starting after the (rating, player_id) position `after`."""

    @abstractmethod
    def leaderboard_before(
        self, ladder: str, limit: int, before: tuple[int, str]
    ) -> Sequence[stored.LeaderboardRow]:
        """The `limit` players just ahead of the (rating, player_id) position `before`, in
        leaderboard order (the nearest last)."""


class RankView(ABC):
    """Where a position stands: counted near the top, estimated from the histogram beyond."""

    @abstractmethod
    def count_ahead(self, ladder: str, rating: int, player_id: str, limit: int) -> int | None:
        """Players ahead of (rating, player_id) in leaderboard order, other than `player_id`
        itself; None when there are `limit` or more, or when it is not known within a bounded
        read: more than 2 * limit + 2 entries rate `rating` or more (an entry of the player's
        own included)."""

    @abstractmethod
    def read_standings(self, ladder: str) -> stored.Standings | None:
        """The ladder's last stored histogram, if any."""

    @abstractmethod
    def leaderboard_entries(self, ladder: str) -> Iterator[tuple[str, int]]:
        """(player_id, rating) of every leaderboard player, in no particular order. Read while
        ratings change, a player may come twice (at two ratings) or not at all."""


class Storage(Protocol):
    """What a service is built over: the writes port and each read view."""

    writes: Writes
    results: ResultsView
    history: HistoryView
    leaderboard: LeaderboardView
    ranks: RankView
