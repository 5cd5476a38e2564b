"""Ladders as configuration: the file ladders.json, which the layer ships beside this package.

`load_ladders` reads it (or another file) and `parse_ladders` checks what it holds; a
configuration that cannot work raises `LadderConfigError`, whose message names the file, the
ladder, the field and what is allowed. docs/api.md ("Configuring ladders") describes every
field. Standard library only: the functions read it at their cold start.

`python -m ratings.rules.ladder_config check [PATH]` checks a file (by default the one beside
the package) and exits 1 with the message when it cannot work: `make build` runs it on the
built layer's copy.
"""

import json
import os
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any, NamedTuple

from ratings.declare.kinds import InvalidInput
from ratings.rules import classic, gammon42, sedma
from ratings.rules.ladders import (
    ONE_PLAYER,
    PODIUM_BONUSES,
    RULESET_VERSIONS,
    TWO_SIDES,
    Ladder,
    Span,
)
from ratings.rules.ruleset import Ruleset, shapes_of
from ratings.rules.seasons import (
    MIN_GAMES_RANGE,
    SCHEDULES,
    SeasonPlan,
    id_form,
    parse_reset,
    period_start_of,
)

#: The file as shipped: in the ratings package (/opt/python/ratings/ in the layer). A plain
#: path: pathlib would be one more module for every cold start to import.
DEFAULT_FILE = os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "ladders.json"
)
#: A ladder's id: it is a path segment of the API and part of the table's keys.
LADDER_ID = re.compile(r"[a-z][a-z0-9_-]{0,31}")
LADDER_ID_RULE = "1 to 32 characters of a-z 0-9 - _, starting with a letter"
#: How many ladders one deployment serves (each is refreshed on every standings run).
LADDER_COUNT = (1, 100)
#: A side count and a player count are within this.
COUNT_RANGE = (1, 64)
#: Podium bonuses: one for each of places 1, 2 and 3 at most.
PODIUM_PLACES = 3
BONUS_RANGE = (0, 1_000)
#: The parameters' bounds.
RATING_RANGE = (1, 10_000)
K_RANGE = (1, 1_000)
GAMES_RANGE = (0, 10_000)
DIVISOR_RANGE = (1, 100_000)
MAX_K_BANDS = 16

_LADDER_FIELDS = (
    "id",
    "ruleset",
    "version",
    "parameters",
    "sides",
    "players_per_side",
    "podium_bonuses",
    "season",
)
_SEASON_FIELDS = ("schedule", "reset", "min_games", "first")
_COUNT_RULE = f"an integer from {COUNT_RANGE[0]} to {COUNT_RANGE[1]}"
_SPAN_REQUIRED = {"min": _COUNT_RULE, "max": _COUNT_RULE}
_BAND_REQUIRED = {
    "below": f"an integer from {RATING_RANGE[0]} to {RATING_RANGE[1]}",
    "k": f"an integer from {K_RANGE[0]} to {K_RANGE[1]}",
}


class LadderConfigError(ValueError):
    """A ladder configuration that cannot work. The message is the whole story: the file
    (`source`), the ladder (its id and place in the list, when known), the field and what it
    allows; the same parts are attributes."""

    def __init__(
        self,
        source: str,
        problem: str,
        *,
        ladder: str | None = None,
        index: int | None = None,
        field: str | None = None,
    ) -> None:
        where = ""
        if ladder is not None:
            where = f"ladder {json.dumps(ladder)} (ladders[{index}]): "
        elif index is not None:
            where = f"ladders[{index}]: "
        super().__init__(f"{source}: {where}{problem}")
        self.source = source
        self.problem = problem
        self.ladder = ladder
        self.index = index
        self.field = field


# What each ruleset can rate (its `shapes`, read with `shapes_of`), and which of its fields
# a ladder may set.


class Shape(NamedTuple):
    """A ladder's games: how many sides, how many players on each side."""

    sides: Span
    players_per_side: Span


#: Checks one parameter's value (`where` names it in the message); returns the field's value.
Check = Callable[[object, str], object]


def _integer_check(low: int, high: int) -> Check:
    return lambda value, where: _integer(value, where, low, high)


def _divisor(value: object, where: str) -> float:
    low, high = DIVISOR_RANGE
    if not isinstance(value, int | float) or isinstance(value, bool) or not low <= value <= high:
        raise InvalidInput(
            where, f"{where} must be a number from {low} to {high}, got {_shown(value)}"
        )
    return value


