"""The figures `ratings calibrate` reports beside the fit, and `ratings replay` too: the
favourite's observed and expected share per bucket of rating lead, the spread of the active
players' ratings, and how the players at the top of the ladder fared. Standard library only.
"""

import math
from bisect import bisect_left, bisect_right, insort
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, NamedTuple

from ratings_cli.calibration import Observation, expected_share, is_number, number
from ratings_cli.records import GameLine, Record, is_ranked, rating_before, score_of

# Buckets --------------------------------------------------------------------------------------


@dataclass
class Points:
    """The rating points a side won over the games whose change (`delta`) the file records."""

    total: float = 0.0
    games: int = 0

    def add(self, delta: float | None) -> None:
        if delta is not None:
            self.total += delta
            self.games += 1

    @property
    def per_game(self) -> float | None:
        return self.total / self.games if self.games else None


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
    #: The favourite's.
    points: Points = field(default_factory=Points)

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
            "mean_lead": rounded(self.mean_lead, 1),
            "observed_share": rounded(self.observed_share),
            "observed_ci": [rounded(low), rounded(high)],
            "expected_share_current": rounded(self.expected_current / self.games)
            if self.games
            else None,
            "expected_share_fitted": rounded(self.expected_fitted / self.games)
            if self.games
            else None,
            "favourite_points_per_game": rounded(self.points.per_game, 2),
        }


def rounded(value: float | None, digits: int = 4) -> float | None:
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
        bucket.points.add(item.points)
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


class SpreadFigures(NamedTuple):
    """The figures of a Spread, as the reports write them (None: too few players)."""

    active_players: int
    active_days: float
    p10: float | None
    p25: float | None
    median: float | None
    p75: float | None
    p90: float | None
    middle_half_span: float | None
    middle_80_span: float | None
    sd: float | None


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

    def figures(self) -> SpreadFigures:
        return SpreadFigures(
            active_players=self.players,
            active_days=self.active_days,
            p10=rounded(self.q(0.1), 1),
            p25=rounded(self.q(0.25), 1),
            median=rounded(self.q(0.5), 1),
            p75=rounded(self.q(0.75), 1),
            p90=rounded(self.q(0.9), 1),
            middle_half_span=rounded(self.middle_half, 1),
            middle_80_span=rounded(self.middle_80, 1),
            sd=rounded(self.sd, 1),
        )

    def to_json(self) -> dict[str, Any]:
        return self.figures()._asdict()


def current_ratings(games: Iterable[GameLine]) -> dict[str, tuple[int, datetime]]:
    """Each player's rating after their last ranked game, and when that game was played."""
    latest: dict[str, tuple[int, datetime]] = {}
    for game in games:
        if not is_ranked(game):
            continue
        for player in game.record["players"]:
            after = player.get("rating_after", player.get("rating_before"))
            if is_number(after):
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
    #: The leaders'.
    points: Points = field(default_factory=Points)

    def to_json(self) -> dict[str, Any]:
        games = self.games
        return {
            "top_share": self.share,
            "games": games,
            "win_share": rounded(self.score / games) if games else None,
            "expected_share": rounded(self.expected / games) if games else None,
            "points_per_game": rounded(self.points.per_game, 2),
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
                result.games += 1
                result.score += score_of(game, index)
                result.expected += expected_share(before[index] - before[1 - index], divisor)
                result.points.add(number(players[index].get("delta")))
        for player_id, player in zip(ids, players, strict=True):
            after = player.get("rating_after")
            if is_number(after):
                del board[bisect_left(board, current[player_id])]
                current[player_id] = int(after)
                insort(board, current[player_id])
    return result
