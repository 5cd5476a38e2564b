"""ladders.json: the file as shipped is today's ladders exactly, a file of other ladders gives
them, and every configuration that cannot work is refused with the file, the ladder, the field
and what is allowed."""

import copy
import json
import subprocess
import sys
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

import pytest

from ratings.rules import DEFAULT_LADDERS, Ladder
from ratings.rules.classic import Classic
from ratings.rules.gammon42 import VERSIONS, Gammon42
from ratings.rules.ladder_config import (
    DEFAULT_FILE,
    PARAMETERS,
    LadderConfigError,
    load_ladders,
    main,
    parse_ladders,
)
from ratings.rules.ladders import RULESET_VERSIONS, Span
from ratings.rules.ruleset import shapes_of
from ratings.rules.seasons import Reset, SeasonPlan
from ratings.rules.sedma import Sedma

# The file as shipped ---------------------------------------------------------------------


def test_the_shipped_file_is_the_default_ladders() -> None:
    ladders = load_ladders()

    assert ladders == DEFAULT_LADDERS
    assert list(ladders) == list(DEFAULT_LADDERS)  # GET /v1/ladders lists them in this order


def test_the_shipped_file_is_the_packages_and_names_its_documentation() -> None:
    shipped = Path(__file__).resolve().parents[2] / "layers" / "ratings" / "ladders.json"
    assert shipped == Path(DEFAULT_FILE)
    assert "docs/api.md" in json.loads(Path(DEFAULT_FILE).read_text())["about"]


def test_every_ruleset_says_what_it_rates_and_which_parameters_a_ladder_sets() -> None:
    assert set(PARAMETERS) == set(RULESET_VERSIONS)
    for versions in RULESET_VERSIONS.values():
        for published in versions.values():
            shown = set(published.parameters()) | {"starting_rating"}
            declared = {field.name for field in fields(published)}  # type: ignore[arg-type]
            # Under the names GET /v1/ladders shows, and each a field of the ruleset.
            assert set(PARAMETERS[published.name](published)) <= shown & declared


def test_reading_the_file_needs_the_standard_library_only() -> None:
    # What a cold start adds to read it: nothing besides the package's own rules.
    snippet = (
        "import sys; before = set(sys.modules); "
        "from ratings.rules.ladder_config import load_ladders; load_ladders(); "
        "print(' '.join(sorted(set(sys.modules) - before)))"
    )
    loaded = subprocess.run(
        [sys.executable, "-c", snippet], capture_output=True, text=True, check=True
    ).stdout.split()

    assert "ratings.rules.ladder_config" in loaded
    outside = [
        name
        for name in loaded
        if name.split(".")[0] not in sys.stdlib_module_names and name.split(".")[0] != "ratings"
    ]
    assert outside == []


# Other ladders -----------------------------------------------------------------------------


def ladder(**given: Any) -> dict[str, Any]:
    return {"id": "chess", "ruleset": "classic", "version": "1.0", **given}


def parse_one(**given: Any) -> Ladder:
    return parse_ladders({"ladders": [ladder(**given)]})["chess"]


def test_only_id_ruleset_and_version_are_needed() -> None:
    assert parse_one() == Ladder("chess", Classic())
    assert parse_one().season == SeasonPlan("none", Reset("none"), 1, None)
    assert (parse_one().sides, parse_one().players_per_side) == (Span(2, 2), Span(1, 1))
    assert parse_one().podium_bonuses == (50, 25, 15)


def test_parameters_replace_the_published_versions_own() -> None:
    chess = parse_one(
        parameters={
            "starting_rating": 1500,
            "divisor": 480,
            "provisional_k": 40,
            "established_k": 20,
            "provisional_games": 10,
        },
        podium_bonuses=[30, 10],
    )

    assert chess.ruleset == Classic(
        divisor=480, provisional_k=40, established_k=20, provisional_games=10, starting_rating=1500
    )
    assert chess.starting_rating == 1500
    assert chess.ruleset.parameters() == {
        "divisor": 480,
        "provisional_k": 40,
        "established_k": 20,
        "provisional_games": 10,
    }
    assert (chess.podium_bonuses, chess.podium_bonus(2), chess.podium_bonus(3)) == ((30, 10), 10, 0)


