"""A game sent again after its record's retention: the answer must not depend on whether
DynamoDB's TTL has deleted the record yet. AWS documents that TTL deletes expired items
typically within two days, and that until then they are still read, queried and written
like any other; neither engine here ever deletes them, so both show the "not yet" side, and
a test deletes the record itself for the other.

The rule (api.md, "Retention"): a record past its `expires_at` is treated as absent. GET
answers 404, and the game sent again is rated anew, the commit's condition accepting the
expired record it replaces.
"""

import random
from datetime import timedelta

import pytest
from support.dynamodb import raw_items
from support.engines import Engine, ratings_table, unique_table_name
from support.games import DAY, HOUR, MINUTE, NOW, FixedClock, game

from ratings.rules import DEFAULT_LADDERS
from ratings.service.errors import NotFound
from ratings.service.facade import RatingService, Settings
from ratings.service.unit_of_work import Retrier
from ratings.storage.dynamodb import DynamoStorage, game_key

LADDER = "backgammon"
#: Shorter than the 14 days a game may be late, so a game can outlive its record (the
#: template's RetentionDays is at least 15; the service's settings allow any).
RETENTION = timedelta(days=2)


def retaining(storage: DynamoStorage, clock: FixedClock) -> RatingService:
    return RatingService(
        storage,
        DEFAULT_LADDERS,
        settings=Settings(history_retention=RETENTION, game_retention=RETENTION),
        clock=clock,
        retrier=Retrier(sleep=lambda seconds: None, rng=random.Random(17)),
    )


def delete_game_record(storage: DynamoStorage, game_id: str) -> None:
    """What TTL's sweep does, some time after expires_at."""
    key = game_key(LADDER, game_id)
    storage.connection.delete_item(storage.table.table_name, key, range_key="GAME")


def sent_again_after_retention(storage: DynamoStorage, *, swept: bool) -> tuple[object, ...]:
    clock = FixedClock(NOW)
    service = retaining(storage, clock)
    body = game("g-kept", "alice", "bob", played_at=NOW - HOUR)
    first = service.submit_game(LADDER, body)
    clock.advance(RETENTION + MINUTE)
    stored = raw_items(storage, game_key(LADDER, "g-kept"))
    assert len(stored) == 1  # expired, and still there: no engine here sweeps
    assert int(stored[0]["expires_at"]["N"]) <= clock.now.timestamp()
    if swept:
        delete_game_record(storage, "g-kept")
    with pytest.raises(NotFound):
        service.get_game(LADDER, "g-kept")

    again = service.submit_game(LADDER, body)

    befores = [player["rating_before"] for player in again.result["players"]]
    assert service.get_game(LADDER, "g-kept") == again.result  # the new record is read
    duplicate = service.submit_game(LADDER, body)  # and recognised from now on
    assert (duplicate.created, duplicate.result) == (False, again.result)
    return first.created, again.created, befores


def test_a_game_sent_after_its_record_expired_is_rated_anew_whether_or_not_ttl_deleted_it(
    dynamo_storage: DynamoStorage, engine: Engine
) -> None:
    kept = sent_again_after_retention(dynamo_storage, swept=False)
    with ratings_table(engine, unique_table_name("ratings-swept")) as other:
        swept = sent_again_after_retention(engine.storage(other), swept=True)

    # Rated anew both times, from the states the first rating left: the same answer.
    assert kept == swept == (True, True, [1516, 1484])


def test_a_game_sent_again_within_its_retention_is_answered_from_its_record(
    dynamo_storage: DynamoStorage,
) -> None:
    clock = FixedClock(NOW)
    service = retaining(dynamo_storage, clock)
    body = game("g-live", "alice", "bob", played_at=NOW - HOUR)
    first = service.submit_game(LADDER, body)
    clock.advance(RETENTION - MINUTE)

    again = service.submit_game(LADDER, body)

    assert (again.created, again.result) == (False, first.result)


def test_another_game_under_an_expired_id_is_a_new_game_not_a_conflict(
    dynamo_storage: DynamoStorage,
) -> None:
    clock = FixedClock(NOW)
    service = retaining(dynamo_storage, clock)
    service.submit_game(LADDER, game("g-reused", "alice", "bob", played_at=NOW - HOUR))
    clock.advance(RETENTION + DAY)

    other = service.submit_game(
        LADDER, game("g-reused", "carol", "dave", played_at=clock.now - HOUR)
    )

    assert other.created
    assert [player["id"] for player in other.result["players"]] == ["carol", "dave"]
