"""Seasons: which season of a ladder a moment falls in, their ids, and what a reset does to a
rating. Pure functions of the ladder's plan, the seasons operators started, and the time;
standard library only.

A ladder's timeline:

- `all-time` runs until the first scheduled season (`SeasonPlan.first`), or for ever under
  the schedule `none`: a ladder that never opts in keeps one endless season, as before seasons
  existed;
- then each period of the schedule (UTC): `YYYY-Www` (ISO week, from Monday 00:00),
  `YYYY-MM` (from the 1st), `YYYY-Qn` (from January, April, July, October 1st);
- an operator-started season runs from its start until the next scheduled boundary (for ever
  under `none`), or until the next operator start, whichever comes first.

A season is the latest of these that has begun: the scheduled one the moment falls in, unless
an operator started one within it.
"""

import re
from collections.abc import Iterator, Sequence
from datetime import UTC, date, datetime, timedelta
from typing import NamedTuple

from ratings.declare.kinds import InvalidInput
from ratings.rules.model import round_half_away

ALL_TIME = "all-time"
SCHEDULES = ("none", "weekly", "monthly", "quarterly")
RESETS = ("none", "hard", "soft")
DEFAULT_SQUISH = 0.5
#: The bounds of a soft reset's target, and of `min_games`.
TARGET_RANGE = (1, 10_000)
MIN_GAMES_RANGE = (1, 1_000)
#: How an operator may name a season: short, URL-safe, lower case.
OPERATOR_ID = re.compile(r"[a-z0-9][a-z0-9_-]{0,47}")
#: The forms of the schedule's own ids (and all-time), which an operator may not take.
SCHEDULED_ID = re.compile(r"\d{4}-(W\d{2}|\d{2}|Q[1-4])|all-time")
_WEEK = re.compile(r"(\d{4})-W(\d{2})")
_MONTH = re.compile(r"(\d{4})-(\d{2})")
_QUARTER = re.compile(r"(\d{4})-Q([1-4])")
_MS = timedelta(milliseconds=1)


class Reset(NamedTuple):
    """What a season start does to each rating: `none` keeps it, `hard` sets the starting
    rating, `soft` moves it toward `target` (None: the starting rating) by `squish`."""

    kind: str = "none"
    target: int | None = None
    squish: float = DEFAULT_SQUISH

    def apply(self, rating: int, starting_rating: int) -> int:
        if self.kind == "hard":
            return starting_rating
        if self.kind == "soft":
            target = starting_rating if self.target is None else self.target
            return round_half_away(target + (rating - target) * self.squish)
        return rating

    def document(self, starting_rating: int) -> dict[str, object]:
        """As answers show it: the target filled in for a soft reset."""
        if self.kind != "soft":
            return {"kind": self.kind, "target": None, "squish": None}
        target = starting_rating if self.target is None else self.target
        return {"kind": "soft", "target": target, "squish": self.squish}


def parse_reset(value: object, field: str) -> Reset:
    """A reset as a caller or the configuration gives it: {"kind", "target", "squish"}."""
    if not isinstance(value, dict):
        raise InvalidInput(field, f"{field} must be an object with kind none, hard or soft")
    unknown = sorted(set(value) - {"kind", "target", "squish"})
    if unknown:
        raise InvalidInput(
            f"{field}.{unknown[0]}",
            f"{field}.{unknown[0]} is not a field of a reset (kind, target, squish)",
        )
    kind = value.get("kind")
    if kind not in RESETS:
        raise InvalidInput(f"{field}.kind", f"{field}.kind must be one of none, hard, soft")
    if kind != "soft":
        for name in ("target", "squish"):
            if value.get(name) is not None:
                raise InvalidInput(
                    f"{field}.{name}", f"{field}.{name} is allowed only with kind soft"
                )
        return Reset(kind)
    target = value.get("target")
    if target is not None:
        low, high = TARGET_RANGE
        if isinstance(target, float) and target.is_integer():
            target = int(target)
        if not isinstance(target, int) or isinstance(target, bool) or not low <= target <= high:
            raise InvalidInput(
                f"{field}.target", f"{field}.target must be an integer from {low} to {high}"
            )
    squish = value.get("squish", DEFAULT_SQUISH)
    if squish is None:
        squish = DEFAULT_SQUISH
    if (
        not isinstance(squish, int | float)
        or isinstance(squish, bool)
        or not 0 <= squish <= 1
        or squish != squish
    ):
        raise InvalidInput(f"{field}.squish", f"{field}.squish must be a number from 0 to 1")
    return Reset("soft", target, float(squish))


class SeasonPlan(NamedTuple):
    """A ladder's seasons as configured: the schedule, the reset of each scheduled season (an
    operator may give another), the ranked games a season's leaderboard asks of a player, and
    the id of the first scheduled season (before it: all-time)."""

    schedule: str = "none"
    reset: Reset = Reset()
    min_games: int = 1
    first: str | None = None

    @property
    def first_start(self) -> datetime | None:
        """When the first scheduled season starts (None: never, under `none`)."""
        if self.schedule == "none" or self.first is None:
            return None
        return period_start_of(self.schedule, self.first)


class OperatorStart(NamedTuple):
    """A season an operator started: its id, when it starts, its reset (None: the ladder's)
    and the fingerprint of the request (the same request again is answered the same)."""

    season_id: str
    starts_at: datetime
    reset: Reset | None
    fingerprint: str


