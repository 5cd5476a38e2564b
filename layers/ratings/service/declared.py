"""How an answer declares its JSON, once.

An answer is a NamedTuple. Its fields' Python types say what they are in JSON (`int`, `bool`,
`str`, a `datetime` as an RFC 3339 timestamp, `X | None` as nullable, a list or a tuple as an
array, another answer as an object), and `Annotated` says what the type alone does not:

- `Json(schema)`: the JSON Schema of the value (an id's pattern, an enum, a bound);
- `Ruled(schema_of)`: a schema that depends on the ladder's ruleset (or the ladders);
- `Doc(text)`: the field's description;
- `Key(name)`: the field's name in JSON, where Python keeps the word for itself (`from`);
- `Spread(properties_of)`: a mapping whose entries are fields of the object itself (a
  ruleset's own fields), or (`Spread()`) another answer whose fields are;
- `Only(applies)`: a field that exists only in some documents (a preview's `preview`);
- a field that may be `ABSENT` is left out of the JSON then, and is optional.

`to_json` writes an answer as the service answers and stores it. The OpenAPI document's result
schemas are generated from the same annotations (`ratings_local.result_schemas`), so the two
cannot drift.
"""

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from enum import Enum
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, NamedTuple

from ratings.rules.fields import ID
from ratings.rules.model import UNRANKED_REASONS
from ratings.timestamps import format_utc_millis

if TYPE_CHECKING:
    from ratings.rules import Ladder, Ruleset

Schema = dict[str, Any]
JsonObject = dict[str, Any]


class Absent(Enum):
    """The type of `ABSENT`: a field not in this answer (not the same as a null)."""

    ABSENT = "absent"


ABSENT = Absent.ABSENT


class SchemaContext(NamedTuple):
    """What a ruled schema may depend on: the ladders, the ruleset of the document (for a
    game's result) and whether it is a preview's."""

    ladders: "Mapping[str, Ladder]"
    ruleset: "Ruleset | None" = None
    preview: bool = False


class Json(NamedTuple):
    """The JSON Schema of a field's value; `covers_null` when it already allows null."""

    schema: Schema
    covers_null: bool = False


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
    """A field whose entries are the object's own properties: a mapping (`properties_of`
    says which, with their schemas), or another answer (its fields, without `properties_of`)."""

    properties_of: Callable[[SchemaContext], Mapping[str, Schema]] | None = None


class Only(NamedTuple):
    """A field that is a property only where `applies` (and then a required one)."""

    applies: Callable[[SchemaContext], bool]


def ref(name: str) -> Schema:
    return {"$ref": f"#/components/schemas/{name}"}


def nullable(schema: Schema) -> Schema:
    return {"anyOf": [schema, {"type": "null"}]}


def ruleset_of(context: SchemaContext) -> "Ruleset":
    assert context.ruleset is not None, "a game's result is declared per ruleset"
    return context.ruleset


def rulesets_of(context: SchemaContext) -> "dict[str, Ruleset]":
    return {ladder.ruleset.name: ladder.ruleset for ladder in context.ladders.values()}


TIMESTAMP: Schema = {"type": "string", "format": "date-time"}
#: The kinds of value most answers share.
IDENTIFIER = Json(ID.schema())
POSITIVE = Json({"type": "integer", "minimum": 1})
PLACE = Json({"type": "integer", "minimum": 1, "maximum": 3})
UNRANKED_REASON = Json({"enum": [*UNRANKED_REASONS, None]}, covers_null=True)
#: An empty mapping of spread properties (a ruleset without fields of its own).
NO_PROPERTIES: Mapping[str, Any] = MappingProxyType({})


# Writing answers ----------------------------------------------------------------------------

#: Per answer type, its fields as (name, JSON name, spread): computed once from the
#: annotations.
_PLANS: dict[type, tuple[tuple[str, str, bool], ...]] = {}


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
        for name, key, spread in _plan(type(value)):
            item = getattr(value, name)
            if spread:
                out.update(to_json(item))
            elif item is not ABSENT:
                out[key] = to_json(item)
        return out
    if isinstance(value, list):
        return [to_json(item) for item in value]
    if isinstance(value, datetime):
        return format_utc_millis(value)
    if isinstance(value, Mapping):
        return dict(value)
    return value


def json_name(name: str, marks: Sequence[Any]) -> str:
    """A field's name in JSON: its `Key`, else its own."""
    key = next((mark for mark in marks if isinstance(mark, Key)), None)
    return name if key is None else key.name


def _plan(answer: type) -> tuple[tuple[str, str, bool], ...]:
    plan = _PLANS.get(answer)
    if plan is None:
        annotations = answer.__annotations__
        entries = []
        for name in answer._fields:  # type: ignore[attr-defined]
            marks = getattr(annotations[name], "__metadata__", ())
            spread = any(isinstance(mark, Spread) for mark in marks)
            entries.append((name, json_name(name, marks), spread))
        plan = _PLANS[answer] = tuple(entries)
    return plan
