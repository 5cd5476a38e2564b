"""Invalid input, unranked games and the default ladders."""

from dataclasses import asdict
from typing import Any

import pytest
from support.games import NOW

from ratings.rules import (
    DEFAULT_LADDERS,
    MODES,
    PODIUM_BONUSES,
    UNRANKED_REASONS,
    Classic,
    Game,
    Gammon42,
    InvalidInput,
    Ladder,
    PlayerState,
    Ruleset,
    SedmaStats,
    parse_game,
    ruleset_named,
    unranked_reason,
)
from ratings.rules import Sedma as SedmaRuleset
from ratings.rules.model import Span, expected_score

A = PlayerState("alice", 1500)
B = PlayerState("bob", 1500)
ALL_RULESETS: list[Ruleset] = [Gammon42(), SedmaRuleset(), Classic()]
ruleset_ids = ["gammon42", "sedma", "classic"]


def body(**fields: Any) -> dict[str, Any]:
    """A game body as a caller sends it, alice against bob, alice winning."""
    game: dict[str, Any] = {
        "game_id": "g-1",
        "players": [{"id": "alice"}, {"id": "bob"}],
        "winner": "alice",
    }
    game.update(fields)
    return game


def raises_invalid(
    ruleset: Ruleset, sent: dict[str, Any], field: str, *fragments: str, preview: bool = False
) -> InvalidInput:
    versions = (ruleset.version,) if preview else None
    with pytest.raises(InvalidInput) as caught:
        parse_game(sent, ruleset, NOW, preview_versions=versions)
    error = caught.value
    assert error.field == field
    for fragment in fragments:
        assert fragment in str(error)
    assert error.message == str(error)
    return error


# --- cube -------------------------------------------------------------------------------------


@pytest.mark.parametrize("cube", [0, 3, 128, -1, True, 5, 63, -2, 2.5, 3.0, "2", None])
def test_cube_must_be_a_power_of_two_from_1_to_64(cube: object) -> None:
    error = raises_invalid(Gammon42(), body(cube=cube), "cube", "1, 2, 4, 8, 16, 32, 64")
    assert repr(cube) in str(error)  # it says what it got


def test_an_integral_float_is_the_integer_json_schema_says_it_is() -> None:
    # The document's cube is {"type": "integer", "enum": [1, 2, ...]}, which 2.0 satisfies.
    game = parse_game(body(cube=2.0), Gammon42(), NOW)
    assert game.options["cube"] == 2
    assert type(game.options["cube"]) is int
    assert game.fingerprint == parse_game(body(cube=2), Gammon42(), NOW).fingerprint


@pytest.mark.parametrize("version", ["1.0.5", "1.2.0", "1.3.1"])
def test_cube_is_checked_by_every_gammon42_version(version: str) -> None:
    raises_invalid(ruleset_named("gammon42", version), body(cube=3), "cube")


@pytest.mark.parametrize("ruleset", [SedmaRuleset(), Classic()], ids=["sedma", "classic"])
def test_cube_belongs_to_gammon42_only(ruleset: Ruleset) -> None:
    raises_invalid(ruleset, body(cube=2), "cube", f"not a field of a {ruleset.name} game")


@pytest.mark.parametrize("ruleset", [Gammon42(), Classic()], ids=["gammon42", "classic"])
def test_stats_belong_to_sedma_only(ruleset: Ruleset) -> None:
    sent = body(players=[{"id": "alice", "stats": {}}, {"id": "bob"}])
    raises_invalid(ruleset, sent, "players[0].stats", "not a field")


def test_the_parsed_game_carries_the_ruleset_fields_with_their_defaults() -> None:
    game = parse_game(body(cube=4), Gammon42(), NOW)
    assert dict(game.options) == {"cube": 4, "ending": None, "points": None}
    assert dict(game.players[0].options) == {}
    sedma = parse_game(
        body(players=[{"id": "alice", "stats": {"bad_moves": 2}}, {"id": "bob"}]),
        SedmaRuleset(),
        NOW,
    )
    assert dict(sedma.options) == {}
    assert sedma.players[0].options["stats"] == asdict(SedmaStats(bad_moves=2))
    assert sedma.players[1].options["stats"] == asdict(SedmaStats())


