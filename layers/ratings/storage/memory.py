"""An in-memory implementation of the storage port, for fast service tests.

It keeps the port's promises the way DynamoDB does: each commit checks every condition
before changing anything, versions move by one per write, and expired records stay until
something deletes them (reads must not rely on expiry).
"""

import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import datetime
from typing import TypeVar

from ratings.rules.standings import board_order
from ratings.service.ports import (
    AlreadyStored,
    EventPosition,
    GameReads,
    HistoryPage,
    LeaderboardRow,
    Link,
    LinkReads,
    PlayerEvent,
    PlayerRecord,
    PodiumReads,
    Standings,
    StateWrite,
    Storage,
    StoredGame,
    StoredTournament,
    WriteConflict,
)

_Record = TypeVar("_Record", StoredGame, StoredTournament)


class InMemoryStorage(Storage):
    def __init__(self) -> None:
        self.states: dict[tuple[str, str], PlayerRecord] = {}
        self.events: dict[tuple[str, str], list[PlayerEvent]] = {}
        self.games: dict[tuple[str, str], StoredGame] = {}
        self.tournaments: dict[tuple[str, str], StoredTournament] = {}
        self.standings: dict[str, Standings] = {}
        self.links: dict[str, str] = {}  # anonymous id -> account
        self.absorbed: dict[str, str] = {}  # account -> anonymous id
        self.commits = 0
        #: Called at the start of every commit, before conditions are checked: tests use it
        #: to slip a concurrent write between a use case's reads and its commit.
        self.before_commit: Callable[[], None] | None = None
        self._lock = threading.RLock()

    # Reads -------------------------------------------------------------------------------

    def read_for_game(
        self, ladder: str, game_id: str | None, player_ids: Sequence[str]
    ) -> GameReads:
        with self._lock:
            game = self.games.get((ladder, game_id)) if game_id is not None else None
            links = {pid: self.links[pid] for pid in player_ids if pid in self.links}
            return GameReads(game, links, self.read_states(ladder, player_ids))

    def read_states(self, ladder: str, player_ids: Sequence[str]) -> Mapping[str, PlayerRecord]:
        with self._lock:
            return {
                pid: self.states[(ladder, pid)]
                for pid in player_ids
                if (ladder, pid) in self.states
            }

    def count_ranked_games(
        self, ladder: str, player_id: str, since: datetime, until: datetime, limit: int
    ) -> int:
        with self._lock:
            events = self.events.get((ladder, player_id), [])
            count = sum(
                1
                for event in events
                if event.kind == "game" and event.ranked and since <= event.at < until
            )
            return min(count, limit)

    def get_game(self, ladder: str, game_id: str) -> StoredGame | None:
        return self.games.get((ladder, game_id))

    def read_for_podium(
        self, ladder: str, tournament_id: str, player_ids: Sequence[str]
    ) -> PodiumReads:
        with self._lock:
            tournament = self.tournaments.get((ladder, tournament_id))
            links = {pid: self.links[pid] for pid in player_ids if pid in self.links}
            return PodiumReads(tournament, links, self.read_states(ladder, player_ids))

    def get_tournament(self, ladder: str, tournament_id: str) -> StoredTournament | None:
        return self.tournaments.get((ladder, tournament_id))

    def resolve(self, player_id: str) -> str:
        return self.links.get(player_id, player_id)

    def read_for_link(
        self, anonymous_id: str, account_id: str, ladders: Sequence[str]
    ) -> LinkReads:
        with self._lock:
            states = {
                (ladder, pid): self.states[(ladder, pid)]
                for ladder in ladders
                for pid in (anonymous_id, account_id)
                if (ladder, pid) in self.states
            }
            return LinkReads(
                anonymous_linked_to=self.links.get(anonymous_id),
                account_absorbed=self.absorbed.get(account_id),
                account_linked_to=self.links.get(account_id),
                anonymous_absorbed=self.absorbed.get(anonymous_id),
                states=states,
            )

    def history(
        self, ladder: str, player_id: str, limit: int, after: EventPosition | None
    ) -> HistoryPage:
        with self._lock:
            events = sorted(
                self.events.get((ladder, player_id), []),
                key=_event_key,
                reverse=True,
            )
        if after is not None:
            events = [event for event in events if _event_key(event) < after]
        return HistoryPage(events[:limit], more=len(events) > limit)

    def leaderboard(
        self, ladder: str, limit: int, after: tuple[int, str] | None
    ) -> Sequence[LeaderboardRow]:
        rows = self._board(ladder)
        if after is not None:
            rows = [row for row in rows if _order(row) > board_order(*after)]
        return rows[:limit]

    def leaderboard_before(
        self, ladder: str, limit: int, before: tuple[int, str]
    ) -> Sequence[LeaderboardRow]:
        rows = [row for row in self._board(ladder) if _order(row) < board_order(*before)]
        return rows[-limit:] if limit > 0 else []

    def count_ahead(self, ladder: str, rating: int, player_id: str, limit: int) -> int | None:
        rows = self._board(ladder)
        at_or_above = [row for row in rows if row.rating >= rating]
        ahead = sum(
            1
            for row in at_or_above
            if row.player_id != player_id and (row.rating > rating or row.player_id < player_id)
        )
        if ahead >= limit or len(at_or_above) > 2 * limit + 2:
            return None
        return ahead

    def leaderboard_entries(self, ladder: str) -> Iterator[tuple[str, int]]:
        for row in self._board(ladder):
            yield row.player_id, row.rating

    def read_standings(self, ladder: str) -> Standings | None:
        return self.standings.get(ladder)

    def put_standings(self, standings: Standings) -> bool:
        with self._lock:
            stored = self.standings.get(standings.ladder)
            if stored is not None and stored.refreshed_at >= standings.refreshed_at:
                return False
            self.standings[standings.ladder] = standings
            return True

    def _board(self, ladder: str) -> list[LeaderboardRow]:
        """The ladder's leaderboard, in order."""
        with self._lock:
            rows = [
                LeaderboardRow(record.player_id, record.rating, record.ranked_games)
                for (state_ladder, _pid), record in self.states.items()
                if state_ladder == ladder and record.ranked_games > 0 and record.listed
            ]
        rows.sort(key=_order)
        return rows

    def stored_games(self, ladder: str) -> Iterator[StoredGame]:
        with self._lock:
            games = [
                game for (game_ladder, _id), game in self.games.items() if game_ladder == ladder
            ]
        yield from games

    # Writes ------------------------------------------------------------------------------

    def commit_game(
        self,
        game: StoredGame,
        states: Sequence[StateWrite],
        events: Sequence[PlayerEvent],
        *,
        now: datetime | None = None,
    ) -> None:
        def put_game() -> Callable[[], None]:
            stored = self.games.get((game.ladder, game.game_id))
            if stored is not None and (now is None or stored.expires_at > now):
                raise AlreadyStored(game.game_id)

            def apply() -> None:
                self.games[(game.ladder, game.game_id)] = game  # an expired one is replaced

            return apply

        self._commit(states, events, put_game)

    def commit_tournament(
        self,
        tournament: StoredTournament,
        states: Sequence[StateWrite],
        events: Sequence[PlayerEvent],
    ) -> None:
        self._commit(
            states,
            events,
            lambda: self._put_new(self.tournaments, tournament, tournament.tournament_id),
        )

    def commit_link(self, link: Link, states: Sequence[StateWrite]) -> None:
        def put_links() -> Callable[[], None]:
            taken = (
                link.anonymous_id in self.links
                or link.account_id in self.absorbed
                or link.account_id in self.links
                or link.anonymous_id in self.absorbed
            )
            if taken:
                raise AlreadyStored(link.anonymous_id)

            def apply() -> None:
                self.links[link.anonymous_id] = link.account_id
                self.absorbed[link.account_id] = link.anonymous_id

            return apply

        self._commit(states, [], put_links)

    @staticmethod
    def _put_new(
        table: dict[tuple[str, str], _Record], record: _Record, key: str
    ) -> Callable[[], None]:
        ladder = record.ladder
        if (ladder, key) in table:
            raise AlreadyStored(key)

        def apply() -> None:
            table[(ladder, key)] = record

        return apply

    def _commit(
        self,
        states: Sequence[StateWrite],
        events: Sequence[PlayerEvent],
        check_record: Callable[[], Callable[[], None]],
    ) -> None:
        if self.before_commit is not None:
            hook, self.before_commit = self.before_commit, None
            hook()
        with self._lock:
            apply_record = check_record()
            for write in states:
                current = self.states.get((write.ladder, write.player_id))
                if (current.version if current else 0) != write.expected_version:
                    raise WriteConflict(write.player_id)
            apply_record()
            for write in states:
                self.states[(write.ladder, write.player_id)] = write.record()
            for event in events:
                self.events.setdefault((event.ladder, event.player_id), []).append(event)
            self.commits += 1

    def expire(self, now: datetime) -> None:
        """Drop expired history and game records, as DynamoDB's TTL eventually does."""
        with self._lock:
            for key, events in self.events.items():
                self.events[key] = [event for event in events if event.expires_at > now]
            self.games = {key: game for key, game in self.games.items() if game.expires_at > now}


def _order(row: LeaderboardRow) -> tuple[int, str]:
    return board_order(row.rating, row.player_id)


def _event_key(event: PlayerEvent) -> EventPosition:
    return (event.at, event.kind, event.ref_id)
