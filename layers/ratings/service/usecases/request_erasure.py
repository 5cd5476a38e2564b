"""Request a player's erasure, and read where it stands (api.md, "Erase a player").

An erasure is a background job (`ratings.service.jobs`; its steps: `erase_player`) whose
record is keyed by a hash of the player id, so its status can be answered after the id itself
is gone from the table. Asking again answers the current status, and queues the job's message
again while it is pending (a lost message must not strand a job). An id with nothing stored
is erased at once: its record is stored done. An id erased before, with something stored
under it again since (a fresh start), is erased again.
"""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING, NamedTuple

from ratings.service.errors import (
    AlreadyLinked,
    AlreadyStored,
    NotFound,
    RetryLater,
    WriteConflict,
)
from ratings.service.moderation_results import ErasureResult
from ratings.service.parameters import require_id
from ratings.service.ports import ErasureStore, JobQueue, JobRecords
from ratings.service.results import JsonObject, json_of
from ratings.service.stored import (
    DONE,
    ERASURE,
    PENDING,
    Job,
    Progress,
    erasure_id,
)
from ratings.service.unit_of_work import Retrier

if TYPE_CHECKING:
    from ratings.service.facade import Context

#: The first phase of an erasure's work (`erase_player`).
FIRST_PHASE = "mark"
#: What every pseudonym starts with; a random token follows (it names nobody).
PSEUDONYM_PREFIX = "erased-"


def new_pseudonym() -> str:
    return PSEUDONYM_PREFIX + secrets.token_hex(12)


class RequestErasure(NamedTuple):
    """Records the erasure's job in `jobs` (asking `erasures` whether the id holds anything)
    and queues it on `queue`."""

    context: Context
    jobs: JobRecords
    erasures: ErasureStore
    queue: JobQueue
    retrier: Retrier

    def run(self, player_id: str) -> JsonObject:
        require_id(player_id, "player_id")
        attempts = self.retrier.attempts("erasure")
        while True:
            with attempts:
                job = self._attempt(player_id)
                break
        if job.pending:
            self._queue(job)
        return json_of(ErasureResult.of(player_id, job))

    def _attempt(self, player_id: str) -> Job:
        job_id = erasure_id(player_id)
        existing = self.jobs.get_job(ERASURE, job_id)
        if existing is not None and existing.pending:
            return existing
        now = self.context.now()
        if not self.erasures.holds_player(player_id, self.context.ladder_ids()):
            if existing is not None:
                return existing  # done, and nothing stored since
            job = Job(ERASURE, job_id, DONE, now, Progress(DONE), {}, 1, completed_at=now)
        else:
            job = Job(
                ERASURE,
                job_id,
                PENDING,
                now,
                Progress(FIRST_PHASE),
                {"player_id": player_id, "pseudonym": new_pseudonym()},
                1 if existing is None else existing.progress_version + 1,
            )
        try:
            self.erasures.request_erasure(job, player_id)
        except AlreadyLinked:
            raise AlreadyLinked(
                f"player_id {player_id!r} is an anonymous id linked to an account: erase the "
                "account, and its linked anonymous id is erased with it"
            ) from None
        except AlreadyStored:
            raise WriteConflict(job_id) from None  # requested meanwhile: read it again
        return job

    def _queue(self, job: Job) -> None:
        try:
            self.queue.send(job.message)
        except Exception as error:
            raise RetryLater(
                "the erasure is recorded but its work could not be queued; send the same "
                "request again"
            ) from error


class ReadErasure(NamedTuple):
    jobs: JobRecords

    def run(self, player_id: str) -> JsonObject:
        require_id(player_id, "player_id")
        job = self.jobs.get_job(ERASURE, erasure_id(player_id))
        if job is None:
            raise NotFound(f"no erasure of player_id {player_id!r} was requested")
        return json_of(ErasureResult.of(player_id, job))
