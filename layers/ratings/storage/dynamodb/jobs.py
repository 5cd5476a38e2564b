"""Background jobs' records on DynamoDB: one item per job (`job_layout.job_key`), read strongly
consistent, created once and saved over the version it came from (a conditional PutItem)."""

from pynamodb.exceptions import PutError
from pynamodb.expressions.condition import Condition

from ratings.service.errors import AlreadyStored, WriteConflict
from ratings.service.ports import JobRecords
from ratings.service.stored import Job
from ratings.storage.dynamodb.job_layout import JobItem, job_item, job_key, job_of
from ratings.storage.dynamodb.table import BoundTable, transient_as_storage_error


class DynamoJobs(JobRecords):
    def __init__(self, table: BoundTable) -> None:
        self._table = table

    def get_job(self, kind: str, job_id: str) -> Job | None:
        item = self._table.get(*job_key(kind, job_id))
        return job_of(item) if isinstance(item, JobItem) else None

    def create_job(self, job: Job) -> None:
        item = job_item(job._replace(progress_version=1))
        _put(self._table, item, JobItem.pk.does_not_exist(), AlreadyStored(job.job_id))

    def save_job(self, job: Job) -> None:
        item = job_item(job)
        condition = JobItem.progress_version == job.progress_version - 1
        _put(self._table, item, condition, WriteConflict(job.job_id))


def _put(table: BoundTable, item: JobItem, condition: Condition, on_fail: Exception) -> None:
    with transient_as_storage_error():
        try:
            table.put(item, condition=condition)
        except PutError as error:
            if error.cause_response_code == "ConditionalCheckFailedException":
                raise on_fail from error
            raise