def test_sedma_and_gammon42_parameters() -> None:
    bands = [{"below": 1400, "k": 50}, {"below": 2000, "k": 30}]
    cards = parse_one(ruleset="sedma", parameters={"k_bands": bands, "top_k": 12})
    dice = parse_one(ruleset="gammon42", version="1.3.1", parameters={"k": 24, "heavy_volume_k": 8})
    older = parse_one(ruleset="gammon42", version="1.0.5", parameters={"k": 24})

    assert cards.ruleset == Sedma(k_bands=((1400, 50), (2000, 30)), top_k=12)
    assert cards.ruleset.parameters()["k_bands"] == bands
    assert dice.ruleset == Gammon42(k=24, heavy_volume_k=8)
    assert dice.ruleset.recent_games_needed == 50
    assert older.ruleset == Gammon42(version="1.0.5", divisor=400, heavy_volume_games=None, k=24)


def test_a_preview_at_another_version_keeps_the_ladders_parameters() -> None:
    dice = parse_one(
        ruleset="gammon42",
        version="1.3.1",
        parameters={"starting_rating": 1000, "k": 24, "heavy_volume_k": 8},
    )

    older = dice.at_version("1.0.5")

    # What tells the versions apart (the divisor, the heavy-volume rule) is the other version's.
    assert older == replace(VERSIONS["1.0.5"], starting_rating=1000, k=24, heavy_volume_k=8)
    assert dice.at_version("1.3.1") is dice.ruleset


def test_seasons() -> None:
    monthly = parse_one(
        season={
            "schedule": "monthly",
            "first": "2027-01",
            "reset": {"kind": "soft", "target": 1400, "squish": 0.25},
            "min_games": 10,
        }
    )
    weekly = parse_one(season={"schedule": "weekly", "first": "2026-W53"})
    quarterly = parse_one(season={"schedule": "quarterly", "first": "2027-Q2", "min_games": 5.0})

    assert monthly.season == SeasonPlan("monthly", Reset("soft", 1400, 0.25), 10, "2027-01")
    assert weekly.season == SeasonPlan("weekly", Reset(), 1, "2026-W53")
    assert quarterly.season == SeasonPlan("quarterly", Reset(), 5, "2027-Q2")
    assert parse_one(season={"reset": {"kind": "hard"}}).season == SeasonPlan(reset=Reset("hard"))


def test_ladders_keep_the_files_order() -> None:
    document = {
        "about": "any text",
        "ladders": [ladder(id="zeta"), ladder(id="alpha", ruleset="sedma"), ladder(id="m-2_x")],
    }

    assert list(parse_ladders(document)) == ["zeta", "alpha", "m-2_x"]


def test_load_reads_the_file_given(tmp_path: Path) -> None:
    path = tmp_path / "chess.json"
    path.write_text(json.dumps({"ladders": [ladder(parameters={"provisional_k": 40})]}))

    assert load_ladders(path)["chess"].ruleset == Classic(provisional_k=40)
    assert load_ladders(str(path)) == load_ladders(path)


# What cannot work -------------------------------------------------------------------------

#: A ladder of every field, to break one field at a time.
FULL: dict[str, Any] = {
    "id": "classic",
    "ruleset": "classic",
    "version": "1.0",
    "parameters": {"provisional_k": 32},
    "sides": {"min": 2, "max": 2},
    "players_per_side": {"min": 1, "max": 1},
    "podium_bonuses": [50, 25, 15],
    "season": {"schedule": "none", "reset": {"kind": "none"}, "min_games": 1},
}


#: In place of a value: the field left out.
REMOVE = object()


def refused(document: object) -> LadderConfigError:
    with pytest.raises(LadderConfigError) as caught:
        parse_ladders(document)
    return caught.value


def refused_ladder(path: str, value: object, base: dict[str, Any] | None = None) -> str:
    """The message for the third ladder of a file with `path` (a.b.c) set to `value` (or
    removed, for REMOVE); checked to name the file, the ladder and its place."""
    entry = copy.deepcopy(base or FULL)
    *parents, last = path.split(".")
    target: Any = entry
    for name in parents:
        target = target.setdefault(name, {})
    if value is REMOVE:
        del target[last]
    else:
        target[last] = value
    others = [ladder(id="one"), ladder(id="two")]
    error = refused({"ladders": [*others, entry]})
    assert (error.source, error.ladder, error.index) == ("ladders.json", "classic", 2)
    prefix = 'ladders.json: ladder "classic" (ladders[2]): '
    assert str(error).startswith(prefix)
    return str(error).removeprefix(prefix)


