"""An answer, declared once: a NamedTuple whose annotations are its fields.

A field's Python type says what it is (`int`, `bool`, `str`, `float`, a `datetime` written as
an RFC 3339 timestamp, `X | None` nullable, a list or a tuple an array, another answer an
object); `Annotated` adds a kind of `ratings.declare.kinds` where the type alone says too
little (`ID`, `Integer(1)`, `Json({"const": "game"})`), and these marks:

- `Ruled(schema_of)`: a schema that depends on the document's ladders (or its ruleset);
- `Doc(text)`: the field's description;
- `Key(name)`: the field's name in JSON, where Python keeps the word for itself (`from`);
- `Spread(fields_of)`: a mapping whose entries are fields of the object itself (a ruleset's
  own fields, `fields_of` says which), or (`Spread()`) another answer whose fields are;
- `Only(applies)`: a field that exists only in some documents (a preview's `preview`);
- a field that may be `ABSENT` is left out of the JSON then, and is optional.

`json_of` writes an answer as the service answers and stores it, and `answer_schema` is its
schema in the OpenAPI document: both read the same fields (`_declared`), so they cannot drift.
"""

import json
import types
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, NamedTuple, Union, get_args, get_origin

from ratings.declare.kinds import (
    ABSENT,
    NUMBER,
    REQUIRED,
    Absent,
    Field,
    Flag,
    Integer,
    Json,
    Kind,
    ListOf,
    Object,
    Schema,
    Text,
    Timestamp,
    ref,
)

if TYPE_CHECKING:
    from ratings.rules import Ladder, Ruleset

JsonObject = dict[str, Any]


class SchemaContext(NamedTuple):
    """What an answer's schema may depend on: the ladders, the ruleset of the document (for a
    game's result), whether it is a preview's, the answers that are components of their own
    (referred to by name) and what the document says of some answers as a whole."""

    ladders: "Mapping[str, Ladder]"
    ruleset: "Ruleset | None" = None
    preview: bool = False
    names: Mapping[type, str] = types.MappingProxyType({})
    descriptions: Mapping[type, str] = types.MappingProxyType({})


class Ruled(NamedTuple):
    """A field's schema, made from the context (`covers_null` as for Json)."""

    schema_of: Callable[[SchemaContext], Schema]
    covers_null: bool = False


class Doc(NamedTuple):
    text: str


class Key(NamedTuple):
    """The field's name in JSON, where it cannot be its name in Python (a keyword)."""

    name: str


class Spread(NamedTuple):
    """A field whose entries are the object's own properties: a mapping (`fields_of` says
    which fields), or another answer (its fields, without `fields_of`)."""

    fields_of: Callable[[SchemaContext], Sequence[Field]] | None = None


class Only(NamedTuple):
    """A field that is a property only where `applies` (and then a required one)."""

    applies: Callable[[SchemaContext], bool]


def ruleset_of(context: SchemaContext) -> "Ruleset":
    assert context.ruleset is not None, "a game's result is declared per ruleset"
    return context.ruleset


def rulesets_of(context: SchemaContext) -> "dict[str, Ruleset]":
    return {ladder.ruleset.name: ladder.ruleset for ladder in context.ladders.values()}


#: Integers of at least 1, and podium places.
POSITIVE = Integer(1)
PLACE = Integer(1, 3)


class _Declared(NamedTuple):
    """One field of an answer as its annotation declares it."""

    name: str
    key: str
    hint: Any
    marks: tuple[Any, ...]
    spread: bool


#: Per answer type, its fields: read once from the annotations.
_DECLARED: dict[type, tuple[_Declared, ...]] = {}


def _declared(answer: type) -> tuple[_Declared, ...]:
    declared = _DECLARED.get(answer)
    if declared is None:
        entries = []
        for name, annotation in answer.__annotations__.items():
            marks: tuple[Any, ...] = getattr(annotation, "__metadata__", ())
            hint = annotation.__origin__ if marks else annotation  # Annotated's own type
            key = next((mark.name for mark in marks if isinstance(mark, Key)), name)
            spread = any(isinstance(mark, Spread) for mark in marks)
            entries.append(_Declared(name, key, hint, marks, spread))
        declared = _DECLARED[answer] = tuple(entries)
    return declared


# Writing answers ----------------------------------------------------------------------------


def json_of(answer: tuple[Any, ...]) -> JsonObject:
    """An answer's JSON object."""
    written: JsonObject = to_json(answer)
    return written


