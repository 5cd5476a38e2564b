"""The fit of `ratings calibrate`: which divisor best explains what happened, and how noisy
the ratings are.

The model is the rules' own: the favourite of a game (the higher rating_before) wins with
probability 1 / (1 + 10^(-lead / D)). With b = ln(10) / D this is logistic regression through
the origin, whose log-likelihood is concave in b: Newton's method finds the maximum, and the
confidence interval is the profile-likelihood interval (every b whose log-likelihood is
within z^2 / 2 of the maximum), mapped back to D. Standard library only.
"""

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from statistics import NormalDist

from ratings_cli.records import GameLine, Record, is_ranked, rating_before, score_of

LN10 = math.log(10)
#: The steepest curve the fit considers (D = 1 point); beyond it every game is a certainty.
MAX_SLOPE = LN10


def expected_share(lead: float, divisor: float) -> float:
    """The favourite's expected score at a rating lead under divisor D."""
    exponent = -lead / divisor
    if exponent > 300:
        return 0.0
    return 1.0 / (1.0 + math.pow(10.0, exponent))


def _log_sigmoid(z: float) -> float:
    """log(1 / (1 + e^-z)) without overflow either way."""
    if z >= 0:
        return -math.log1p(math.exp(-z))
    return z - math.log1p(math.exp(z))


def _sigmoid(z: float) -> float:
    if z >= 0:
        return 1.0 / (1.0 + math.exp(-z))
    ez = math.exp(z)
    return ez / (1.0 + ez)


@dataclass(frozen=True)
class Observation:
    """One ranked game seen from its favourite: lead >= 0 and the favourite's score."""

    lead: float
    score: float
    #: The favourite's rating change in the game, when the record has it (mean of both on a tie).
    points: float | None = None
    #: Both players' squared rating changes, and how strongly the game pulled each rating
    #: towards its true value (K * cube coefficient * dE/dlead): the inputs of the noise
    #: estimate. None when the record's `explain` does not say.
    squared_changes: float | None = None
    reversion: float | None = None


def observations(
    games: Iterable[GameLine],
    *,
    min_games: int = 0,
    since: datetime | None = None,
    divisor_for: Callable[[Record], float] | None = None,
) -> list[Observation]:
    """The ranked games to fit, seen from the favourite.

    `min_games` keeps a game only when both players already had that many ranked games earlier
    in the file (their ratings had time to settle); `since` drops games before a time.
    """
    counts: dict[str, int] = {}
    result = []
    for game in games:
        if not is_ranked(game):
            continue
        ids = [player["id"] for player in game.record["players"]]
        earlier = [counts.get(player_id, 0) for player_id in ids]
        for player_id in ids:
            counts[player_id] = counts.get(player_id, 0) + 1
        if min(earlier) < min_games or (since is not None and game.played_at < since):
            continue
        ratings = (rating_before(game, 0), rating_before(game, 1))
        deltas = [player.get("delta") for player in game.record["players"]]
        favourite = 0 if ratings[0] >= ratings[1] else 1
        lead = abs(ratings[0] - ratings[1])
        if lead == 0:
            score = 0.5 * (score_of(game, 0) + score_of(game, 1))
            points = _mean_points(deltas)
        else:
            score = score_of(game, favourite)
            delta = deltas[favourite]
            points = number(delta)
        squared, reversion = _noise_inputs(game.record, deltas, divisor_for)
        result.append(Observation(lead, score, points, squared, reversion))
    return result


