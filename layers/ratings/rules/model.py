"""The values the rulesets take and return: small, frozen, standard library only."""

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

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
class Game:
    """One finished game as the rules see it, its input already checked against the ruleset.

    `winner` is the winning player's id, or None for a draw. `options` holds the values of the
    ruleset's own game fields (gammon42's cube) and `player_options` those of its player
    fields (sedma's statistics), one mapping per player in the order of `players`; an absent
    field has its declared default.
    """

    players: tuple[PlayerState, PlayerState]
    winner: str | None
    options: Mapping[str, Any] = field(default_factory=dict)
    player_options: tuple[Mapping[str, Any], Mapping[str, Any]] = field(
        default_factory=lambda: ({}, {})
    )

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
