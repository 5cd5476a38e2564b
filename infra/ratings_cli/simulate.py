"""Synthetic games from hidden true strengths, rated as they happen, in the export format.

Each player gets a hidden strength (normal, mean 0, standard deviation `spread`) and an
activity (log-normal: some players play much more than others). A game pairs two players
drawn by activity; the stronger player by `gap = s_a - s_b` wins with probability

    p = luck / 2 + (1 - luck) / (1 + 10^(-gap / true_divisor))

`true_divisor` is how much single games depend on skill at all: 1200 is the backgammon the
article describes, where dice flatten the curve; 400 is chess-like. `luck` is an extra share
of games that are pure coin flips (0 by default). Near gap 0, luck L on a curve of divisor D
behaves like divisor D / (1 - L): `--true-divisor 400 --luck 0.667` is roughly "chess skill
with two games in three decided by dice", but its curve is not a logistic one at large gaps.

Games are spread evenly over `days` and rated in order under the chosen ruleset, so every
result carries the rating_before and rating_after the service would have stored.
"""

import copy
import math
import random
from bisect import bisect_left
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from itertools import accumulate
from typing import Any

from ratings.declare.kinds import Field
from ratings.rules import Ruleset
from ratings.service.game_result import GameResult, PlayerResult, RatingOutcome
from ratings.service.results import json_of
from ratings_cli.records import GameLine, Record
from ratings_cli.replay import Replayer


@dataclass(frozen=True)
class Simulation:
    players: int = 100
    games: int = 40_000
    luck: float = 0.0
    true_divisor: float = 1200.0
    spread: float = 300.0
    activity: float = 0.5
    days: float = 56.0
    seed: int = 1
    start: datetime = datetime(2026, 1, 1, tzinfo=UTC)

    def check(self) -> None:
        if self.players < 2:
            raise ValueError("--players must be at least 2")
        if self.games < 0:
            raise ValueError("--games must be 0 or more")
        if not 0.0 <= self.luck <= 1.0:
            raise ValueError("--luck must be between 0 and 1")
        if self.true_divisor <= 0:
            raise ValueError("--true-divisor must be positive")
        if self.spread < 0 or self.activity < 0:
            raise ValueError("--spread and --activity must be 0 or more")
        if self.days <= 0:
            raise ValueError("--days must be positive")


def win_probability(gap: float, true_divisor: float, luck: float) -> float:
    """P(the player ahead by `gap` true points wins)."""
    exponent = -gap / true_divisor
    skill = 0.0 if exponent > 300 else 1.0 / (1.0 + 10.0**exponent)
    return luck / 2 + (1 - luck) * skill


class Simulator:
    """Draws the players once, then yields rated games; deterministic for a seed."""

    def __init__(self, simulation: Simulation, ladder_id: str, ruleset: Ruleset) -> None:
        simulation.check()
        self.simulation = simulation
        self.ladder_id = ladder_id
        self.ruleset = ruleset
        self.rng = random.Random(simulation.seed)
        width = len(str(simulation.players))
        self.ids = [f"p{number:0{width}d}" for number in range(1, simulation.players + 1)]
        self.strengths = {
            player_id: self.rng.gauss(0.0, simulation.spread) for player_id in self.ids
        }
        activity = [math.exp(self.rng.gauss(0.0, simulation.activity)) for _ in self.ids]
        self._cumulative = list(accumulate(activity))
        self.replayer = Replayer(ladder_id, ruleset)

    def _pick(self) -> int:
        point = self.rng.random() * self._cumulative[-1]
        return min(bisect_left(self._cumulative, point), len(self.ids) - 1)

    def _draw(self, entry: Field) -> Any:
        """A value of one of the ruleset's own fields: drawn from its typical values when
        it declares them (gammon42's cube), else its default."""
        if not entry.typical:
            return copy.deepcopy(entry.default)
        values = [value for value, _weight in entry.typical]
        cumulative = list(accumulate(weight for _value, weight in entry.typical))
        point = self.rng.random() * cumulative[-1]
        return values[bisect_left(cumulative, point)]

    def games(self) -> Iterator[Record]:
        simulation = self.simulation
        step = timedelta(days=simulation.days) / max(simulation.games, 1)
        digits = len(str(max(simulation.games, 1)))
        for number in range(simulation.games):
            first = self._pick()
            second = self._pick()
            while second == first:
                second = self._pick()
            a, b = self.ids[first], self.ids[second]
            gap = self.strengths[a] - self.strengths[b]
            a_wins = self.rng.random() < win_probability(
                gap, simulation.true_divisor, simulation.luck
            )
            played_at = simulation.start + step * (number + 0.5)
            record = self._record(number, digits, played_at, a, b, a if a_wins else b)
            yield self.replayer.rate(GameLine(number + 1, played_at, record))

    def _record(
        self, number: int, digits: int, played_at: datetime, a: str, b: str, winner: str
    ) -> Record:
        """The game as a stored result, before rating (the replay rates it)."""
        not_yet = RatingOutcome(0, 0, 0, None)
        players = [
            PlayerResult(
                id=player_id,
                outcome=not_yet,
                bot=False,
                options={entry.name: self._draw(entry) for entry in self.ruleset.player_fields},
            )
            for player_id in (a, b)
        ]
        game = GameResult(
            game_id=f"sim-{number + 1:0{digits}d}",
            ladder=self.ladder_id,
            played_at=played_at,
            ruleset=self.ruleset.name,
            ruleset_version=self.ruleset.version,
            ranked=True,
            unranked_reason=None,
            winner=winner,
            mode="ranked",
            players=[players[0], players[1]],
            options={entry.name: self._draw(entry) for entry in self.ruleset.game_fields},
        )
        return json_of(game)
