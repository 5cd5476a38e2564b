"""How well the expected-score curve matches what happened, and which divisor fits best.

The model is the rules' own: the favourite of a game (the higher rating_before) wins with
probability 1 / (1 + 10^(-lead / D)). With b = ln(10) / D this is logistic regression through
the origin, whose log-likelihood is concave in b: Newton's method finds the maximum, and the
confidence interval is the profile-likelihood interval (every b whose log-likelihood is
within z^2 / 2 of the maximum), mapped back to D. Standard library only.
"""

import math
from bisect import bisect_left, bisect_right, insort
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from statistics import NormalDist
from typing import Any

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
            points = _number(delta)
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
    changes = [_number(delta) for delta in deltas]
    if divisor_for is None or None in changes:
        return None, None
    divisor = divisor_for(record)
    reversion = 0.0
    for player in record["players"]:
        explain = player.get("explain")
        if not isinstance(explain, dict):
            return None, None
        k, expected = _number(explain.get("k")), _number(explain.get("expected"))
        coefficient = _number(explain.get("coefficient", 1))
        if k is None or expected is None or coefficient is None:
            return None, None
        reversion += k * coefficient * LN10 / divisor * expected * (1 - expected)
    squared = sum((change or 0.0) ** 2 for change in changes)
    return squared, reversion


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _number(value: object) -> float | None:
    """`value` as a float when it is a JSON number (not a bool), else None."""
    if isinstance(value, int | float) and not isinstance(value, bool):
        return float(value)
    return None


def _mean_points(deltas: Sequence[object]) -> float | None:
    changes = [_number(delta) for delta in deltas]
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


# Buckets --------------------------------------------------------------------------------------


@dataclass
class Bucket:
    """Games whose favourite led by low <= lead < high (high None: open-ended)."""

    low: int
    high: int | None
    games: int = 0
    favourite_score: float = 0.0
    lead_sum: float = 0.0
    expected_current: float = 0.0
    expected_fitted: float = 0.0
    points_sum: float = 0.0
    points_games: int = 0

    @property
    def label(self) -> str:
        return f"{self.low}+" if self.high is None else f"{self.low}-{self.high - 1}"

    @property
    def observed_share(self) -> float:
        return self.favourite_score / self.games if self.games else math.nan

    @property
    def mean_lead(self) -> float:
        return self.lead_sum / self.games if self.games else math.nan

    def observed_interval(self, z: float) -> tuple[float, float]:
        """Wilson's score interval of the observed share."""
        n = self.games
        if n == 0:
            return (math.nan, math.nan)
        p = self.observed_share
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        return (max(0.0, centre - half), min(1.0, centre + half))

    def to_json(self, z: float) -> dict[str, Any]:
        low, high = self.observed_interval(z)
        return {
            "lead_min": self.low,
            "lead_max": None if self.high is None else self.high - 1,
            "games": self.games,
            "favourite_wins": self.favourite_score,
            "mean_lead": _r(self.mean_lead, 1),
            "observed_share": _r(self.observed_share),
            "observed_ci": [_r(low), _r(high)],
            "expected_share_current": _r(self.expected_current / self.games)
            if self.games
            else None,
            "expected_share_fitted": _r(self.expected_fitted / self.games) if self.games else None,
            "favourite_points_per_game": _r(self.points_sum / self.points_games, 2)
            if self.points_games
            else None,
        }


def _r(value: float | None, digits: int = 4) -> float | None:
    if value is None or math.isnan(value):
        return None
    return round(value, digits)