def test_the_message_names_the_file_the_ladder_the_field_and_what_is_allowed() -> None:
    entry = copy.deepcopy(FULL)
    entry["season"]["schedule"] = "daily"

    error = refused({"ladders": [ladder(id="one"), ladder(id="two"), entry]})

    assert str(error) == (
        'ladders.json: ladder "classic" (ladders[2]): season.schedule must be one of none, '
        'weekly, monthly, quarterly, got "daily"'
    )
    assert isinstance(error, ValueError)
    assert error.field == "season.schedule"
    assert error.problem.startswith("season.schedule must be")


@pytest.mark.parametrize(
    ("document", "message"),
    [
        ([], "the document must be a JSON object, got []"),
        ({}, "ladders is required: a list of 1 to 100 ladders"),
        ({"ladders": [], "x": 1}, "x is not a field of ladders.json; allowed: ladders, about"),
        ({"Ladders": []}, "Ladders is not a field of ladders.json; allowed: ladders, about"),
        ({"ladders": []}, "ladders must be a list of 1 to 100 ladders, got []"),
        ({"ladders": {"id": "x"}}, 'ladders must be a list of 1 to 100 ladders, got {"id": "x"}'),
        ({"ladders": [{}] * 101}, "ladders must be a list of 1 to 100 ladders, got [{}, {}, {}"),
        ({"ladders": [FULL], "about": 1}, "about must be a string, got 1"),
    ],
)
def test_the_documents_own_fields(document: object, message: str) -> None:
    error = refused(document)

    assert str(error).startswith(f"ladders.json: {message}")
    assert (error.ladder, error.index) == (None, None)


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        ("classic", 'ladders[1]: must be a ladder: a JSON object, got "classic"'),
        ({"ruleset": "classic"}, "ladders[1]: id is required: 1 to 32 characters of a-z 0-9 - _"),
        (
            ladder(id=""),
            "ladders[1]: id must be 1 to 32 characters of a-z 0-9 - _, starting with a "
            'letter, got ""',
        ),
        (
            ladder(id="Chess"),
            "ladders[1]: id must be 1 to 32 characters of a-z 0-9 - _, starting "
            'with a letter, got "Chess"',
        ),
        (ladder(id="9ball"), 'got "9ball"'),
        (ladder(id="a#b"), 'got "a#b"'),
        (ladder(id="a/b"), 'got "a/b"'),
        (ladder(id="a" * 33), 'got "aaaaaaaa'),
        (ladder(id=7), "got 7"),
        (
            ladder(id="one"),
            'ladder "one" (ladders[1]): id "one" is already the id of ladders[0]: ids are unique',
        ),
    ],
)
def test_ids(entry: object, message: str) -> None:
    error = refused({"ladders": [ladder(id="one"), entry]})

    assert str(error).startswith("ladders.json: ")
    assert message in str(error)
    assert error.index == 1
    assert error.field in ("id", None)


def test_an_id_of_32_characters_is_fine() -> None:
    assert list(parse_ladders({"ladders": [ladder(id="a" * 32)]})) == ["a" * 32]


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        (
            "podium_bonus",
            [1],
            "podium_bonus is not a field of a ladder; allowed: id, ruleset, "
            "version, parameters, sides, players_per_side, podium_bonuses, season",
        ),
        ("ruleset", REMOVE, "ruleset is required: one of gammon42, sedma, classic"),
        ("ruleset", "elo", 'ruleset must be one of gammon42, sedma, classic, got "elo"'),
        ("ruleset", None, "ruleset must be one of gammon42, sedma, classic, got null"),
        ("version", REMOVE, "version is required: one of 1.0"),
        ("version", "2.0", 'version must be one of 1.0 (classic\'s published versions), got "2.0"'),
        ("version", 1.0, "version must be one of 1.0 (classic's published versions), got 1.0"),
    ],
)
def test_the_ladders_own_fields(path: str, value: object, message: str) -> None:
    assert refused_ladder(path, value) == message


def test_a_gammon42_version_is_one_of_its_published_ones() -> None:
    base = {**FULL, "ruleset": "gammon42", "version": "1.3.1", "parameters": {}}

    assert refused_ladder("version", "1.3.0", base) == (
        'version must be one of 1.0.5, 1.2.0, 1.3.1 (gammon42\'s published versions), got "1.3.0"'
    )


