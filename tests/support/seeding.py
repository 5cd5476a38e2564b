"""Players put in place through the storage port alone, with no use case: for the tests that
need many players on a board before they look at it."""

import itertools
from collections.abc import Sequence
from datetime import timedelta

from ratings.service.player import Player
from ratings.service.ports import Storage
from ratings.service.stored import StoredGame
from support.games import NOW

_batches = itertools.count()


def seed_states(
    storage: Storage, states: Sequence[tuple[str, int, int]], ladder: str = "backgammon"
) -> None:
    """Store (player_id, rating, ranked_games) states of new players through the port, 25 to
    a commit (each with a game record of its own, kept 30 days)."""
    for start in range(0, len(states), 25):
        players = [
            Player(ladder, player_id, rating, ranked_games, version=1)
            for player_id, rating, ranked_games in states[start : start + 25]
        ]
        record = StoredGame(
            ladder, f"seed-states-{next(_batches)}", "seed", {}, NOW + timedelta(30)
        )
        storage.unit_of_work().commit_game(record, players, [])
