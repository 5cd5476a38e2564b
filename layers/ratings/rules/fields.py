"""Declared input fields: each one parses what a caller sent and describes itself as JSON Schema.

A ruleset declares its own fields with these (gammon42's cube, sedma's statistics); the
request bodies are put together from the same declarations, so what the service checks and
what the OpenAPI document shows come from one place. A refused value raises InvalidInput
naming the field the way the caller wrote it (``players[1].stats.bad_moves``) and saying what
is allowed.
"""

import copy
import re
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any, NamedTuple, Protocol

from ratings.rules.errors import InvalidInput

Schema = dict[str, Any]


class Kind(Protocol):
    """What a field's value may be."""

    @property
    def rule(self) -> str:
        """What is allowed, in words (the end of an error message)."""
        ...

    def parse(self, value: object, where: str) -> Any:
        """The checked value, or InvalidInput naming `where`."""
        ...

    def schema(self) -> Schema: ...


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


#: The default of a field that must be sent.
REQUIRED: Any = _Required()


class Integer(NamedTuple):
    minimum: int
    maximum: int

    @property
    def rule(self) -> str:
        return f"an integer from {self.minimum} to {self.maximum}"

    def parse(self, value: object, where: str) -> int:
        if type(value) is float and value.is_integer():
            value = int(value)  # JSON Schema's integer, which the document promises: 2.0 is 2
        if type(value) is not int or not self.minimum <= value <= self.maximum:
            raise InvalidInput(where, f"{where} must be {self.rule}")
        return value

    def schema(self) -> Schema:
        return {"type": "integer", "minimum": self.minimum, "maximum": self.maximum}


class Choice(NamedTuple):
    """One of a fixed set of strings or integers (compared with their type: True is not 1)."""

    values: tuple[str | int, ...]

    @property
    def rule(self) -> str:
        return "one of " + ", ".join(str(value) for value in self.values)

    def parse(self, value: object, where: str) -> str | int:
        compared = value
        if type(value) is float and value.is_integer():
            compared = int(value)  # JSON Schema's integer, which the document promises: 2.0 is 2
        for allowed in self.values:
            if type(compared) is type(allowed) and compared == allowed:
                return allowed
        raise InvalidInput(where, f"{where} must be {self.rule}, got {_shown(value)}")

    def schema(self) -> Schema:
        json_type = "integer" if all(type(value) is int for value in self.values) else "string"
        return {"type": json_type, "enum": list(self.values)}


class Flag(NamedTuple):
    @property
    def rule(self) -> str:
        return "true or false"

    def parse(self, value: object, where: str) -> bool:
        if not isinstance(value, bool):
            raise InvalidInput(where, f"{where} must be {self.rule}")
        return value

    def schema(self) -> Schema:
        return {"type": "boolean"}


class Text(NamedTuple):
    max_length: int
    #: The whole value must match, when given.
    pattern: re.Pattern[str] | None = None
    #: The allowed values in words, when there is a pattern.
    described: str = ""

    @property
    def rule(self) -> str:
        return f"a string of {self.described or f'at most {self.max_length} characters'}"

    def parse(self, value: object, where: str) -> str:
        if (
            not isinstance(value, str)
            or len(value) > self.max_length
            or (self.pattern is not None and not self.pattern.fullmatch(value))
        ):
            raise InvalidInput(where, f"{where} must be {self.rule}")
        return value

    def schema(self) -> Schema:
        schema: Schema = {"type": "string", "maxLength": self.max_length}
        if self.pattern is not None:
            schema["pattern"] = f"^{self.pattern.pattern}$"
            schema["minLength"] = 1
        return schema