class Season(NamedTuple):
    season_id: str
    #: None for all-time: it has no beginning.
    starts_at: datetime | None
    #: None while nothing is scheduled to end it.
    ends_at: datetime | None
    reset: Reset
    started_by_operator: bool = False

    def status(self, now: datetime) -> str:
        return "ended" if self.ends_at is not None and self.ends_at <= now else "active"

    def began_before(self, other: "Season") -> bool:
        """Whether this season started before `other` (all-time before any)."""
        if self.starts_at is None:
            return other.starts_at is not None
        return other.starts_at is not None and self.starts_at < other.starts_at


# The schedule's periods.


def period_start(schedule: str, at: datetime) -> datetime:
    """The start of the schedule's period that `at` falls in (UTC)."""
    day = at.astimezone(UTC).date()
    if schedule == "weekly":
        day -= timedelta(days=day.weekday())
    elif schedule == "monthly":
        day = day.replace(day=1)
    elif schedule == "quarterly":
        day = date(day.year, 3 * ((day.month - 1) // 3) + 1, 1)
    else:
        raise ValueError(f"no periods under the schedule {schedule!r}")
    return datetime(day.year, day.month, day.day, tzinfo=UTC)


def next_period_start(schedule: str, start: datetime) -> datetime:
    """The start of the period after the one starting at `start`."""
    if schedule == "weekly":
        return start + timedelta(days=7)
    months = 1 if schedule == "monthly" else 3
    month = start.month - 1 + months
    return start.replace(year=start.year + month // 12, month=month % 12 + 1)


def period_id(schedule: str, start: datetime) -> str:
    if schedule == "weekly":
        year, week, _ = start.isocalendar()
        return f"{year:04d}-W{week:02d}"
    if schedule == "monthly":
        return f"{start.year:04d}-{start.month:02d}"
    return f"{start.year:04d}-Q{(start.month - 1) // 3 + 1}"


def period_start_of(schedule: str, season_id: str) -> datetime | None:
    """The start of the period with this id under the schedule; None when it is none."""
    try:
        if schedule == "weekly" and (match := _WEEK.fullmatch(season_id)):
            day = date.fromisocalendar(int(match[1]), int(match[2]), 1)
        elif schedule == "monthly" and (match := _MONTH.fullmatch(season_id)):
            day = date(int(match[1]), int(match[2]), 1)
        elif schedule == "quarterly" and (match := _QUARTER.fullmatch(season_id)):
            day = date(int(match[1]), 3 * (int(match[2]) - 1) + 1, 1)
        else:
            return None
    except ValueError:
        return None
    return datetime(day.year, day.month, day.day, tzinfo=UTC)


def id_form(schedule: str) -> str:
    return {"weekly": "YYYY-Www", "monthly": "YYYY-MM", "quarterly": "YYYY-Qn"}.get(
        schedule, ALL_TIME
    )


# The timeline.


def season_at(plan: SeasonPlan, starts: Sequence[OperatorStart], at: datetime) -> Season:
    """The season `at` falls in."""
    scheduled = _scheduled_at(plan, at)
    started = [start for start in starts if start.starts_at <= at]
    latest = max(started, key=lambda start: start.starts_at, default=None)
    if latest is None or (
        scheduled.starts_at is not None and latest.starts_at < scheduled.starts_at
    ):
        season = scheduled
    else:
        season = Season(
            latest.season_id,
            latest.starts_at,
            scheduled.ends_at,
            latest.reset or plan.reset,
            started_by_operator=True,
        )
    # An operator start still to come ends it sooner.
    upcoming = [start.starts_at for start in starts if start.starts_at > at]
    if upcoming and (season.ends_at is None or min(upcoming) < season.ends_at):
        season = season._replace(ends_at=min(upcoming))
    return season


def _scheduled_at(plan: SeasonPlan, at: datetime) -> Season:
    first = plan.first_start
    if first is None:
        return Season(ALL_TIME, None, None, plan.reset)
    if at < first:
        return Season(ALL_TIME, None, first, plan.reset)
    start = period_start(plan.schedule, at)
    return Season(
        period_id(plan.schedule, start),
        start,
        next_period_start(plan.schedule, start),
        plan.reset,
    )


def seasons_before(
    plan: SeasonPlan, starts: Sequence[OperatorStart], at: datetime
) -> Iterator[Season]:
    """The season `at` falls in, then every earlier one, newest first, down to all-time."""
    while True:
        season = season_at(plan, starts, at)
        yield season
        if season.starts_at is None:
            return
        at = season.starts_at - _MS


def season_named(
    plan: SeasonPlan, starts: Sequence[OperatorStart], season_id: str, now: datetime
) -> Season | None:
    """The season with this id, if it has begun by `now`; None otherwise."""
    if season_id == ALL_TIME:
        start: datetime | None = None
        probe = datetime.min.replace(tzinfo=UTC)
    else:
        start = next((s.starts_at for s in starts if s.season_id == season_id), None)
        if start is None and plan.schedule != "none":
            start = period_start_of(plan.schedule, season_id)
        if start is None or start > now:
            return None
        probe = start
    season = season_at(plan, starts, probe)
    if season.season_id != season_id or season.starts_at != start:
        return None  # taken over at its very start (or before the first scheduled season)
    return season


def check_season_id(season_id: object, field: str = "season_id") -> str:
    """An id an operator may start a season with."""
    if not isinstance(season_id, str) or not OPERATOR_ID.fullmatch(season_id):
        raise InvalidInput(
            field,
            f"{field} must be 1 to 48 characters: lower-case letters, digits, '-' or '_', "
            "starting with a letter or digit",
        )
    if SCHEDULED_ID.fullmatch(season_id):
        raise InvalidInput(
            field,
            f"{field} {season_id!r} has the form of a scheduled season's id "
            "(YYYY-Www, YYYY-MM, YYYY-Qn, all-time); choose another",
        )
    return season_id