def _noise_inputs(
    record: Record, deltas: Sequence[object], divisor_for: Callable[[Record], float] | None
) -> tuple[float | None, float | None]:
    """Sum over both players of delta^2, and of K * c * ln(10) / D * E * (1 - E).

    A rating under Elo moves by K * c * (score - E); near its equilibrium the part that pulls
    it back to the truth is K * c * dE/dR per point of error, dE/dR = ln(10) / D * E * (1 - E).
    """
    changes = [number(delta) for delta in deltas]
    if divisor_for is None or None in changes:
        return None, None
    divisor = divisor_for(record)
    reversion = 0.0
    for player in record["players"]:
        explain = player.get("explain")
        if not isinstance(explain, dict):
            return None, None
        k, expected = number(explain.get("k")), number(explain.get("expected"))
        coefficient = number(explain.get("coefficient", 1))
        if k is None or expected is None or coefficient is None:
            return None, None
        reversion += k * coefficient * LN10 / divisor * expected * (1 - expected)
    squared = sum((change or 0.0) ** 2 for change in changes)
    return squared, reversion


def is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def number(value: object) -> float | None:
    """`value` as a float when it is a JSON number (not a bool), else None."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    return None


def _mean_points(deltas: Sequence[object]) -> float | None:
    changes = [number(delta) for delta in deltas]
    if None in changes:
        return None
    return sum(change or 0.0 for change in changes) / len(changes)


# The fit --------------------------------------------------------------------------------------


def _grouped(data: Iterable[Observation]) -> list[tuple[float, float, int]]:
    """(lead, total score, games) per distinct lead: ratings are integers, so leads repeat
    and the likelihood costs one term per distinct lead, not per game."""
    groups: dict[float, list[float]] = {}
    for item in data:
        group = groups.setdefault(item.lead, [0.0, 0.0])
        group[0] += item.score
        group[1] += 1
    return [(lead, score, int(games)) for lead, (score, games) in sorted(groups.items())]


def _log_likelihood(groups: Sequence[tuple[float, float, int]], slope: float) -> float:
    total = 0.0
    for lead, score, games in groups:
        z = slope * lead
        total += score * _log_sigmoid(z) + (games - score) * _log_sigmoid(-z)
    return total


def log_likelihood(data: Sequence[Observation], slope: float) -> float:
    """Sum of log P(score | lead) with P(favourite wins) = sigmoid(slope * lead)."""
    return _log_likelihood(_grouped(data), slope)


def _gradient_and_information(
    groups: Sequence[tuple[float, float, int]], slope: float
) -> tuple[float, float]:
    gradient = 0.0
    information = 0.0
    for lead, score, games in groups:
        p = _sigmoid(slope * lead)
        gradient += lead * (score - games * p)
        information += lead * lead * games * p * (1.0 - p)
    return gradient, information


@dataclass(frozen=True)
class Fit:
    """The maximum-likelihood divisor and its confidence interval.

    `divisor` is None when the favourites did no better than a coin (no finite D fits);
    `high` is None when the interval reaches a flat curve (D unbounded above).
    """

    divisor: float | None
    low: float | None
    high: float | None
    standard_error: float | None
    slope: float
    log_likelihood: float
    games: int
    confidence: float


def _to_divisor(slope: float) -> float | None:
    return LN10 / slope if slope > 0 else None


def fit_divisor(data: Sequence[Observation], confidence: float = 0.95) -> Fit:
    """Maximise the log-likelihood over D; games at lead 0 carry no information and are left out."""
    informative = _grouped(item for item in data if item.lead > 0)
    if not informative:
        raise ValueError("no ranked game with a rating difference: nothing to fit")
    slope = LN10 / 1200
    current = _log_likelihood(informative, slope)
    for _ in range(200):
        gradient, information = _gradient_and_information(informative, slope)
        if information <= 0:
            break
        step = gradient / information
        while True:  # Newton with step halving: the likelihood never goes down
            candidate = max(-MAX_SLOPE, min(MAX_SLOPE, slope + step))
            value = _log_likelihood(informative, candidate)
            if value >= current:
                break
            step /= 2
            if abs(step) < 1e-15:  # no step improves: this is the maximum
                candidate, value = slope, current
                break
        moved = abs(candidate - slope)
        slope, current = candidate, value
        if moved <= 1e-12 * max(abs(slope), 1e-9):
            break
    _, information = _gradient_and_information(informative, slope)
    z = NormalDist().inv_cdf(0.5 + confidence / 2)
    floor = current - z * z / 2
    upper = _boundary(informative, slope, floor, +1, information)
    lower = _boundary(informative, slope, floor, -1, information)
    standard_error = None
    if information > 0 and slope > 0:
        # The delta method: dD/db = -ln(10) / b^2.
        standard_error = LN10 / (slope * slope) / math.sqrt(information)
    low = _to_divisor(upper) if upper > 0 else None
    high = _to_divisor(lower) if lower > 0 else None
    if upper <= 0:  # even the steepest plausible curve is flat or inverted
        low = high = None
    return Fit(
        divisor=_to_divisor(slope),
        low=low,
        high=high,
        standard_error=standard_error,
        slope=slope,
        log_likelihood=current,
        games=sum(games for _lead, _score, games in informative),
        confidence=confidence,
    )


def _boundary(
    data: Sequence[tuple[float, float, int]],
    best: float,
    floor: float,
    direction: int,
    information: float,
) -> float:
    """The slope on one side of `best` where the log-likelihood falls to `floor`: bracketed by
    doubling steps of one standard error, then found by regula falsi."""
    width = 1.0 / math.sqrt(information) if information > 0 else abs(best) or 1e-6
    inside, outside = best, best + direction * width
    while _log_likelihood(data, outside) >= floor:
        inside = outside
        width *= 2
        outside = best + direction * width
        if abs(outside) > MAX_SLOPE:
            return direction * MAX_SLOPE
    # Regula falsi (Illinois variant) on the bracket: a handful of evaluations, not dozens.
    f_inside = _log_likelihood(data, inside) - floor
    f_outside = _log_likelihood(data, outside) - floor
    side = 0
    for _ in range(100):
        if abs(outside - inside) <= 1e-9 * max(abs(best), 1e-9):
            break
        middle = (inside * f_outside - outside * f_inside) / (f_outside - f_inside)
        f_middle = _log_likelihood(data, middle) - floor
        if abs(f_middle) < 1e-9:
            return middle
        if f_middle > 0:
            inside, f_inside = middle, f_middle
            if side == +1:
                f_outside /= 2
            side = +1
        else:
            outside, f_outside = middle, f_middle
            if side == -1:
                f_inside /= 2
            side = -1
    return (inside + outside) / 2


# Rating noise ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Noise:
    """How much of the rating differences is noise, and what it does to the fit.

    Under Elo a rating never settles: each game moves it by K * c * (score - E), and only a
    small part of that pulls it back towards the player's true strength. At equilibrium the
    error of a rating has variance V = E[delta^2] / (2 * E[K * c * dE/dR]) (a first-order
    autoregression), whatever the number of games. The rating difference of a game carries
    two such errors, so a share `attenuation` = 1 - 2V / E[lead^2] of its variance is real
    difference in strength. Noise in the differences makes the outcomes look less predictable
    than they are (regression dilution): the fitted divisor comes out about 1 / attenuation
    too large, and `corrected` undoes that first-order effect. Only meaningful near
    equilibrium: fit after the burn-in (--min-games).
    """

    sd: float
    attenuation: float
    games: int

    def corrected(self, divisor: float | None) -> float | None:
        if divisor is None or self.attenuation <= 0:
            return None
        return divisor * self.attenuation


def rating_noise(data: Sequence[Observation]) -> Noise | None:
    usable = [item for item in data if item.squared_changes is not None and item.reversion]
    if not usable or len(usable) < len(data) / 2:
        return None
    squared = sum(item.squared_changes or 0.0 for item in usable)
    reversion = sum(item.reversion or 0.0 for item in usable)
    variance = squared / (2 * reversion)
    mean_square_lead = sum(item.lead * item.lead for item in data) / len(data)
    if mean_square_lead <= 0:
        return None
    attenuation = 1 - 2 * variance / mean_square_lead
    return Noise(math.sqrt(variance), attenuation, len(usable))
