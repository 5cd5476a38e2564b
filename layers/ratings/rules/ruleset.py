"""What every ruleset offers the rest of the service."""

from collections.abc import Mapping
from typing import Protocol

from ratings.rules.model import Game, PlayerState, Rating


class Ruleset(Protocol):
    """A rating formula at one version, with its parameters fixed.

    Implementations are frozen dataclasses: changing a parameter makes a new ruleset.
    """

    @property
    def name(self) -> str: ...

    @property
    def version(self) -> str: ...

    @property
    def starting_rating(self) -> int: ...

    @property
    def draws_allowed(self) -> bool: ...

    @property
    def recent_games_needed(self) -> int | None:
        """How many recent ranked games the K rule can tell apart (None: it never looks)."""
        ...

    @property
    def recent_window_days(self) -> int:
        """Length of the window in which ranked games count as recent."""
        ...

    def k_for(self, state: PlayerState) -> int:
        """The K a player in `state` would play their next game with."""
        ...

    def provisional(self, state: PlayerState) -> bool:
        """Whether the player's rating is still settling (the fast K of a new player)."""
        ...

    def parameters(self) -> Mapping[str, object]:
        """The parameters as plain JSON-ready values, for callers who want to see the rules."""
        ...

    def validate(self, game: Game) -> None:
        """Raise InvalidInput when the game cannot be rated under this ruleset."""
        ...

    def rate(self, game: Game) -> Rating:
        """Validate the game and return both players' new ratings with an explanation."""
        ...
