"""`ratings calibrate`'s report: the fit and the figures beside it, gathered from a games
file (`calibrate`), and shown as text or JSON. Standard library only.
"""

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from statistics import NormalDist
from typing import Any

from ratings_cli.calibration import (
    LN10,
    Fit,
    Noise,
    Observation,
    fit_divisor,
    log_likelihood,
    observations,
    rating_noise,
)
from ratings_cli.calibration_figures import (
    Bucket,
    Leaders,
    Spread,
    bucketise,
    leaders,
    rating_spread,
    rounded,
)
from ratings_cli.records import GameLine, Record

# The report -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Report:
    """Everything `ratings calibrate` prints, plots or writes as JSON."""

    ladder: str
    games_in_file: int
    games_fitted: int
    min_games: int
    since: datetime | None
    current_divisor: float
    current_source: str
    fit: Fit
    noise: Noise | None
    buckets: list[Bucket]
    spread: Spread | None
    leaders: Leaders
    observations: list[Observation] = field(repr=False)

    @property
    def z(self) -> float:
        return NormalDist().inv_cdf(0.5 + self.fit.confidence / 2)

    @property
    def current_in_interval(self) -> bool:
        low = self.fit.low
        high = math.inf if self.fit.high is None else self.fit.high
        return low is not None and low <= self.current_divisor <= high

    def corrected_interval(self) -> tuple[float | None, float | None]:
        if self.noise is None or self.noise.attenuation <= 0:
            return (None, None)
        return (self.noise.corrected(self.fit.low), self.noise.corrected(self.fit.high))

    def to_json(self) -> dict[str, Any]:
        fit = self.fit
        corrected_low, corrected_high = self.corrected_interval()
        return {
            "ladder": self.ladder,
            "games_in_file": self.games_in_file,
            "games_fitted": self.games_fitted,
            "filters": {
                "min_games": self.min_games,
                "since": self.since.isoformat() if self.since else None,
            },
            "current_divisor": self.current_divisor,
            "current_divisor_source": self.current_source,
            "fitted_divisor": rounded(fit.divisor, 1),
            "divisor_ci": [rounded(fit.low, 1), rounded(fit.high, 1)],
            "confidence": fit.confidence,
            "divisor_se": rounded(fit.standard_error, 1),
            "current_divisor_in_ci": self.current_in_interval,
            "log_likelihood": {
                "fitted": round(fit.log_likelihood, 3),
                "current": round(log_likelihood(self.observations, LN10 / self.current_divisor), 3),
            },
            "rating_noise": None
            if self.noise is None
            else {
                "sd": rounded(self.noise.sd, 1),
                "attenuation": rounded(self.noise.attenuation),
                "noise_corrected_divisor": rounded(self.noise.corrected(fit.divisor), 1),
                "noise_corrected_ci": [rounded(corrected_low, 1), rounded(corrected_high, 1)],
            },
            "buckets": [bucket.to_json(self.z) for bucket in self.buckets if bucket.games],
            "leaders": self.leaders.to_json(),
            "spread": None if self.spread is None else self.spread.to_json(),
        }

    def to_text(self) -> str:
        fit = self.fit
        lines = [
            f"ladder {self.ladder}: {self.games_fitted} of {self.games_in_file} games fitted "
            f"(ranked; both players with >= {self.min_games} earlier ranked games in the file"
            + (f"; played from {self.since.isoformat()}" if self.since else "")
            + ")",
            f"current divisor {_show(self.current_divisor)} ({self.current_source})",
            "",
            f"{'lead':>9} {'games':>7} {'fav. won':>9} {'95% range':>13} "
            f"{'expected':>9} {'at fit':>7} {'fav. points/game':>17}",
        ]
        for bucket in self.buckets:
            if not bucket.games:
                continue
            data = bucket.to_json(self.z)
            low, high = data["observed_ci"]
            points = data["favourite_points_per_game"]
            lines.append(
                f"{bucket.label:>9} {bucket.games:>7} {_pct(data['observed_share']):>9} "
                f"{_pct(low) + '-' + _pct(high):>13} "
                f"{_pct(data['expected_share_current']):>9} "
                f"{_pct(data['expected_share_fitted']):>7} "
                f"{'' if points is None else f'{points:+.2f}':>17}"
            )
        lines.append("")
        if fit.divisor is None:
            lines.append("fitted divisor: none (favourites won no more than half of their games)")
        else:
            lines.append(
                f"fitted divisor {fit.divisor:.0f} ({fit.confidence:.0%} CI "
                f"{_show(fit.low)}-{_show(fit.high)}, maximum likelihood over "
                f"{fit.games} games with a rating difference); current divisor "
                + ("inside" if self.current_in_interval else "outside")
                + " the interval"
            )
        if self.noise is not None:
            corrected = self.noise.corrected(fit.divisor)
            low, high = self.corrected_interval()
            lines.append(
                f"rating noise: about +-{self.noise.sd:.0f} points per rating; "
                f"{self.noise.attenuation:.0%} of the rating-difference variance is real"
                + (
                    f"; noise-corrected divisor {corrected:.0f} (CI {_show(low)}-{_show(high)})"
                    if corrected is not None
                    else "; the differences are mostly noise"
                )
            )
        top = self.leaders
        if top.games:
            points = top.points.per_game
            lines.append(
                f"top {top.share:.0%} of the ladder when they played: {top.games} games, "
                f"won {top.score / top.games:.1%}, expected {top.expected / top.games:.1%}"
                + ("" if points is None else f", {points:+.2f} points per game")
            )
        if self.spread is not None and self.spread.players:
            spread = self.spread
            lines.append(
                f"rating spread of {spread.players} active players (a ranked game in the "
                f"last {_show(spread.active_days)} days): middle half within "
                f"{spread.middle_half:.0f} points ({spread.q(0.25):.0f}-{spread.q(0.75):.0f}), "
                f"middle 80% within {spread.middle_80:.0f}, sd {spread.sd:.0f}"
            )
        return "\n".join(lines)


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{value:.1%}"


def _show(value: float | None) -> str:
    if value is None:
        return "inf"
    return f"{value:.0f}" if abs(value - round(value)) < 1e-9 or abs(value) >= 100 else f"{value:g}"


def calibrate(
    games: Sequence[GameLine],
    *,
    ladder: str,
    current_divisor: float,
    current_source: str,
    divisor_for: Callable[[Record], float],
    min_games: int = 0,
    since: datetime | None = None,
    bucket_width: int = 50,
    max_lead: int = 500,
    confidence: float = 0.95,
    active_days: float = 7.0,
    top_share: float = 0.1,
) -> Report:
    data = observations(games, min_games=min_games, since=since, divisor_for=divisor_for)
    fit = fit_divisor(data, confidence)
    buckets = bucketise(data, bucket_width, max_lead, current_divisor, fit.divisor)
    return Report(
        ladder=ladder,
        games_in_file=len(games),
        games_fitted=len(data),
        min_games=min_games,
        since=since,
        current_divisor=current_divisor,
        current_source=current_source,
        fit=fit,
        noise=rating_noise(data),
        buckets=buckets,
        spread=rating_spread(games, active_days),
        leaders=leaders(
            games, share=top_share, divisor_for=divisor_for, min_games=min_games, since=since
        ),
        observations=data,
    )
