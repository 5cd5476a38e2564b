"""Property tests of the rules package (hypothesis)."""

import copy
import math
from collections.abc import MutableMapping
from dataclasses import asdict, replace
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from support.rules import level_game, play, with_stats

from ratings.rules import (
    Classic,
    Game,
    Gammon42,
    PlayerChange,
    PlayerState,
    Rating,
    SedmaStats,
    cube_coefficient,
    ruleset_named,
)
from ratings.rules import Sedma as SedmaRuleset
from ratings.rules.model import frozen_explain, round_half_away
from ratings.rules.sedma import bonus, malus, score

EXAMPLES = settings(max_examples=300, deadline=None)

ratings = st.integers(min_value=-1_000, max_value=5_000)
wide_ratings = st.integers(min_value=-200_000, max_value=200_000)
counts = st.integers(min_value=0, max_value=10_000)
cubes = st.sampled_from([1, 2, 4, 8, 16, 32, 64])
gammon42_versions = st.sampled_from(["1.0.5", "1.2.0", "1.3.1"]).map(
    lambda version: ruleset_named("gammon42", version)
)
# Non-negative counts, small and huge (float32's range ends near 2**128: see the report of
# the rules' float32 conversion; counts up to 2**100 are well inside it).
stat_counts = st.one_of(
    st.integers(min_value=0, max_value=100), st.integers(min_value=0, max_value=2**100)
)
sedma_stats = st.builds(
    SedmaStats,
    bad_moves=stat_counts,
    rounds_won_16=stat_counts,
    rounds_won_24=stat_counts,
    rounds_won_4_last=stat_counts,
)


@st.composite
def players(
    draw: st.DrawFn, rating: st.SearchStrategy[int] = ratings
) -> tuple[PlayerState, PlayerState]:
    def one(player_id: str) -> PlayerState:
        recent = draw(st.integers(min_value=0, max_value=120))
        return PlayerState(
            player_id,
            draw(rating),
            ranked_games=recent + draw(counts),
            recent_ranked_games=recent,
        )

    return one("p1"), one("p2")


# --- gammon42 ----------------------------------------------------------------------------------


def gammon42_changes(
    ruleset: Gammon42, pair: tuple[PlayerState, PlayerState], winner: str, cube: int
) -> list[tuple[int, int, float]]:
    """Each player's (delta, K, cube coefficient) in the game, as the change explains them."""
    changes = []
    for change in ruleset.rate(Game(players=pair, winner=winner, options={"cube": cube})).players:
        k = change.explain["k"]
        coefficient = change.explain["coefficient"]
        assert isinstance(k, int)
        assert isinstance(coefficient, float)
        changes.append((change.delta, k, coefficient))
    return changes


@EXAMPLES
@given(
    players(wide_ratings),
    st.sampled_from(["p1", "p2"]),
    cubes,
    gammon42_versions,
    st.integers(0, 120),
)
def test_gammon42_mirror_when_k_equal(
    pair: tuple[PlayerState, PlayerState], winner: str, cube: int, ruleset: Gammon42, recent: int
) -> None:
    first, second = pair
    # Same recent count on both sides: the same K for both.
    first = PlayerState(first.player_id, first.rating, recent_ranked_games=recent)
    second = PlayerState(second.player_id, second.rating, recent_ranked_games=recent)
    result = ruleset.rate(Game(players=(first, second), winner=winner, options={"cube": cube}))
    a, b = result.players
    assert a.explain["k"] == b.explain["k"]
    assert a.delta == -b.delta
    winner_change = a if winner == "p1" else b
    assert winner_change.delta >= 0


@EXAMPLES
@given(players(wide_ratings), st.sampled_from(["p1", "p2"]), cubes, gammon42_versions)
def test_gammon42_change_bounded_by_k_times_coefficient(
    pair: tuple[PlayerState, PlayerState], winner: str, cube: int, ruleset: Gammon42
) -> None:
    for delta, k, coefficient in gammon42_changes(ruleset, pair, winner, cube):
        assert k in (16, 32)
        # |K * (score - E) * coefficient| <= K * coefficient before rounding, so the rounded
        # change is at most K * coefficient rounded half away (42.67 -> 43 at cube 4: a huge
        # underdog's win can exceed K * coefficient by the rounding, see test_rounding.py).
        assert abs(delta) <= round_half_away(k * coefficient)
        assert abs(delta) <= k * coefficient + 0.5