def _k_bands(value: object, where: str) -> tuple[tuple[int, int], ...]:
    """sedma's K by rating band, as GET /v1/ladders shows it: [{"below": 1200, "k": 40}, ...]."""
    if not isinstance(value, list) or len(value) > MAX_K_BANDS:
        raise InvalidInput(
            where,
            f'{where} must be a list of at most {MAX_K_BANDS} bands {{"below": rating, "k": K}}, '
            f"lowest first, got {_shown(value)}",
        )
    bands: list[tuple[int, int]] = []
    for index, entry in enumerate(value):
        at = f"{where}[{index}]"
        band = _fields(entry, at, ("below", "k"), "a field of a K band", _BAND_REQUIRED)
        below = _integer(band["below"], f"{at}.below", *RATING_RANGE)
        k = _integer(band["k"], f"{at}.k", *K_RANGE)
        if bands and below <= bands[-1][0]:
            raise InvalidInput(
                f"{at}.below",
                f"{at}.below must be more than {where}[{index - 1}].below ({bands[-1][0]}): "
                f"bands go from the lowest rating up, got {below}",
            )
        bands.append((below, k))
    return tuple(bands)


_RATING = _integer_check(*RATING_RANGE)
_K = _integer_check(*K_RANGE)
_GAMES = _integer_check(*GAMES_RANGE)


def _classic_parameters(published: Any) -> dict[str, Check]:
    return {
        "starting_rating": _RATING,
        "divisor": _divisor,
        "provisional_k": _K,
        "established_k": _K,
        "provisional_games": _GAMES,
    }


def _gammon42_parameters(published: Any) -> dict[str, Check]:
    # The divisor and the heavy-volume rule are what tells the versions apart: they stay the
    # version's (the rule's threshold also decides what a player's stored state keeps).
    found = {"starting_rating": _RATING, "k": _K}
    if published.heavy_volume_games is not None:  # from 1.3.1
        found["heavy_volume_k"] = _K
    return found


def _sedma_parameters(published: Any) -> dict[str, Check]:
    # The divisor and the float32 bonus and malus constants are the source's formula.
    return {"starting_rating": _RATING, "k_bands": _k_bands, "top_k": _K}


#: The fields of each ruleset a ladder may set in `parameters`, for one of its published
#: versions, under the names GET /v1/ladders shows them with.
PARAMETERS: Mapping[str, Callable[[Any], Mapping[str, Check]]] = {
    gammon42.NAME: _gammon42_parameters,
    sedma.NAME: _sedma_parameters,
    classic.NAME: _classic_parameters,
}


# Reading the file.


def load_ladders(path: str | os.PathLike[str] | None = None) -> dict[str, Ladder]:
    """The ladders of the file at `path` (None: ladders.json beside the package), in order."""
    source = os.fspath(path) if path else DEFAULT_FILE
    try:
        with open(source, encoding="utf-8") as file:
            text = file.read()
    except OSError as error:
        raise LadderConfigError(source, f"cannot be read: {error.strerror or error}") from None
    except UnicodeDecodeError:
        raise LadderConfigError(source, "is not UTF-8 text") from None
    try:
        document = json.loads(text, object_pairs_hook=_one_of_each, parse_constant=_no_constant)
    except json.JSONDecodeError as error:
        raise LadderConfigError(
            source,
            f"is not valid JSON: {error.msg} (line {error.lineno} column {error.colno})",
        ) from None
    except (ValueError, RecursionError) as error:  # a key twice, NaN, too deep
        raise LadderConfigError(source, f"is not valid JSON here: {error}") from None
    return parse_ladders(document, source)


