"""Two DynamoStorages on two tables in one process, on each engine. Each storage has its own
connection (its own botocore client, with its own timeouts and retries) and the models are
bound to no table, so making one storage re-points no other: used in turn, each reads and
writes its own table only, and the first still works once the second is made."""

from collections.abc import Iterator
from typing import Any

import pytest
from support.dynamodb import RequestCounter
from support.engines import REGION, Engine, ratings_table, unique_table_name
from support.games import HOUR, NOW, FixedClock, game
from support.services import rating_service

from ratings.storage.dynamodb import Client, DynamoStorage, game_key, player_key

LADDER = "backgammon"


@pytest.fixture
def two_tables(engine: Engine) -> Iterator[tuple[str, str]]:
    with (
        ratings_table(engine, unique_table_name("ratings-first")) as first,
        ratings_table(engine, unique_table_name("ratings-second")) as second,
    ):
        yield first, second


def partitions(engine: Engine, table: str) -> set[str]:
    """The partition keys stored in `table`, read by a client of the test's own."""
    pages = engine.client().get_paginator("scan").paginate(TableName=table, ConsistentRead=True)
    return {item["pk"]["S"] for page in pages for item in page["Items"]}


def players_of(result: dict[str, Any]) -> list[str]:
    return [player["id"] for player in result["players"]]


def board_of(answer: dict[str, Any]) -> list[str]:
    return [entry["player_id"] for entry in answer["entries"]]


def test_two_storages_on_two_tables_each_keep_to_their_own_table(
    engine: Engine, two_tables: tuple[str, str]
) -> None:
    first_table, second_table = two_tables
    clock = FixedClock(NOW)
    first = DynamoStorage(first_table, region=REGION, endpoint_url=engine.endpoint_url)
    on_first = rating_service(first, clock)
    on_first.submit_game(LADDER, game("g-1", "alice", "bob", played_at=NOW - HOUR))

    # Made once the first has worked, on another table, with client settings of its own.
    second = DynamoStorage(
        second_table,
        region=REGION,
        endpoint_url=engine.endpoint_url,
        client=Client(connect_timeout_seconds=2.0, read_timeout_seconds=3.0, max_retry_attempts=1),
    )
    on_second = rating_service(second, clock)
    first_requests = RequestCounter.attach(first.connection.client)
    second_requests = RequestCounter.attach(second.connection.client)

    # In turn; the same game ids on both tables, between other players.
    on_second.submit_game(LADDER, game("g-1", "carol", "dave", played_at=NOW - HOUR))
    on_first.submit_game(LADDER, game("g-2", "alice", "erin", played_at=NOW - HOUR))
    on_second.submit_game(LADDER, game("g-2", "carol", "frank", played_at=NOW - HOUR))
    on_first.refresh_standings(LADDER)

    assert players_of(on_first.get_game(LADDER, "g-1")) == ["alice", "bob"]
    assert players_of(on_second.get_game(LADDER, "g-1")) == ["carol", "dave"]
    assert players_of(on_first.get_game(LADDER, "g-2")) == ["alice", "erin"]
    assert players_of(on_second.get_game(LADDER, "g-2")) == ["carol", "frank"]
    assert board_of(on_first.get_leaderboard(LADDER))[0] == "alice"
    assert sorted(board_of(on_first.get_leaderboard(LADDER))) == ["alice", "bob", "erin"]
    assert board_of(on_second.get_leaderboard(LADDER))[0] == "carol"
    assert sorted(board_of(on_second.get_leaderboard(LADDER))) == ["carol", "dave", "frank"]
    assert len(on_first.get_history(LADDER, "alice")["events"]) == 2
    assert on_first.get_history(LADDER, "carol")["events"] == []
    assert len(on_second.get_history(LADDER, "carol")["events"]) == 2
    assert first.ranks.read_standings(LADDER) is not None
    assert second.ranks.read_standings(LADDER) is None
    assert {stored.game_id for stored in second.results.stored_games(LADDER)} == {"g-1", "g-2"}

    # What each table holds, as DynamoDB has it: its own games and players, none of the other's.
    games = {game_key(LADDER, "g-1"), game_key(LADDER, "g-2")}
    first_players = {player_key(LADDER, player) for player in ("alice", "bob", "erin")}
    second_players = {player_key(LADDER, player) for player in ("carol", "dave", "frank")}
    assert partitions(engine, first_table) == games | first_players | {f"S#{LADDER}"}
    assert partitions(engine, second_table) == games | second_players

    # Every request went through the client of the storage that made it: the first's games
    # were written by its own client alone, and so were the second's.
    assert first_requests.counts()["TransactWriteItems"] == 1
    assert second_requests.counts()["TransactWriteItems"] == 2
    assert first_requests.counts()["PutItem"] == 1  # the standings
    assert "PutItem" not in second_requests.counts()

    # Each client has its own table's settings: pynamodb's defaults, and the second's own.
    first_config: Any = first.connection.client.meta.config
    second_config: Any = second.connection.client.meta.config
    assert (first_config.connect_timeout, first_config.read_timeout) == (15, 30)
    assert first_config.retries["total_max_attempts"] == 4
    assert (second_config.connect_timeout, second_config.read_timeout) == (2.0, 3.0)
    assert second_config.retries["total_max_attempts"] == 2


def test_a_storage_made_again_on_another_table_leaves_the_first_bound_to_its_own(
    engine: Engine, two_tables: tuple[str, str]
) -> None:
    """The pattern the global binding broke: the first storage, made and not yet used, then
    a second; the first's requests still go to its table, through its client."""
    first_table, second_table = two_tables
    first = DynamoStorage(first_table, region=REGION, endpoint_url=engine.endpoint_url)
    DynamoStorage(second_table, region=REGION, endpoint_url=engine.endpoint_url)

    rating_service(first, FixedClock(NOW)).submit_game(
        LADDER, game("g-1", "alice", "bob", played_at=NOW - HOUR)
    )

    assert game_key(LADDER, "g-1") in partitions(engine, first_table)
    assert partitions(engine, second_table) == set()