@EXAMPLES
@given(
    rating=ratings,
    gap_share=st.floats(min_value=-1.0, max_value=1.0),
    winner=st.sampled_from(["p1", "p2"]),
    cube=cubes,
    ruleset=gammon42_versions,
    recent=st.tuples(st.integers(0, 120), st.integers(0, 120)),
)
def test_gammon42_change_within_k_times_coefficient_for_realistic_gaps(
    rating: int,
    gap_share: float,
    winner: str,
    cube: int,
    ruleset: Gammon42,
    recent: tuple[int, int],
) -> None:
    # The literal bound |change| <= K x coefficient holds while the gap is at most 5/3 of the
    # divisor (2000 points under 1.3.1): 1 - E <= 0.979 keeps the unrounded change at least
    # 0.5 below K x coefficient whenever that product has a fraction >= .5.
    gap = round(gap_share * ruleset.divisor * 5 / 3)
    pair = (
        PlayerState("p1", rating, recent_ranked_games=recent[0]),
        PlayerState("p2", rating + gap, recent_ranked_games=recent[1]),
    )
    for delta, k, coefficient in gammon42_changes(ruleset, pair, winner, cube):
        assert abs(delta) <= k * coefficient


@given(cubes)
def test_cube_coefficient_in_one_to_two(cube: int) -> None:
    coefficient = cube_coefficient(cube)
    assert 1.0 <= coefficient <= 2.0
    assert coefficient == 1 + math.log2(cube) / 6


@EXAMPLES
@given(
    rating=wide_ratings,
    opponent=wide_ratings,
    raise_by=st.integers(min_value=1, max_value=5_000),
    cube=cubes,
    ruleset=gammon42_versions,
    winner_recent=st.integers(0, 120),
    loser_recent=st.integers(0, 120),
)
def test_gammon42_stronger_opponent_never_lowers_a_gain_nor_worsens_a_loss(
    rating: int,
    opponent: int,
    raise_by: int,
    cube: int,
    ruleset: Gammon42,
    winner_recent: int,
    loser_recent: int,
) -> None:
    recent: dict[str, Any] = {"winner_recent": winner_recent, "loser_recent": loser_recent}

    def gain(opponent: int) -> int:
        return play(ruleset, rating, opponent, cube=cube, **recent)[0].delta

    def loss(opponent: int) -> int:
        return play(ruleset, opponent, rating, cube=cube, **recent)[1].delta

    assert gain(opponent + raise_by) >= gain(opponent)
    assert loss(opponent + raise_by) >= loss(opponent)


# --- sedma -------------------------------------------------------------------------------------


@EXAMPLES
@given(sedma_stats, st.booleans())
def test_sedma_score_in_unit_interval(stats: SedmaStats, won: bool) -> None:
    player_bonus = bonus(stats, won)
    player_malus = malus(stats)
    assert 0.0 <= player_bonus <= (0.45 if won else 0.045)
    assert 0.0 <= player_malus <= 0.3 + 1e-7
    player_score = score(won, player_bonus, player_malus)
    assert 0.0 <= player_score <= 1.0
    # The winner keeps at least 1 - 0.3; the loser at most a tenth of the bonus.
    if won:
        assert player_score >= 0.7 - 1e-6
    else:
        assert player_score <= 0.045


@EXAMPLES
@given(players(), sedma_stats, sedma_stats, st.sampled_from(["p1", "p2"]))
def test_sedma_rate_score_in_unit_interval(
    pair: tuple[PlayerState, PlayerState], stats_1: SedmaStats, stats_2: SedmaStats, winner: str
) -> None:
    result = SedmaRuleset().rate(
        Game(players=pair, winner=winner, player_options=with_stats(stats_1, stats_2))
    )
    for change, state in zip(result.players, pair, strict=True):
        player_score = change.explain["score"]
        k = change.explain["k"]
        assert isinstance(player_score, float)
        assert isinstance(k, int)
        assert 0.0 <= player_score <= 1.0
        # new rating is within K of the old (score and E both in [0, 1]), rounding aside.
        assert abs(change.rating_after - state.rating) <= k


# --- classic -----------------------------------------------------------------------------------


