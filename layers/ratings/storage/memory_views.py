"""The in-memory fakes of the read views (`ratings.service.ports`): results, history,
leaderboard pages and ranks, over the tables of an `InMemoryStorage`."""

from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from ratings.rules.ranking import board_order
from ratings.service.ports import HistoryView, LeaderboardView, RankView, ResultsView
from ratings.service.stored import (
    EventPosition,
    HistoryPage,
    LeaderboardRow,
    PlayerEvent,
    Standings,
    StoredGame,
    StoredTournament,
)

if TYPE_CHECKING:
    from ratings.storage.memory import InMemoryStorage


class InMemoryResults(ResultsView):
    """Stored results by key, and a ladder's game records for exports, as the
    tables hold them (expired ones too, as DynamoDB's TTL would)."""

    def __init__(self, tables: "InMemoryStorage") -> None:
        self._tables = tables

    def get_game(self, ladder: str, game_id: str) -> StoredGame | None:
        return self._tables.games.get((ladder, game_id))

    def get_tournament(self, ladder: str, tournament_id: str) -> StoredTournament | None:
        return self._tables.tournaments.get((ladder, tournament_id))

    def stored_games(self, ladder: str) -> Iterator[StoredGame]:
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

    def __init__(self, tables: "InMemoryStorage") -> None:
        self._tables = tables

    def history(
        self, ladder: str, player_id: str, limit: int, after: EventPosition | None
    ) -> HistoryPage:
        with self._tables.lock:
            events = sorted(
                self._tables.events.get((ladder, player_id), []), key=event_key, reverse=True
            )
        if after is not None:
            events = [event for event in events if event_key(event) < after]
        return HistoryPage(events[:limit], more=len(events) > limit)


class InMemoryLeaderboard(LeaderboardView):
    """Leaderboard pages from the board the states make: listed players with a
    ranked game, in leaderboard order."""

    def __init__(self, tables: "InMemoryStorage") -> None:
        self._tables = tables

    def leaderboard(
        self, ladder: str, limit: int, after: tuple[int, str] | None
    ) -> Sequence[LeaderboardRow]:
        rows = self._tables.board(ladder)
        if after is not None:
            rows = [row for row in rows if leaderboard_order(row) > board_order(*after)]
        return rows[:limit]

    def leaderboard_before(
        self, ladder: str, limit: int, before: tuple[int, str]
    ) -> Sequence[LeaderboardRow]:
        rows = [
            row
            for row in self._tables.board(ladder)
            if leaderboard_order(row) < board_order(*before)
        ]
        return rows[-limit:] if limit > 0 else []


class InMemoryRanks(RankView):
    """Counts ahead of a position on that board, within the same read budget as
    DynamoDB's count, and the stored histograms."""

    def __init__(self, tables: "InMemoryStorage") -> None:
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

    def read_standings(self, ladder: str) -> Standings | None:
        return self._tables.standings.get(ladder)

    def leaderboard_entries(self, ladder: str) -> Iterator[tuple[str, int]]:
        for row in self._tables.board(ladder):
            yield row.player_id, row.rating


def leaderboard_order(row: LeaderboardRow) -> tuple[int, str]:
    return board_order(row.rating, row.player_id)


def event_key(event: PlayerEvent) -> EventPosition:
    return (event.at, event.event_type, event.ref_id)
