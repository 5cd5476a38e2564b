"""Duplicates and concurrent writers: every game applied exactly once, retries bounded."""

import random
from datetime import timedelta

import pytest
from support.games import NOW, FixedClock, game, ts

from ratings.rules import DEFAULT_LADDERS
from ratings.service.errors import (
    GameConflict,
    NotFound,
    RetryLater,
    TransientStorageError,
    WriteConflict,
)
from ratings.service.facade import RatingService
from ratings.service.game_result import Submitted
from ratings.service.unit_of_work import Retrier, RetryPolicy
from ratings.storage.memory import InMemoryStorage

# Duplicates ----------------------------------------------------------------------------------


def test_identical_resubmission_returns_the_stored_result_and_writes_nothing(
    service: RatingService, storage: InMemoryStorage
) -> None:
    body = game("g-1", "alice", "bob", played_at=NOW - timedelta(hours=1), cube=2)
    first = service.submit_game("backgammon", body)
    assert first.created is True
    assert storage.commits == 1

    again = service.submit_game("backgammon", dict(body))

    assert again.created is False
    assert again.result == first.result
    assert storage.commits == 1
    assert service.get_player("backgammon", "alice")["rating"] == 1519
    assert service.get_player("backgammon", "alice")["ranked_games"] == 1
    assert len(storage.events[("backgammon", "alice")]) == 1


def test_same_instant_in_another_offset_is_the_same_game(
    service: RatingService, storage: InMemoryStorage
) -> None:
    first = service.submit_game("backgammon", game("g-1", played_at=NOW - timedelta(hours=1)))
    body = game("g-1")
    body["played_at"] = "2026-11-29T12:00:00+01:00"  # NOW - 1h written in UTC+1

    again = service.submit_game("backgammon", body)

    assert again.created is False
    assert again.result == first.result
    assert storage.commits == 1


@pytest.mark.parametrize(
    "change",
    [
        {"winner": "bob"},
        {"cube": 4},
        {"mode": "boosted"},
        {"ending": "resign"},
        {"played_at": ts(NOW - timedelta(hours=2))},
        {"players": [{"id": "alice"}, {"id": "carol"}]},
        {"players": [{"id": "alice", "network": "x1"}, {"id": "bob"}]},
    ],
)
def test_same_game_id_with_other_content_is_a_conflict(
    service: RatingService, storage: InMemoryStorage, change: dict[str, object]
) -> None:
    body = game("g-1", played_at=NOW - timedelta(hours=1))
    first = service.submit_game("backgammon", body)

    with pytest.raises(GameConflict) as raised:
        service.submit_game("backgammon", {**body, **change})

    assert raised.value.code == "game_conflict"
    assert "g-1" in raised.value.message
    assert storage.commits == 1
    assert service.get_game("backgammon", "g-1") == first.result
    assert service.get_player("backgammon", "alice")["rating"] == 1516


def test_game_ids_are_per_ladder(service: RatingService, storage: InMemoryStorage) -> None:
    service.submit_game("backgammon", game("g-1"))
    other = service.submit_game("classic", game("g-1"))
    assert other.created is True
    assert other.result["ladder"] == "classic"
    assert storage.commits == 2


def test_omitted_played_at_retried_later_is_still_the_same_game(
    service: RatingService, storage: InMemoryStorage, clock: FixedClock
) -> None:
    first = service.submit_game("backgammon", game("g-1"))
    assert first.result["played_at"] == ts(NOW)

    clock.advance(timedelta(minutes=10))
    again = service.submit_game("backgammon", game("g-1"))

    assert again.created is False
    assert again.result == first.result
    assert again.result["played_at"] == ts(NOW)  # the time of the first receipt
    assert storage.commits == 1


def test_retry_of_a_stored_game_is_answered_even_after_its_played_at_ages_out(
    service: RatingService, storage: InMemoryStorage, clock: FixedClock
) -> None:
    body = game("g-1", played_at=NOW - timedelta(days=13, hours=23))
    first = service.submit_game("backgammon", body)
    clock.advance(timedelta(hours=2))  # the response was lost; the caller retries

    again = service.submit_game("backgammon", body)

    assert again.created is False
    assert again.result == first.result
    assert storage.commits == 1


def test_duplicate_arriving_between_reads_and_commit_is_replayed(
    service: RatingService, storage: InMemoryStorage
) -> None:
    body = game("g-1", played_at=NOW - timedelta(minutes=3))
    inner: list[Submitted] = []
    storage.before_commit = lambda: inner.append(service.submit_game("backgammon", body))

    outer = service.submit_game("backgammon", body)

    assert [s.created for s in inner] == [True]
    assert outer.created is False
    assert outer.result == inner[0].result
    assert storage.commits == 1
    assert service.get_player("backgammon", "alice")["rating"] == 1516
    assert service.get_player("backgammon", "bob")["rating"] == 1484


def test_conflicting_game_arriving_between_reads_and_commit_is_a_conflict(
    service: RatingService, storage: InMemoryStorage
) -> None:
    body = game("g-1", played_at=NOW - timedelta(minutes=3))

    def other_content() -> None:
        service.submit_game("backgammon", {**body, "winner": "bob"})

    storage.before_commit = other_content

    with pytest.raises(GameConflict):
        service.submit_game("backgammon", body)

    assert storage.commits == 1
    assert service.get_game("backgammon", "g-1")["winner"] == "bob"


# Version conflicts ---------------------------------------------------------------------------