@EXAMPLES
@given(ratings, counts, counts)
def test_classic_draw_between_equal_ratings_changes_nothing(
    rating: int, games_1: int, games_2: int
) -> None:
    result = Classic().rate(level_game(rating, None, (games_1, games_2)))
    assert [change.delta for change in result.players] == [0, 0]
    assert [change.explain["score"] for change in result.players] == [0.5, 0.5]


@EXAMPLES
@given(players(wide_ratings), st.sampled_from(["p1", "p2", None]))
def test_classic_draws_and_wins_move_towards_the_result(
    pair: tuple[PlayerState, PlayerState], winner: str | None
) -> None:
    first, second = Classic().rate(Game(players=pair, winner=winner)).players
    if winner == "p1":
        assert first.delta >= 0 >= second.delta
    elif winner == "p2":
        assert first.delta <= 0 <= second.delta
    elif pair[0].rating < pair[1].rating:
        assert first.delta >= 0 >= second.delta
    elif pair[0].rating > pair[1].rating:
        assert first.delta <= 0 <= second.delta


# --- every ruleset: rate() is pure -------------------------------------------------------------

rulesets = st.sampled_from(
    [
        ruleset_named("gammon42", "1.0.5"),
        ruleset_named("gammon42", "1.2.0"),
        ruleset_named("gammon42", "1.3.1"),
        SedmaRuleset(),
        Classic(),
    ]
)


@EXAMPLES
@given(rulesets, players(), st.sampled_from(["p1", "p2"]), cubes, sedma_stats, sedma_stats)
def test_rate_never_mutates_inputs_and_returns_new_values(
    ruleset: Gammon42 | SedmaRuleset | Classic,
    pair: tuple[PlayerState, PlayerState],
    winner: str,
    cube: int,
    stats_1: SedmaStats,
    stats_2: SedmaStats,
) -> None:
    if isinstance(ruleset, Gammon42):
        game = Game(players=pair, winner=winner, options={"cube": cube})
    elif isinstance(ruleset, SedmaRuleset):
        game = Game(players=pair, winner=winner, player_options=with_stats(stats_1, stats_2))
    else:
        game = Game(players=pair, winner=winner)
    game_before = copy.deepcopy(game)
    ruleset_before = copy.deepcopy(ruleset)
    states_before = [vars(state).copy() for state in pair]

    result = ruleset.rate(game)
    again = ruleset.rate(game)

    assert game == game_before
    assert ruleset == ruleset_before
    assert [vars(state) for state in pair] == states_before
    assert result == again  # deterministic
    assert result is not again
    for change, state in zip(result.players, pair, strict=True):
        assert isinstance(change, PlayerChange)
        assert change.player_id == state.player_id
        assert change.rating_before == state.rating
        assert change.rating_after == state.rating + change.delta
        assert isinstance(change.rating_after, int)
        assert not isinstance(change.rating_after, bool)
    # explain is read-only: a caller can not alter a stored result's explanation.
    explain: Any = result.players[0].explain
    k = explain["k"]
    assert not isinstance(explain, MutableMapping)
    with pytest.raises(TypeError):
        explain["k"] = 0
    assert explain["k"] == k


# --- sides: one against one is two sides of one player, bit for bit ----------------------------


def bits(rating: Rating) -> list[tuple[object, ...]]:
    """Every figure of a rating, each float as its exact bits (float.hex tells -0.0 from 0.0,
    where == would not)."""
    return [
        (
            change.player_id,
            change.rating_before,
            change.rating_after,
            [
                (name, value.hex() if isinstance(value, float) else value)
                for name, value in change.explain.items()
            ],
        )
        for change in rating.players
    ]


def old_score(pair: tuple[PlayerState, PlayerState], winner: str | None, index: int) -> float:
    """`Game.score_of` as it was before sides."""
    if winner is None:
        return 0.5
    return 1.0 if pair[index].player_id == winner else 0.0