def bucketise(
    data: Sequence[Observation],
    width: int,
    last: int,
    current_divisor: float,
    fitted_divisor: float | None,
) -> list[Bucket]:
    """Buckets of `width` points of lead from 0; every lead from `last` up shares one bucket."""
    edges = list(range(0, last, width))
    buckets = [Bucket(low, low + width) for low in edges]
    buckets.append(Bucket(last, None))
    for item in data:
        index = min(int(item.lead // width), len(buckets) - 1)
        bucket = buckets[index]
        bucket.games += 1
        bucket.favourite_score += item.score
        bucket.lead_sum += item.lead
        bucket.expected_current += expected_share(item.lead, current_divisor)
        bucket.expected_fitted += (
            expected_share(item.lead, fitted_divisor) if fitted_divisor else 0.5
        )
        if item.points is not None:
            bucket.points_sum += item.points
            bucket.points_games += 1
    return buckets


# Spread ---------------------------------------------------------------------------------------


def quantile(sorted_values: Sequence[float], q: float) -> float:
    """Linear interpolation between order statistics (the common 'type 7' quantile)."""
    if not sorted_values:
        return math.nan
    position = (len(sorted_values) - 1) * q
    low = math.floor(position)
    high = min(low + 1, len(sorted_values) - 1)
    weight = position - low
    return sorted_values[low] * (1 - weight) + sorted_values[high] * weight


@dataclass(frozen=True)
class Spread:
    """How far apart the active players' ratings are."""

    players: int
    active_days: float
    ratings: tuple[int, ...] = field(repr=False)

    def q(self, share: float) -> float:
        return quantile(sorted(self.ratings), share)

    @property
    def middle_half(self) -> float:
        """The span that holds the middle half of the players (the interquartile range)."""
        return self.q(0.75) - self.q(0.25)

    @property
    def middle_80(self) -> float:
        return self.q(0.9) - self.q(0.1)

    @property
    def sd(self) -> float:
        n = len(self.ratings)
        if n < 2:
            return math.nan
        mean = sum(self.ratings) / n
        return math.sqrt(sum((r - mean) ** 2 for r in self.ratings) / (n - 1))

    def to_json(self) -> dict[str, Any]:
        return {
            "active_players": self.players,
            "active_days": self.active_days,
            "p10": _r(self.q(0.1), 1),
            "p25": _r(self.q(0.25), 1),
            "median": _r(self.q(0.5), 1),
            "p75": _r(self.q(0.75), 1),
            "p90": _r(self.q(0.9), 1),
            "middle_half_span": _r(self.middle_half, 1),
            "middle_80_span": _r(self.middle_80, 1),
            "sd": _r(self.sd, 1),
        }


def current_ratings(games: Iterable[GameLine]) -> dict[str, tuple[int, datetime]]:
    """Each player's rating after their last ranked game, and when that game was played."""
    latest: dict[str, tuple[int, datetime]] = {}
    for game in games:
        if not is_ranked(game):
            continue
        for player in game.record["players"]:
            after = player.get("rating_after", player.get("rating_before"))
            if _is_number(after):
                latest[player["id"]] = (int(after), game.played_at)
    return latest


def rating_spread(games: Sequence[GameLine], active_days: float) -> Spread | None:
    """The spread of the players who played a ranked game in the file's last `active_days`."""
    latest = current_ratings(games)
    if not latest:
        return None
    end = max(at for _rating, at in latest.values())
    since = end - timedelta(days=active_days)
    ratings = tuple(sorted(rating for rating, at in latest.values() if at >= since))
    return Spread(len(ratings), active_days, ratings)


# The top of the table -------------------------------------------------------------------------


@dataclass
class Leaders:
    """The games of the players at the top of the ladder when they played them.

    A player counts as a leader in a game when, before it, fewer than `share` of the players
    seen so far in the file rated higher. This is the article's "strongest players" as the
    ladder sees them: do they hold their rating while winning most of their games?
    """

    share: float
    games: int = 0
    score: float = 0.0
    expected: float = 0.0
    points: float = 0.0
    points_games: int = 0

    @property
    def points_per_game(self) -> float | None:
        return self.points / self.points_games if self.points_games else None

    def to_json(self) -> dict[str, Any]:
        games = self.games
        return {
            "top_share": self.share,
            "games": games,
            "win_share": _r(self.score / games) if games else None,
            "expected_share": _r(self.expected / games) if games else None,
            "points_per_game": _r(self.points_per_game, 2),
        }


def leaders(
    games: Iterable[GameLine],
    *,
    share: float,
    divisor_for: Callable[[Record], float],
    min_games: int = 0,
    since: datetime | None = None,
) -> Leaders:
    result = Leaders(share)
    current: dict[str, int] = {}
    board: list[int] = []  # everybody's current rating, ascending
    counts: dict[str, int] = {}
    for game in games:
        if not is_ranked(game):
            continue
        players = game.record["players"]
        ids = [player["id"] for player in players]
        before = (rating_before(game, 0), rating_before(game, 1))
        earlier = [counts.get(player_id, 0) for player_id in ids]
        for player_id, rating in zip(ids, before, strict=True):
            counts[player_id] = counts.get(player_id, 0) + 1
            old = current.get(player_id)
            if old is not None:
                del board[bisect_left(board, old)]
            current[player_id] = rating
            insort(board, rating)
        counted = min(earlier) >= min_games and (since is None or game.played_at >= since)
        divisor = divisor_for(game.record)
        for index in (0, 1):
            higher = len(board) - bisect_right(board, before[index])
            if counted and higher < share * len(board):
                delta = _number(players[index].get("delta"))
                result.games += 1
                result.score += score_of(game, index)
                result.expected += expected_share(before[index] - before[1 - index], divisor)
                if delta is not None:
                    result.points += delta
                    result.points_games += 1
        for player_id, player in zip(ids, players, strict=True):
            after = player.get("rating_after")
            if _is_number(after):
                del board[bisect_left(board, current[player_id])]
                current[player_id] = int(after)
                insort(board, current[player_id])
    return result


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
            "fitted_divisor": _r(fit.divisor, 1),
            "divisor_ci": [_r(fit.low, 1), _r(fit.high, 1)],
            "confidence": fit.confidence,
            "divisor_se": _r(fit.standard_error, 1),
            "current_divisor_in_ci": self.current_in_interval,
            "log_likelihood": {
                "fitted": round(fit.log_likelihood, 3),
                "current": round(log_likelihood(self.observations, LN10 / self.current_divisor), 3),
            },
            "rating_noise": None
            if self.noise is None
            else {
                "sd": _r(self.noise.sd, 1),
                "attenuation": _r(self.noise.attenuation),
                "noise_corrected_divisor": _r(self.noise.corrected(fit.divisor), 1),
                "noise_corrected_ci": [_r(corrected_low, 1), _r(corrected_high, 1)],
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
            points = top.points_per_game
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
