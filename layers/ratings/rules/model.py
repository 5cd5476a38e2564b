"""The values the rulesets take and return: small, frozen, standard library only."""

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from ratings.rules.errors import InvalidInput

ExplainValue = int | float | str | None


@dataclass(frozen=True)
class PlayerState:
    """What a ruleset may know about a player before a game.

    `ranked_games` counts every ranked game of the player in the ladder; `recent_ranked_games`
    only those in the ruleset's recent window before the game (gammon42's 7 days).
    """

    player_id: str
    rating: int
    ranked_games: int = 0
    recent_ranked_games: int = 0


@dataclass(frozen=True)
class SedmaStats:
    """A sedma player's statistics for one game; every count is a non-negative integer."""

    bad_moves: int = 0
    rounds_won_16: int = 0
    rounds_won_24: int = 0
    rounds_won_4_last: int = 0


SEDMA_STAT_FIELDS = ("bad_moves", "rounds_won_16", "rounds_won_24", "rounds_won_4_last")


@dataclass(frozen=True)
class Game:
    """One finished game as the rules see it.

    `winner` is the winning player's id, or None for a draw. `cube` is gammon42's doubling
    cube; `stats` holds sedma's per-player statistics in the order of `players`.
    """

    players: tuple[PlayerState, PlayerState]
    winner: str | None
    cube: int = 1
    stats: tuple[SedmaStats, SedmaStats] | None = None

    def score_of(self, index: int) -> float:
        """1 for the winner, 0 for the loser, 0.5 each for a draw."""
        if self.winner is None:
            return 0.5
        return 1.0 if self.players[index].player_id == self.winner else 0.0


@dataclass(frozen=True)
class PlayerChange:
    """One player's side of a rated game, with the formula's inputs in `explain`."""

    player_id: str
    rating_before: int
    rating_after: int
    explain: Mapping[str, ExplainValue] = field(default_factory=lambda: MappingProxyType({}))

    @property
    def delta(self) -> int:
        return self.rating_after - self.rating_before


@dataclass(frozen=True)
class Rating:
    """The outcome of rating one game: both players' changes, in the order of the game."""

    ruleset: str
    version: str
    players: tuple[PlayerChange, PlayerChange]


def frozen_explain(**values: ExplainValue) -> Mapping[str, ExplainValue]:
    return MappingProxyType(dict(values))


def require_non_negative_int(value: object, field_name: str) -> int:
    """`value` as an int, or InvalidInput naming `field_name` (bools are not counts)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise InvalidInput(field_name, f"{field_name} must be an integer >= 0")
    return value


def validate_players(game: Game, *, draws_allowed: bool, ruleset: str) -> None:
    """The checks every ruleset shares: two distinct, well-formed players and a real winner."""
    for index, player in enumerate(game.players):
        if not isinstance(player.player_id, str) or not player.player_id:
            raise InvalidInput(
                f"players[{index}].id", f"players[{index}].id must be a non-empty string"
            )
        if isinstance(player.rating, bool) or not isinstance(player.rating, int):
            raise InvalidInput(
                f"players[{index}].rating", f"players[{index}].rating must be an integer"
            )
        require_non_negative_int(player.ranked_games, f"players[{index}].ranked_games")
        require_non_negative_int(
            player.recent_ranked_games, f"players[{index}].recent_ranked_games"
        )
    first, second = game.players
    if first.player_id == second.player_id:
        raise InvalidInput(
            "players[1].id",
            f"players[1].id must differ from players[0].id (both are {first.player_id!r}); "
            "a player cannot play themself",
        )
    if game.winner is None:
        if not draws_allowed:
            raise InvalidInput(
                "winner",
                f"winner must be one of the two players' ids: ruleset {ruleset} has no draws",
            )
    elif game.winner not in (first.player_id, second.player_id):
        allowed = "one of the two players' ids" + (" or null for a draw" if draws_allowed else "")
        raise InvalidInput("winner", f"winner must be {allowed}, got {game.winner!r}")