def classic_oracle(
    ruleset: Classic, pair: tuple[PlayerState, PlayerState], winner: str | None
) -> Rating:
    """classic's two-player rating as the code computed it before sides, step for step."""

    def change(player: PlayerState, opponent: PlayerState, score: float) -> PlayerChange:
        expected = ruleset.expected_score(player.rating, opponent.rating)
        k = ruleset.k_for(player)
        delta = round_half_away(k * (score - expected))
        explain = frozen_explain(
            expected=expected, k=k, ranked_games=player.ranked_games, score=score
        )
        return PlayerChange(player.player_id, player.rating, player.rating + delta, explain)

    first, second = pair
    changes = (
        change(first, second, old_score(pair, winner, 0)),
        change(second, first, old_score(pair, winner, 1)),
    )
    return Rating("classic", ruleset.version, changes)


def sedma_oracle(
    ruleset: SedmaRuleset,
    pair: tuple[PlayerState, PlayerState],
    winner: str,
    stats: tuple[SedmaStats, SedmaStats],
) -> Rating:
    """sedma's two-player rating as the code computed it before sides, step for step."""

    def change(player: PlayerState, opponent: PlayerState, stats: SedmaStats) -> PlayerChange:
        won = winner == player.player_id
        player_bonus = bonus(stats, won)
        player_malus = malus(stats)
        player_score = score(won, player_bonus, player_malus)
        expected = ruleset.expected_score(player.rating, opponent.rating)
        k = ruleset.k_for(player)
        rating_after = round(player.rating + k * (player_score - expected))
        explain = frozen_explain(
            expected=expected, k=k, score=player_score, bonus=player_bonus, malus=player_malus
        )
        return PlayerChange(player.player_id, player.rating, rating_after, explain)

    first, second = pair
    changes = (change(first, second, stats[0]), change(second, first, stats[1]))
    return Rating("sedma", ruleset.version, changes)


def places_for(winner: str | None, best: int, gap: int) -> tuple[int, int]:
    """The places of p1's side and p2's side for this result, the best place `best`."""
    if winner is None:
        return (best, best)
    return (best, best + gap) if winner == "p1" else (best + gap, best)


def sides_forms(
    pair: tuple[PlayerState, PlayerState],
    winner: str | None,
    places: tuple[int, int],
    player_options: tuple[dict[str, Any], dict[str, Any]] = ({}, {}),
) -> list[Game]:
    """The game as two sides of one player: by `Game.of_sides`, and with its sides listed
    p2's first (the side order is not the players' order)."""
    first, second = player_options
    return [
        Game.of_sides([[pair[0]], [pair[1]]], places, player_options=[[first], [second]]),
        Game(
            players=pair,
            winner=None,
            player_options=player_options,
            sides=((1,), (0,)),
            places=places[::-1],
        ),
    ]


places_best = st.integers(min_value=1, max_value=8)
places_gap = st.integers(min_value=1, max_value=7)


@EXAMPLES
@given(players(wide_ratings), st.sampled_from(["p1", "p2", None]), places_best, places_gap)
def test_classic_sides_form_rates_as_the_two_player_form(
    pair: tuple[PlayerState, PlayerState], winner: str | None, best: int, gap: int
) -> None:
    ruleset = Classic()
    two_player = ruleset.rate(Game(players=pair, winner=winner))
    assert bits(two_player) == bits(classic_oracle(ruleset, pair, winner))
    for game in sides_forms(pair, winner, places_for(winner, best, gap)):
        assert bits(ruleset.rate(game)) == bits(two_player)


@EXAMPLES
@given(
    players(wide_ratings),
    st.sampled_from(["p1", "p2"]),
    places_best,
    places_gap,
    sedma_stats,
    sedma_stats,
)
def test_sedma_sides_form_rates_as_the_two_player_form(
    pair: tuple[PlayerState, PlayerState],
    winner: str,
    best: int,
    gap: int,
    stats_1: SedmaStats,
    stats_2: SedmaStats,
) -> None:
    ruleset = SedmaRuleset()
    options = with_stats(stats_1, stats_2)
    two_player = ruleset.rate(Game(players=pair, winner=winner, player_options=options))
    assert bits(two_player) == bits(sedma_oracle(ruleset, pair, winner, (stats_1, stats_2)))
    for game in sides_forms(pair, winner, places_for(winner, best, gap), options):
        assert bits(ruleset.rate(game)) == bits(two_player)


