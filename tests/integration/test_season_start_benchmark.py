"""The counting of benchmarks/season_start.py, on ladders of a few players, on both engines:
a season start costs the same whatever the ladder's size, and a player's first game of a
season costs more write units than their next one (not timed)."""

from support.engines import Engine, ratings_table, unique_table_name

from benchmarks.season_start import SizeFigures, measure_size


def measured(engine: Engine, players: int) -> SizeFigures:
    with ratings_table(engine, unique_table_name("season-bench")) as name:
        return measure_size(engine.storage(name), players)


def test_a_season_start_costs_the_same_whatever_the_ladders_size(engine: Engine) -> None:
    small, larger = measured(engine, 4), measured(engine, 30)

    for size in (small, larger):
        assert size.scheduled_boundary.requests == {}
        assert size.operator_delay.requests == {}
        assert size.operator_start.requests == {"GetItem": 1, "PutItem": 1}
    assert small.operator_start == larger.operator_start
    assert small.first_game.minus(small.second_game) == larger.first_game.minus(larger.second_game)
    assert (small.page_entries, larger.page_entries) == (4, 30)


def test_the_first_game_of_a_season_costs_more_writes_and_no_more_requests(
    engine: Engine,
) -> None:
    figures = measured(engine, 6)

    for first, second in (
        (figures.first_game, figures.second_game),
        (figures.operator_first_game, figures.operator_second_game),
    ):
        extra = first.minus(second)
        assert first.requests == second.requests == {"BatchGetItem": 1, "TransactWriteItems": 1}
        # Each player's frozen standing and reset event: two more puts under 1 KB each.
        assert (first.transaction_items, second.transaction_items) == (9, 5)
        assert extra.rule_units == 2 * 2 * 2
        assert extra.write_units >= extra.rule_units > 0
        assert extra.read_units == 0
    if engine.is_local:  # and each standing's entry on the ended season's leaderboard
        assert figures.first_game.minus(figures.second_game).write_units == 10
