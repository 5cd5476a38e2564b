"""A game's sides and places (`Game`, `Game.of_sides`), the shapes each ruleset rates
(`Shapes`, `shapes_of`), and whether a game of any shape is ranked (`unranked_reason`)."""

from types import SimpleNamespace
from typing import Any

import pytest

from ratings.rules import (
    UNRANKED_REASONS,
    Classic,
    Game,
    Gammon42,
    PlayerState,
    Ruleset,
    Sedma,
    Shapes,
    Span,
    ruleset_named,
    shape_refusal,
    shapes_of,
    unranked_reason,
)
from ratings.rules.ladders import Span as LaddersSpan
from ratings.rules.model import ONE_AGAINST_ONE, mean_rating, mean_scores

A, B, C, D = (PlayerState(pid, 1500) for pid in "ABCD")


# --- the two-player form is two sides of one player ---------------------------------------------


@pytest.mark.parametrize(
    ("winner", "places"), [("A", (1, 2)), ("B", (2, 1)), (None, (1, 1))], ids=["A", "B", "draw"]
)
def test_two_player_form_defaults(winner: str | None, places: tuple[int, int]) -> None:
    game = Game(players=(A, B), winner=winner)
    assert game.sides == ((0,), (1,))
    assert game.places == places
    assert game.player_options == ({}, {})
    assert game.side_sizes() == (1, 1)
    assert game.side_of_players() == (0, 1)
    # of_sides makes the very same game.
    assert Game.of_sides([[A], [B]], places) == game


def test_two_player_form_keeps_what_it_was_given() -> None:
    options: tuple[dict[str, Any], ...] = ({"stats": {"bad_moves": 1}}, {})
    game = Game((A, B), "A", {"cube": 2}, options)
    assert (game.players, game.winner, game.options, game.player_options) == (
        (A, B),
        "A",
        {"cube": 2},
        options,
    )
    assert [game.score_of(0), game.score_of(1)] == [1.0, 0.0]
    assert [Game((A, B), None).score_of(i) for i in (0, 1)] == [0.5, 0.5]


def test_of_sides_flattens_players_in_the_order_sent() -> None:
    game = Game.of_sides(
        [[A, B], [C], [D]],
        [3, 1, 1],
        {"cube": 1},
        [[{"stats": {"bad_moves": 1}}, {}], [{}], [{"stats": {}}]],
    )
    assert game.players == (A, B, C, D)
    assert game.sides == ((0, 1), (2,), (3,))
    assert game.places == (3, 1, 1)
    assert game.winner is None  # more than one against one: the places tell the result
    assert game.player_options == ({"stats": {"bad_moves": 1}}, {}, {}, {"stats": {}})
    assert game.side_sizes() == (2, 1, 1)
    assert game.side_of_players() == (0, 0, 1, 2)
    # Each player's side's mean score: last of three -> 0; tied first -> (1 + 0.5) / 2.
    assert [game.score_of(i) for i in range(4)] == [0.0, 0.0, 0.75, 0.75]


def test_sides_may_name_players_in_any_order() -> None:
    game = Game(players=(A, B, C, D), winner=None, sides=((3, 0), (1, 2)), places=(2, 1))
    assert game.side_of_players() == (0, 1, 1, 0)
    assert game.side_sizes() == (2, 2)


