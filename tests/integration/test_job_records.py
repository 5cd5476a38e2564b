"""Job records and the erasure request's write on each storage (the in-memory fake and the
DynamoDB adapter): created once, saved over their version, guarded against linking."""

import pytest
from support.games import NOW
from support.jobs import counting_job

from ratings.service.errors import AlreadyLinked, AlreadyStored, WriteConflict
from ratings.service.player import Player
from ratings.service.ports import Storage
from ratings.service.stored import DONE, Link, Progress


def test_a_job_record_reads_back_as_saved(any_storage: Storage) -> None:
    job = counting_job("j-1", 3, NOW)
    any_storage.jobs.create_job(job)
    assert any_storage.jobs.get_job("counting", "j-1") == job

    moved = job.advanced(Progress("counting", {"next": 2, "ids": ["a", "b"]}), {"target": 3})
    any_storage.jobs.save_job(moved)
    assert any_storage.jobs.get_job("counting", "j-1") == moved

    finished = moved.finished(NOW)
    any_storage.jobs.save_job(finished)
    stored = any_storage.jobs.get_job("counting", "j-1")
    assert stored == finished
    assert stored is not None
    assert (stored.status, stored.details, stored.completed_at) == (DONE, {}, NOW)


def test_a_job_record_is_created_once_and_saved_over_its_version(any_storage: Storage) -> None:
    job = counting_job("j-2", 3, NOW)
    any_storage.jobs.create_job(job)

    with pytest.raises(AlreadyStored):
        any_storage.jobs.create_job(job)
    any_storage.jobs.save_job(job.advanced(Progress("counting", {"next": 2})))
    with pytest.raises(WriteConflict):  # a second save from the same version
        any_storage.jobs.save_job(job.advanced(Progress("counting", {"next": 9})))
    stored = any_storage.jobs.get_job("counting", "j-2")
    assert stored is not None
    assert stored.progress.position == {"next": 2}
    assert any_storage.jobs.get_job("counting", "j-none") is None


def test_an_erasure_request_is_refused_for_a_linked_anonymous_id(any_storage: Storage) -> None:
    any_storage.unit_of_work().commit_link(Link("anon-1", "acct-1"), [])
    job = counting_job("e-1", 1, NOW)._replace(kind="erasure")

    with pytest.raises(AlreadyLinked):
        any_storage.erasures.request_erasure(job, "anon-1")
    assert any_storage.jobs.get_job("erasure", "e-1") is None
    any_storage.erasures.request_erasure(job, "acct-1")  # the account side may be erased
    assert any_storage.jobs.get_job("erasure", "e-1") == job


def test_whether_an_id_holds_anything(any_storage: Storage) -> None:
    ladders = ["backgammon", "sedma"]
    assert not any_storage.erasures.holds_player("ghost", ladders)

    any_storage.unit_of_work().commit_link(Link("anon-2", "acct-2"), [])
    state = Player("sedma", "sally", 1500, ranked_games=1, version=1)
    any_storage.unit_of_work().commit_link(Link("anon-3", "sally"), [state])

    assert any_storage.erasures.holds_player("anon-2", ladders)
    assert any_storage.erasures.holds_player("acct-2", ladders)
    assert any_storage.erasures.holds_player("sally", ladders)
