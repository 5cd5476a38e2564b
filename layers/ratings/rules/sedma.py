"""Ruleset sedma: the card game's Elo, K by rating band, the score shaped by the game's play;
one against one or two teams of the same size.

The source computes the bonus, malus and score in single precision, so they are reproduced in
float32 here; the expected scores and the new rating are double precision, and the new rating
(not the change) is rounded half to even. A team plays as one: its mean rating gives the
expected score, its rounds (the sums of its players') the bonus; bad moves stay each player's.
"""

from collections.abc import Mapping
from dataclasses import asdict, dataclass

from ratings.declare.kinds import NUMBER, Field, Integer, Object
from ratings.rules.model import (
    EloCurve,
    Game,
    PlayerChange,
    PlayerState,
    Rating,
    Shapes,
    Span,
    float32,
    frozen_explain,
    mean_expected_scores,
)

NAME = "sedma"

#: The source leaves the start open; 1000 puts newcomers in the fastest K band.
STARTING_RATING = 1000
DIVISOR = 400
#: (rating below which the band applies, K), lowest band first.
K_BANDS: tuple[tuple[int, int], ...] = ((1200, 40), (1800, 32), (2200, 24))
#: K from 2200 up.
TOP_K = 16

#: Bonus per round won with 16 points, and its cap.
BONUS_PER_ROUND_16 = float32(0.05)
MAX_BONUS_16 = float32(0.15)
#: Bonus per round won with 24 points, and its cap.
BONUS_PER_ROUND_24 = float32(0.1)
MAX_BONUS_24 = float32(0.2)
#: Bonus per round won with four points and the last trick, and its cap.
BONUS_PER_ROUND_4_LAST = float32(0.03)
MAX_BONUS_4_LAST = float32(0.09)
#: Share of the bonus a losing player still gets.
LOSER_BONUS_SHARE = float32(0.1)
#: Penalty per bad move, and its cap.
MALUS_PER_BAD_MOVE = float32(0.02)
MAX_MALUS = float32(0.3)
#: The largest count a caller may send for one statistic.
MAX_STAT = 1_000_000
#: The games sedma rates: two sides of the same size, one to four players each, and a winner.
#: The card game is played one against one or by partners; four a side (8 players, half of
#: classic's 16) leaves room for larger tables within one game's write.
SHAPES = Shapes(
    sides=Span(2, 2), players_per_side=Span(1, 4), max_players=8, equal_sides=True, ties=False
)


@dataclass(frozen=True)
class SedmaStats:
    """A sedma player's statistics for one game; every count is a non-negative integer."""

    bad_moves: int = 0
    rounds_won_16: int = 0
    rounds_won_24: int = 0
    rounds_won_4_last: int = 0


_STAT_DESCRIPTIONS = {
    "bad_moves": "Bad moves the player made (each costs 0.02 of the score, at most 0.3)",
    "rounds_won_16": "Rounds won with 16 points (0.05 each, at most 0.15)",
    "rounds_won_24": "Rounds won with 24 points (0.1 each, at most 0.2)",
    "rounds_won_4_last": "Rounds won with four points and the last trick (0.03 each, at most 0.09)",
}
STATS = Object(
    tuple(
        Field(name, Integer(0, MAX_STAT), description, default=0)
        for name, description in _STAT_DESCRIPTIONS.items()
    ),
    label="sedma statistics",
    title="SedmaStats",
)
#: The field sedma adds to each player of a game; absent, every count is 0.
PLAYER_FIELDS = (
    Field(
        "stats",
        STATS,
        "The player's statistics in this game (a loser keeps a tenth of the bonus)",
        default=asdict(SedmaStats()),
    ),
)

EXPLAIN_FIELDS = (
    Field(
        "expected",
        NUMBER,
        "The player's expected score, 1 / (1 + 10^((Ro - R) / 400)), with teams from the "
        "sides' mean ratings",
    ),
    Field("k", NUMBER, "The player's K by rating band: 40 below 1200, 32, 24, 16 from 2200"),
    Field("score", NUMBER, "The shaped score: base (1 or 0) + bonus - malus, within 0..1"),
    Field("bonus", NUMBER, "The round bonus (float32), with teams the side's"),
    Field("malus", NUMBER, "The bad-move penalty (float32), the player's own"),
)


def _f32_min(count: int, per_unit: float, cap: float) -> float:
    return min(float32(float32(count) * per_unit), cap)


