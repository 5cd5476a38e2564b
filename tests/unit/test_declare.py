"""One declaration for what is accepted and what is answered (`ratings.declare`): a refused body
names the field as the caller wrote it and says what is allowed, in the words of the same kind
whose schema the document shows; an answer's JSON and its schema come from the same fields."""

import ast
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Annotated, Any, NamedTuple, cast

import jsonschema
import pytest
from support.games import NOW

from ratings.declare.answers import Doc, Key, SchemaContext, Spread, answer_schema, json_of
from ratings.declare.kinds import (
    ABSENT,
    ID,
    Absent,
    Choice,
    Field,
    Integer,
    InvalidInput,
    Json,
    Kind,
    ListOf,
    Object,
    Text,
    Timestamp,
)
from ratings.rules import DEFAULT_LADDERS, parse_game
from ratings.rules.submission import game_body
from ratings.service.parameters import page_limit, page_size
from ratings.service.requests import LINK, PODIUM, parse_link, parse_podium

LAYER = Path(__file__).resolve().parents[2] / "layers" / "ratings"
RULESETS = {ladder.ruleset.name: ladder.ruleset for ladder in DEFAULT_LADDERS.values()}


# Refusals -----------------------------------------------------------------------------------


def _fields(kind: Kind, where: str) -> Iterator[tuple[str, Kind]]:
    """Every declared value of a body, by the path a caller writes it at."""
    if isinstance(kind, Object):
        for entry in kind.fields:
            path = f"{where}.{entry.name}" if where else entry.name
            yield path, entry.kind
            yield from _fields(entry.kind, path)
    elif isinstance(kind, ListOf):
        yield from _fields(kind.item, f"{where}[1]")


def _put(body: Any, path: str, value: Any) -> Any:
    """`body` with `value` at `path` (``players[1].stats.bad_moves``)."""
    steps = path.replace("[", ".[").split(".")
    here = body
    for step in steps[:-1]:
        here = here[int(step[1:-1])] if step.startswith("[") else here.setdefault(step, {})
    last = steps[-1]
    if last.startswith("["):
        here[int(last[1:-1])] = value
    else:
        here[last] = value
    return body


def _game() -> dict[str, Any]:
    return {"game_id": "g-1", "players": [{"id": "alice"}, {"id": "bob"}], "winner": "alice"}


@pytest.mark.parametrize("ruleset_name", sorted(RULESETS))
@pytest.mark.parametrize("preview", [False, True], ids=["game", "preview"])
def test_every_field_of_a_game_body_refused_names_itself_and_says_what_is_allowed(
    ruleset_name: str, preview: bool
) -> None:
    ruleset = RULESETS[ruleset_name]
    versions = ("1.0",) if preview else None
    declared = list(_fields(game_body(ruleset, versions), ""))

    assert {"players[1].id", "played_at", "mode"} <= {path for path, _ in declared}
    for path, kind in declared:
        sent = _put(_game(), path, [[]])  # no kind takes a list of a list
        with pytest.raises(InvalidInput) as refused:
            parse_game(sent, ruleset, NOW, preview_versions=versions)

        assert refused.value.field == path
        assert str(refused.value).startswith(f"{path} must be {kind.rule}")


def test_a_nested_field_is_named_the_way_the_caller_wrote_it() -> None:
    sent = _game()
    sent["players"][1]["stats"] = {"bad_moves": 1_000_001}
    with pytest.raises(InvalidInput) as refused:
        parse_game(sent, RULESETS["sedma"], NOW)

    assert refused.value.field == "players[1].stats.bad_moves"
    assert str(refused.value) == "players[1].stats.bad_moves must be an integer from 0 to 1000000"

    sent["players"][1]["stats"] = {"bad_moves": 1, "good_moves": 2}
    with pytest.raises(InvalidInput) as unknown:
        parse_game(sent, RULESETS["sedma"], NOW)
    assert unknown.value.field == "players[1].stats.good_moves"
    assert str(unknown.value) == (
        "players[1].stats.good_moves is not a field of sedma statistics; allowed: bad_moves, "
        "rounds_won_16, rounds_won_24, rounds_won_4_last"
    )


TIMESTAMP = {"type": "string", "format": "date-time", "maxLength": 64}
IDS = {"type": "array", "items": ID.schema(), "minItems": 1, "maxItems": 2}


@pytest.mark.parametrize(
    ("kind", "sent", "rule", "schema"),
    [
        (
            Integer(0, 9),
            10,
            "an integer from 0 to 9",
            {"type": "integer", "minimum": 0, "maximum": 9},
        ),
        (Choice((1, 2)), True, "one of 1, 2", {"type": "integer", "enum": [1, 2]}),
        (Text(3), "abcd", "a string of at most 3 characters", {"type": "string", "maxLength": 3}),
        (ID, "a b", "a string of 1-128 characters of A-Z a-z 0-9 . _ : -", ID.schema()),
        (Timestamp(), 20261129, Timestamp().rule, TIMESTAMP),
        (ListOf(ID, 1, 2), [], "a list of 1 to 2 items", IDS),
    ],
)
def test_a_kind_refuses_in_its_own_words_what_its_schema_leaves_out(
    kind: Kind, sent: Any, rule: str, schema: dict[str, Any]
) -> None:
    assert kind.rule == rule
    assert kind.schema() == schema
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(sent, schema)
    with pytest.raises(InvalidInput) as refused:
        kind.parse(sent, "where")
    assert refused.value.field == "where"
    assert str(refused.value).startswith(f"where must be {rule}")