def to_json(value: Any) -> Any:
    """An answer (or a list of them, or a plain value) as JSON-ready values."""
    if isinstance(value, tuple):
        if not hasattr(value, "_fields"):
            return [to_json(item) for item in value]
        out: dict[str, Any] = {}
        for entry in _declared(type(value)):
            item = getattr(value, entry.name)
            if entry.spread:
                out.update(to_json(item))
            elif item is not ABSENT:
                out[entry.key] = to_json(item)
        return out
    if isinstance(value, list):
        return [to_json(item) for item in value]
    if isinstance(value, datetime):
        return format_utc_millis(value)
    if isinstance(value, Mapping):
        return dict(value)
    return value


# Declaring answers --------------------------------------------------------------------------

_PLAIN: Mapping[Any, Kind] = {
    bool: Flag(),
    int: Integer(),
    float: NUMBER,
    str: Text(),
    datetime: Timestamp(None),
}


def answer_schema(answer: type, context: SchemaContext) -> Schema:
    """A closed object: one property a field, every one required except those that may be
    absent; a spread field's entries are properties of their own."""
    return _object(answer, context).schema()


def _object(answer: type, context: SchemaContext) -> Object:
    described = context.descriptions.get(answer, "")
    return Object(answer_fields(answer, context), description=described)


def answer_fields(answer: type, context: SchemaContext) -> tuple[Field, ...]:
    """The answer's fields as `Field`s of `ratings.declare.kinds`, in `context`."""
    fields: list[Field] = []
    for entry in _declared(answer):
        only = _mark(entry.marks, Only)
        if only is not None and not only.applies(context):
            continue
        spread = _mark(entry.marks, Spread)
        if spread is not None:
            fields += (
                spread.fields_of(context)
                if spread.fields_of is not None
                else answer_fields(entry.hint, context)
            )
            continue
        options = get_args(entry.hint) if _is_union(entry.hint) else (entry.hint,)
        core = [option for option in options if option not in (Absent, type(None))]
        kind = _kind_of(core, entry.marks, context)
        doc = _mark(entry.marks, Doc)
        fields.append(
            Field(
                entry.key,
                kind,
                doc.text if doc is not None else "",
                default=ABSENT if Absent in options and only is None else REQUIRED,
                nullable=type(None) in options and not getattr(kind, "covers_null", False),
            )
        )
    return tuple(fields)


def _kind_of(core: Sequence[Any], marks: Sequence[Any], context: SchemaContext) -> Kind:
    ruled = _mark(marks, Ruled)
    if ruled is not None:
        return Json(ruled.schema_of(context), ruled.covers_null)
    given = next((mark for mark in marks if hasattr(mark, "schema")), None)
    if given is not None:
        return given  # type: ignore[no-any-return]
    (hint,) = core
    return _type_kind(hint, context)


def _type_kind(hint: Any, context: SchemaContext) -> Kind:
    if hint in _PLAIN:
        return _PLAIN[hint]
    if isinstance(hint, type) and hasattr(hint, "_fields"):
        name = context.names.get(hint)
        return Json(ref(name)) if name is not None else _object(hint, context)
    origin, arguments = get_origin(hint), get_args(hint)
    if origin is tuple and arguments and Ellipsis not in arguments:
        (item,) = set(arguments)
        return ListOf(_type_kind(item, context), len(arguments), len(arguments))
    if origin in (list, tuple, Sequence):
        return ListOf(_type_kind(arguments[0], context))
    raise TypeError(f"no kind for {hint!r}: annotate it with a kind or Ruled")


def _is_union(hint: Any) -> bool:
    return get_origin(hint) in (Union, types.UnionType)


def _mark(marks: Sequence[Any], mark_type: type) -> Any:
    return next((mark for mark in marks if isinstance(mark, mark_type)), None)


def json_text(value: Any) -> str:
    """An answer's JSON (or any JSON value) as compact text, as the service sends it."""
    return json.dumps(value, separators=(",", ":"))


# The one timestamp codec: RFC 3339 in UTC with a Z, to the millisecond, fixed width.
#
# This is the form the service writes (played_at, history `at`) and the table stores: fixed
# width, so the text sorts in time order and a key range on it is a time window. Standard
# library only.


def format_utc_millis(at: datetime) -> str:
    """`at` in UTC to the millisecond (truncated), like 2024-05-01T12:00:00.250Z."""
    at = at.astimezone(UTC)
    return at.strftime("%Y-%m-%dT%H:%M:%S.") + f"{at.microsecond // 1000:03d}Z"


def parse_utc_millis(text: str) -> datetime:
    """The aware datetime (UTC) of a timestamp written by `format_utc_millis`."""
    return datetime.fromisoformat(text.replace("Z", "+00:00"))
