"""The in-memory fake of the storage ports, for fast service tests.

`InMemoryStorage` holds the tables, makes a unit of work over them (`InMemoryUnitOfWork`)
for each use case, and holds one fake of each other port (`jobs` here; the read views in
`memory_views`; `sanctions` and `erasures` in `memory_sanctions` and `memory_erasures`). It
keeps the ports' promises the way DynamoDB does: each commit checks every condition before changing
anything, versions move by one per write, and expired records stay until something deletes
them (reads must not rely on expiry).
"""

import threading
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import TypeVar

from ratings.service import ports
from ratings.service.errors import AlreadyStored, WriteConflict
from ratings.service.game_result import GAME_EVENT
from ratings.service.player import FrozenStanding, Player
from ratings.service.seasons import SeasonStarts, board_season, season_row
from ratings.service.stored import (
    ERASURE,
    GameReads,
    Job,
    LeaderboardRow,
    Link,
    LinkReads,
    PlayerEvent,
    PodiumReads,
    Standings,
    StoredGame,
    StoredTournament,
    erasure_id,
)
from ratings.service.unit_of_work import Retrier, UnitOfWork
from ratings.storage.memory_erasures import InMemoryErasures
from ratings.storage.memory_sanctions import InMemorySanctions, SanctionTables
from ratings.storage.memory_views import (
    InMemoryHistory,
    InMemoryLeaderboard,
    InMemoryRanks,
    InMemoryResults,
    leaderboard_order,
)

_Stored = TypeVar("_Stored", StoredGame, StoredTournament)


class InMemoryStorage:
    """The fake's tables, and one fake of each port over them."""

    def __init__(self) -> None:
        self.states: dict[tuple[str, str], Player] = {}
        self.events: dict[tuple[str, str], list[PlayerEvent]] = {}
        self.games: dict[tuple[str, str], StoredGame] = {}
        self.tournaments: dict[tuple[str, str], StoredTournament] = {}
        self.standings: dict[str, Standings] = {}
        self.links: dict[str, str] = {}  # anonymous id -> account
        self.absorbed: dict[str, str] = {}  # account -> anonymous id
        self.job_records: dict[tuple[str, str], Job] = {}  # (kind, job_id) -> record
        #: (ladder, player id) -> the tournaments whose awards name the player.
        self.awards: dict[tuple[str, str], set[str]] = {}
        #: (ladder, player id, season id) -> the player's standing frozen in that season.
        self.frozen: dict[tuple[str, str, str], FrozenStanding] = {}
        #: ladder -> the seasons operators started there.
        self.season_starts: dict[str, SeasonStarts] = {}
        self.commits = 0
        #: Called at the start of every commit, before conditions are checked: tests use it
        #: to slip a concurrent write between a use case's reads and its commit.
        self.before_commit: Callable[[], None] | None = None
        self.lock = threading.RLock()
        #: A unit of work outside any attempt, as the fake's other stores use it (its reads,
        #: its checked commit).
        self.shared_unit = InMemoryUnitOfWork(self)
        self.results: ports.ResultsView = InMemoryResults(self)
        self.history: ports.HistoryView = InMemoryHistory(self)
        self.leaderboard: ports.LeaderboardView = InMemoryLeaderboard(self)
        self.ranks: ports.RankView = InMemoryRanks(self)
        self.sanction_tables = SanctionTables()
        self.sanctions: ports.SanctionStore = InMemorySanctions(self)
        self.jobs: ports.JobRecords = InMemoryJobs(self)
        self.erasures: ports.ErasureStore = InMemoryErasures(self)
        self.seasons: ports.SeasonStore = InMemorySeasons(self)

    def unit_of_work(self, retrier: Retrier | None = None) -> "InMemoryUnitOfWork":
        return InMemoryUnitOfWork(self, retrier)

    def board(self, board: str) -> list[LeaderboardRow]:
        """A season's leaderboard (`board_id`), in order: the states in that season, and the
        standings frozen there (`season_row`)."""
        ladder, season_id = board_season(board)
        with self.lock:
            ids = {pid for (state_ladder, pid) in self.states if state_ladder == ladder}
            ids |= {
                pid
                for (frozen_ladder, pid, season) in self.frozen
                if frozen_ladder == ladder and season == season_id
            }
            found = [
                season_row(
                    season_id,
                    self.states.get((ladder, pid)),
                    self.frozen.get((ladder, pid, season_id)),
                )
                for pid in ids
            ]
        rows = [row for row in found if row is not None]
        rows.sort(key=leaderboard_order)
        return rows

    def expire(self, now: datetime) -> None:
        """Drop expired history and game records, as DynamoDB's TTL eventually does."""
        with self.lock:
            for key, events in self.events.items():
                self.events[key] = [event for event in events if event.expires_at > now]
            self.games = {key: game for key, game in self.games.items() if game.expires_at > now}


