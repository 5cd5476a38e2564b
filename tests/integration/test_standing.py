"""Standing at the port and through the service, on the in-memory fake and on DynamoDB (moto
and DynamoDB Local):
the bounded count of the players ahead, the players just ahead of a position, every entry of
the leaderboard, the histogram item, and a refresh while games are rated in threads."""

import itertools
import random
import threading
from collections.abc import Iterator, Sequence
from datetime import timedelta
from typing import Any

import pytest
from support.engines import (
    ENGINES,
    FAKE_AWS_ENV,
    UNSET_AWS_ENV,
    Engine,
    ratings_table,
    running_engine,
)
from support.games import NOW, FixedClock, game
from support.seeding import seed_states
from support.services import rating_service

from ratings.rules import DEFAULT_LADDERS
from ratings.rules.ranking import RatingHistogram, board_order
from ratings.service.facade import RatingService, Settings
from ratings.service.ports import Storage
from ratings.service.stored import Standings
from ratings.storage.dynamodb import DynamoStorage, leaderboard_shard
from ratings.storage.memory import InMemoryStorage
from ratings_local.aws import EmulatedAws

LADDER = "backgammon"


def tied_board(seed: int, players: int = 60) -> list[tuple[str, int, int]]:
    """Players with few distinct ratings (ties in every shard), some not on the board."""
    rng = random.Random(seed)
    return [
        (
            f"t-{index:03d}",
            rng.choice([1600, 1550, 1500, 1500, 1500, 1450, -20]),
            rng.choice([0, 1, 2]),
        )
        for index in range(players)
    ]


def board_of(states: Sequence[tuple[str, int, int]]) -> list[tuple[str, int]]:
    listed = [(pid, rating) for pid, rating, games in states if games > 0]
    return sorted(listed, key=lambda row: board_order(row[1], row[0]))


# The port, both implementations -------------------------------------------------------------


def test_count_ahead_is_exact_within_the_limit_and_none_beyond(any_storage: Storage) -> None:
    states = tied_board(7)
    seed_states(any_storage, states)
    board = board_of(states)
    sharing = {rating: sum(1 for _pid, r in board if r == rating) for _pid, rating in board}
    assert {leaderboard_shard(LADDER, pid, 4) for pid, rating in board if rating == 1500} == {
        f"{LADDER}#{shard}" for shard in range(4)
    }  # the big tie spreads over every shard

    for rank, (player_id, rating) in enumerate(board, start=1):
        ahead = rank - 1
        at_or_above = sum(1 for _pid, r in board if r >= rating)
        crowded = (at_or_above - 2) // 2  # the largest limit whose bounded read is too short
        for limit in (0, 1, ahead, ahead + 1, sharing[rating], crowded, crowded + 1, 500):
            expected = None if ahead >= limit or at_or_above > 2 * limit + 2 else ahead
            found = any_storage.ranks.count_ahead(LADDER, rating, player_id, limit)
            assert found == expected, (player_id, rating, limit)


def test_count_ahead_of_a_position_nobody_holds(any_storage: Storage) -> None:
    seed_states(any_storage, [("a", 1600, 1), ("b", 1500, 1), ("c", 1500, 1), ("d", 1400, 1)])

    assert any_storage.ranks.count_ahead(LADDER, 1500, "bb", 10) == 2  # after a and b
    assert any_storage.ranks.count_ahead(LADDER, 1700, "x", 10) == 0
    assert any_storage.ranks.count_ahead(LADDER, 1000, "x", 10) == 4
    assert any_storage.ranks.count_ahead(LADDER, 1000, "x", 4) is None
    # A player's own entry above their (newer) rating is not counted as someone else.
    assert any_storage.ranks.count_ahead(LADDER, 1550, "a", 10) == 0


def test_leaderboard_before_is_the_nearest_players_ahead(any_storage: Storage) -> None:
    states = tied_board(8)
    seed_states(any_storage, states)
    board = board_of(states)

    for index, (player_id, rating) in enumerate(board):
        for limit in (1, 2, 5, 13, 100):
            rows = any_storage.leaderboard.leaderboard_before(LADDER, limit, (rating, player_id))
            expected = board[max(0, index - limit) : index]
            assert [(row.player_id, row.rating) for row in rows] == expected


def test_leaderboard_entries_are_the_board(any_storage: Storage) -> None:
    states = tied_board(9)
    seed_states(any_storage, states)

    assert sorted(any_storage.ranks.leaderboard_entries(LADDER)) == sorted(board_of(states))
    assert list(any_storage.ranks.leaderboard_entries("sedma")) == []


def test_standings_are_stored_and_only_a_later_refresh_replaces_them(any_storage: Storage) -> None:
    first = Standings(LADDER, RatingHistogram(((1600, 1), (1500, 3), (-20, 2))), NOW)
    later = Standings(LADDER, RatingHistogram(((1500, 1),)), NOW + timedelta(milliseconds=1))

    assert any_storage.ranks.read_standings(LADDER) is None
    assert any_storage.unit_of_work().put_standings(first) is True
    assert any_storage.ranks.read_standings(LADDER) == first
    assert any_storage.unit_of_work().put_standings(first) is False  # the same refresh again
    assert any_storage.unit_of_work().put_standings(later) is True
    assert any_storage.unit_of_work().put_standings(first) is False  # an older one, finishing late
    assert any_storage.ranks.read_standings(LADDER) == later
    assert any_storage.ranks.read_standings("sedma") is None


