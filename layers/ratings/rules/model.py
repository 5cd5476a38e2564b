"""What every ruleset shares, standard library only: the values they take and return (small
and frozen), the shapes of game a ruleset rates (how many sides, how many players on each),
the numeric building blocks (the expected score, a side's mean rating, mean expected score and
mean score, rounding half away from zero, float32), and whether a game is ranked at all."""

import dataclasses
import math
import struct
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, NamedTuple

ExplainValue = int | float | str | None


class Span(NamedTuple):
    """A count from `min` to `max`, both included."""

    min: int
    max: int

    def covers(self, other: "Span") -> bool:
        return self.min <= other.min and other.max <= self.max

    def holds(self, count: int) -> bool:
        return self.min <= count <= self.max

    def words(self, noun: str) -> str:
        """In words, as "2 sides" or "1 to 4 players": `noun` is plural, made singular for
        exactly 1."""
        if self.min == self.max:
            return f"{self.min} {noun[:-1] if self.min == 1 else noun}"
        return f"{self.min} to {self.max} {noun}"


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

    A game has two or more *sides*, each of one or more players, and each side has a *place*
    (1 is best; equal places tie). `players` holds every player once; `sides` names each
    side's players by their index in `players`, sides in side order; `places` holds one place
    per side, in side order.

    One against one is two sides of one player, and the two-player form builds it:
    `Game(players=(a, b), winner=...)`, without sides and places, is a's side then b's, placed
    from `winner` (the winner's side 1, the other 2; None, a draw: both 1). `Game.of_sides`
    builds any shape. `winner` is the winning player's id in one against one, or None for a
    draw; in another shape `places` alone tell the result and `winner` is None (given with two
    sides and no places, it names a player of the winning side).

    `options` holds the values of the ruleset's own game fields (gammon42's cube) and
    `player_options` those of its player fields (sedma's statistics), one mapping per player
    in the order of `players` (none given: empty ones); an absent field has its declared
    default. A game whose parts do not fit together raises ValueError; whether its ruleset
    rates its shape is the ruleset's own check (`Shapes`).
    """

    players: tuple[PlayerState, ...]
    winner: str | None
    options: Mapping[str, Any] = field(default_factory=dict)
    player_options: tuple[Mapping[str, Any], ...] = ()
    sides: tuple[tuple[int, ...], ...] = ()
    places: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        players = tuple(self.players)
        count = len(players)
        player_options = tuple(self.player_options) or tuple({} for _ in players)
        if len(player_options) != count:
            raise ValueError(
                f"player_options must hold one mapping per player ({count}), "
                f"got {len(player_options)}"
            )
        sides = tuple(tuple(side) for side in self.sides) or tuple((i,) for i in range(count))
        if len(sides) < 2:
            raise ValueError(f"a game has at least two sides, got {len(sides)}")
        if not all(sides):
            raise ValueError("every side has at least one player")
        if sorted(index for side in sides for index in side) != list(range(count)):
            raise ValueError(
                f"sides must name each of the {count} players (an index into players) once, "
                f"got {sides}"
            )
        places = tuple(self.places) or _places_of_winner(players, sides, self.winner)
        if len(places) != len(sides):
            raise ValueError(
                f"places must hold one place per side ({len(sides)}), got {len(places)}"
            )
        if not all(type(place) is int and place >= 1 for place in places):
            raise ValueError(f"every place is an integer from 1 (the best), got {places}")
        if self.winner is not None:
            best = min(places)
            if places[_side_of_id(players, sides, self.winner)] != best or places.count(best) > 1:
                raise ValueError(f"winner {self.winner!r} is not alone in the best place")
        object.__setattr__(self, "players", players)
        object.__setattr__(self, "player_options", player_options)
        object.__setattr__(self, "sides", sides)
        object.__setattr__(self, "places", places)

    @classmethod
    def of_sides(
        cls,
        sides: Sequence[Sequence[PlayerState]],
        places: Sequence[int],
        options: Mapping[str, Any] | None = None,
        player_options: Sequence[Sequence[Mapping[str, Any]]] | None = None,
    ) -> "Game":
        """A game of these sides (each a sequence of players, sides in side order) and places
        (one per side). `player_options`, when given, has the shape of `sides`: each player's
        own fields. `players` is every side's players in the order sent, first side first; a
        game of two sides of one player is the very game the two-player form makes."""
        players = tuple(player for side in sides for player in side)
        indices: list[tuple[int, ...]] = []
        start = 0
        for side in sides:
            indices.append(tuple(range(start, start + len(side))))
            start += len(side)
        if player_options is None:
            flat_options: tuple[Mapping[str, Any], ...] = ()
        else:
            if [len(side) for side in player_options] != [len(side) for side in sides]:
                raise ValueError("player_options must have the shape of sides")
            flat_options = tuple(own for side in player_options for own in side)
        winner = None
        one_against_one = len(sides) == 2 and all(len(side) == 1 for side in sides)
        if one_against_one and len(places) == 2 and places[0] != places[1]:
            winner = players[0 if places[0] < places[1] else 1].player_id
        return cls(
            players=players,
            winner=winner,
            options={} if options is None else options,
            player_options=flat_options,
            sides=tuple(indices),
            places=tuple(places),
        )

    def side_sizes(self) -> tuple[int, ...]:
        """How many players each side has, in side order."""
        return tuple(len(side) for side in self.sides)

    def side_of_players(self) -> tuple[int, ...]:
        """Each player's side (its index in `sides`), in the order of `players`."""
        side_of = [0] * len(self.players)
        for side, indices in enumerate(self.sides):
            for index in indices:
                side_of[index] = side
        return tuple(side_of)

    def mean_ratings(self) -> tuple[float, ...]:
        """Each side's mean rating before the game (`mean_rating`), in side order."""
        return tuple(mean_rating([self.players[i].rating for i in side]) for side in self.sides)

    def score_of(self, index: int) -> float:
        """The mean score of the side of the player at `index` (`mean_scores`): in one against
        one 1 for the winner, 0 for the loser, 0.5 each for a draw."""
        return mean_scores(self.places)[self.side_of_players()[index]]


def _places_of_winner(
    players: tuple[PlayerState, ...], sides: tuple[tuple[int, ...], ...], winner: str | None
) -> tuple[int, ...]:
    """The places of a game of two sides with this winner (None: a draw, both first)."""
    if len(sides) != 2:
        raise ValueError(f"a game of {len(sides)} sides needs places, not a winner")
    if winner is None:
        return (1, 1)
    return (1, 2) if _side_of_id(players, sides, winner) == 0 else (2, 1)


def _side_of_id(
    players: tuple[PlayerState, ...], sides: tuple[tuple[int, ...], ...], player_id: str
) -> int:
    for side, indices in enumerate(sides):
        if any(players[index].player_id == player_id for index in indices):
            return side
    raise ValueError(f"winner must be one of the players' ids, got {player_id!r}")


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
    """The outcome of rating one game: every player's change, in the order of `Game.players`."""

    ruleset: str
    version: str
    players: tuple[PlayerChange, ...]


def frozen_explain(**values: ExplainValue) -> Mapping[str, ExplainValue]:
    return MappingProxyType(dict(values))


# The numeric building blocks the rulesets share.


def expected_score(rating: float, opponent_rating: float, divisor: float) -> float:
    """Elo expected score of a player against an opponent: 1 / (1 + 10^((Ro - R) / D)).

    The ratings are integers (one player) or sides' mean ratings (`mean_rating`): a mean of
    one player is that player's rating, exactly, so both give the same double (see "The
    arithmetic of sides" below)."""
    gap = opponent_rating - rating
    try:
        return 1.0 / (1.0 + math.pow(10.0, gap / divisor))
    except OverflowError:
        # A gap beyond what a double holds: one side is infinitely stronger.
        return 0.0 if gap > 0 else 1.0


def round_half_away(value: float) -> int:
    """Round to the nearest integer, halves away from zero (2.5 -> 3, -2.5 -> -3).

    `value - trunc(value)` is exact for every finite double, so the comparison with 0.5 is
    exact too (``floor(x + 0.5)`` is not: it sends 0.49999999999999994 to 1).
    """
    whole = math.trunc(value)
    if abs(value - whole) >= 0.5:
        whole += 1 if value > 0 else -1
    return whole


def float32(value: float) -> float:
    """`value` rounded to IEEE single precision.

    A single +, -, * or / of two float32 values computed in double and then rounded here is
    exactly the float32 operation (double has more than 2 * 24 + 2 bits), which is how the
    sedma source's single-precision arithmetic is reproduced.
    """
    try:
        return float(struct.unpack("<f", struct.pack("<f", float(value)))[0])
    except OverflowError:  # beyond float32 (or even float64): infinite, as in float32
        return math.inf if value > 0 else -math.inf


# The arithmetic of sides. One against one is two sides of one player, and every step below
# then gives the two-player formulas the very doubles they always had:
# - a sum of one term is that term (no addition is made), and x / 1 == x for every double x,
#   so a side's mean rating is float(R), its mean expected score its one expected score, its
#   mean score its one score;
# - float(R) == R while |R| <= 2**53, and for |R_A|, |R_B| <= 2**52 the double difference
#   float(R_B) - float(R_A) is the integer R_B - R_A exactly, so (R_B - R_A) / D is the same
#   correctly rounded division the integers gave. Ratings move by tens of points a game: no
#   ladder comes near 2**52.


def in_order(values: Sequence[float]) -> float:
    """The IEEE double sum of `values`, added one by one from the first (no compensation: the
    order of the additions is the rule's)."""
    total = values[0]
    for value in values[1:]:
        total += value
    return total


def mean_rating(ratings: Sequence[int]) -> float:
    """A side's mean rating: the sum of its players' ratings in the order sent, over their
    number, in double precision. One player's is their rating (`float(R)`, exact)."""
    return in_order([float(rating) for rating in ratings]) / len(ratings)


def side_score(place: int, other_place: int) -> float:
    """A side's score against one other side: 1 placed before it, 0.5 level, 0 behind."""
    if place < other_place:
        return 1.0
    return 0.5 if place == other_place else 0.0


def mean_expected_scores(
    means: Sequence[float], expected: Callable[[float, float], float]
) -> tuple[float, ...]:
    """Each side's mean expected score: its expected score against every other side (by the
    curve `expected`, from the sides' mean ratings), summed in side order, over T - 1. Each is
    computed by the formula, never as 1 - another's. Two sides: each has its one term."""
    return tuple(
        in_order([expected(mean, other) for u, other in enumerate(means) if u != s])
        / (len(means) - 1)
        for s, mean in enumerate(means)
    )


def mean_scores(places: Sequence[int]) -> tuple[float, ...]:
    """Each side's mean score: its score against every other side (`side_score`), summed in
    side order, over T - 1. Two sides: 1 and 0, or 0.5 each."""
    return tuple(
        in_order([side_score(place, other) for u, other in enumerate(places) if u != s])
        / (len(places) - 1)
        for s, place in enumerate(places)
    )


@dataclass(frozen=True)
class Shapes:
    """The games a ruleset rates: how many sides, how many players on each and in all, whether
    every side has the same number of players, and whether sides may tie (share a place)."""

    sides: Span
    players_per_side: Span
    max_players: int
    equal_sides: bool = False
    ties: bool = False

    def words(self) -> str:
        """As "2 to 8 sides of 1 to 8 players, at most 16 players in all, ties allowed"."""
        parts = [f"{self.sides.words('sides')} of {self.players_per_side.words('players')}"]
        if self.max_players < self.sides.max * self.players_per_side.max:
            parts.append(f"at most {self.max_players} players in all")
        if self.equal_sides and self.players_per_side.min < self.players_per_side.max:
            parts.append("the same number on each side")
        parts.append("ties allowed" if self.ties else "without ties")
        return ", ".join(parts)

    def problem(
        self, players_per_side: Sequence[int], places: Sequence[int] | None = None
    ) -> str | None:
        """None when these are a game's sides (how many players each has, in side order) and,
        when given, places that the ruleset rates; else what of them it does not rate."""
        count = len(players_per_side)
        if not self.sides.holds(count):
            return f"this game has {Span(count, count).words('sides')}"
        for size in players_per_side:
            if not self.players_per_side.holds(size):
                return f"this game has a side of {Span(size, size).words('players')}"
        if sum(players_per_side) > self.max_players:
            return f"this game has {sum(players_per_side)} players"
        if self.equal_sides and len(set(players_per_side)) > 1:
            sizes = " and ".join(str(size) for size in players_per_side)
            return f"this game has sides of {sizes} players"
        if places is not None:
            if len(places) != count:
                return f"this game has {len(places)} places for {count} sides"
            if not self.ties and len(set(places)) < count:
                return "this game has sides tied on a place"
        return None

    def refusal(
        self, ruleset: str, players_per_side: Sequence[int], places: Sequence[int] | None = None
    ) -> str | None:
        """None when `ruleset` (its name) rates such a game; else a sentence saying what it
        rates and what the game has that it does not."""
        problem = self.problem(players_per_side, places)
        return None if problem is None else f"{ruleset} rates {self.words()}: {problem}"

    def check(self, ruleset: str, game: Game) -> None:
        """ValueError, with the refusal's sentence, unless `ruleset` rates `game`'s shape."""
        refusal = self.refusal(ruleset, game.side_sizes(), game.places)
        if refusal is not None:
            raise ValueError(refusal)


#: The one shape every ruleset rated before teams: two sides of one player each.
ONE_AGAINST_ONE = Shapes(Span(2, 2), Span(1, 1), max_players=2)


class EloCurve:
    """For a ruleset that is a frozen dataclass with a `divisor`: Elo's expected score with
    it, and its parameters for callers (GET /v1/ladders) read from its own fields, so what is
    shown is what is computed with."""

    divisor: float

    def expected_score(self, rating: float, opponent_rating: float) -> float:
        return expected_score(rating, opponent_rating, self.divisor)

    def parameters(self) -> Mapping[str, object]:
        this: Any = self
        shown: dict[str, object] = {
            field.name: getattr(self, field.name)
            for field in dataclasses.fields(this)
            if field.name not in ("version", "starting_rating")
        }
        shown.update(self.shown_parameters())
        return shown

    def shown_parameters(self) -> Mapping[str, object]:
        """Parameters shown otherwise than as their field, or besides the fields."""
        return {}


# Whether a game changes ratings at all: ranked, or recorded with the reason it is not.

#: Only games in this mode rate; the others are recorded with reason "mode".
RANKED_MODE = "ranked"
MODES = ("ranked", "boosted", "tournament")

#: The reasons a game is unranked, in the order they are checked.
UNRANKED_REASONS = ("season_ended", "sanctioned", "mode", "bot", "shared_network")


def unranked_reason(
    mode: str,
    bots: Sequence[bool],
    networks: Sequence[str | None],
    sanctioned: Sequence[bool] = (),
    season_ended: bool = False,
    sides: Sequence[int] | None = None,
) -> str | None:
    """None when the game is ranked, else the first reason it is not.

    One entry per player, in the game's order: `bots` flags each player as a bot; `networks`
    is each player's network fingerprint (None or empty when not reported); `sides` is each
    player's side (None: every player a side of their own, as in one against one). Two players
    on different sides with the same non-empty fingerprint are treated as one person playing
    themself on two devices; teammates on one network are normal. `sanctioned` flags each
    player who is under a sanction in the ladder (empty: nobody): nothing they play rates,
    whatever the mode. `season_ended`: the game was played before the ladder's current season
    began, so it rates nobody; it comes first.
    """
    count = len(networks)
    side_of = range(count) if sides is None else sides
    if len(bots) != count or len(side_of) != count or (sanctioned and len(sanctioned) != count):
        raise ValueError("bots, networks, sides and sanctioned hold one entry per player each")
    if season_ended:
        return "season_ended"
    if any(sanctioned):
        return "sanctioned"
    if mode != RANKED_MODE:
        return "mode"
    if any(bots):
        return "bot"
    first_side: dict[str, int] = {}
    for network, side in zip(networks, side_of, strict=True):
        if network and first_side.setdefault(network, side) != side:
            return "shared_network"
    return None
