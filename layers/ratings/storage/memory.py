"""The in-memory fake of the storage ports, for fast service tests.

`InMemoryStorage` holds the tables and one fake of each port over them (`writes`, `results`,
`history`, `leaderboard`, `ranks`). It keeps the ports' promises the way DynamoDB does: each
commit checks every condition before changing anything, versions move by one per write, and
expired records stay until something deletes them (reads must not rely on expiry).
"""

import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import datetime
from typing import TypeVar

from ratings.rules.ranking import board_order
from ratings.service import stored
from ratings.service.errors import AlreadyStored, WriteConflict
from ratings.service.player import Player
from ratings.service.ports import HistoryView, LeaderboardView, RankView, ResultsView, Writes
from ratings.service.results import GAME_EVENT
from ratings.service.stored import Events, Players, StoredGame

_Record = TypeVar("_Record", stored.StoredGame, stored.StoredTournament)


class InMemoryStorage:
    """The fake's tables, and one fake of each port over them."""

    def __init__(self) -> None:
        self.states: dict[tuple[str, str], Player] = {}
        self.events: dict[tuple[str, str], list[stored.PlayerEvent]] = {}
        self.games: dict[tuple[str, str], stored.StoredGame] = {}
        self.tournaments: dict[tuple[str, str], stored.StoredTournament] = {}
        self.standings: dict[str, stored.Standings] = {}
        self.links: dict[str, str] = {}  # anonymous id -> account
        self.absorbed: dict[str, str] = {}  # account -> anonymous id
        self.commits = 0
        #: Called at the start of every commit, before conditions are checked: tests use it
        #: to slip a concurrent write between a use case's reads and its commit.
        self.before_commit: Callable[[], None] | None = None
        self.lock = threading.RLock()
        self.writes: Writes = InMemoryWrites(self)
        self.results: ResultsView = InMemoryResults(self)
        self.history: HistoryView = InMemoryHistory(self)
        self.leaderboard: LeaderboardView = InMemoryLeaderboard(self)
        self.ranks: RankView = InMemoryRanks(self)

    def board(self, ladder: str) -> list[stored.LeaderboardRow]:
        """The ladder's leaderboard, in order."""
        with self.lock:
            rows = [
                stored.LeaderboardRow(player.player_id, player.rating, player.ranked_games)
                for (state_ladder, _pid), player in self.states.items()
                if state_ladder == ladder and player.on_the_board
            ]
        rows.sort(key=_order)
        return rows

    def expire(self, now: datetime) -> None:
        """Drop expired history and game records, as DynamoDB's TTL eventually does."""
        with self.lock:
            for key, events in self.events.items():
                self.events[key] = [event for event in events if event.expires_at > now]
            self.games = {key: game for key, game in self.games.items() if game.expires_at > now}


class InMemoryWrites(Writes):
    """The writes port over the fake's tables: every commit checks all of its
    conditions under the lock before it changes anything."""

    def __init__(self, tables: InMemoryStorage) -> None:
        self._tables = tables

    def read_for_game(
        self, ladder: str, game_id: str | None, player_ids: Sequence[str]
    ) -> stored.GameReads:
        tables = self._tables
        with tables.lock:
            game = tables.games.get((ladder, game_id)) if game_id is not None else None
            return stored.GameReads(
                game, self._links(player_ids), self.read_states(ladder, player_ids)
            )

    def read_for_podium(
        self, ladder: str, tournament_id: str, player_ids: Sequence[str]
    ) -> stored.PodiumReads:
        tables = self._tables
        with tables.lock:
            tournament = tables.tournaments.get((ladder, tournament_id))
            states = self.read_states(ladder, player_ids)
            return stored.PodiumReads(tournament, self._links(player_ids), states)

    def read_for_link(
        self, anonymous_id: str, account_id: str, ladders: Sequence[str]
    ) -> stored.LinkReads:
        tables = self._tables
        with tables.lock:
            states = {
                (ladder, pid): tables.states[(ladder, pid)]
                for ladder in ladders
                for pid in (anonymous_id, account_id)
                if (ladder, pid) in tables.states
            }
            return stored.LinkReads(
                anonymous_linked_to=tables.links.get(anonymous_id),
                account_absorbed=tables.absorbed.get(account_id),
                account_linked_to=tables.links.get(account_id),
                anonymous_absorbed=tables.absorbed.get(anonymous_id),
                states=states,
            )

    def read_states(self, ladder: str, player_ids: Sequence[str]) -> Mapping[str, Player]:
        states = self._tables.states
        with self._tables.lock:
            return {pid: states[(ladder, pid)] for pid in player_ids if (ladder, pid) in states}

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

    def commit_game(
        self, game: StoredGame, players: Players, events: Events, *, now: datetime | None = None
    ) -> None:
        games = self._tables.games

        def put_game() -> Callable[[], None]:
            current = games.get((game.ladder, game.game_id))
            if current is not None and (now is None or current.expires_at > now):
                raise AlreadyStored(game.game_id)

            def apply() -> None:
                games[(game.ladder, game.game_id)] = game  # an expired one is replaced

            return apply

        self._commit(players, events, put_game)

    def commit_tournament(
        self, tournament: stored.StoredTournament, players: stored.Players, events: stored.Events
    ) -> None:
        tournaments = self._tables.tournaments
        self._commit(
            players, events, lambda: _put_new(tournaments, tournament, tournament.tournament_id)
        )

    def commit_link(self, link: stored.Link, players: stored.Players) -> None:
        tables = self._tables

        def put_links() -> Callable[[], None]:
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

        self._commit(players, [], put_links)

    def put_standings(self, standings: stored.Standings) -> bool:
        tables = self._tables
        with tables.lock:
            current = tables.standings.get(standings.ladder)
            if current is not None and current.refreshed_at >= standings.refreshed_at:
                return False
            tables.standings[standings.ladder] = standings
            return True

    def _links(self, player_ids: Sequence[str]) -> dict[str, str]:
        links = self._tables.links
        return {pid: links[pid] for pid in player_ids if pid in links}

    def _commit(
        self,
        players: stored.Players,
        events: stored.Events,
        check_record: Callable[[], Callable[[], None]],
    ) -> None:
        tables = self._tables
        if tables.before_commit is not None:
            hook, tables.before_commit = tables.before_commit, None
            hook()
        with tables.lock:
            apply_record = check_record()
            for player in players:
                current = tables.states.get((player.ladder, player.player_id))
                if (current.version if current else 0) != player.replaces_version:
                    raise WriteConflict(player.player_id)
            apply_record()
            for player in players:
                tables.states[(player.ladder, player.player_id)] = player
            for event in events:
                tables.events.setdefault((event.ladder, event.player_id), []).append(event)
            tables.commits += 1