# --- winner -------------------------------------------------------------------------------------


@pytest.mark.parametrize("ruleset", [Gammon42(), SedmaRuleset()], ids=["gammon42", "sedma"])
def test_no_draws(ruleset: Ruleset) -> None:
    error = raises_invalid(ruleset, body(winner=None), "winner", "no draws")
    assert ruleset.name in str(error)
    assert not ruleset.draws_allowed


def test_classic_allows_draws() -> None:
    assert Classic().draws_allowed
    assert parse_game(body(winner=None), Classic(), NOW).winner is None
    result = Classic().rate(Game((A, B), None))
    assert [change.explain["score"] for change in result.players] == [0.5, 0.5]


@pytest.mark.parametrize("ruleset", ALL_RULESETS, ids=ruleset_ids)
def test_winner_must_be_one_of_the_players(ruleset: Ruleset) -> None:
    error = raises_invalid(ruleset, body(winner="carol"), "winner", "'carol'", "players' ids")
    # Only classic mentions draws as an alternative.
    assert ("draw" in str(error)) == ruleset.draws_allowed


# --- players ------------------------------------------------------------------------------------


@pytest.mark.parametrize("ruleset", ALL_RULESETS, ids=ruleset_ids)
def test_the_same_player_twice_is_invalid(ruleset: Ruleset) -> None:
    sent = body(players=[{"id": "alice"}, {"id": "alice"}])
    raises_invalid(ruleset, sent, "players[1].id", "must differ", "'alice'")


@pytest.mark.parametrize(
    ("ruleset", "player", "field"),
    [
        (Gammon42(), {"id": ""}, "players[1].id"),
        (SedmaRuleset(), {"id": "bob", "rating": True}, "players[1].rating"),
        (Classic(), {"id": "bob", "ranked_games": -1}, "players[1].ranked_games"),
        (Gammon42(), {"id": "bob", "recent_ranked_games": -3}, "players[1].recent_ranked_games"),
    ],
)
def test_malformed_player(ruleset: Ruleset, player: dict[str, Any], field: str) -> None:
    sent = body(players=[{"id": "alice"}, player])
    raises_invalid(ruleset, sent, field, field, preview=True)


@pytest.mark.parametrize(
    ("ruleset", "counter"),
    [(SedmaRuleset(), "ranked_games"), (Classic(), "recent_ranked_games")],
)
def test_a_preview_overrides_only_what_the_ruleset_counts(ruleset: Ruleset, counter: str) -> None:
    sent = body(players=[{"id": "alice", counter: 3}, {"id": "bob"}])
    raises_invalid(ruleset, sent, f"players[0].{counter}", "not a field", preview=True)


# --- sedma statistics ---------------------------------------------------------------------------


def sedma_body(index: int, stats: dict[str, Any]) -> dict[str, Any]:
    players: list[dict[str, Any]] = [{"id": "alice"}, {"id": "bob"}]
    players[index]["stats"] = stats
    return body(players=players)


@pytest.mark.parametrize(
    "stat", ["bad_moves", "rounds_won_16", "rounds_won_24", "rounds_won_4_last"]
)
@pytest.mark.parametrize("index", [0, 1])
def test_negative_sedma_stats(stat: str, index: int) -> None:
    field = f"players[{index}].stats.{stat}"
    raises_invalid(
        SedmaRuleset(), sedma_body(index, {stat: -1}), field, field, "an integer from 0 to"
    )


def test_sedma_stats_must_be_integers() -> None:
    sent = sedma_body(0, {"rounds_won_24": True})
    raises_invalid(SedmaRuleset(), sent, "players[0].stats.rounds_won_24")


def test_unknown_sedma_stats_are_refused() -> None:
    sent = sedma_body(1, {"good_moves": 1})
    raises_invalid(SedmaRuleset(), sent, "players[1].stats.good_moves", "bad_moves")


def test_invalid_input_is_a_value_error() -> None:
    assert issubclass(InvalidInput, ValueError)
    error = InvalidInput("cube", "cube must be one of 1, 2")
    assert (error.field, error.message, str(error)) == (
        "cube",
        "cube must be one of 1, 2",
        error.message,
    )


