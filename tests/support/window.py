"""The recent-games window tests' player, on every storage: the hero, whose week of games a
test builds up (`support.games.play_series`), then rates one more game of theirs."""

from datetime import datetime
from typing import Any

from ratings.service.facade import RatingService
from support.games import game

HERO = "hero"


def rate_hero(
    service: RatingService, at: datetime | None, game_id: str = "target"
) -> dict[str, Any]:
    """The hero beats a newcomer at `at` on backgammon; the hero's side of the result."""
    submitted = service.submit_game(
        "backgammon", game(game_id, HERO, f"rookie-{game_id}", played_at=at)
    )
    assert submitted.created
    hero, rookie = submitted.result["players"]  # in the game's order
    assert (hero["id"], rookie["id"]) == (HERO, f"rookie-{game_id}")
    # The newcomer has no games at all: their own K stays 32 whatever the hero's week.
    assert rookie["explain"]["recent_ranked_games"] == 0
    assert rookie["explain"]["k"] == 32
    return dict(hero)