@pytest.mark.parametrize(
    ("ruleset", "version", "parameters", "message"),
    [
        ("classic", "1.0", [], "parameters must be a JSON object, got []"),
        (
            "classic",
            "1.0",
            {"K": 20},
            "parameters.K is not a parameter of classic 1.0; allowed: "
            "starting_rating, divisor, provisional_k, established_k, provisional_games",
        ),
        ("classic", "1.0", {"version": "2.0"}, "parameters.version is not a parameter of classic"),
        (
            "classic",
            "1.0",
            {"starting_rating": 0},
            "parameters.starting_rating must be an integer from 1 to 10000, got 0",
        ),
        (
            "classic",
            "1.0",
            {"starting_rating": 1200.5},
            "parameters.starting_rating must be an integer from 1 to 10000, got 1200.5",
        ),
        (
            "classic",
            "1.0",
            {"provisional_k": "32"},
            'parameters.provisional_k must be an integer from 1 to 1000, got "32"',
        ),
        (
            "classic",
            "1.0",
            {"established_k": True},
            "parameters.established_k must be an integer from 1 to 1000, got true",
        ),
        ("classic", "1.0", {"established_k": 1001}, "got 1001"),
        (
            "classic",
            "1.0",
            {"provisional_games": -1},
            "parameters.provisional_games must be an integer from 0 to 10000, got -1",
        ),
        (
            "classic",
            "1.0",
            {"divisor": 0},
            "parameters.divisor must be a number from 1 to 100000, got 0",
        ),
        (
            "classic",
            "1.0",
            {"divisor": False},
            "parameters.divisor must be a number from 1 to 100000, got false",
        ),
        (
            "classic",
            "1.0",
            {"divisor": 1e999},
            "parameters.divisor must be a number from 1 to 100000, got Infinity",
        ),
        (
            "gammon42",
            "1.3.1",
            {"divisor": 1000},
            "parameters.divisor is not a parameter of "
            "gammon42 1.3.1; allowed: starting_rating, k, heavy_volume_k",
        ),
        (
            "gammon42",
            "1.3.1",
            {"heavy_volume_games": 40},
            "parameters.heavy_volume_games is not a parameter of gammon42 1.3.1",
        ),
        (
            "gammon42",
            "1.3.1",
            {"recent_window_days": 14},
            "parameters.recent_window_days is not a parameter of gammon42 1.3.1",
        ),
        (
            "gammon42",
            "1.0.5",
            {"heavy_volume_k": 8},
            "parameters.heavy_volume_k is not a "
            "parameter of gammon42 1.0.5; allowed: starting_rating, k",
        ),
        ("gammon42", "1.3.1", {"k": 0}, "parameters.k must be an integer from 1 to 1000, got 0"),
        (
            "sedma",
            "1.0",
            {"divisor": 800},
            "parameters.divisor is not a parameter of sedma 1.0; "
            "allowed: starting_rating, k_bands, top_k",
        ),
        (
            "sedma",
            "1.0",
            {"top_k": None},
            "parameters.top_k must be an integer from 1 to 1000, got null",
        ),
        (
            "sedma",
            "1.0",
            {"k_bands": {"below": 1200}},
            "parameters.k_bands must be a list of at "
            'most 16 bands {"below": rating, "k": K}, lowest first, got {"below": 1200}',
        ),
        (
            "sedma",
            "1.0",
            {"k_bands": [{"below": 1, "k": 1}] * 17},
            "parameters.k_bands must be a list of at most 16 bands",
        ),
        (
            "sedma",
            "1.0",
            {"k_bands": [[1200, 40]]},
            "parameters.k_bands[0] must be a JSON object, got [1200, 40]",
        ),
        (
            "sedma",
            "1.0",
            {"k_bands": [{"below": 1200, "K": 40}]},
            "parameters.k_bands[0].K is not a field of a K band; allowed: below, k",
        ),
        (
            "sedma",
            "1.0",
            {"k_bands": [{"below": 1200}]},
            "parameters.k_bands[0].k is required: an integer from 1 to 1000",
        ),
        (
            "sedma",
            "1.0",
            {"k_bands": [{"k": 40}]},
            "parameters.k_bands[0].below is required: an integer from 1 to 10000",
        ),
        (
            "sedma",
            "1.0",
            {"k_bands": [{"below": 1200, "k": 0}]},
            "parameters.k_bands[0].k must be an integer from 1 to 1000, got 0",
        ),
        (
            "sedma",
            "1.0",
            {"k_bands": [{"below": 1800, "k": 32}, {"below": 1800, "k": 24}]},
            "parameters.k_bands[1].below must be more than parameters.k_bands[0].below (1800): "
            "bands go from the lowest rating up, got 1800",
        ),
    ],
)
def test_parameters(ruleset: str, version: str, parameters: object, message: str) -> None:
    base = {**FULL, "ruleset": ruleset, "version": version}

    assert message in refused_ladder("parameters", parameters, base)


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        ("sides", 2, "sides must be a JSON object, got 2"),
        ("sides", {"min": 2}, "sides.max is required: an integer from 1 to 64"),
        ("sides", {"max": 2}, "sides.min is required: an integer from 1 to 64"),
        (
            "sides",
            {"min": 2, "max": 2, "teams": 1},
            "sides.teams is not a field of sides; allowed: min, max",
        ),
        ("sides.min", 0, "sides.min must be an integer from 1 to 64, got 0"),
        ("sides.max", 65, "sides.max must be an integer from 1 to 64, got 65"),
        ("sides.max", 1, "sides.max must be at least sides.min (2), got 1"),
        (
            "sides",
            {"min": 2, "max": 9},
            "sides must be within what classic rates (2 to 8 sides of 1 to 8 players, "
            "at most 16 players in all, ties allowed), got 2 to 9 sides",
        ),
        (
            "sides",
            {"min": 1, "max": 2},
            "sides must be within what classic rates (2 to 8 sides of 1 to 8 players, "
            "at most 16 players in all, ties allowed), got 1 to 2 sides",
        ),
        (
            "players_per_side",
            {"min": 9, "max": 9},
            "players_per_side must be within what classic rates (2 to 8 sides of 1 to 8 "
            "players, at most 16 players in all, ties allowed), got 9 players",
        ),
        (
            "players_per_side",
            {"min": 1, "max": 12},
            "players_per_side must be within what classic rates (2 to 8 sides of 1 to 8 "
            "players, at most 16 players in all, ties allowed), got 1 to 12 players",
        ),
        (
            "players_per_side.min",
            "1",
            'players_per_side.min must be an integer from 1 to 64, got "1"',
        ),
    ],
)
def test_the_shape_of_games(path: str, value: object, message: str) -> None:
    assert refused_ladder(path, value) == message