class Timestamp(NamedTuple):
    """An RFC 3339 date and time with an offset, as an aware UTC datetime to the millisecond."""

    @property
    def rule(self) -> str:
        return "an RFC 3339 timestamp with an offset, like 2026-11-29T12:00:00Z"

    def parse(self, value: object, where: str) -> datetime:
        if not isinstance(value, str) or len(value) > 64:
            raise InvalidInput(where, f"{where} must be {self.rule}")
        text = value.strip()
        try:
            parsed = datetime.fromisoformat(text[:-1] + "+00:00" if text[-1:] in "Zz" else text)
        except (ValueError, IndexError):
            parsed = None
        if parsed is None or parsed.tzinfo is None or "T" not in text.upper():
            raise InvalidInput(where, f"{where} must be {self.rule}")
        try:
            utc = parsed.astimezone(UTC)
        except OverflowError:  # 9999-12-31T23:59:59-23:59 is past the last representable UTC
            raise InvalidInput(
                where, f"{where} must be a timestamp between the years 0001 and 9999 in UTC"
            ) from None
        # Stored times are kept to the millisecond, so windows compare exactly what is stored.
        return utc.replace(microsecond=parsed.microsecond // 1000 * 1000)

    def schema(self) -> Schema:
        return {"type": "string", "format": "date-time", "maxLength": 64}


class Field(NamedTuple):
    """One named field of an object: its kind, whether it is required, and its default."""

    name: str
    kind: Kind
    description: str = ""
    #: The value when the field is absent; REQUIRED when it must be sent.
    default: Any = REQUIRED
    #: Whether an explicit null is accepted (it then stands for the default's meaning).
    nullable: bool = False
    example: Any = None
    #: (value, weight) pairs: how often each value occurs in a typical game, for simulations;
    #: empty when a typical game just has the default.
    typical: tuple[tuple[Any, int], ...] = ()

    @property
    def required(self) -> bool:
        return self.default is REQUIRED

    def parse(self, value: object, where: str) -> Any:
        if value is None and self.nullable:
            return None
        return self.kind.parse(value, where)

    def schema(self) -> Schema:
        schema = self.kind.schema()
        if self.nullable:
            schema = {"anyOf": [schema, {"type": "null"}]}
        if self.description:
            schema["description"] = self.description
        if not self.required and self.default is not None:
            schema["default"] = self.default
        if self.example is not None:
            schema["example"] = self.example
        return schema

    def answered_schema(self) -> Schema:
        """The field as a result shows it: always present, its default when not sent."""
        schema = self.schema()
        for key in ("default", "example"):
            schema.pop(key, None)
        if isinstance(self.kind, Object):
            nested = self.kind.schema()
            nested["required"] = [entry.name for entry in self.kind.fields]
            schema = nested if not self.nullable else {"anyOf": [nested, {"type": "null"}]}
        return schema


class Object(NamedTuple):
    """A JSON object with known fields only: parsed to a dict with every field's value."""

    fields: tuple[Field, ...]
    #: What the object is, for the message about an unknown field ("a sedma game").
    label: str = "this object"
    #: Turns the parsed values into the value a caller of `parse` gets (a record type...).
    build: Callable[..., Any] | None = None
    title: str = ""

    @property
    def rule(self) -> str:
        return "a JSON object"

    def parse(self, value: object, where: str) -> Any:
        if not isinstance(value, Mapping):
            raise InvalidInput(where or "body", f"{where or 'body'} must be a JSON object")
        prefix = f"{where}." if where else ""
        known = {entry.name: entry for entry in self.fields}
        for key in value:
            if key not in known:
                allowed = ", ".join(known)
                raise InvalidInput(
                    f"{prefix}{key}",
                    f"{prefix}{key} is not a field of {self.label}; allowed: {allowed}",
                )
        parsed: dict[str, Any] = {}
        for entry in self.fields:
            name = f"{prefix}{entry.name}"
            if entry.name in value:
                parsed[entry.name] = entry.parse(value[entry.name], name)
            elif entry.required:
                raise InvalidInput(name, f"{name} is required: {entry.kind.rule}")
            else:  # a fresh copy: a parsed value may end up in a stored document
                parsed[entry.name] = copy.deepcopy(entry.default)
        return self.build(**parsed) if self.build is not None else parsed

    def schema(self) -> Schema:
        schema: Schema = {
            "type": "object",
            "properties": {entry.name: entry.schema() for entry in self.fields},
            "additionalProperties": False,
        }
        required = [entry.name for entry in self.fields if entry.required]
        if required:
            schema["required"] = required
        if self.title:
            schema["title"] = self.title
        return schema


class ListOf(NamedTuple):
    item: Kind
    min_items: int
    max_items: int
    described: str = ""

    @property
    def rule(self) -> str:
        return self.described or f"a list of {self.min_items} to {self.max_items} items"

    def parse(self, value: object, where: str) -> list[Any]:
        if not isinstance(value, list) or not self.min_items <= len(value) <= self.max_items:
            raise InvalidInput(where, f"{where} must be {self.rule}")
        return [self.item.parse(entry, f"{where}[{index}]") for index, entry in enumerate(value)]

    def schema(self) -> Schema:
        return {
            "type": "array",
            "items": self.item.schema(),
            "minItems": self.min_items,
            "maxItems": self.max_items,
        }


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


#: Game, player, tournament and ladder ids: 1-128 characters of this alphabet.
ID_PATTERN = re.compile(r"[A-Za-z0-9._:-]{1,128}")
ID = Text(128, ID_PATTERN, "1-128 characters of A-Z a-z 0-9 . _ : -")


class Explained(NamedTuple):
    """One value of a rated player's `explain`: its name and what it is."""

    name: str
    description: str
    number: bool = True
