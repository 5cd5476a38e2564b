"""What every ruleset offers the rest of the service."""

from collections.abc import Mapping
from typing import Protocol

from ratings.declare.kinds import Field
from ratings.rules.model import Game, PlayerState, Rating


class Ruleset(Protocol):
    """A rating formula at one version, with its parameters fixed.

    Implementations are frozen dataclasses: changing a parameter makes a new ruleset, and a
    ruleset is hashable (its request bodies are built once per ruleset).
    """

    def __hash__(self) -> int: ...

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

    @property
    def game_fields(self) -> tuple[Field, ...]:
        """The ruleset's own fields of a game (they reach `rate` in `Game.options`)."""
        ...

    @property
    def player_fields(self) -> tuple[Field, ...]:
        """The ruleset's own fields of each player in a game (in `Game.player_options`)."""
        ...

    @property
    def state_overrides(self) -> tuple[str, ...]:
        """The PlayerState counters a preview may set besides the rating: those K depends on."""
        ...

    @property
    def explain_fields(self) -> tuple[Field, ...]:
        """What `PlayerChange.explain` holds for each rated player (as an answer shows it)."""
        ...

    def expected_score(self, rating: int, opponent_rating: int) -> float:
        """A player's expected score against an opponent under this ruleset's curve."""
        ...

    def rate(self, game: Game) -> Rating:
        """Both players' new ratings with an explanation. The game's fields were checked
        against this ruleset's declarations when it was parsed (`rules.submission`)."""
        ...