def test_a_ladder_takes_any_shape_within_its_rulesets() -> None:
    # The ruleset's shapes, not a table of the configuration's own: teams, more sides.
    ffa = parse_one(sides={"min": 3, "max": 8})
    teams = parse_one(sides={"min": 2, "max": 4}, players_per_side={"min": 1, "max": 4})
    pairs = parse_one(ruleset="sedma", players_per_side={"min": 2, "max": 2})
    widest = parse_one(sides={"min": 2, "max": 8}, players_per_side={"min": 1, "max": 8})

    assert (ffa.sides, ffa.players_per_side) == (Span(3, 8), Span(1, 1))
    assert (teams.sides, teams.players_per_side) == (Span(2, 4), Span(1, 4))
    assert (pairs.sides, pairs.players_per_side) == (Span(2, 2), Span(2, 2))
    assert (widest.sides, widest.players_per_side) == (Span(2, 8), Span(1, 8))
    # Within each ruleset's spans, and nothing beyond them.
    for ladder_ in (ffa, teams, pairs, widest):
        can = shapes_of(ladder_.ruleset)
        assert can.sides.covers(ladder_.sides)
        assert can.players_per_side.covers(ladder_.players_per_side)


@pytest.mark.parametrize(
    ("ruleset", "version", "path", "value", "message"),
    [
        (
            "sedma",
            "1.0",
            "sides",
            {"min": 2, "max": 3},
            "sides must be within what sedma rates (2 sides of 1 to 4 players, the same "
            "number on each side, without ties), got 2 to 3 sides",
        ),
        (
            "sedma",
            "1.0",
            "players_per_side",
            {"min": 2, "max": 5},
            "players_per_side must be within what sedma rates (2 sides of 1 to 4 players, "
            "the same number on each side, without ties), got 2 to 5 players",
        ),
        (
            "gammon42",
            "1.3.1",
            "players_per_side",
            {"min": 1, "max": 2},
            "players_per_side must be within what gammon42 rates (2 sides of 1 player, "
            "without ties), got 1 to 2 players",
        ),
        (
            "gammon42",
            "1.3.1",
            "sides",
            {"min": 3, "max": 3},
            "sides must be within what gammon42 rates (2 sides of 1 player, without ties), "
            "got 3 sides",
        ),
    ],
)
def test_the_shape_of_games_of_each_ruleset(
    ruleset: str, version: str, path: str, value: object, message: str
) -> None:
    base = {**FULL, "ruleset": ruleset, "version": version, "parameters": {}}

    assert refused_ladder(path, value, base) == message


