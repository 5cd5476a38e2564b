"""Ruleset sedma: the card game's Elo, K by rating band, the score shaped by the game's play.

The source computes the bonus, malus and score in single precision, so they are reproduced in
float32 here; the expected scores and the new rating are double precision, and the new rating
(not the change) is rounded half to even.
"""

from collections.abc import Mapping
from dataclasses import dataclass

from ratings.rules.arithmetic import expected_score, float32, round_half_even
from ratings.rules.errors import InvalidInput
from ratings.rules.model import (
    SEDMA_STAT_FIELDS,
    Game,
    PlayerChange,
    PlayerState,
    Rating,
    SedmaStats,
    frozen_explain,
    require_non_negative_int,
)
from ratings.rules.model import validate_players as _validate_players

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
class Sedma:
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

    def k_for(self, state: PlayerState) -> int:
        for below, k in self.k_bands:
            if state.rating < below:
                return k
        return self.top_k

    def provisional(self, state: PlayerState) -> bool:
        # Bands follow the rating, not experience: nobody is provisional in sedma.
        return False

    def parameters(self) -> Mapping[str, object]:
        return {
            "divisor": self.divisor,
            "k_bands": [{"below": below, "k": k} for below, k in self.k_bands],
            "top_k": self.top_k,
            "bonus_per_round_16": 0.05,
            "bonus_per_round_24": 0.1,
            "bonus_per_round_4_last": 0.03,
            "max_bonus_16": 0.15,
            "max_bonus_24": 0.2,
            "max_bonus_4_last": 0.09,
            "loser_bonus_share": 0.1,
            "malus_per_bad_move": 0.02,
            "max_malus": 0.3,
        }

    def validate(self, game: Game) -> None:
        _validate_players(game, draws_allowed=False, ruleset=NAME)
        if type(game.cube) is not int or game.cube != 1:
            raise InvalidInput("cube", "cube is only for ruleset gammon42, not sedma")
        for index, stats in enumerate(game.stats or ()):
            for stat in SEDMA_STAT_FIELDS:
                require_non_negative_int(getattr(stats, stat), f"players[{index}].stats.{stat}")

    def rate(self, game: Game) -> Rating:
        self.validate(game)
        stats = game.stats or (SedmaStats(), SedmaStats())
        first, second = game.players
        changes = (
            self._change(game, 0, first, second, stats[0]),
            self._change(game, 1, second, first, stats[1]),
        )
        return Rating(NAME, self.version, changes)

    def _change(
        self,
        game: Game,
        index: int,
        player: PlayerState,
        opponent: PlayerState,
        stats: SedmaStats,
    ) -> PlayerChange:
        won = game.winner == player.player_id
        player_bonus = bonus(stats, won)
        player_malus = malus(stats)
        player_score = score(won, player_bonus, player_malus)
        # Each side's expectation by the formula itself, not 1 - the other's, as the source does.
        expected = expected_score(player.rating, opponent.rating, self.divisor)
        k = self.k_for(player)
        rating_after = round_half_even(player.rating + k * (player_score - expected))
        return PlayerChange(
            player_id=player.player_id,
            rating_before=player.rating,
            rating_after=rating_after,
            explain=frozen_explain(
                expected=expected, k=k, score=player_score, bonus=player_bonus, malus=player_malus
            ),
        )