def test_version_conflict_is_retried_and_both_games_apply_exactly_once(
    service: RatingService, storage: InMemoryStorage
) -> None:
    start = service.submit_game("backgammon", game("g-0", "hero", "zed")).result
    hero_start = start["players"][0]["rating_after"]
    inner: list[Submitted] = []
    storage.before_commit = lambda: inner.append(
        service.submit_game("backgammon", game("g-race", "carol", "hero"))
    )

    outer = service.submit_game("backgammon", game("g-main", "hero", "bob"))

    assert service.retries >= 1
    assert outer.created is True
    assert [s.created for s in inner] == [True]
    race = inner[0].result
    # The racing game was rated first; the retried one is computed from its result.
    race_hero = race["players"][1]
    main_hero = outer.result["players"][0]
    assert race_hero["rating_before"] == hero_start
    assert main_hero["rating_before"] == race_hero["rating_after"]
    final = service.get_player("backgammon", "hero")
    assert final["rating"] == hero_start + race_hero["delta"] + main_hero["delta"]
    assert final["ranked_games"] == 3
    assert storage.commits == 3
    assert {e.ref_id for e in storage.events[("backgammon", "hero")]} == {
        "g-0",
        "g-race",
        "g-main",
    }
    assert len(storage.events[("backgammon", "hero")]) == 3


def test_transient_storage_error_is_retried_with_a_bounded_sleep(
    storage: InMemoryStorage, clock: FixedClock
) -> None:
    sleeps: list[float] = []
    retried: list[str] = []
    service = RatingService(
        storage,
        DEFAULT_LADDERS,
        clock=clock,
        retrier=Retrier(sleep=sleeps.append, rng=random.Random(7), on_retry=retried.append),
    )

    def throttle() -> None:
        raise TransientStorageError("slow down")

    storage.before_commit = throttle

    done = service.submit_game("backgammon", game("g-1"))

    assert done.created is True
    assert service.retries == 1
    assert retried == ["game"]
    assert len(sleeps) == 1
    assert 0 <= sleeps[0] <= RetryPolicy().base_seconds
    assert storage.commits == 1


def test_retries_are_bounded_and_end_in_retry_later(
    storage: InMemoryStorage, clock: FixedClock
) -> None:
    sleeps: list[float] = []
    policy = RetryPolicy(attempts=5, base_seconds=0.01, cap_seconds=0.05)
    service = RatingService(
        storage,
        DEFAULT_LADDERS,
        clock=clock,
        retrier=Retrier(policy, sleep=sleeps.append, rng=random.Random(3)),
    )
    service.submit_game("backgammon", game("g-0", "hero", "zed"))
    interfering: list[Submitted] = []

    def interfere() -> None:
        # Another game of the hero lands before every single commit of the request.
        number = len(interfering)
        body = game(f"race-{number}", f"rival-{number}", "hero")
        interfering.append(service.submit_game("backgammon", body))
        storage.before_commit = interfere

    storage.before_commit = interfere

    with pytest.raises(RetryLater) as raised:
        service.submit_game("backgammon", game("g-main", "hero", "bob"))
    storage.before_commit = None

    assert raised.value.code == "retry_later"
    assert service.retries == policy.attempts
    assert len(interfering) == policy.attempts
    assert all(s.created for s in interfering)
    # A sleep between attempts, none after the last; each within its jittered bound.
    assert len(sleeps) == policy.attempts - 1
    for number, seconds in enumerate(sleeps):
        assert 0 <= seconds <= min(policy.cap_seconds, policy.base_seconds * 2**number)
    # Nothing of the refused game was stored; a later retry of it succeeds.
    with pytest.raises(NotFound):
        service.get_game("backgammon", "g-main")
    assert service.get_player("backgammon", "bob")["ranked_games"] == 0
    hero = service.get_player("backgammon", "hero")
    assert hero["ranked_games"] == 1 + policy.attempts
    assert storage.commits == 1 + policy.attempts

    later = service.submit_game("backgammon", game("g-main", "hero", "bob"))
    assert later.created is True
    assert later.result["players"][0]["rating_before"] == hero["rating"]


def test_retries_stop_at_the_time_budget_not_at_a_count(
    storage: InMemoryStorage, clock: FixedClock
) -> None:
    """Contention is transient: a writer keeps retrying for as long as its budget allows
    (a share of the function's time), however many attempts that takes."""
    now = [0.0]
    sleeps: list[float] = []

    def sleep(seconds: float) -> None:
        sleeps.append(seconds)
        now[0] += seconds + 0.05  # each attempt itself takes 50 ms

    policy = RetryPolicy(attempts=1000, base_seconds=0.01, cap_seconds=0.4, budget_seconds=4.0)
    service = RatingService(
        storage,
        DEFAULT_LADDERS,
        clock=clock,
        retrier=Retrier(policy, sleep=sleep, timer=lambda: now[0], rng=random.Random(5)),
    )

    def conflict() -> None:
        storage.before_commit = conflict
        raise WriteConflict("hero")

    storage.before_commit = conflict

    with pytest.raises(RetryLater):
        service.submit_game("backgammon", game("g-hot", "hero", "bob"))

    assert service.retries == len(sleeps) + 1 > 8  # more than the old eight attempts
    # Given up because the next sleep (at most the cap) would have ended past the budget.
    assert policy.budget_seconds - policy.cap_seconds < now[0] <= policy.budget_seconds + 0.05