def test_a_ladder_whose_every_game_has_too_many_players() -> None:
    # Each span within classic's, but 8 sides of at least 3 players is never 16 or fewer.
    assert refused_ladder(
        "players_per_side", {"min": 3, "max": 8}, {**FULL, "sides": {"min": 8, "max": 8}}
    ) == (
        "players_per_side must allow a game of at most 16 players, what classic rates "
        "(2 to 8 sides of 1 to 8 players, at most 16 players in all, ties allowed), got at "
        "least 24 players (8 sides of 3 to 8 players)"
    )


@pytest.mark.parametrize(
    ("value", "message"),
    [
        (
            {"1": 50},
            "podium_bonuses must be a list of at most 3 integers, the bonuses of places "
            '1, 2 and 3, got {"1": 50}',
        ),
        (
            [50, 25, 15, 5],
            "podium_bonuses must be a list of at most 3 integers, the bonuses of "
            "places 1, 2 and 3, got [50, 25, 15, 5]",
        ),
        ([50, -25], "podium_bonuses[1] must be an integer from 0 to 1000, got -25"),
        ([50, 25, 1001], "podium_bonuses[2] must be an integer from 0 to 1000, got 1001"),
        ([True], "podium_bonuses[0] must be an integer from 0 to 1000, got true"),
    ],
)
def test_podium_bonuses(value: object, message: str) -> None:
    assert refused_ladder("podium_bonuses", value) == message


def test_no_podium_bonuses_at_all() -> None:
    assert parse_one(podium_bonuses=[]).podium_bonus(1) == 0


@pytest.mark.parametrize(
    ("path", "value", "message"),
    [
        ("season", "monthly", 'season must be a JSON object, got "monthly"'),
        (
            "season.length",
            30,
            "season.length is not a field of a season; allowed: schedule, reset, min_games, first",
        ),
        (
            "season.schedule",
            "daily",
            'season.schedule must be one of none, weekly, monthly, quarterly, got "daily"',
        ),
        (
            "season.schedule",
            None,
            "season.schedule must be one of none, weekly, monthly, quarterly, got null",
        ),
        ("season.reset", "hard", "season.reset must be an object with kind none, hard or soft"),
        ("season.reset", {"kind": "full"}, "season.reset.kind must be one of none, hard, soft"),
        (
            "season.reset",
            {"kind": "soft", "squish": 2},
            "season.reset.squish must be a number from 0 to 1",
        ),
        (
            "season.reset",
            {"kind": "soft", "target": 0},
            "season.reset.target must be an integer from 1 to 10000",
        ),
        (
            "season.reset",
            {"kind": "hard", "target": 1000},
            "season.reset.target is allowed only with kind soft",
        ),
        (
            "season.reset",
            {"kind": "none", "to": 1},
            "season.reset.to is not a field of a reset (kind, target, squish)",
        ),
        ("season.min_games", 0, "season.min_games must be an integer from 1 to 1000, got 0"),
        ("season.min_games", 1001, "season.min_games must be an integer from 1 to 1000, got 1001"),
        (
            "season.first",
            "2027-01",
            "season.first is allowed only with a schedule (weekly, "
            "monthly, quarterly): under none there is one endless season",
        ),
    ],
)
def test_seasons_that_cannot_work(path: str, value: object, message: str) -> None:
    assert refused_ladder(path, value) == message


