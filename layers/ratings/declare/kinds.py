"""What a declared value may be (its kind), the fields of an object, and the error of a refused
value. A kind parses what a caller sent (`parse`: the checked value, or InvalidInput naming
`where`), says what is allowed in words (`rule`, the end of an error message) and describes
itself as JSON Schema (`schema`). Answers are declared with the same kinds
(`ratings.declare.answers`); a bound left out (`Integer()`, `Text()`) is in no schema either.
"""

import copy
import json
import re
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from enum import Enum
from typing import Any, NamedTuple, Protocol

from ratings.errors import Disposition, ServiceError

Schema = dict[str, Any]


class InvalidInput(ServiceError, ValueError):
    """A body, game, state or parameter the declarations or the rules refuse.

    `field` names the offending input the way a caller wrote it (``cube``,
    ``players[1].stats.bad_moves``); the message says what was wrong and what is allowed.
    Like every error the service can end in, it carries its stable `code` and what it means
    for the caller (`disposition`: refused, sending it again never helps); the error taxonomy
    (`ratings.errors`) names the dispositions.
    """

    code = "invalid_request"
    disposition = Disposition.REFUSED

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


class Kind(Protocol):
    """What a field's value may be."""

    @property
    def rule(self) -> str: ...

    def parse(self, value: object, where: str) -> Any: ...

    def schema(self) -> Schema: ...


class _Required:
    def __repr__(self) -> str:
        return "REQUIRED"


#: The default of a field that must be sent (in an answer: that is always written).
REQUIRED: Any = _Required()


class Absent(Enum):
    """The type of `ABSENT`: an answer's field left out of its JSON (not the same as a null)."""

    ABSENT = "absent"


ABSENT = Absent.ABSENT


def nullable(schema: Schema) -> Schema:
    return {"anyOf": [schema, {"type": "null"}]}


def ref(name: str) -> Schema:
    """A reference to a schema of the OpenAPI document's components."""
    return {"$ref": f"#/components/schemas/{name}"}


def _as_integer(value: object) -> object:
    # JSON Schema's integer, which the document promises: 2.0 is 2.
    return int(value) if type(value) is float and value.is_integer() else value


def _within(size: int, low: int | None, high: int | None) -> bool:
    return (low is None or size >= low) and (high is None or size <= high)


def _bounded(schema: Schema, **bounds: int | None) -> Schema:
    return {**schema, **{key: bound for key, bound in bounds.items() if bound is not None}}


class Integer(NamedTuple):
    minimum: int | None = None
    maximum: int | None = None

    @property
    def rule(self) -> str:
        low, high = self.minimum, self.maximum
        if low is not None and high is not None:
            return f"an integer from {low} to {high}"
        return "an integer" + (f" of at least {low}" if low is not None else "")

    def parse(self, value: object, where: str) -> int:
        value = _as_integer(value)
        if type(value) is not int or not _within(value, self.minimum, self.maximum):
            raise InvalidInput(where, f"{where} must be {self.rule}")
        return value

    def schema(self) -> Schema:
        return _bounded({"type": "integer"}, minimum=self.minimum, maximum=self.maximum)


class Choice(NamedTuple):
    """One of a fixed set of strings or integers (compared with their type: True is not 1)."""

    values: tuple[str | int, ...]

    @property
    def rule(self) -> str:
        return "one of " + ", ".join(str(value) for value in self.values)

    def parse(self, value: object, where: str) -> str | int:
        compared = _as_integer(value)
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
    max_length: int | None = None
    #: The whole value must match, when given.
    pattern: re.Pattern[str] | None = None
    #: The allowed values in words, when there is a pattern.
    described: str = ""

    @property
    def rule(self) -> str:
        if self.described or self.max_length is not None:
            return f"a string of {self.described or f'at most {self.max_length} characters'}"
        return "a string"

    def parse(self, value: object, where: str) -> str:
        if (
            not isinstance(value, str)
            or not _within(len(value), None, self.max_length)
            or (self.pattern is not None and not self.pattern.fullmatch(value))
        ):
            raise InvalidInput(where, f"{where} must be {self.rule}")
        return value

    def schema(self) -> Schema:
        schema = _bounded({"type": "string"}, maxLength=self.max_length)
        if self.pattern is not None:
            schema["pattern"] = f"^{self.pattern.pattern}$"
            schema["minLength"] = 1
        return schema


