"""The JSON Schemas of the service's answers, generated from their declarations
(`ratings.service.results` and `ratings.service.moderation_results`, annotated as
`ratings.service.declared` describes): nothing here knows a field of any answer. Used by the
OpenAPI document (`ratings_local.openapi`).
"""

import types
import typing
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, Union, get_args, get_origin, get_type_hints

from ratings.rules import Ladder
from ratings.service import declared, game_result, moderation_results, results
from ratings.service.declared import Absent, Schema, SchemaContext
from ratings.service.requests import LINK

_PLAIN: Mapping[type, Schema] = {
    bool: {"type": "boolean"},
    int: {"type": "integer"},
    float: {"type": "number"},
    str: {"type": "string"},
    datetime: declared.TIMESTAMP,
}
#: The answers of the HTTP API by their name in the document, and what it says of some as a
#: whole.
COMPONENTS: Mapping[str, type] = {**results.COMPONENTS, **moderation_results.COMPONENTS}
DESCRIPTIONS: Mapping[type, str] = {**results.DESCRIPTIONS, **moderation_results.DESCRIPTIONS}
#: Each component's name, by its answer type (an answer that is a component is referred to).
_NAMES = {answer: name for name, answer in COMPONENTS.items()}


def result_schemas(ladders: Mapping[str, Ladder]) -> dict[str, Schema]:
    """Every answer's schema by its name in the document, and the request body of a link."""
    context = SchemaContext(ladders)
    schemas = {name: object_schema(answer, context) for name, answer in COMPONENTS.items()}
    schemas["IdentityLink"] = LINK.schema()
    rulesets = {ladder.ruleset.name: ladder.ruleset for ladder in ladders.values()}
    for name, ruleset in rulesets.items():
        schemas[f"explain.{name}"] = game_result.explain_schema(ruleset)
        for prefix, answer, title, preview in results.RULESET_COMPONENTS:
            in_ruleset = SchemaContext(ladders, ruleset, preview)
            schemas[f"{prefix}.{name}"] = {
                **object_schema(answer, in_ruleset),
                "title": f"{name} {title}",
            }
    schemas["GameResult"] = {"oneOf": [declared.ref(f"result.{name}") for name in rulesets]}
    return schemas


def object_schema(answer: type, context: SchemaContext) -> Schema:
    """A closed object: one property a field (a spread field: its entries), every one
    required except those that may be absent."""
    hints = get_type_hints(answer, include_extras=True)
    properties: dict[str, Schema] = {}
    required: list[str] = []
    for name in answer._fields:  # type: ignore[attr-defined]
        hint, marks = _split(hints[name])
        only = _mark(marks, declared.Only)
        if only is not None and not only.applies(context):
            continue
        spread = _mark(marks, declared.Spread)
        if spread is not None:
            if spread.properties_of is None:  # another answer's fields, as this one's
                inlined = object_schema(hint, context)
                properties.update(inlined["properties"])
                required.extend(inlined["required"])
            else:
                spread_properties = dict(spread.properties_of(context))
                properties.update(spread_properties)
                required.extend(spread_properties)
            continue
        options = _union(hint)
        schema = _value_schema(
            [option for option in options if option is not Absent], marks, context
        )
        doc = _mark(marks, declared.Doc)
        if doc is not None:
            schema["description"] = doc.text
        key = declared.json_name(name, marks)
        properties[key] = schema
        if Absent not in options or only is not None:
            required.append(key)
    schema = {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }
    description = DESCRIPTIONS.get(answer)
    if description is not None:
        schema["description"] = description
    return schema


def _value_schema(options: Sequence[Any], marks: Sequence[Any], context: SchemaContext) -> Schema:
    allows_null = type(None) in options
    core = [option for option in options if option is not type(None)]
    mark = _mark(marks, declared.Json) or _mark(marks, declared.Ruled)
    covers_null = False
    if isinstance(mark, declared.Json):
        schema, covers_null = dict(mark.schema), mark.covers_null
    elif isinstance(mark, declared.Ruled):
        schema, covers_null = mark.schema_of(context), mark.covers_null
    else:
        (only_type,) = core
        schema = _type_schema(only_type, context)
    return declared.nullable(schema) if allows_null and not covers_null else schema


def _type_schema(hint: Any, context: SchemaContext) -> Schema:
    if hint in _PLAIN:
        return dict(_PLAIN[hint])
    if isinstance(hint, type) and hasattr(hint, "_fields"):
        name = _NAMES.get(hint)
        return declared.ref(name) if name is not None else object_schema(hint, context)
    origin, arguments = get_origin(hint), get_args(hint)
    if origin is tuple and arguments and Ellipsis not in arguments:
        (item,) = set(arguments)
        return {
            "type": "array",
            "items": _type_schema(item, context),
            "minItems": len(arguments),
            "maxItems": len(arguments),
        }
    if origin in (list, tuple, Sequence, typing.Sequence):
        return {"type": "array", "items": _type_schema(arguments[0], context)}
    raise TypeError(f"no JSON Schema for {hint!r}: annotate it with Json or Ruled")


def _split(hint: Any) -> tuple[Any, tuple[Any, ...]]:
    if get_origin(hint) is typing.Annotated:
        base, *marks = get_args(hint)
        return base, tuple(marks)
    return hint, ()


def _union(hint: Any) -> tuple[Any, ...]:
    if get_origin(hint) in (Union, types.UnionType):
        return get_args(hint)
    return (hint,)


def _mark(marks: Sequence[Any], mark_type: type) -> Any:
    return next((mark for mark in marks if isinstance(mark, mark_type)), None)