class InMemoryResults(ResultsView):
    """Stored results by key, and a ladder's game records for exports, as the
    tables hold them (expired ones too, as DynamoDB's TTL would)."""

    def __init__(self, tables: InMemoryStorage) -> None:
        self._tables = tables

    def get_game(self, ladder: str, game_id: str) -> stored.StoredGame | None:
        return self._tables.games.get((ladder, game_id))

    def get_tournament(self, ladder: str, tournament_id: str) -> stored.StoredTournament | None:
        return self._tables.tournaments.get((ladder, tournament_id))

    def stored_games(self, ladder: str) -> Iterator[stored.StoredGame]:
        with self._tables.lock:
            games = [
                game
                for (game_ladder, _id), game in self._tables.games.items()
                if game_ladder == ladder
            ]
        yield from games


class InMemoryHistory(HistoryView):
    """A player's events, newest first, paged after a position (expired ones too:
    the use case skips them)."""

    def __init__(self, tables: InMemoryStorage) -> None:
        self._tables = tables

    def history(
        self, ladder: str, player_id: str, limit: int, after: stored.EventPosition | None
    ) -> stored.HistoryPage:
        with self._tables.lock:
            events = sorted(
                self._tables.events.get((ladder, player_id), []), key=_event_key, reverse=True
            )
        if after is not None:
            events = [event for event in events if _event_key(event) < after]
        return stored.HistoryPage(events[:limit], more=len(events) > limit)


class InMemoryLeaderboard(LeaderboardView):
    """Leaderboard pages from the board the states make: listed players with a
    ranked game, in leaderboard order."""

    def __init__(self, tables: InMemoryStorage) -> None:
        self._tables = tables

    def leaderboard(
        self, ladder: str, limit: int, after: tuple[int, str] | None
    ) -> Sequence[stored.LeaderboardRow]:
        rows = self._tables.board(ladder)
        if after is not None:
            rows = [row for row in rows if _order(row) > board_order(*after)]
        return rows[:limit]

    def leaderboard_before(
        self, ladder: str, limit: int, before: tuple[int, str]
    ) -> Sequence[stored.LeaderboardRow]:
        rows = [row for row in self._tables.board(ladder) if _order(row) < board_order(*before)]
        return rows[-limit:] if limit > 0 else []


class InMemoryRanks(RankView):
    """Counts ahead of a position on that board, within the same read budget as
    DynamoDB's count, and the stored histograms."""

    def __init__(self, tables: InMemoryStorage) -> None:
        self._tables = tables

    def count_ahead(self, ladder: str, rating: int, player_id: str, limit: int) -> int | None:
        at_or_above = [row for row in self._tables.board(ladder) if row.rating >= rating]
        ahead = sum(
            1
            for row in at_or_above
            if row.player_id != player_id and (row.rating > rating or row.player_id < player_id)
        )
        if ahead >= limit or len(at_or_above) > 2 * limit + 2:
            return None
        return ahead

    def read_standings(self, ladder: str) -> stored.Standings | None:
        return self._tables.standings.get(ladder)

    def leaderboard_entries(self, ladder: str) -> Iterator[tuple[str, int]]:
        for row in self._tables.board(ladder):
            yield row.player_id, row.rating


def _put_new(
    table: dict[tuple[str, str], _Record], record: _Record, key: str
) -> Callable[[], None]:
    ladder = record.ladder
    if (ladder, key) in table:
        raise AlreadyStored(key)

    def apply() -> None:
        table[(ladder, key)] = record

    return apply


def _order(row: stored.LeaderboardRow) -> tuple[int, str]:
    return board_order(row.rating, row.player_id)


def _event_key(event: stored.PlayerEvent) -> stored.EventPosition:
    return (event.at, event.event_type, event.ref_id)
