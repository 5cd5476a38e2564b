"""Games for the rating rules alone (no service): one player beating another under a ruleset,
two players at the same rating, and sedma players' stats as a game's player options."""

from dataclasses import asdict
from typing import Any

from ratings.rules import Game, PlayerChange, PlayerState, Rating, Ruleset


def play(
    ruleset: Ruleset,
    winner_rating: int,
    loser_rating: int,
    *,
    cube: int = 1,
    winner_recent: int = 0,
    loser_recent: int = 0,
    winner_first: bool = True,
) -> tuple[PlayerChange, PlayerChange, Rating]:
    """Rate one game; return (winner's change, loser's change, the whole Rating)."""
    winner = PlayerState(
        "winner", winner_rating, ranked_games=winner_recent + 7, recent_ranked_games=winner_recent
    )
    loser = PlayerState(
        "loser", loser_rating, ranked_games=loser_recent + 7, recent_ranked_games=loser_recent
    )
    players = (winner, loser) if winner_first else (loser, winner)
    rating = ruleset.rate(Game(players=players, winner="winner", options={"cube": cube}))
    by_id = {change.player_id: change for change in rating.players}
    # The result lists the players in the order of the game.
    assert [c.player_id for c in rating.players] == [p.player_id for p in players]
    for change, state in zip(rating.players, players, strict=True):
        assert change.rating_before == state.rating
    return by_id["winner"], by_id["loser"], rating


def level_game(rating: int, winner: str | None, ranked_games: tuple[int, int] = (0, 0)) -> Game:
    """Players "A" and "B" both at `rating`, with these counts of ranked games (classic's K
    depends on them); `winner` is "A", "B", or None for a draw."""
    games_a, games_b = ranked_games
    players = (
        PlayerState("A", rating, ranked_games=games_a),
        PlayerState("B", rating, ranked_games=games_b),
    )
    return Game(players=players, winner=winner)


def with_stats(first: Any, second: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """A rules `Game`'s player_options for two sedma players' SedmaStats."""
    return {"stats": asdict(first)}, {"stats": asdict(second)}