def _one_of_each(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise ValueError(f"the key {json.dumps(key)} appears twice in one object")
        found[key] = value
    return found


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def parse_ladders(document: object, source: str = "ladders.json") -> dict[str, Ladder]:
    """The ladders a parsed ladders.json holds, by id, in the file's order; `source` names
    the file in the messages."""
    try:
        top = _fields(
            document,
            "",
            ("ladders", "about"),
            "a field of ladders.json",
            {"ladders": f"a list of {LADDER_COUNT[0]} to {LADDER_COUNT[1]} ladders"},
        )
        if "about" in top and not isinstance(top["about"], str):
            raise InvalidInput("about", f"about must be a string, got {_shown(top['about'])}")
        entries = top["ladders"]
        low, high = LADDER_COUNT
        if not isinstance(entries, list) or not low <= len(entries) <= high:
            raise InvalidInput(
                "ladders",
                f"ladders must be a list of {low} to {high} ladders, got {_shown(entries)}",
            )
    except InvalidInput as error:
        raise LadderConfigError(source, error.message, field=error.field) from None
    ladders: dict[str, Ladder] = {}
    places: dict[str, int] = {}
    for index, entry in enumerate(entries):
        ladder_id = _ladder_id(entry, source, index)
        if ladder_id in places:
            raise LadderConfigError(
                source,
                f"id {json.dumps(ladder_id)} is already the id of ladders[{places[ladder_id]}]: "
                "ids are unique",
                ladder=ladder_id,
                index=index,
                field="id",
            )
        try:
            ladders[ladder_id] = _ladder(ladder_id, entry)
        except InvalidInput as error:
            raise LadderConfigError(
                source, error.message, ladder=ladder_id, index=index, field=error.field
            ) from None
        places[ladder_id] = index
    return ladders


def _ladder_id(entry: object, source: str, index: int) -> str:
    if not isinstance(entry, dict):
        raise LadderConfigError(
            source, f"must be a ladder: a JSON object, got {_shown(entry)}", index=index
        )
    if "id" not in entry:
        raise LadderConfigError(
            source, f"id is required: {LADDER_ID_RULE}", index=index, field="id"
        )
    ladder_id = entry["id"]
    if not isinstance(ladder_id, str) or not LADDER_ID.fullmatch(ladder_id):
        raise LadderConfigError(
            source,
            f"id must be {LADDER_ID_RULE}, got {_shown(ladder_id)}",
            index=index,
            field="id",
        )
    return ladder_id


def _ladder(ladder_id: str, entry: object) -> Ladder:
    rulesets = f"one of {', '.join(RULESET_VERSIONS)}"
    given = _fields(entry, "", _LADDER_FIELDS, "a field of a ladder", {"ruleset": rulesets})
    name = _choice(given["ruleset"], "ruleset", tuple(RULESET_VERSIONS))
    versions = RULESET_VERSIONS[name]
    if "version" not in given:
        raise InvalidInput("version", f"version is required: one of {', '.join(versions)}")
    note = f" ({name}'s published versions)"
    version = _choice(given["version"], "version", tuple(versions), note)
    ruleset = _ruleset(versions[version], given.get("parameters", {}))
    shape = Shape(
        _span(given.get("sides", TWO_SIDES._asdict()), "sides"),
        _span(given.get("players_per_side", ONE_PLAYER._asdict()), "players_per_side"),
    )
    _check_shape(ruleset, shape)
    return Ladder(
        ladder_id,
        ruleset,
        podium_bonuses=_podium_bonuses(given.get("podium_bonuses", list(PODIUM_BONUSES))),
        season=_season(given.get("season", {})),
        sides=shape.sides,
        players_per_side=shape.players_per_side,
    )


def _ruleset(published: Ruleset, parameters: object) -> Ruleset:
    """The published version with the ladder's parameters in place of its own."""
    allowed = PARAMETERS[published.name](published)
    label = f"{published.name} {published.version}"
    given = _fields(parameters, "parameters", tuple(allowed), f"a parameter of {label}")
    changes = {name: allowed[name](value, f"parameters.{name}") for name, value in given.items()}
    base: Any = published  # every ruleset is a frozen dataclass
    changed: Ruleset = replace(base, **changes)
    return changed


def _check_shape(ruleset: Ruleset, shape: Shape) -> None:
    """The ladder's games must be games its ruleset can rate: its sides and players per side
    within the ruleset's (`shapes_of`). What the ruleset decides game by game (at most so many
    players in all, equal sides, ties) is checked on each game sent; a ladder whose every
    game would have more players than the ruleset rates is refused here."""
    can = shapes_of(ruleset)
    for field, noun in (("sides", "sides"), ("players_per_side", "players")):
        wanted: Span = getattr(shape, field)
        if not getattr(can, field).covers(wanted):
            raise InvalidInput(
                field,
                f"{field} must be within what {ruleset.name} rates ({can.words()}), "
                f"got {wanted.words(noun)}",
            )
    fewest = shape.sides.min * shape.players_per_side.min
    if fewest > can.max_players:
        raise InvalidInput(
            "players_per_side",
            f"players_per_side must allow a game of at most {can.max_players} players, what "
            f"{ruleset.name} rates ({can.words()}), got at least {fewest} players "
            f"({shape.sides.words('sides')} of {shape.players_per_side.words('players')})",
        )


def _span(value: object, where: str) -> Span:
    given = _fields(value, where, ("min", "max"), f"a field of {where}", _SPAN_REQUIRED)
    low = _integer(given["min"], f"{where}.min", *COUNT_RANGE)
    high = _integer(given["max"], f"{where}.max", *COUNT_RANGE)
    if high < low:
        raise InvalidInput(
            f"{where}.max", f"{where}.max must be at least {where}.min ({low}), got {high}"
        )
    return Span(low, high)


def _podium_bonuses(value: object) -> tuple[int, ...]:
    if not isinstance(value, list) or len(value) > PODIUM_PLACES:
        raise InvalidInput(
            "podium_bonuses",
            f"podium_bonuses must be a list of at most {PODIUM_PLACES} integers, the bonuses "
            f"of places 1, 2 and 3, got {_shown(value)}",
        )
    return tuple(
        _integer(bonus, f"podium_bonuses[{place}]", *BONUS_RANGE)
        for place, bonus in enumerate(value)
    )


def _season(value: object) -> SeasonPlan:
    given = _fields(value, "season", _SEASON_FIELDS, "a field of a season")
    schedule = _choice(given.get("schedule", "none"), "season.schedule", SCHEDULES)
    reset = parse_reset(given.get("reset", {"kind": "none"}), "season.reset")
    min_games = _integer(given.get("min_games", 1), "season.min_games", *MIN_GAMES_RANGE)
    first = given.get("first")
    if schedule == "none":
        if first is not None:
            raise InvalidInput(
                "season.first",
                "season.first is allowed only with a schedule (weekly, monthly, quarterly): "
                "under none there is one endless season",
            )
        return SeasonPlan(schedule, reset, min_games)
    form = id_form(schedule)
    if first is None:
        raise InvalidInput(
            "season.first",
            f"season.first is required with the schedule {schedule}: the id of the first "
            f"{schedule} season, {form}",
        )
    if not isinstance(first, str) or period_start_of(schedule, first) is None:
        raise InvalidInput(
            "season.first",
            f"season.first must be the id of a {schedule} season, {form}, got {_shown(first)}",
        )
    return SeasonPlan(schedule, reset, min_games, first)


# The building blocks of the checks: each raises InvalidInput(field, message).


def _fields(
    value: object,
    where: str,
    allowed: Sequence[str],
    what: str,
    required: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """`value` as an object of `allowed` fields only (`what` says whose, in the message about
    another), with every field of `required` (each with what it must be)."""
    prefix = f"{where}." if where else ""
    if not isinstance(value, dict):
        raise InvalidInput(
            where or "document",
            f"{where or 'the document'} must be a JSON object, got {_shown(value)}",
        )
    for key in value:
        if key not in allowed:
            choices = ", ".join(allowed) if allowed else "none"
            raise InvalidInput(f"{prefix}{key}", f"{prefix}{key} is not {what}; allowed: {choices}")
    for key, rule in (required or {}).items():
        if key not in value:
            raise InvalidInput(f"{prefix}{key}", f"{prefix}{key} is required: {rule}")
    return value


def _integer(value: object, where: str, low: int, high: int) -> int:
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if type(value) is not int or not low <= value <= high:
        raise InvalidInput(
            where, f"{where} must be an integer from {low} to {high}, got {_shown(value)}"
        )
    return value


def _choice(value: object, where: str, allowed: Sequence[str], note: str = "") -> str:
    if not isinstance(value, str) or value not in allowed:
        raise InvalidInput(
            where, f"{where} must be one of {', '.join(allowed)}{note}, got {_shown(value)}"
        )
    return value


def _shown(value: object) -> str:
    """A value as the file writes it (JSON), cut short."""
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


# The check of `make build`.


def main(argv: Sequence[str] | None = None) -> int:
    import argparse  # here: a cold start never needs it

    parser = argparse.ArgumentParser(
        prog="python -m ratings.rules.ladder_config",
        description="Check a ladders.json: exit 1 with what is wrong when it cannot work.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    check = commands.add_parser("check", help="check a file and list its ladders")
    check.add_argument(
        "path",
        nargs="?",
        help="the file to check (default: the ladders.json beside the package, whatever "
        "RATINGS_LADDERS_FILE says)",
    )
    args = parser.parse_args(argv)
    path = args.path or DEFAULT_FILE
    try:
        ladders = load_ladders(path)
    except LadderConfigError as error:
        print(error, file=sys.stderr)
        return 1
    listed = ", ".join(
        f"{ladder_id} ({ladder.ruleset.name} {ladder.ruleset.version})"
        for ladder_id, ladder in ladders.items()
    )
    counted = f"{len(ladders)} ladder{'' if len(ladders) == 1 else 's'}"
    print(f"{path}: {counted}: {listed}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
