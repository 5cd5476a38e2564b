"""Rating a checked game: whether it is ranked, the rules' verdict, and the result document.
Shared by submitting a game and previewing one; nothing here reads or writes storage."""

from collections.abc import Sequence

from ratings.rules import Game, GameInput, Ladder, PlayerState, Rating, Ruleset, unranked_reason
from ratings.service.game_result import GameResult
from ratings.service.player import Player


def why_unranked(game: GameInput, players: Sequence[Player]) -> str | None:
    """The reason the game does not rate (a sanctioned player, mode, a bot, a shared
    network), or None. `players` are the game's players as read, in the game's order."""
    bots = (game.players[0].bot, game.players[1].bot)
    networks = (game.players[0].network, game.players[1].network)
    sanctioned = (players[0].sanctioned, players[1].sanctioned)
    return unranked_reason(game.mode, bots, networks, sanctioned)


def evaluate(
    ladder: Ladder,
    ruleset: Ruleset,
    game: GameInput,
    states: Sequence[PlayerState],
    reason: str | None,
) -> tuple[GameResult, Rating | None]:
    """The result of a game under `ruleset`, and the rating unless `reason` (why the game is
    unranked) is given."""
    winner = game.winner
    if winner is not None:  # the winner as resolved (an anonymous id may be an account)
        winner = states[[p.player_id for p in game.players].index(winner)].player_id
    rules_game = Game(
        players=(states[0], states[1]),
        winner=winner,
        options=game.options,
        player_options=(game.players[0].options, game.players[1].options),
    )
    rating = None if reason else ruleset.rate(rules_game)
    result = GameResult.of(ladder.ladder_id, ruleset, game, states, winner, reason, rating)
    return result, rating
