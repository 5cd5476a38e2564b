"""The results view on DynamoDB: a stored game's or tournament's result (one consistent
GetItem), and every stored game of a ladder for exports (a scan, never on a request path).
"""

from collections.abc import Iterator

from ratings.service.ports import ResultsView
from ratings.service.stored import StoredGame, StoredTournament
from ratings.storage.dynamodb.layout import (
    GAME_SK,
    TOURNAMENT_SK,
    GameItem,
    RatingsItem,
    TournamentItem,
    game_key,
    stored_game_of,
    stored_tournament_of,
    tournament_key,
)
from ratings.storage.dynamodb.table import BoundTable, transient_as_storage_error


class DynamoResults(ResultsView):
    """Game and tournament records by key (a consistent GetItem each), and a scan of
    a ladder's game records for exports."""

    def __init__(self, table: BoundTable) -> None:
        self._table = table

    def get_game(self, ladder: str, game_id: str) -> StoredGame | None:
        item = self._table.get(game_key(ladder, game_id), GAME_SK)
        return stored_game_of(ladder, game_id, item) if isinstance(item, GameItem) else None

    def get_tournament(self, ladder: str, tournament_id: str) -> StoredTournament | None:
        item = self._table.get(tournament_key(ladder, tournament_id), TOURNAMENT_SK)
        if not isinstance(item, TournamentItem):
            return None
        return stored_tournament_of(ladder, tournament_id, item)

    def stored_games(self, ladder: str) -> Iterator[StoredGame]:
        # A scan reads the whole table: for exports and analysis, never on a request path.
        prefix = game_key(ladder, "")
        condition = RatingsItem.pk.startswith(prefix) & (RatingsItem.sk == GAME_SK)
        with transient_as_storage_error():
            for item in self._table.scan(condition):
                if isinstance(item, GameItem):
                    yield stored_game_of(ladder, item.pk.removeprefix(prefix), item)
