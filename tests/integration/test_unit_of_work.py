"""The unit of work's promise, held by the in-memory fake and by DynamoDB on each engine alike:
attempts redo a contended one and give up with RetryLater, a record met again comes back from
the commit, and inside an attempt a state is written only over the version that attempt read."""

import random
from datetime import timedelta

import pytest
from support.games import NOW

from ratings.service.errors import RetryLater, WriteConflict
from ratings.service.player import Player
from ratings.service.ports import Storage
from ratings.service.stored import StoredGame
from ratings.service.unit_of_work import Retrier, RetryPolicy

LADDER = "backgammon"


def record(game_id: str, fingerprint: str = "first") -> StoredGame:
    return StoredGame(LADDER, game_id, fingerprint, {"game_id": game_id}, NOW + timedelta(30))


def quiet_retrier(attempts: int = 64) -> Retrier:
    return Retrier(RetryPolicy(attempts=attempts), sleep=lambda _: None, rng=random.Random(1))


def test_a_record_met_again_comes_back_from_the_commit_and_nothing_is_stored(
    any_storage: Storage,
) -> None:
    uow = any_storage.unit_of_work()
    alice = Player(LADDER, "alice", 1500, version=1)
    assert uow.commit_game(record("g-1"), [alice], []) is None
    bob = Player(LADDER, "bob", 1500, version=1)
    again = uow.commit_game(record("g-1", "second"), [bob], [])
    assert again is not None
    assert (again.game_id, again.fingerprint) == ("g-1", "first")
    assert uow.read_states(LADDER, ["bob"]) == {}  # the whole commit was refused


def test_an_attempt_writes_a_state_only_over_the_version_it_read(any_storage: Storage) -> None:
    uow = any_storage.unit_of_work(quiet_retrier())
    uow.commit_game(record("g-seed"), [Player(LADDER, "alice", 1500, version=1)], [])
    stale = Player(LADDER, "alice", 1500, version=1)  # as an earlier attempt read her

    def commit_unread() -> None:
        attempts = uow.attempts("game")
        while True:
            with attempts:
                uow.read_states(LADDER, ["bob"])  # alice is not read in this attempt
                uow.commit_game(record("g-2"), [stale.rated(1510)], [])
                return

    with pytest.raises(ValueError, match="'alice' in 'backgammon' goes over version 1"):
        commit_unread()
    # Nothing was sent: the guard is the use case's bug, not a conflict to retry.
    assert uow.read_states(LADDER, ["alice"])["alice"].version == 1


def test_a_conflict_is_read_again_in_the_next_attempt(any_storage: Storage) -> None:
    retrier = quiet_retrier()
    uow = any_storage.unit_of_work(retrier)
    uow.commit_game(record("g-seed"), [Player(LADDER, "alice", 1500, version=1)], [])
    other = any_storage.unit_of_work()
    reads = []
    attempts = uow.attempts("game")
    while True:
        with attempts:
            alice = uow.read_states(LADDER, ["alice"])["alice"]
            reads.append(alice.version)
            if len(reads) == 1:  # another writer gets there between this read and the commit
                other.commit_game(record("g-other"), [alice.rated(1490)], [])
            uow.commit_game(record("g-3"), [alice.rated(1520)], [])
            break
    assert reads == [1, 2]
    assert retrier.retries == 1
    stored = uow.read_states(LADDER, ["alice"])["alice"]
    assert (stored.version, stored.rating, stored.ranked_games) == (3, 1520, 2)


def test_attempts_end_in_retry_later_once_the_policy_is_spent(any_storage: Storage) -> None:
    uow = any_storage.unit_of_work(quiet_retrier(attempts=3))
    made = []

    def always_contended() -> None:
        attempts = uow.attempts("podium")
        while True:
            with attempts:
                made.append(1)
                raise WriteConflict("always")

    with pytest.raises(RetryLater, match="the podium could not be stored after 3 attempts"):
        always_contended()
    assert len(made) == 3