class InMemoryUnitOfWork(UnitOfWork):
    """The unit of work over the fake's tables: every commit checks all of its conditions
    under the lock before it changes anything."""

    def __init__(self, tables: InMemoryStorage, retrier: Retrier | None = None) -> None:
        self.retrier = retrier or Retrier()
        self._tables = tables

    def _read_for_game(
        self, ladder: str, game_id: str | None, player_ids: Sequence[str], with_starts: bool
    ) -> GameReads:
        tables = self._tables
        with tables.lock:
            game = tables.games.get((ladder, game_id)) if game_id is not None else None
            states = self._read_states(ladder, player_ids)
            starts = self._starts(ladder, with_starts)
            return GameReads(game, self._links(player_ids), states, starts)

    def _read_for_podium(
        self, ladder: str, tournament_id: str, player_ids: Sequence[str], with_starts: bool
    ) -> PodiumReads:
        tables = self._tables
        with tables.lock:
            tournament = tables.tournaments.get((ladder, tournament_id))
            states = self._read_states(ladder, player_ids)
            starts = self._starts(ladder, with_starts)
            return PodiumReads(tournament, self._links(player_ids), states, starts)

    def _starts(self, ladder: str, with_starts: bool) -> SeasonStarts | None:
        if not with_starts:
            return None
        return self._tables.season_starts.get(ladder, SeasonStarts())

    def _read_for_link(
        self,
        anonymous_id: str,
        account_id: str,
        ladders: Sequence[str],
        starts_of: Sequence[str],
    ) -> LinkReads:
        tables = self._tables
        with tables.lock:
            states = {
                (ladder, pid): tables.states[(ladder, pid)]
                for ladder in ladders
                for pid in (anonymous_id, account_id)
                if (ladder, pid) in tables.states
            }
            return LinkReads(
                anonymous_linked_to=tables.links.get(anonymous_id),
                account_absorbed=tables.absorbed.get(account_id),
                account_linked_to=tables.links.get(account_id),
                anonymous_absorbed=tables.absorbed.get(anonymous_id),
                states=states,
                erasing=tuple(
                    pid for pid in (anonymous_id, account_id) if self._erasure_pending(pid)
                ),
                season_starts={
                    ladder: tables.season_starts.get(ladder, SeasonStarts()) for ladder in starts_of
                },
            )

    def _erasure_pending(self, player_id: str) -> bool:
        job = self._tables.job_records.get((ERASURE, erasure_id(player_id)))
        return job is not None and job.pending

    def _read_states(self, ladder: str, player_ids: Sequence[str]) -> Mapping[str, Player]:
        states = self._tables.states
        with self._tables.lock:
            found = {pid: states[(ladder, pid)] for pid in player_ids if (ladder, pid) in states}
        return found

    def count_ranked_games(
        self, ladder: str, player_id: str, since: datetime, until: datetime, limit: int
    ) -> int:
        with self._tables.lock:
            events = self._tables.events.get((ladder, player_id), [])
            count = sum(
                1
                for event in events
                if event.event_type == GAME_EVENT and event.ranked and since <= event.at < until
            )
            return min(count, limit)

    def resolve(self, player_id: str) -> str:
        return self._tables.links.get(player_id, player_id)

    def _commit_game(
        self,
        game: StoredGame,
        players: Sequence[Player],
        events: Sequence[PlayerEvent],
        now: datetime | None,
    ) -> StoredGame | None:
        games = self._tables.games
        key = (game.ladder, game.game_id)

        def put_game() -> Callable[[], None]:
            stored = games.get(key)
            if stored is not None and (now is None or stored.expires_at > now):
                raise AlreadyStored(game.game_id)

            def apply() -> None:
                games[key] = game  # an expired one is replaced

            return apply

        try:
            self.commit_checked(players, events, put_game)
        except AlreadyStored:
            return _stored_again(games, key)
        return None

    def _commit_tournament(
        self,
        tournament: StoredTournament,
        players: Sequence[Player],
        events: Sequence[PlayerEvent],
        unchanged: Sequence[Player],
        podium_ids: Sequence[str],
    ) -> StoredTournament | None:
        tables = self._tables
        key = (tournament.ladder, tournament.tournament_id)

        def put_tournament() -> Callable[[], None]:
            apply = _put_new(tables.tournaments, tournament, tournament.tournament_id)

            def apply_with_pointers() -> None:
                apply()
                for player_id in podium_ids:
                    pointers = tables.awards.setdefault((tournament.ladder, player_id), set())
                    pointers.add(tournament.tournament_id)

            return apply_with_pointers

        try:
            self.commit_checked(players, events, put_tournament, unchanged)
        except AlreadyStored:
            return _stored_again(tables.tournaments, key)
        return None

    def _commit_link(self, link: Link, players: Sequence[Player]) -> None:
        tables = self._tables

        def put_links() -> Callable[[], None]:
            if self._erasure_pending(link.anonymous_id) or self._erasure_pending(link.account_id):
                raise WriteConflict(link.anonymous_id)
            taken = (
                link.anonymous_id in tables.links
                or link.account_id in tables.absorbed
                or link.account_id in tables.links
                or link.anonymous_id in tables.absorbed
            )
            if taken:
                raise AlreadyStored(link.anonymous_id)

            def apply() -> None:
                tables.links[link.anonymous_id] = link.account_id
                tables.absorbed[link.account_id] = link.anonymous_id

            return apply

        self.commit_checked(players, [], put_links)

    def put_standings(self, standings: Standings) -> bool:
        tables = self._tables
        with tables.lock:
            stored = tables.standings.get(standings.ladder)
            if stored is not None and stored.refreshed_at >= standings.refreshed_at:
                return False
            tables.standings[standings.ladder] = standings
            return True

    def _links(self, player_ids: Sequence[str]) -> dict[str, str]:
        links = self._tables.links
        return {pid: links[pid] for pid in player_ids if pid in links}

    def commit_checked(
        self,
        players: Sequence[Player],
        events: Sequence[PlayerEvent],
        check_record: Callable[[], Callable[[], None]],
        unchanged: Sequence[Player] = (),
    ) -> None:
        """One atomic commit of the fake: `check_record` checks the record the commit
        creates (raising to refuse it) and returns how to store it; then each state's
        version is checked, and only then is anything stored."""
        tables = self._tables
        if tables.before_commit is not None:
            hook, tables.before_commit = tables.before_commit, None
            hook()
        with tables.lock:
            apply_record = check_record()
            expected = [(player, player.replaces_version) for player in players]
            expected += [(player, player.version) for player in unchanged]
            for player, version in expected:
                current = tables.states.get((player.ladder, player.player_id))
                if (current.version if current else 0) != version:
                    raise WriteConflict(player.player_id)
            entered = [player.entered for player in players if player.entered is not None]
            for entry in entered:
                if entry.frozen is not None and frozen_key(entry.frozen) in tables.frozen:
                    raise WriteConflict(entry.frozen.player_id)
            apply_record()
            for player in players:
                tables.states[(player.ladder, player.player_id)] = player._replace(entered=None)
            for entry in entered:
                if entry.frozen is not None:
                    tables.frozen[frozen_key(entry.frozen)] = entry.frozen
            events = [*events, *(e.reset_event for e in entered if e.reset_event is not None)]
            for event in events:
                tables.events.setdefault((event.ladder, event.player_id), []).append(event)
            tables.commits += 1


