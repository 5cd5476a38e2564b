"""Choosing the rules a command rates with: a ladder, a published version, or parameters.

The ladders are the deployment's: ladders.json, or the file RATINGS_LADDERS_FILE names.

`--ruleset-version` picks a published version of the ladder's ruleset (gammon42: 1.0.5,
1.2.0, 1.3.1). Parameters (`--divisor`, `--k`, `--param name=value`) then change single fields
of that ruleset; the version label records them, for example `1.3.1+divisor=1000`, so a
result written under made-up rules never passes for one of the published versions.
"""

import functools
import json
from collections.abc import Mapping, Sequence
from dataclasses import fields, is_dataclass, replace
from typing import get_args

from ratings.config import ladders_file
from ratings.rules import InvalidInput, Ladder, Ruleset, ruleset_named
from ratings.rules.ladder_config import LadderConfigError, load_ladders
from ratings_cli.records import InputError


def ladder_named(ladder_id: str) -> Ladder:
    try:
        ladders = load_ladders(ladders_file())
    except LadderConfigError as error:
        raise InputError(str(error)) from None
    ladder = ladders.get(ladder_id)
    if ladder is None:
        known = ", ".join(ladders)
        raise InputError(f"--ladder must be one of {known}, got {ladder_id!r}")
    return ladder


def scalar_fields(ruleset: Ruleset) -> dict[str, tuple[type, bool]]:
    """The parameters a flag may change (numbers, not tables): name -> (type, may be None)."""
    assert is_dataclass(ruleset)
    result: dict[str, tuple[type, bool]] = {}
    for field in fields(ruleset):
        options = get_args(field.type) or (field.type,)
        numbers = [option for option in options if option in (int, float)]
        if field.name != "version" and numbers:
            result[field.name] = (numbers[0], type(None) in options)
    return result


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def parse_params(items: Sequence[str]) -> dict[str, object]:
    """`name=value` pairs; the value is a JSON number or `none`/`null`."""
    params: dict[str, object] = {}
    for item in items:
        name, sep, raw = item.partition("=")
        name = name.strip().replace("-", "_")
        if not sep or not name:
            raise InputError(f"--param must look like name=value, got {item!r}")
        text = raw.strip()
        if text.lower() in ("none", "null"):
            params[name] = None
            continue
        try:
            value = json.loads(text)
        except ValueError:
            raise InputError(f"--param {name}: {text!r} is not a number") from None
        if not _is_number(value):
            raise InputError(f"--param {name}: {text!r} is not a number")
        params[name] = value
    return params


def choose_ruleset(
    ladder: Ladder, version: str | None = None, params: Mapping[str, object] | None = None
) -> Ruleset:
    """The ladder's ruleset at `version` (default: the ladder's own), with `params` applied."""
    try:
        ruleset = ladder.ruleset if version is None else ladder.at_version(version)
    except InvalidInput as error:
        raise InputError(f"--ruleset-version: {error.message}") from None
    if not params:
        return ruleset
    allowed = scalar_fields(ruleset)
    changes: dict[str, object] = {}
    for name, value in params.items():
        if name not in allowed:
            names = ", ".join(sorted(allowed))
            raise InputError(f"{ruleset.name} has no parameter {name!r}; parameters: {names}")
        kind, optional = allowed[name]
        if value is None:
            if not optional:
                raise InputError(f"parameter {name} cannot be none")
        elif kind is int:
            if not _is_number(value) or not float(value).is_integer():  # type: ignore[arg-type]
                raise InputError(f"parameter {name} must be a whole number, got {value}")
            value = int(value)  # type: ignore[call-overload]
        if name == "divisor" and (value is None or float(value) <= 0):  # type: ignore[arg-type]
            raise InputError(f"parameter divisor must be a positive number, got {value}")
        changes[name] = value
    label = ",".join(f"{name}={_label(value)}" for name, value in changes.items())
    changed = replace(ruleset, **changes)  # type: ignore[type-var]
    return replace(changed, version=f"{ruleset.version}+{label}")  # type: ignore[type-var]


def _label(value: object) -> str:
    if value is None:
        return "none"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def divisor_of(ruleset: Ruleset) -> float:
    divisor = ruleset.parameters().get("divisor")
    if not _is_number(divisor):
        raise InputError(f"ruleset {ruleset.name} has no divisor")
    return float(divisor)  # type: ignore[arg-type]


def recorded_divisor(ruleset_name: object, version: object) -> float | None:
    """The divisor of the rules a stored result names, when they are published (or labelled)."""
    if not isinstance(ruleset_name, str) or not isinstance(version, str):
        return None
    return _recorded_divisor(ruleset_name, version)


@functools.lru_cache(maxsize=256)
def _recorded_divisor(ruleset_name: str, version: str) -> float | None:
    base, _, label = version.partition("+")
    for part in label.split(","):
        name, _, value = part.partition("=")
        if name == "divisor":
            try:
                return float(value)
            except ValueError:
                return None
    try:
        return divisor_of(ruleset_named(ruleset_name, base))
    except (InvalidInput, InputError):
        return None