class Timestamp(NamedTuple):
    """An RFC 3339 date and time with an offset, as an aware UTC datetime to the millisecond
    (an answer writes it as `ratings.declare.answers.format_utc_millis` does: no bound needed)."""

    max_length: int | None = 64

    @property
    def rule(self) -> str:
        return "an RFC 3339 timestamp with an offset, like 2026-11-29T12:00:00Z"

    def parse(self, value: object, where: str) -> datetime:
        if not isinstance(value, str) or len(value) > (self.max_length or 64):
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
        return _bounded({"type": "string", "format": "date-time"}, maxLength=self.max_length)


class Json(NamedTuple):
    """An answer's value whose schema is given as it is (a constant, an enum, references);
    `covers_null` when it allows null itself. Answers only: nothing is parsed with it."""

    given: Schema
    covers_null: bool = False

    @property
    def rule(self) -> str:
        return "what the schema allows"

    def parse(self, value: object, where: str) -> Any:
        raise TypeError(f"{where}: a Json kind declares an answer's value, not a request's")

    def schema(self) -> Schema:
        return copy.deepcopy(self.given)


#: Any number (an answer's expected score, a coefficient).
NUMBER = Json({"type": "number"})


class Field(NamedTuple):
    """One named field of an object: its kind, whether it is required, and its default."""

    name: str
    kind: Kind
    description: str = ""
    #: The value when the field is absent; REQUIRED when it must be sent (ABSENT: an answer's
    #: field that may be left out).
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
            schema = nullable(schema)
        if self.description:
            schema["description"] = self.description
        if self.default is not REQUIRED and self.default is not None and self.default is not ABSENT:
            schema["default"] = self.default
        if self.example is not None:
            schema["example"] = self.example
        return schema

    def answered(self) -> "Field":
        """The field as a result shows it: always there, its default when it was not sent."""
        kind = self.kind
        if isinstance(kind, Object):
            kind = kind._replace(fields=tuple(entry.answered() for entry in kind.fields))
        return self._replace(kind=kind, default=REQUIRED, example=None)


class Object(NamedTuple):
    """A JSON object with known fields only: parsed to a dict with every field's value."""

    fields: tuple[Field, ...]
    #: What the object is, for the message about an unknown field ("a sedma game").
    label: str = "this object"
    #: Turns the parsed values into the value a caller of `parse` gets (a record type...).
    build: Callable[..., Any] | None = None
    title: str = ""
    description: str = ""

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

    def example(self) -> dict[str, Any]:
        """A body of the fields' declared examples."""
        return {entry.name: entry.example for entry in self.fields if entry.example is not None}

    def schema(self) -> Schema:
        schema: Schema = {
            "type": "object",
            "properties": {entry.name: entry.schema() for entry in self.fields},
        }
        required = [entry.name for entry in self.fields if entry.required]
        if required:
            schema["required"] = required
        schema["additionalProperties"] = False
        for key, text in (("title", self.title), ("description", self.description)):
            if text:
                schema[key] = text
        return schema


class ListOf(NamedTuple):
    item: Kind
    min_items: int | None = None
    max_items: int | None = None
    described: str = ""

    @property
    def rule(self) -> str:
        return self.described or f"a list of {self.min_items} to {self.max_items} items"

    def parse(self, value: object, where: str) -> list[Any]:
        if not isinstance(value, list) or not _within(len(value), self.min_items, self.max_items):
            raise InvalidInput(where, f"{where} must be {self.rule}")
        return [self.item.parse(entry, f"{where}[{index}]") for index, entry in enumerate(value)]

    def schema(self) -> Schema:
        items = {"type": "array", "items": self.item.schema()}
        return _bounded(items, minItems=self.min_items, maxItems=self.max_items)


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


#: Game, player, tournament and ladder ids: 1-128 characters of this alphabet.
ID_PATTERN = re.compile(r"[A-Za-z0-9._:-]{1,128}")
ID = Text(128, ID_PATTERN, "1-128 characters of A-Z a-z 0-9 . _ : -")


# Reading JSON text, strictly: what a caller sent becomes a value the kinds check.


def parse_json(text: str | bytes, where: str = "body") -> Any:
    """The JSON value in `text`; InvalidInput (field `where`) when it is not strict JSON."""
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except RecursionError:
        raise InvalidInput(where, f"{where} nests arrays or objects too deeply") from None
    except json.JSONDecodeError as error:
        raise InvalidInput(
            where,
            f"{where} is not valid JSON: {error.msg} (line {error.lineno} column {error.colno})",
        ) from None
    except ValueError as error:  # NaN, huge integers, bytes that are not UTF-8
        raise InvalidInput(where, f"{where} is not valid JSON: {error}") from None


def parse_json_object(text: str | bytes, where: str = "body") -> dict[str, Any]:
    value = parse_json(text, where)
    if not isinstance(value, dict):
        raise InvalidInput(where, f"{where} must be a JSON object")
    return value


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")