def frozen_key(standing: FrozenStanding) -> tuple[str, str, str]:
    return (standing.ladder, standing.player_id, standing.season_id)


class InMemorySeasons(ports.SeasonStore):
    def __init__(self, tables: InMemoryStorage) -> None:
        self._tables = tables

    def read_starts(self, ladder: str) -> SeasonStarts:
        with self._tables.lock:
            return self._tables.season_starts.get(ladder, SeasonStarts())

    def read_starts_of(self, ladders: Sequence[str]) -> Mapping[str, SeasonStarts]:
        return {ladder: self.read_starts(ladder) for ladder in ladders}

    def save_starts(self, ladder: str, starts: SeasonStarts) -> None:
        with self._tables.lock:
            stored = self._tables.season_starts.get(ladder, SeasonStarts())
            if stored.version != starts.version - 1:
                raise WriteConflict(ladder)
            self._tables.season_starts[ladder] = starts

    def standings_of(self, ladder: str, player_id: str) -> list[FrozenStanding]:
        with self._tables.lock:
            return [
                standing
                for (frozen_ladder, pid, _season), standing in self._tables.frozen.items()
                if frozen_ladder == ladder and pid == player_id
            ]

    def hide_standings(self, ladder: str, player_id: str, hidden: bool) -> int:
        with self._tables.lock:
            changed = [
                standing
                for standing in self.standings_of(ladder, player_id)
                if standing.hidden != hidden
            ]
            for standing in changed:
                self._tables.frozen[frozen_key(standing)] = standing._replace(hidden=hidden)
        return len(changed)


