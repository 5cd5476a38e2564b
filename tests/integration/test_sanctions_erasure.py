"""Sanctions and erasures together, on each storage: an erased victim's refunds and an erased
cheater's sanction keep nothing of their ids; an erasure of a cheater whose refunds are still
being paid waits for them; a victim being erased is not paid; a player being erased cannot
be sanctioned meanwhile."""

import pytest
from support.erasure import erasing_service, mentions, work_jobs
from support.games import HOUR, NOW, FixedClock, game
from support.jobs import Countdown, RecordingJobQueue
from support.sanctions import sanction

from ratings.service.errors import PlayerErasing, RetryLater
from ratings.service.facade import RatingService
from ratings.service.ports import Storage

LADDER = "backgammon"
CHEATER = "cheat-z9"
VICTIM = "prey-w4"


@pytest.fixture
def service(any_storage: Storage, job_queue: RecordingJobQueue) -> RatingService:
    return erasing_service(any_storage, FixedClock(), job_queue)


def cheat(service: RatingService) -> None:
    service.submit_game(LADDER, game("g-1", CHEATER, VICTIM, played_at=NOW - 2 * HOUR))
    service.submit_game(LADDER, game("g-2", CHEATER, "bystander", played_at=NOW - HOUR))


def cheat_and_be_sanctioned(service: RatingService, job_queue: RecordingJobQueue) -> None:
    """The cheater's games, then their sanction, its refunds paid."""
    cheat(service)
    service.sanction_player(LADDER, sanction(player_id=CHEATER))
    work_jobs(service, job_queue)


def test_an_erased_victims_refund_keeps_its_points_under_a_pseudonym(
    any_storage: Storage, service: RatingService, job_queue: RecordingJobQueue
) -> None:
    cheat_and_be_sanctioned(service, job_queue)

    service.request_erasure(VICTIM)
    work_jobs(service, job_queue)

    assert service.get_erasure(VICTIM)["status"] == "done"
    assert mentions(any_storage, VICTIM) == []
    refunds = service.get_sanction(LADDER, "s-1")["refunds"]
    assert [(r["game_id"], r["delta"]) for r in refunds] == [("g-1", 16), ("g-2", 16)]
    (erased,) = [r["player_id"] for r in refunds if r["game_id"] == "g-1"]
    assert erased.startswith("erased-")
    assert service.get_game(LADDER, "g-1")["players"][1]["id"] == erased


def test_an_erased_cheaters_sanction_keeps_its_refunds_under_a_pseudonym(
    any_storage: Storage, service: RatingService, job_queue: RecordingJobQueue
) -> None:
    cheat_and_be_sanctioned(service, job_queue)
    before = service.get_sanction(LADDER, "s-1")

    service.request_erasure(CHEATER)
    work_jobs(service, job_queue)

    assert service.get_erasure(CHEATER)["status"] == "done"
    assert mentions(any_storage, CHEATER) == []
    after = service.get_sanction(LADDER, "s-1")
    assert after["player_id"].startswith("erased-")
    assert after["refunds"] == before["refunds"]
    assert service.get_player(LADDER, VICTIM)["rating"] == 1500  # the refund stays


def test_an_erasure_of_a_cheater_whose_refunds_are_pending_waits_for_them(
    any_storage: Storage, service: RatingService, job_queue: RecordingJobQueue
) -> None:
    cheat(service)
    service.sanction_player(LADDER, sanction(player_id=CHEATER))
    refunds = job_queue.take()  # the refunds' message is held back for now
    service.request_erasure(CHEATER)

    with pytest.raises(RetryLater):
        work_jobs(service, job_queue)
    assert service.get_erasure(CHEATER)["status"] == "pending"
    for message in refunds:
        job_queue.send(message)
    work_jobs(service, job_queue)  # the refunds
    service.request_erasure(CHEATER)  # as SQS would deliver the erasure's message again
    work_jobs(service, job_queue)

    assert service.get_erasure(CHEATER)["status"] == "done"
    assert len(service.get_sanction(LADDER, "s-1")["refunds"]) == 2
    assert mentions(any_storage, CHEATER) == []


def test_a_victim_being_erased_is_not_paid_and_a_player_being_erased_is_not_sanctioned(
    service: RatingService, job_queue: RecordingJobQueue
) -> None:
    cheat(service)
    service.request_erasure(VICTIM)
    erasure = job_queue.take()
    # One step in time (16 s left, 15 kept in reserve): the erasure marks the victim; its
    # continuation is held back.
    body = {"job": erasure[0].kind, "job_id": erasure[0].job_id}
    assert service.run_job(body, Countdown(16, per_call=2)).continued
    assert [m.kind for m in job_queue.take()] == ["erasure"]
    service.sanction_player(LADDER, sanction(player_id=CHEATER))
    work_jobs(service, job_queue)
    with pytest.raises(PlayerErasing):
        service.sanction_player(LADDER, sanction("s-2", VICTIM))

    answer = service.get_sanction(LADDER, "s-1")
    assert [r["game_id"] for r in answer["refunds"]] == ["g-2"]
    assert [(w["game_id"], w["reason"]) for w in answer["withheld"]] == [("g-1", "victim_gone")]