def bonus(stats: SedmaStats, won: bool) -> float:
    """Sum of the capped round bonuses, times 1 for the winner and 0.1 for the loser (float32)."""
    total = float32(
        _f32_min(stats.rounds_won_16, BONUS_PER_ROUND_16, MAX_BONUS_16)
        + _f32_min(stats.rounds_won_24, BONUS_PER_ROUND_24, MAX_BONUS_24)
    )
    total = float32(
        total + _f32_min(stats.rounds_won_4_last, BONUS_PER_ROUND_4_LAST, MAX_BONUS_4_LAST)
    )
    return total if won else float32(total * LOSER_BONUS_SHARE)


def malus(stats: SedmaStats) -> float:
    """0.02 per bad move, at most 0.3 (float32)."""
    return _f32_min(stats.bad_moves, MALUS_PER_BAD_MOVE, MAX_MALUS)


def score(won: bool, player_bonus: float, player_malus: float) -> float:
    """clamp(base + bonus - malus, 0, 1) with base 1 for the winner and 0 for the loser."""
    base = 1.0 if won else 0.0
    shaped = float32(float32(base + player_bonus) - player_malus)
    return min(max(shaped, 0.0), 1.0)


@dataclass(frozen=True)
class Sedma(EloCurve):
    """sedma at its only version so far."""

    version: str = "1.0"
    divisor: float = DIVISOR
    k_bands: tuple[tuple[int, int], ...] = K_BANDS
    top_k: int = TOP_K
    starting_rating: int = STARTING_RATING

    name = NAME
    draws_allowed = False
    recent_games_needed = None
    recent_window_days = 0
    game_fields = ()
    player_fields = PLAYER_FIELDS
    state_overrides = ()
    explain_fields = EXPLAIN_FIELDS
    shapes = SHAPES

    def k_for(self, state: PlayerState) -> int:
        for below, k in self.k_bands:
            if state.rating < below:
                return k
        return self.top_k

    def provisional(self, state: PlayerState) -> bool:
        # Bands follow the rating, not experience: nobody is provisional in sedma.
        return False

    def shown_parameters(self) -> Mapping[str, object]:
        # The float32 constants as the decimals the source writes them with.
        constants = {
            "bonus_per_round_16": BONUS_PER_ROUND_16,
            "bonus_per_round_24": BONUS_PER_ROUND_24,
            "bonus_per_round_4_last": BONUS_PER_ROUND_4_LAST,
            "max_bonus_16": MAX_BONUS_16,
            "max_bonus_24": MAX_BONUS_24,
            "max_bonus_4_last": MAX_BONUS_4_LAST,
            "loser_bonus_share": LOSER_BONUS_SHARE,
            "malus_per_bad_move": MALUS_PER_BAD_MOVE,
            "max_malus": MAX_MALUS,
        }
        return {
            "k_bands": [{"below": below, "k": k} for below, k in self.k_bands],
            **{name: _decimal(value) for name, value in constants.items()},
        }

    def rate(self, game: Game) -> Rating:
        SHAPES.check(NAME, game)
        stats = [SedmaStats(**options.get("stats", {})) for options in game.player_options]
        # Each side's expectation by the formula itself, not 1 - the other's, as the source does.
        expected = mean_expected_scores(game.mean_ratings(), self.expected_score)
        won = [place == min(game.places) for place in game.places]
        # A side's rounds are its players' together (a player's own, one against one).
        side_bonus = [
            bonus(
                SedmaStats(
                    rounds_won_16=sum(stats[i].rounds_won_16 for i in side),
                    rounds_won_24=sum(stats[i].rounds_won_24 for i in side),
                    rounds_won_4_last=sum(stats[i].rounds_won_4_last for i in side),
                ),
                won[index],
            )
            for index, side in enumerate(game.sides)
        ]
        changes = tuple(
            self._change(player, stats[index], won[side], side_bonus[side], expected[side])
            for index, (player, side) in enumerate(
                zip(game.players, game.side_of_players(), strict=True)
            )
        )
        return Rating(NAME, self.version, changes)

    def _change(
        self,
        player: PlayerState,
        stats: SedmaStats,
        won: bool,
        side_bonus: float,
        expected: float,
    ) -> PlayerChange:
        player_malus = malus(stats)
        player_score = score(won, side_bonus, player_malus)
        k = self.k_for(player)
        # Python's round() takes halves to the even neighbour, as the source's rounding does.
        rating_after = round(player.rating + k * (player_score - expected))
        return PlayerChange(
            player_id=player.player_id,
            rating_before=player.rating,
            rating_after=rating_after,
            explain=frozen_explain(
                expected=expected, k=k, score=player_score, bonus=side_bonus, malus=player_malus
            ),
        )


def _decimal(single: float) -> float:
    """The shortest decimal that rounds to `single` in float32 (0.05 for float32(0.05))."""
    for digits in range(1, 10):
        if float32(round(single, digits)) == single:
            return round(single, digits)
    return single
