"""Read a stored result: a game's (while its record is kept) or a tournament's awards."""

from ratings.service.errors import NotFound
from ratings.service.ladders import Ladders
from ratings.service.parameters import require_id
from ratings.service.ports import ResultsView
from ratings.service.settings import Clock
from ratings.service.stored import JsonObject


class ReadGame:
    def __init__(self, ladders: Ladders, results: ResultsView, clock: Clock) -> None:
        self.ladders = ladders
        self.results = results
        self.clock = clock

    def __call__(self, ladder_id: str, game_id: str) -> JsonObject:
        ladder = self.ladders.get(ladder_id)
        require_id(game_id, "game_id")
        stored = self.results.get_game(ladder.ladder_id, game_id)
        if stored is None or stored.expires_at <= self.clock():
            raise NotFound(f"game {game_id!r} is not stored in ladder {ladder_id!r}")
        return stored.result


class ReadTournament:
    def __init__(self, ladders: Ladders, results: ResultsView) -> None:
        self.ladders = ladders
        self.results = results

    def __call__(self, ladder_id: str, tournament_id: str) -> JsonObject:
        ladder = self.ladders.get(ladder_id)
        require_id(tournament_id, "tournament_id")
        stored = self.results.get_tournament(ladder.ladder_id, tournament_id)
        if stored is None:
            raise NotFound(f"tournament {tournament_id!r} has not been awarded in {ladder_id!r}")
        return stored.result