@pytest.mark.parametrize(
    ("schedule", "first", "message"),
    [
        (
            "monthly",
            REMOVE,
            "season.first is required with the schedule monthly: the id of the "
            "first monthly season, YYYY-MM",
        ),
        (
            "weekly",
            None,
            "season.first is required with the schedule weekly: the id of the "
            "first weekly season, YYYY-Www",
        ),
        (
            "monthly",
            "2027-13",
            'season.first must be the id of a monthly season, YYYY-MM, got "2027-13"',
        ),
        (
            "monthly",
            "2027-Q1",
            'season.first must be the id of a monthly season, YYYY-MM, got "2027-Q1"',
        ),
        (
            "weekly",
            "2027-W53",
            'season.first must be the id of a weekly season, YYYY-Www, got "2027-W53"',
        ),  # 2027 has 52 ISO weeks
        (
            "quarterly",
            "2027-Q5",
            'season.first must be the id of a quarterly season, YYYY-Qn, got "2027-Q5"',
        ),
        ("quarterly", 2027, "season.first must be the id of a quarterly season, YYYY-Qn, got 2027"),
    ],
)
def test_a_schedule_needs_its_first_season(schedule: str, first: object, message: str) -> None:
    base = copy.deepcopy(FULL)
    base["season"] = {"schedule": schedule, "first": "x"}

    assert refused_ladder("season.first", first, base) == message


# Reading the file ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"ladders": [', "is not valid JSON: Expecting value (line 1 column 14)"),
        ("", "is not valid JSON: Expecting value (line 1 column 1)"),
        (
            '{"ladders": [{"id": "a", "id": "b"}]}',
            'is not valid JSON here: the key "id" appears twice in one object',
        ),
        (
            '{"ladders": [{"id": "a", "parameters": {"divisor": NaN}}]}',
            "is not valid JSON here: NaN is not a JSON number",
        ),
        ("[" * 100_000, "is not valid JSON here"),
    ],
)
def test_what_is_not_json(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "ladders.json"
    path.write_text(text)

    with pytest.raises(LadderConfigError) as caught:
        load_ladders(path)

    assert str(caught.value).startswith(f"{path}: {message}")


def test_a_file_that_cannot_be_read(tmp_path: Path) -> None:
    missing = tmp_path / "missing.json"
    latin = tmp_path / "latin.json"
    latin.write_bytes(b'{"about": "\xe9"}')

    with pytest.raises(LadderConfigError) as caught:
        load_ladders(missing)
    assert str(caught.value) == f"{missing}: cannot be read: No such file or directory"
    with pytest.raises(LadderConfigError) as caught:
        load_ladders(tmp_path)
    assert str(caught.value) == f"{tmp_path}: cannot be read: Is a directory"
    with pytest.raises(LadderConfigError) as caught:
        load_ladders(latin)
    assert str(caught.value) == f"{latin}: is not UTF-8 text"


def test_a_file_names_itself_in_its_messages(tmp_path: Path) -> None:
    path = tmp_path / "title.json"
    path.write_text(json.dumps({"ladders": [ladder(sides={"min": 2, "max": 9})]}))

    with pytest.raises(LadderConfigError) as caught:
        load_ladders(path)

    assert str(caught.value) == (
        f'{path}: ladder "chess" (ladders[0]): sides must be within what classic rates '
        "(2 to 8 sides of 1 to 8 players, at most 16 players in all, ties allowed), "
        "got 2 to 9 sides"
    )


# The check make build runs -----------------------------------------------------------------


def test_the_check_lists_the_ladders(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check"]) == 0
    assert capsys.readouterr().out == (
        f"{DEFAULT_FILE}: 5 ladders: backgammon (gammon42 1.3.1), sedma (sedma 1.0), "
        "classic (classic 1.0), sedma-pairs (sedma 1.0), classic-ffa (classic 1.0)\n"
    )


def test_the_check_fails_with_the_message(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "ladders.json"
    path.write_text(json.dumps({"ladders": [ladder(season={"schedule": "daily"})]}))

    assert main(["check", str(path)]) == 1
    printed = capsys.readouterr()
    assert printed.out == ""
    assert printed.err == (
        f'{path}: ladder "chess" (ladders[0]): season.schedule must be one of none, weekly, '
        'monthly, quarterly, got "daily"\n'
    )


def test_the_check_reads_the_shipped_file_whatever_the_environment_says(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("RATINGS_LADDERS_FILE", str(tmp_path / "missing.json"))

    assert main(["check"]) == 0
    assert capsys.readouterr().out.startswith(f"{DEFAULT_FILE}: 5 ladders")