# Through the service: the same answers on both ---------------------------------------------


@pytest.mark.parametrize("limit", [0, 5, 1000])
def test_contract_standing_and_around_answer_alike(
    dynamo_storage: DynamoStorage, clock: FixedClock, limit: int
) -> None:
    states = tied_board(10, players=48)
    memory = InMemoryStorage()
    services = []
    for storage in (memory, dynamo_storage):
        seed_states(storage, states)
        settings = Settings(exact_rank_limit=limit)
        service = RatingService(storage, DEFAULT_LADDERS, settings=settings, clock=clock)
        service.refresh_standings(LADDER)
        services.append(service)
    in_memory, in_dynamo = services

    for player_id, _rating, _games in states:
        assert in_dynamo.get_player(LADDER, player_id) == in_memory.get_player(LADDER, player_id)
    for player_id, _rating in board_of(states)[::3]:
        for size in (1, 4, 7):
            assert in_dynamo.get_leaderboard(LADDER, size, around=player_id) == (
                in_memory.get_leaderboard(LADDER, size, around=player_id)
            )


# Under load ----------------------------------------------------------------------------------


@pytest.fixture(params=ENGINES)
def served_storage(request: pytest.FixtureRequest, table_name: str) -> Iterator[DynamoStorage]:
    """The adapter on an engine behind a server, which threads may share (moto in-process is
    not thread-safe): the local stack's emulated AWS (moto's server, requests serialized), or
    DynamoDB Local."""
    if request.param == "dynamodb_local":
        with running_engine("dynamodb_local", request) as local, ratings_table(local, table_name):
            yield local.storage(table_name)
        return
    with pytest.MonkeyPatch.context() as patch:
        for name, value in FAKE_AWS_ENV.items():
            patch.setenv(name, value)
        for name in UNSET_AWS_ENV:
            patch.delenv(name, raising=False)
        aws = EmulatedAws()
        served = Engine("moto", aws.start())
        try:
            served.create_table(table_name)
            yield served.storage(table_name)
        finally:
            aws.stop()


def test_games_rated_during_a_refresh_are_counted_once_by_the_next(
    served_storage: DynamoStorage, clock: FixedClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Games are rated from threads while a refresh reads the index page by page; the refresh
    never counts a player twice, and the next one counts every player exactly once."""
    dynamo_storage = served_storage
    monkeypatch.setattr(dynamo_storage.ranks, "entries_page_limit", 3)  # many pages: interleaving
    service = rating_service(dynamo_storage, clock)
    players = [f"q-{index:02d}" for index in range(40)]
    for index in range(0, len(players), 2):
        service.submit_game(LADDER, game(f"warm-{index}", players[index], players[index + 1]))
    stop = threading.Event()
    failures: list[BaseException] = []
    rated = itertools.count()

    def rate(seed: int) -> None:
        rng = random.Random(seed)
        try:
            while not stop.is_set():
                number = next(rated)
                pair = (
                    rng.sample(players, 2) if number % 3 else [rng.choice(players), f"new-{number}"]
                )
                service.submit_game(LADDER, game(f"load-{seed}-{number}", *pair))
        except BaseException as error:  # reported below: a thread's failure fails the test
            failures.append(error)

    writers = [threading.Thread(target=rate, args=(seed,)) for seed in (1, 2)]
    for writer in writers:
        writer.start()
    during = []
    try:
        for _ in range(3):
            clock.advance(timedelta(seconds=1))
            during.append(service.refresh_standings(LADDER))
    finally:
        stop.set()
        for writer in writers:
            writer.join(timeout=60)
    assert not failures, failures
    games_during = next(rated)

    listed = whole_board(service)
    clock.advance(timedelta(seconds=1))
    after = service.refresh_standings(LADDER)

    print(
        f"[standing] games rated during 3 refreshes: {games_during}; refreshes read "
        f"{[summary['entries_read'] for summary in during]} entries, counted "
        f"{[summary['players'] for summary in during]} players; board after: {len(listed)}"
    )
    assert games_during > 3, "the writers must have rated games while the refreshes ran"
    assert all(summary["stored"] for summary in during)
    for summary in during:
        assert summary["players"] <= len(listed)
    assert after["players"] == len(listed) == after["entries_read"]
    stored = dynamo_storage.ranks.read_standings(LADDER)
    assert stored is not None
    assert stored.histogram == RatingHistogram.of(entry["rating"] for entry in listed)


def whole_board(service: RatingService) -> list[dict[str, Any]]:
    entries: list[dict[str, Any]] = []
    cursor = None
    while True:
        page = service.get_leaderboard(LADDER, 100, cursor)
        entries.extend(page["entries"])
        cursor = page["next_cursor"]
        if cursor is None:
            return entries
