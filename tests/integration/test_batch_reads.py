"""A BatchGetItem that DynamoDB answers only in part (UnprocessedKeys, under throttling): the
keys left are sent again after waits that grow, jittered, and never past the invocation's
deadline; keys still unprocessed then fail the read as throttling does. On each engine, with
the unprocessed answers injected at the client (no engine here throttles)."""

import random
from typing import Any

import pytest
from support.dynamodb import RequestCounter
from support.engines import REGION, Engine
from support.faults import DynamoFaults
from support.games import game
from support.seeding import seed_states

from ratings.errors import is_transient
from ratings.service.errors import RetryLater, TransientStorageError
from ratings.service.facade import RatingService
from ratings.storage.dynamodb import Client, DynamoStorage, Resends
from ratings.storage.dynamodb.table import UnprocessedKeysOutOfTime

LADDER = "backgammon"
PLAYERS = [f"p{number}" for number in range(6)]


class FakeTime:
    """A deadline `budget` seconds away, which only the waits move towards."""

    def __init__(self, budget: float) -> None:
        self.left = budget
        self.waits: list[float] = []
        #: The time left when each request was sent.
        self.at_requests: list[float] = []

    def sleep(self, seconds: float) -> None:
        self.waits.append(seconds)
        self.left -= seconds

    def time_left(self) -> float:
        return self.left

    def watch(self, storage: DynamoStorage) -> None:
        storage.connection.client.meta.events.register(
            "before-call.dynamodb.BatchGetItem",
            lambda **_: self.at_requests.append(self.left),
        )


def paced(storage: DynamoStorage, clock: FakeTime, seed: int = 7) -> None:
    storage.table.resends = Resends(
        time_left=clock.time_left, sleep=clock.sleep, rng=random.Random(seed)
    )


def ceilings(resends: Resends, count: int) -> list[float]:
    return [min(resends.cap_seconds, resends.first_seconds * 2**n) for n in range(count)]


def test_unprocessed_keys_are_read_after_growing_jittered_waits(
    dynamo_storage: DynamoStorage,
) -> None:
    seed_states(dynamo_storage, [(pid, 1500 + n, n) for n, pid in enumerate(PLAYERS)])
    expected = dict(dynamo_storage.unit_of_work().read_states(LADDER, PLAYERS))
    clock = FakeTime(budget=60.0)
    paced(dynamo_storage, clock)
    counter = RequestCounter.attach(dynamo_storage.connection.client)
    faults = DynamoFaults(dynamo_storage.connection.client)
    # 6 keys: 3 read, then 2 of the 3 left, then 1 of 1, then none held back: 4 requests.
    faults.unprocessed(times=3)

    read = dict(dynamo_storage.unit_of_work().read_states(LADDER, PLAYERS))

    assert read == expected
    assert len(read) == len(PLAYERS)
    assert counter.operations == ["BatchGetItem"] * 4
    resends = dynamo_storage.table.resends
    assert len(clock.waits) == 3
    for wait, ceiling in zip(clock.waits, ceilings(resends, 3), strict=True):
        assert ceiling / 2 <= wait <= ceiling
    assert clock.waits == sorted(clock.waits)  # each at least as long as the one before
    assert len(set(clock.waits)) == 3  # jittered, not the bare ceilings
    assert not set(clock.waits) & set(ceilings(resends, 3))


def test_a_read_of_more_than_a_hundred_keys_resends_only_what_is_left(
    dynamo_storage: DynamoStorage,
) -> None:
    many = [f"m{number}" for number in range(130)]
    seed_states(dynamo_storage, [(pid, 1500, 0) for pid in many])
    clock = FakeTime(budget=60.0)
    paced(dynamo_storage, clock)
    counter = RequestCounter.attach(dynamo_storage.connection.client)
    DynamoFaults(dynamo_storage.connection.client).unprocessed(times=1)

    read = dynamo_storage.unit_of_work().read_states(
        LADDER, [*many, *many[:10]]
    )  # repeats read once

    assert sorted(read) == sorted(many)
    # 100 keys (50 read, 50 back), the 50 again, then the other 30.
    assert counter.operations == ["BatchGetItem"] * 3
    assert len(clock.waits) == 1


def test_keys_never_processed_fail_as_out_of_time_before_the_deadline(engine: Engine) -> None:
    # The Api's client: 0.5 s to connect and 1.5 s to read, so 2 s an attempt.
    storage = DynamoStorage(
        "unused", region=REGION, endpoint_url=engine.endpoint_url, client=Client(0.5, 1.5, 1)
    )
    assert storage.table.attempt_seconds == 2.0
    budget = 3.0
    clock = FakeTime(budget)
    paced(storage, clock)
    clock.watch(storage)
    DynamoFaults(storage.connection.client).unprocessed()

    with pytest.raises(UnprocessedKeysOutOfTime, match="time is short") as raised:
        dict(storage.unit_of_work().read_states(LADDER, ["alice"]))

    assert is_transient(raised.value)  # answered 503, or back to the queue
    # Waits of about 0.05, 0.1, 0.2, 0.4 s; the next would leave less than an attempt's time.
    assert len(clock.at_requests) == len(clock.waits) + 1 >= 3
    assert all(left >= storage.table.attempt_seconds for left in clock.at_requests)
    assert clock.left >= storage.table.attempt_seconds
    assert sum(clock.waits) <= budget - storage.table.attempt_seconds
    assert clock.waits == sorted(clock.waits)


def test_without_a_deadline_the_resends_are_counted(engine: Engine) -> None:
    storage = DynamoStorage("unused", region=REGION, endpoint_url=engine.endpoint_url)
    clock = FakeTime(budget=float("inf"))
    paced(storage, clock)
    clock.watch(storage)
    DynamoFaults(storage.connection.client).unprocessed()

    with pytest.raises(TransientStorageError, match="after 11 requests"):
        dict(storage.unit_of_work().read_states(LADDER, ["alice"]))

    most = storage.table.resends.most
    assert len(clock.at_requests) == most + 1
    assert len(clock.waits) == most
    assert clock.waits[-1] <= storage.table.resends.cap_seconds


def test_a_game_whose_reads_stay_unprocessed_is_retry_later(
    dynamo_storage: DynamoStorage, service: RatingService
) -> None:
    clock = FakeTime(budget=float("inf"))
    paced(dynamo_storage, clock)
    injected = DynamoFaults(dynamo_storage.connection.client)
    injected.unprocessed()

    with pytest.raises(RetryLater):
        service.submit_game(LADDER, game("g-throttled", "alice", "bob"))

    assert service.retries >= 1
    assert len(injected.injected) > dynamo_storage.table.resends.most


def test_a_game_read_after_unprocessed_keys_is_rated_as_ever(
    dynamo_storage: DynamoStorage, service: RatingService
) -> None:
    clock = FakeTime(budget=60.0)
    paced(dynamo_storage, clock)
    DynamoFaults(dynamo_storage.connection.client).unprocessed(times=4)

    submitted = service.submit_game(LADDER, game("g-late-keys", "alice", "bob"))

    assert submitted.created
    assert service.retries == 0
    assert len(clock.waits) == 4
    stored: Any = service.get_game(LADDER, "g-late-keys")
    assert stored == submitted.result
    assert service.get_player(LADDER, "alice")["ranked_games"] == 1
