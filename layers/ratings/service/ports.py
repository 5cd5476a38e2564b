"""The storage the use cases need besides the unit of work (`ratings.service.unit_of_work`):
four read views and the moderation stores, each a small abstract class that the in-memory
fake (`ratings.storage.memory`) and the DynamoDB adapter (`ratings.storage.dynamodb`) both
implement, so each can be understood, faked and measured on its own. `Storage` is what a
service is built over: a unit of work per use case, and one of each of these.

- `ResultsView`: stored game and tournament results (reads, retries, exports).
- `HistoryView`: a player's history, page by page.
- `LeaderboardView`: leaderboard pages, from the top, after or before a position.
- `RankView`: how many stand ahead of a position, and the ladder's rating histogram.
- `SanctionStore`: sanctions, the decisions about their refunds, and the sanctioned player's
  games they page through (docs/table-layout.md, "Sanctions").
- `JobRecords`: background jobs' records (`ratings.service.jobs`), each saved over the
  version it came from.
- `ErasureStore`: what erasing a player reads and writes (`usecases.erase_player`).

Besides the storage, one port of its own: `JobQueue`, where a job's messages go.

Every commit is atomic, as the unit of work's: all of it lands or none of it does, each state
only over the version it came from (`Player.replaces_version`), else `WriteConflict` and
nothing changes, so the caller reads again and retries.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping, Sequence
from typing import TYPE_CHECKING, Protocol

from ratings.service import stored
from ratings.service.player import FrozenStanding, Player
from ratings.service.seasons import SeasonStarts

if TYPE_CHECKING:
    # only the moderation ports' signatures name them: the game path never loads
    from ratings.rules.refunds import Window
    from ratings.service import sanction_records
    from ratings.service.unit_of_work import Retrier, UnitOfWork


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


class SeasonStore(ABC):
    """The seasons operators started, one record per ladder, and players' frozen standings."""

    @abstractmethod
    def read_starts(self, ladder: str) -> SeasonStarts:
        """The ladder's record (strongly consistent); version 0 when none is stored."""

    @abstractmethod
    def read_starts_of(self, ladders: Sequence[str]) -> Mapping[str, SeasonStarts]:
        """The records of several ladders at once (one round trip), strongly consistent."""

    @abstractmethod
    def save_starts(self, ladder: str, starts: SeasonStarts) -> None:
        """Store the record over the version it came from (`starts.version - 1`; none stored
        for 1); WriteConflict when another save got there first."""

    @abstractmethod
    def standings_of(self, ladder: str, player_id: str) -> Sequence[FrozenStanding]:
        """Every standing of the player frozen in the ladder's seasons, in no particular
        order (strongly consistent)."""

    @abstractmethod
    def hide_standings(self, ladder: str, player_id: str, hidden: bool) -> int:
        """Take the player's frozen standings off their seasons' leaderboards (`hidden`), or
        put them back; those already so are left alone. How many were changed."""


class SanctionStore(ABC):
    """Sanctions and their refunds. A sanction's record is the job record of its refunds
    (`JobRecords` saves its progress); its lift is kept beside it, so a lift and a progress
    save never overwrite each other. Each commit is atomic like the unit of work's; a state is
    stored only over the version it came from (WriteConflict otherwise)."""

    @abstractmethod
    def read_for_sanction(
        self, ladder: str, sanction_id: str, player_id: str
    ) -> sanction_records.SanctionReads:
        """The sanction (if stored), the links of `player_id` both ways and its state, in one
        round trip, strongly consistent."""

    @abstractmethod
    def read_sanction(
        self, ladder: str, sanction_id: str, after: str | None, limit: int
    ) -> sanction_records.SanctionView:
        """The sanction (None: not stored) with its lift, at most `limit` of its decisions by
        `decision_ref` from just after the ref `after` (None: the first), and whether more follow;
        strongly consistent, reading at most `limit` + 1 decisions."""

    @abstractmethod
    def games_against(
        self,
        ladder: str,
        player_id: str,
        window: Window,
        after: sanction_records.GamePosition | None,
        limit: int,
    ) -> sanction_records.GamesPage:
        """At most `limit` of the player's ranked games played in `window`, by played_at
        then game id, from just after `after` (expired or not), strongly consistent."""

    @abstractmethod
    def read_for_refunds(
        self,
        ladder: str,
        sanction_id: str,
        player_id: str,
        games: Sequence[sanction_records.GameAgainst],
        budget: int | None = None,
    ) -> sanction_records.RefundReads:
        """For each game of `player_id`: the decisions already stored (by game id, then by
        seat) and the stored game; then, for the games `budget` covers (`plan_refunds`), the
        links and states of the victims of those not decided yet. Strongly consistent."""

    @abstractmethod
    def commit_sanction(self, sanction: sanction_records.Sanction, player: Player) -> None:
        """Store the new sanction's record with the sanctioned player's state, or nothing.

        Raises AlreadyStored when the sanction id is stored already, WriteConflict when the
        state's version moved."""

    @abstractmethod
    def commit_lift(self, sanction: sanction_records.Sanction, players: Sequence[Player]) -> None:
        """Record `sanction.lifted_at` and store the states of `players`, or nothing.

        Raises AlreadyStored when it was lifted already, WriteConflict as above."""

    @abstractmethod
    def commit_refund(
        self, decision: sanction_records.RefundDecision, victim: Player, event: stored.PlayerEvent
    ) -> None:
        """Store the decision, the victim's new state and their refund event, or nothing.

        Raises AlreadyStored when the decision (its game's, its victim's: `decision_ref`) is
        stored already, WriteConflict as above."""

    @abstractmethod
    def record_withheld(self, decision: sanction_records.RefundDecision) -> None:
        """Store a withheld decision; AlreadyStored when the decision is stored already."""

    @abstractmethod
    def read_named(
        self,
        ladder: str,
        sanction_ids: Sequence[str],
        decision_keys: Sequence[tuple[str, str]],
    ) -> sanction_records.NamedInSanctions:
        """The sanctions, and every decision of each (sanction id, game id), that an erasure
        rewrites, strongly consistent."""

    @abstractmethod
    def rename(
        self,
        sanctions: Sequence[sanction_records.Sanction],
        decisions: Sequence[sanction_records.RefundDecision],
    ) -> None:
        """Store the sanctions' records (each over the version it came from) and the decisions
        (each only while stored) with other ids in them, all or nothing; WriteConflict when a
        record moved or a decision is gone."""


