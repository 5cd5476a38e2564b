"""The in-memory fake of the erasure port, over the tables of `ratings.storage.memory`.

Like the DynamoDB adapter it checks every condition of a write before changing anything.
"""

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ratings.service.errors import AlreadyLinked, AlreadyStored, WriteConflict
from ratings.service.ports import ErasureWrites
from ratings.service.stored import Job

if TYPE_CHECKING:
    from ratings.storage.memory import InMemoryStorage


class InMemoryErasures(ErasureWrites):
    def __init__(self, tables: "InMemoryStorage") -> None:
        self._tables = tables

    def holds_player(self, player_id: str, ladders: Sequence[str]) -> bool:
        tables = self._tables
        with tables.lock:
            if player_id in tables.links or player_id in tables.absorbed:
                return True
            return any(
                (ladder, player_id) in tables.states
                or tables.events.get((ladder, player_id))
                or tables.awards.get((ladder, player_id))
                for ladder in ladders
            )

    def request_erasure(self, job: Job, player_id: str) -> None:
        tables = self._tables
        with tables.lock:
            if player_id in tables.links:
                raise AlreadyLinked(player_id)
            stored = tables.job_records.get((job.kind, job.job_id))
            if job.progress_version == 1:
                if stored is not None:
                    raise AlreadyStored(job.job_id)
            elif stored is None or stored.progress_version != job.progress_version - 1:
                raise WriteConflict(job.job_id)
            tables.job_records[(job.kind, job.job_id)] = job