def test_the_other_bodies_name_their_fields_too() -> None:
    with pytest.raises(InvalidInput) as place:
        parse_podium({**_podium(), "podium": [{"place": 4, "player_id": "a"}]}, NOW)
    assert (place.value.field, str(place.value)) == (
        "podium[0].place",
        "podium[0].place must be an integer from 1 to 3",
    )
    with pytest.raises(InvalidInput) as missing:
        parse_link({"anonymous_id": "anon"})
    assert (missing.value.field, str(missing.value)) == (
        "account_id",
        "account_id is required: a string of 1-128 characters of A-Z a-z 0-9 . _ : -",
    )
    assert [entry.name for entry in PODIUM.fields] == list(PODIUM.schema()["properties"])
    assert LINK.example() == {"anonymous_id": "anon-42", "account_id": "acct-42"}


def _podium() -> dict[str, Any]:
    return {
        "tournament_id": "t-1",
        "ladder": "backgammon",
        "finished_at": "2026-11-29T10:00:00Z",
        "public": True,
        "podium": [{"place": 1, "player_id": "a"}],
    }


def test_a_page_limit_is_checked_and_shown_by_one_declaration() -> None:
    assert page_size(1000).schema() == {"type": "integer", "minimum": 1, "maximum": 1000}
    assert page_limit("7", 50) == 7
    with pytest.raises(InvalidInput) as refused:
        page_limit("0", 50)
    assert (refused.value.field, str(refused.value)) == (
        "limit",
        "limit must be an integer from 1 to 100",
    )


# Answers ------------------------------------------------------------------------------------


class Span(NamedTuple):
    since: Annotated[datetime, Key("from")]
    until: Annotated[datetime, Key("to")]


class Counts(NamedTuple):
    won: int
    lost: int


class Toy(NamedTuple):
    id: Annotated[str, ID, Doc("The toy's id")]
    size: Annotated[int, Integer(0, 9)]
    span: Span | None
    spans: list[Span]
    pair: tuple[int, int]
    counts: Annotated[Counts, Spread()]
    kind: Annotated[str, Json({"enum": ["a", "b"]})]
    extra: Annotated[dict[str, Any], Spread(lambda context: (Field("cube", Choice((1, 2))),))]
    note: Annotated[str | Absent, Text(10)] = ABSENT


AT = datetime(2026, 11, 29, 12, tzinfo=UTC)
TOY = Toy("t-1", 3, Span(AT, AT), [Span(AT, AT)], (1, 2), Counts(4, 5), "a", {"cube": 2})


def test_an_answer_is_written_with_the_fields_its_schema_declares() -> None:
    schema = answer_schema(Toy, SchemaContext({}))
    written = json_of(TOY)

    assert list(written) == list(schema["properties"])[:-1] == schema["required"]
    assert "note" not in written
    assert written["span"] == {"from": "2026-11-29T12:00:00.000Z", "to": "2026-11-29T12:00:00.000Z"}
    assert schema["properties"]["id"]["description"] == "The toy's id"
    assert schema["properties"]["span"]["anyOf"][1] == {"type": "null"}
    jsonschema.validate(written, schema)
    noted = json_of(TOY._replace(note="hello", span=None))
    assert list(noted)[-1] == "note"
    jsonschema.validate(noted, schema)


@pytest.mark.parametrize(
    "wrong",
    [
        TOY._replace(size=10),
        TOY._replace(id="not an id"),
        TOY._replace(kind="c"),
        TOY._replace(pair=cast(Any, (1, 2, 3))),
        TOY._replace(note="more than ten characters"),
        TOY._replace(extra={"cube": 3}),
    ],
)
def test_an_answer_outside_its_declared_kinds_fails_its_own_schema(wrong: Toy) -> None:
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(json_of(wrong), answer_schema(Toy, SchemaContext({})))


def test_an_answer_field_without_a_kind_it_can_be_declared_by_is_refused() -> None:
    class Loose(NamedTuple):
        values: dict[str, int]

    with pytest.raises(TypeError, match="no kind for"):
        answer_schema(Loose, SchemaContext({}))


# What the declarations may import -----------------------------------------------------------


@pytest.mark.parametrize("package", ["declare", "rules"])
def test_the_declarations_and_the_rules_import_only_the_standard_library(package: str) -> None:
    # The rulesets declare their own fields with ratings.declare: neither may need a library.
    allowed = {"ratings.errors", "ratings.declare.kinds", "ratings.declare", "ratings.rules"}
    for module in sorted((LAYER / package).glob("*.py")):
        for node in ast.walk(ast.parse(module.read_text())):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            else:
                continue
            for name in names:
                top = name.split(".")[0]
                assert top in sys.stdlib_module_names or any(
                    name == prefix or name.startswith(prefix + ".") for prefix in allowed
                ), f"{module.name} imports {name}"