class InMemoryJobs(ports.JobRecords):
    def __init__(self, tables: InMemoryStorage) -> None:
        self._tables = tables

    def get_job(self, kind: str, job_id: str) -> Job | None:
        with self._tables.lock:
            return self._tables.job_records.get((kind, job_id))

    def create_job(self, job: Job) -> None:
        records = self._tables.job_records
        with self._tables.lock:
            if (job.kind, job.job_id) in records:
                raise AlreadyStored(job.job_id)
            records[(job.kind, job.job_id)] = job._replace(progress_version=1)

    def save_job(self, job: Job) -> None:
        records = self._tables.job_records
        with self._tables.lock:
            stored = records.get((job.kind, job.job_id))
            if stored is None or stored.progress_version != job.progress_version - 1:
                raise WriteConflict(job.job_id)
            records[(job.kind, job.job_id)] = job


def _put_new[Stored: (StoredGame, StoredTournament)](
    table: dict[tuple[str, str], Stored], stored: Stored, key: str
) -> Callable[[], None]:
    ladder = stored.ladder
    if (ladder, key) in table:
        raise AlreadyStored(key)

    def apply() -> None:
        table[(ladder, key)] = stored

    return apply


def _stored_again[Stored: (StoredGame, StoredTournament)](
    table: dict[tuple[str, str], Stored], key: tuple[str, str]
) -> Stored:
    """The record a commit found stored under its id; WriteConflict when it is gone again
    (the fake's `expire` ran in between), so the attempt reads afresh."""
    stored = table.get(key)
    if stored is None:
        raise WriteConflict(key[1])
    return stored
