"""What every ruleset offers the rest of the service."""

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Protocol

from ratings.declare.kinds import Field
from ratings.rules.model import ONE_AGAINST_ONE, Game, PlayerState, Rating, Shapes


class Ruleset(Protocol):
    """A rating formula at one version, with its parameters fixed.

    Implementations are frozen dataclasses: changing a parameter makes a new ruleset, and a
    ruleset is hashable (its request bodies are built once per ruleset).

    A ruleset that rates more than one against one declares it in an attribute `shapes` (a
    `Shapes`: sides, players per side, players in all, equal sides, ties), read with
    `shapes_of`; one that declares none rates two sides of one player, tied only when it
    allows draws. It is not a member here so that a ruleset written before teams still is one.
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
        """Every player's new rating with an explanation, in the order of `game.players`. The
        game's fields were checked against this ruleset's declarations when it was parsed
        (`rules.submission`); a shape or a tie the ruleset does not rate (`shapes_of`) raises
        ValueError."""
        ...


def shapes_of(ruleset: Ruleset) -> Shapes:
    """The games `ruleset` rates: its own `shapes`, or one against one (tied when it allows
    draws) for a ruleset that declares none."""
    declared = getattr(ruleset, "shapes", None)
    if isinstance(declared, Shapes):
        return declared
    return replace(ONE_AGAINST_ONE, ties=ruleset.draws_allowed)


def shape_refusal(
    ruleset: Ruleset, players_per_side: Sequence[int], places: Sequence[int] | None = None
) -> str | None:
    """None when `ruleset` rates a game with sides of these sizes (in side order) and, when
    given, these places; else a sentence saying what it rates (for an answer's message)."""
    return shapes_of(ruleset).refusal(ruleset.name, players_per_side, places)
