"""The items of background jobs (`ratings.service.stored.Job`): where each kind keeps its
record, the record's model, and the mapping between the two. Part of the table layout
(`layout`, docs/table-layout.md)."""

import json

from pynamodb.attributes import NumberAttribute, UnicodeAttribute

from ratings.declare.answers import format_utc_millis, parse_utc_millis
from ratings.service.stored import Job, Progress
from ratings.storage.dynamodb.layout import RatingsItem, compact_json

#: Where each kind of background job keeps its record: (pk prefix, sk). The job id follows
#: the prefix (an erasure's: a hash of the player id; a sanction's: ladder#sanction_id).
JOB_KEYS = {"erasure": ("X#", "ERASURE"), "sanction": ("N#", "SANCTION")}


def job_key(kind: str, job_id: str) -> tuple[str, str]:
    """The (pk, sk) of a job's record; a kind without keys of its own gets `J#{kind}#`."""
    prefix, sort_key = JOB_KEYS.get(kind, (f"J#{kind}#", "JOB"))
    return f"{prefix}{job_id}", sort_key


class JobItem(RatingsItem, discriminator="job"):
    """A background job's record (`ratings.service.stored.Job`); no TTL: a finished job
    answers its status for good."""

    job_kind = UnicodeAttribute()
    job_id = UnicodeAttribute()
    status = UnicodeAttribute()
    requested_at = UnicodeAttribute()
    completed_at = UnicodeAttribute(null=True)
    phase = UnicodeAttribute()
    #: JSON: the kind's position within the phase, or null.
    position = UnicodeAttribute()
    #: JSON: the kind's own fields.
    details = UnicodeAttribute()
    progress_version = NumberAttribute()


def job_item(job: Job) -> JobItem:
    pk, sk = job_key(job.kind, job.job_id)
    return JobItem(
        pk,
        sk,
        job_kind=job.kind,
        job_id=job.job_id,
        status=job.status,
        requested_at=format_utc_millis(job.requested_at),
        completed_at=format_utc_millis(job.completed_at) if job.completed_at else None,
        phase=job.progress.phase,
        position=compact_json(job.progress.position),
        details=compact_json(job.details),
        progress_version=job.progress_version,
    )


def job_of(item: JobItem) -> Job:
    return Job(
        kind=item.job_kind,
        job_id=item.job_id,
        status=item.status,
        requested_at=parse_utc_millis(item.requested_at),
        progress=Progress(item.phase, json.loads(item.position)),
        details=json.loads(item.details),
        progress_version=int(item.progress_version),
        completed_at=parse_utc_millis(item.completed_at) if item.completed_at else None,
    )