# --- unranked_reason ----------------------------------------------------------------------------

NO_BOTS = (False, False)
NO_NETWORKS: tuple[str | None, str | None] = (None, None)


@pytest.mark.parametrize(
    ("mode", "bots", "networks", "reason"),
    [
        ("ranked", NO_BOTS, NO_NETWORKS, None),
        ("boosted", NO_BOTS, NO_NETWORKS, "mode"),
        ("tournament", NO_BOTS, NO_NETWORKS, "mode"),
        ("ranked", (True, False), NO_NETWORKS, "bot"),
        ("ranked", (False, True), NO_NETWORKS, "bot"),
        ("ranked", (True, True), NO_NETWORKS, "bot"),
        ("ranked", NO_BOTS, ("net-1", "net-1"), "shared_network"),
        ("ranked", NO_BOTS, ("net-1", "net-2"), None),
        ("ranked", NO_BOTS, ("", ""), None),  # empty fingerprints are not shared
        ("ranked", NO_BOTS, (None, None), None),
        ("ranked", NO_BOTS, ("net-1", None), None),
        ("ranked", NO_BOTS, (None, "net-1"), None),
        ("ranked", NO_BOTS, ("", "net-1"), None),
        # precedence: mode, then bot, then shared_network
        ("boosted", (True, True), ("net-1", "net-1"), "mode"),
        ("tournament", (False, True), ("net-1", "net-1"), "mode"),
        ("ranked", (False, True), ("net-1", "net-1"), "bot"),
    ],
)
def test_unranked_reason(
    mode: str,
    bots: tuple[bool, bool],
    networks: tuple[str | None, str | None],
    reason: str | None,
) -> None:
    assert unranked_reason(mode, bots, networks) == reason


@pytest.mark.parametrize(
    ("mode", "bots", "networks", "sanctioned"),
    [
        ("ranked", NO_BOTS, NO_NETWORKS, (True, False)),
        ("ranked", NO_BOTS, NO_NETWORKS, (False, True)),
        ("boosted", (True, True), ("net-1", "net-1"), (True, True)),
    ],
)
def test_a_sanctioned_player_makes_any_game_unranked_before_every_other_reason(
    mode: str,
    bots: tuple[bool, bool],
    networks: tuple[str | None, str | None],
    sanctioned: tuple[bool, bool],
) -> None:
    assert unranked_reason(mode, bots, networks, sanctioned) == "sanctioned"


def test_unranked_reasons_are_listed_in_order_of_precedence() -> None:
    assert UNRANKED_REASONS == ("season_ended", "sanctioned", "mode", "bot", "shared_network")
    assert set(MODES) == {"ranked", "boosted", "tournament"}


@pytest.mark.parametrize("mode", ["casual", "", "Ranked", "RANKED"])
def test_unknown_mode_is_invalid(mode: str) -> None:
    error = raises_invalid(Classic(), body(mode=mode), "mode", "ranked, boosted, tournament")
    assert repr(mode) in str(error)


# --- ladders ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ladder_id", "ruleset", "version", "start"),
    [
        ("backgammon", "gammon42", "1.3.1", 1500),
        ("sedma", "sedma", "1.0", 1000),
        ("classic", "classic", "1.0", 1200),
        ("sedma-pairs", "sedma", "1.0", 1000),
        ("classic-ffa", "classic", "1.0", 1200),
    ],
)
def test_default_ladders(ladder_id: str, ruleset: str, version: str, start: int) -> None:
    ladder = DEFAULT_LADDERS[ladder_id]
    assert ladder.ladder_id == ladder_id
    assert (ladder.ruleset.name, ladder.ruleset.version) == (ruleset, version)
    assert ladder.starting_rating == start
    assert ladder.podium_bonuses == (50, 25, 15)
    assert [ladder.podium_bonus(place) for place in (1, 2, 3, 4, 0)] == [50, 25, 15, 0, 0]