def test_a_winner_names_a_player_of_the_winning_side() -> None:
    game = Game(players=(A, B, C, D), winner="C", sides=((0, 1), (2, 3)))
    assert game.places == (2, 1)
    assert Game(players=(A, B), winner="B", places=(7, 3)).places == (7, 3)


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"players": (A, B, C), "winner": None}, "needs places"),
        ({"players": (A, B), "winner": None, "sides": ((0, 1),)}, "at least two sides"),
        ({"players": (A, B), "winner": None, "sides": ((0, 1), ())}, "at least one player"),
        ({"players": (A, B), "winner": None, "sides": ((0,), (0,))}, "once"),
        ({"players": (A, B), "winner": None, "sides": ((0,), (2,))}, "once"),
        ({"players": (A, B, C), "winner": None, "sides": ((0,), (1,))}, "once"),
        ({"players": (A, B), "winner": None, "places": (1,)}, "one place per side"),
        ({"players": (A, B), "winner": None, "places": (0, 1)}, "from 1"),
        ({"players": (A, B), "winner": None, "places": (True, 2)}, "from 1"),
        ({"players": (A, B), "winner": "Z"}, "one of the players' ids"),
        ({"players": (A, B), "winner": "A", "places": (2, 1)}, "not alone in the best place"),
        ({"players": (A, B), "winner": "A", "places": (1, 1)}, "not alone in the best place"),
        ({"players": (A, B), "winner": "A", "player_options": ({},)}, "one mapping per player"),
    ],
)
def test_a_game_whose_parts_do_not_fit_is_refused(fields: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Game(**fields)


def test_of_sides_player_options_have_the_shape_of_the_sides() -> None:
    with pytest.raises(ValueError, match="shape of sides"):
        Game.of_sides([[A, B], [C]], [1, 2], player_options=[[{}], [{}, {}]])


def test_means() -> None:
    assert mean_rating([1200, 1400]) == 1300.0
    assert mean_rating([1201, 1400]) == 1300.5
    assert mean_rating([1000, 1000, 1001]) == 3001 / 3
    assert mean_scores((1, 2)) == (1.0, 0.0)
    assert mean_scores((1, 1)) == (0.5, 0.5)
    assert mean_scores((2, 4, 1, 2)) == (0.5, 0.0, 1.0, 0.5)


# --- the shapes each ruleset rates -------------------------------------------------------------

RULESETS: list[Ruleset] = [
    Classic(),
    Sedma(),
    *(ruleset_named("gammon42", v) for v in ("1.0.5", "1.2.0", "1.3.1")),
]


def test_each_ruleset_declares_its_shapes() -> None:
    assert Classic.shapes == Shapes(Span(2, 8), Span(1, 8), max_players=16, ties=True)
    assert Sedma.shapes == Shapes(Span(2, 2), Span(1, 4), max_players=8, equal_sides=True)
    assert Gammon42.shapes == ONE_AGAINST_ONE == Shapes(Span(2, 2), Span(1, 1), max_players=2)
    for ruleset in RULESETS:
        declared: Any = type(ruleset)
        assert shapes_of(ruleset) is declared.shapes
        # Ties between sides are draws: allowed exactly where draws are.
        assert shapes_of(ruleset).ties == ruleset.draws_allowed
        # What a ruleset rates is not one of its parameters (GET /v1/ladders).
        assert "shapes" not in ruleset.parameters()


def test_span_is_the_ladders_span() -> None:
    assert LaddersSpan is Span


def test_shapes_in_words() -> None:
    assert Classic.shapes.words() == (
        "2 to 8 sides of 1 to 8 players, at most 16 players in all, ties allowed"
    )
    assert Sedma.shapes.words() == (
        "2 sides of 1 to 4 players, the same number on each side, without ties"
    )
    assert Gammon42.shapes.words() == "2 sides of 1 player, without ties"


@pytest.mark.parametrize(
    ("ruleset", "sizes", "places", "refusal"),
    [
        (Classic(), (1, 1), (1, 1), None),
        (Classic(), (8, 8), (1, 2), None),
        (Classic(), (2,) * 8, (1,) * 8, None),
        (Classic(), (1, 3, 2), None, None),
        (Classic(), (1,), None, "this game has 1 side"),
        (Classic(), (1,) * 9, None, "this game has 9 sides"),
        (Classic(), (9, 1), None, "this game has a side of 9 players"),
        (Classic(), (0, 1), None, "this game has a side of 0 players"),
        (Classic(), (8, 8, 1), None, "this game has 17 players"),
        (Classic(), (1, 1), (1, 2, 3), "this game has 3 places for 2 sides"),
        (Sedma(), (1, 1), (2, 1), None),
        (Sedma(), (4, 4), (1, 2), None),
        (Sedma(), (2, 1), (1, 2), "this game has sides of 2 and 1 players"),
        (Sedma(), (5, 5), (1, 2), "this game has a side of 5 players"),
        (Sedma(), (1, 1, 1), None, "this game has 3 sides"),
        (Sedma(), (2, 2), (1, 1), "this game has sides tied on a place"),
        (Gammon42(), (1, 1), (1, 2), None),
        (Gammon42(), (2, 2), (1, 2), "this game has a side of 2 players"),
        (Gammon42(), (1, 1), (1, 1), "this game has sides tied on a place"),
    ],
)
def test_shape_refusal(
    ruleset: Ruleset, sizes: tuple[int, ...], places: tuple[int, ...] | None, refusal: str | None
) -> None:
    said = shape_refusal(ruleset, sizes, places)
    if refusal is None:
        assert said is None
    else:
        assert said == f"{ruleset.name} rates {shapes_of(ruleset).words()}: {refusal}"


def test_a_ruleset_that_declares_no_shapes_rates_one_against_one() -> None:
    for draws in (True, False):
        toy: Any = SimpleNamespace(name="toy", draws_allowed=draws)
        assert shapes_of(toy) == Shapes(Span(2, 2), Span(1, 1), max_players=2, ties=draws)
        assert shape_refusal(toy, (2, 2)) == (
            f"toy rates 2 sides of 1 player, {'ties allowed' if draws else 'without ties'}: "
            "this game has a side of 2 players"
        )


@pytest.mark.parametrize(
    ("ruleset", "game"),
    [
        (Gammon42(), Game.of_sides([[A, B], [C, D]], [1, 2])),
        (Gammon42(), Game.of_sides([[A], [B], [C]], [1, 2, 3])),
        (Gammon42(), Game((A, B), None)),
        (Sedma(), Game.of_sides([[A, B], [C]], [1, 2])),
        (Sedma(), Game.of_sides([[A], [B], [C]], [1, 2, 3])),
        (Sedma(), Game((A, B), None)),
        (Classic(), Game.of_sides([[A]] * 9, [1] * 9)),
        (Classic(), Game.of_sides([[PlayerState(str(i), 1500) for i in range(9)], [A]], [1, 2])),
    ],
)
def test_rate_refuses_a_shape_or_a_tie_it_does_not_rate(ruleset: Ruleset, game: Game) -> None:
    with pytest.raises(ValueError, match=f"^{ruleset.name} rates "):
        ruleset.rate(game)


# --- unranked_reason: any number of players, the network rule across sides only ----------------


def test_the_two_player_call_is_unchanged() -> None:
    ranked = ("ranked", (False, False))
    assert unranked_reason(*ranked, ("net", "net")) == "shared_network"
    assert unranked_reason(*ranked, ("net", "other")) is None
    assert unranked_reason(*ranked, ("", "")) is None
    assert unranked_reason(*ranked, (None, None)) is None
    assert unranked_reason("ranked", (False, True), ("net", "net")) == "bot"
    assert unranked_reason("boosted", (True, False), ("n", "n"), (False, False)) == "mode"
    assert unranked_reason("ranked", (True, False), ("n", "n"), (False, True)) == "sanctioned"
    assert unranked_reason("x", (True, False), ("n", "n"), (True, True), True) == "season_ended"
    assert UNRANKED_REASONS == ("season_ended", "sanctioned", "mode", "bot", "shared_network")


TWO_OF_TWO = (0, 0, 1, 1)
NOBODY = (False,) * 4


@pytest.mark.parametrize(
    ("networks", "sides", "reason"),
    [
        (("home", "home", None, None), TWO_OF_TWO, None),  # teammates on one network
        (("home", "home", "cafe", "cafe"), TWO_OF_TWO, None),
        (("home", None, "home", None), TWO_OF_TWO, "shared_network"),  # opponents on one
        ((None, "home", None, "home"), TWO_OF_TWO, "shared_network"),
        (("home", "home", "home", None), TWO_OF_TWO, "shared_network"),
        (("", "", "", ""), TWO_OF_TWO, None),
        (("a", "b", "c", "a"), (0, 1, 2, 3), "shared_network"),  # free-for-all
        (("a", "b", "c", "a"), None, "shared_network"),  # None: each player a side
        (("a", "b", "c", "d"), None, None),
        (("a", "b", "a", "b"), (0, 1, 0, 1), None),
    ],
)
def test_shared_network_only_across_sides(
    networks: tuple[str | None, ...], sides: tuple[int, ...] | None, reason: str | None
) -> None:
    assert unranked_reason("ranked", NOBODY, networks, NOBODY, False, sides) == reason
    assert unranked_reason("ranked", NOBODY, networks, sides=sides) == reason


def test_any_number_of_players_bots_and_sanctions() -> None:
    networks = ("n", None, "n", None, None, None)
    sides = (0, 0, 1, 1, 2, 2)
    bots = (False, False, False, False, False, True)
    assert unranked_reason("ranked", bots, networks, sides=sides) == "bot"
    sanctioned = (False, False, False, True, False, False)
    assert unranked_reason("ranked", bots, networks, sanctioned, sides=sides) == "sanctioned"
    game = Game.of_sides([[A, B], [C, D]], [1, 2])
    assert (
        unranked_reason("ranked", NOBODY, (None, "n", "n", None), sides=game.side_of_players())
        == "shared_network"
    )


@pytest.mark.parametrize(
    "call",
    [
        {"bots": (False,), "networks": (None, None)},
        {"bots": (False, False), "networks": (None, None), "sides": (0, 1, 1)},
        {"bots": (False, False), "networks": (None, None), "sanctioned": (False,)},
    ],
)
def test_one_entry_per_player(call: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="one entry per player"):
        unranked_reason("ranked", **call)