class JobRecords(ABC):
    """Background jobs' records, one per (kind, job_id)."""

    @abstractmethod
    def get_job(self, kind: str, job_id: str) -> stored.Job | None:
        """The job's record as last saved (strongly consistent), or None."""

    @abstractmethod
    def create_job(self, job: stored.Job) -> None:
        """Store a new job's record (version 1); AlreadyStored when it exists."""

    @abstractmethod
    def save_job(self, job: stored.Job) -> None:
        """Store the job's record over the version it came from (`progress_version - 1`);
        WriteConflict when another save got there first."""


class ErasureStore(ABC):
    """What erasing a player reads and writes: the request, and the steps of its job."""

    @abstractmethod
    def holds_player(self, player_id: str, ladders: Sequence[str]) -> bool:
        """Whether anything is stored under the id: a state or any item of its history in one
        of `ladders`, or an identity link (strongly consistent)."""

    @abstractmethod
    def request_erasure(self, job: stored.Job, player_id: str) -> None:
        """Store the erasure's job record over the version it came from (version 1: none
        stored), unless `player_id` is an anonymous id linked to an account, all at once.

        Raises AlreadyLinked when it is linked, AlreadyStored when a record was stored
        meanwhile (version 1), WriteConflict when the stored one moved."""

    @abstractmethod
    def read_identity(self, player_id: str, ladders: Sequence[str]) -> stored.ErasedIdentity:
        """The player's links, and their states and the absorbed id's in each of `ladders`
        (strongly consistent)."""

    @abstractmethod
    def mark(self, players: Sequence[Player]) -> None:
        """Store the marked states together, each over the version it came from (none
        stored for version 1); WriteConflict (and nothing stored) when one moved."""

    @abstractmethod
    def player_items(self, ladder: str, player_id: str, limit: int) -> Sequence[stored.PlayerItem]:
        """The first `limit` of the player's own items in the ladder, its state aside:
        strongly consistent, expired ones included (TTL deletes late)."""

    @abstractmethod
    def read_references(
        self,
        ladder: str,
        game_ids: Sequence[str],
        tournament_ids: Sequence[str],
        events: Sequence[stored.EventKey],
    ) -> stored.References:
        """The games, tournaments and events named, as stored (strongly consistent)."""

    @abstractmethod
    def pseudonymize(self, ladder: str, rewrite: stored.Pseudonymized) -> None:
        """Store all of `rewrite` at once (at most 100 items), or nothing: WriteConflict
        when a game or tournament moved past the revision read, an event is gone, or a frozen
        standing deleted is no longer as read (hidden or shown meanwhile)."""

    @abstractmethod
    def unlink(self, links: Sequence[stored.Link]) -> None:
        """Delete both sides of each link (those already gone are no matter)."""

    @abstractmethod
    def read_states(self, keys: Sequence[tuple[str, str]]) -> Mapping[tuple[str, str], Player]:
        """The states stored at the (ladder, player id) `keys` (strongly consistent); a key
        with none stored is left out."""

    @abstractmethod
    def delete_states(
        self, players: Sequence[Player], standings: Sequence[FrozenStanding] = ()
    ) -> None:
        """Delete the states together, each only while at the version given (or already
        gone), and store `standings` with them (the final standings the states leave in
        seasons that ended, under pseudonyms; one stored already is stored again as it is);
        WriteConflict (and nothing changed) when one moved."""


class JobQueue(ABC):
    """Where job messages go; a worker receives them (`ratings.service.jobs.RunJob`)."""

    @abstractmethod
    def send(self, message: stored.JobMessage) -> None:
        """Queue the message; raises when it could not be queued (nothing is then sent)."""


class Storage(Protocol):
    """What a service is built over: a unit of work per use case, each read view, and the
    stores of sanctions, jobs and erasures."""

    def unit_of_work(self, retrier: Retrier | None = None) -> UnitOfWork:
        """A new unit of work, for one use case's attempts."""
        ...

    # Read-only: an implementation may make a store on first use (the DynamoDB one makes
    # the moderation stores so).
    @property
    def results(self) -> ResultsView: ...
    @property
    def history(self) -> HistoryView: ...
    @property
    def leaderboard(self) -> LeaderboardView: ...
    @property
    def ranks(self) -> RankView: ...
    @property
    def sanctions(self) -> SanctionStore: ...
    @property
    def jobs(self) -> JobRecords: ...
    @property
    def erasures(self) -> ErasureStore: ...
    @property
    def seasons(self) -> SeasonStore: ...