def test_default_ladders_are_exactly_five() -> None:
    assert list(DEFAULT_LADDERS) == ["backgammon", "sedma", "classic", "sedma-pairs", "classic-ffa"]
    shapes = {
        ladder_id: (ladder.sides, ladder.players_per_side)
        for ladder_id, ladder in DEFAULT_LADDERS.items()
    }
    one_against_one = (Span(2, 2), Span(1, 1))
    assert shapes == {
        "backgammon": one_against_one,
        "sedma": one_against_one,
        "classic": one_against_one,
        "sedma-pairs": (Span(2, 2), Span(2, 2)),
        "classic-ffa": (Span(3, 8), Span(1, 1)),
    }
    assert PODIUM_BONUSES == (50, 25, 15)


def test_backgammon_ladder_runs_131_parameters() -> None:
    ruleset = DEFAULT_LADDERS["backgammon"].ruleset
    assert isinstance(ruleset, Gammon42)
    assert (ruleset.divisor, ruleset.k, ruleset.heavy_volume_k) == (1200, 32, 16)
    assert (ruleset.heavy_volume_games, ruleset.recent_window_days) == (50, 7)


@pytest.mark.parametrize(
    ("version", "divisor", "heavy_volume_games"),
    [("1.0.5", 400, None), ("1.2.0", 800, None), ("1.3.1", 1200, 50)],
)
def test_ladder_at_version(version: str, divisor: int, heavy_volume_games: int | None) -> None:
    ruleset = DEFAULT_LADDERS["backgammon"].at_version(version)
    assert isinstance(ruleset, Gammon42)
    assert ruleset.version == version
    assert ruleset.divisor == divisor
    assert ruleset.heavy_volume_games == heavy_volume_games
    assert ruleset.starting_rating == 1500


def test_at_version_keeps_the_ladder_starting_rating() -> None:
    ladder = Ladder("custom", Gammon42(starting_rating=1000))
    older = ladder.at_version("1.0.5")
    assert isinstance(older, Gammon42)
    assert (older.divisor, older.starting_rating) == (400, 1000)


@pytest.mark.parametrize(
    ("ladder_id", "version", "allowed"),
    [
        ("backgammon", "1.3.0", "1.0.5, 1.2.0, 1.3.1"),
        ("backgammon", "", "1.0.5, 1.2.0, 1.3.1"),
        ("sedma", "1.3.1", "1.0"),
        ("classic", "2.0", "1.0"),
    ],
)
def test_unknown_ruleset_version(ladder_id: str, version: str, allowed: str) -> None:
    with pytest.raises(InvalidInput) as caught:
        DEFAULT_LADDERS[ladder_id].at_version(version)
    assert caught.value.field == "ruleset_version"
    assert allowed in str(caught.value)
    assert repr(version) in str(caught.value)


def test_ruleset_named() -> None:
    assert ruleset_named("gammon42", "1.2.0").version == "1.2.0"
    with pytest.raises(InvalidInput) as caught:
        ruleset_named("chess", "1.0")
    assert caught.value.field == "ruleset"
    assert "gammon42, sedma, classic" in str(caught.value)
    with pytest.raises(InvalidInput) as caught:
        ruleset_named("classic", "9.9")
    assert caught.value.field == "ruleset_version"


def test_expected_score_of_unrepresentable_gaps() -> None:
    assert expected_score(10**400, 0, 400) == 1.0
    assert expected_score(0, 10**400, 400) == 0.0


@pytest.mark.parametrize(("sent", "parsed"), [(3.0, 3), (0.0, 0), (7, 7)])
def test_an_integer_field_takes_what_json_schema_calls_an_integer(sent: Any, parsed: int) -> None:
    # The OpenAPI document says "integer", and JSON Schema counts 3.0 as one (schemathesis sent it).
    from ratings.declare.kinds import Integer

    assert Integer(0, 10).parse(sent, "players[0].stats.bad_moves") == parsed


@pytest.mark.parametrize("sent", [2.5, True, "3", float("inf"), 11.0])
def test_an_integer_field_refuses_other_numbers(sent: Any) -> None:
    from ratings.declare.kinds import Integer

    with pytest.raises(InvalidInput, match=r"bad_moves must be an integer from 0 to 10"):
        Integer(0, 10).parse(sent, "bad_moves")