@EXAMPLES
@given(players(wide_ratings), players(wide_ratings), st.sampled_from(["p1", "p2", None]))
def test_classic_teammates_at_one_rating_rate_as_one_against_one(
    first: tuple[PlayerState, PlayerState],
    second: tuple[PlayerState, PlayerState],
    winner: str | None,
) -> None:
    # Both players of a side at one rating: the mean is that rating exactly, so each player
    # rates (with their own K) as they would alone against the other side's rating.
    ratings = (first[0].rating, second[0].rating)
    sides = (
        [replace(player, rating=ratings[0]) for player in first],
        [replace(player, player_id=f"q{i}", rating=ratings[1]) for i, player in enumerate(second)],
    )
    places = places_for(winner, 1, 1)
    team = Classic().rate(Game.of_sides(sides, places))
    changes = iter(team.players)
    for side, (mine, theirs) in enumerate((places, places[::-1])):
        for player in sides[side]:
            opponent = PlayerState("o", ratings[1 - side])
            result = None if mine == theirs else (player.player_id if mine < theirs else "o")
            alone = Classic().rate(Game(players=(player, opponent), winner=result))
            assert bits(alone)[0] == bits(Rating("classic", "1.0", (next(changes),)))[0]


@st.composite
def free_for_all(draw: st.DrawFn) -> Game:
    """2 to 8 sides of 1 or 2 players (16 at most), at any ratings and places, ties likely."""
    count = draw(st.integers(min_value=2, max_value=8))
    sides = []
    for side in range(count):
        size = draw(st.integers(min_value=1, max_value=2))
        sides.append(
            [
                PlayerState(f"s{side}p{i}", draw(ratings), ranked_games=draw(counts))
                for i in range(size)
            ]
        )
    places = draw(st.lists(st.integers(1, count), min_size=count, max_size=count))
    return Game.of_sides(sides, places)


@EXAMPLES
@given(free_for_all())
def test_classic_free_for_all_moves_towards_the_places(game: Game) -> None:
    ruleset = Classic()
    result = ruleset.rate(game)
    best, worst = min(game.places), max(game.places)
    assert [change.player_id for change in result.players] == [p.player_id for p in game.players]
    for change, side in zip(result.players, game.side_of_players(), strict=True):
        k = change.explain["k"]
        assert isinstance(k, int)
        assert abs(change.delta) <= k  # |score - E| <= 1
        place = game.places[side]
        alone = game.places.count(place) == 1
        if place == best and alone:  # ahead of every other side: score 1, nothing to lose
            assert change.delta >= 0
            assert change.explain["score"] == 1.0
        if place == worst and alone:  # behind every other side: score 0
            assert change.delta <= 0
            assert change.explain["score"] == 0.0
    # Teammates share their side's expected score and score; each keeps their own K.
    for indices in game.sides:
        shared = {
            (result.players[i].explain["expected"], result.players[i].explain["score"])
            for i in indices
        }
        assert len(shared) == 1


@st.composite
def sedma_teams(draw: st.DrawFn) -> tuple[Game, list[SedmaStats]]:
    size = draw(st.integers(min_value=1, max_value=4))
    sides = [[PlayerState(f"s{s}p{i}", draw(ratings)) for i in range(size)] for s in range(2)]
    stats = [draw(sedma_stats) for _ in range(2 * size)]
    options = [[{"stats": asdict(stats[s * size + i])} for i in range(size)] for s in range(2)]
    places = draw(st.sampled_from([[1, 2], [2, 1]]))
    return Game.of_sides(sides, places, player_options=options), stats


@EXAMPLES
@given(sedma_teams())
def test_sedma_teams_score_in_unit_interval(teams: tuple[Game, list[SedmaStats]]) -> None:
    game, stats = teams
    result = SedmaRuleset().rate(game)
    for change, state, own, side in zip(
        result.players, game.players, stats, game.side_of_players(), strict=True
    ):
        won = game.places[side] == 1
        player_score, k = change.explain["score"], change.explain["k"]
        side_bonus = change.explain["bonus"]
        assert isinstance(player_score, float)
        assert isinstance(k, int)
        assert isinstance(side_bonus, float)
        assert 0.0 <= player_score <= 1.0
        assert abs(change.rating_after - state.rating) <= k
        assert change.explain["malus"] == malus(own)  # bad moves stay the player's own
        assert 0.0 <= side_bonus <= (0.45 if won else 0.045)
        if won:
            assert change.delta >= 0 or own.bad_moves > 0
