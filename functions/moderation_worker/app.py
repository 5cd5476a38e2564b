"""ModerationWorker: works the moderation jobs (erasures, sanctions' refunds) that the
Moderation function queues, in bounded, idempotent steps (`ratings.service.jobs`).

Each record names one job. The job runs while the invocation has time; then a continuation
is queued and the record is done. A record that can never succeed (not JSON, no such job
kind, no such job) goes to the jobs DLQ with its reason. Anything else that stops the work
(throttling, a crash) fails the record alone: SQS delivers it again after the queue's
visibility timeout and the job resumes from its last saved progress; the redrive policy
dead-letters it after maxReceiveCount tries, and the DLQ's alarm says so.
"""

from ratings.lambda_support import invocation

invocation.pause_collector()  # before the imports below: see ratings.lambda_support.invocation

# isort: split

from typing import Any

from aws_lambda_powertools import Logger
from aws_lambda_powertools.utilities.typing import LambdaContext

from ratings import wiring
from ratings.errors import Disposition
from ratings.lambda_support import queues
from ratings.lambda_support.problems import problem_for
from ratings.service.moderation_results import JobWorked
from ratings.service.results import json_of

logger = Logger()


def jobs_dlq_url() -> str:
    return queues.require_queue_url(
        wiring.config().moderation_jobs_dlq_url, "RATINGS_MODERATION_JOBS_DLQ_URL"
    )


def work(message_id: str, body: str, context: LambdaContext) -> bool:
    """Work one record's job; False when the record is left for SQS to deliver again."""
    logger.set_correlation_id(message_id)
    try:
        job = queues.queued_object(body)
        run = wiring.service().run_job(job, lambda: context.get_remaining_time_in_millis() / 1000)
    except Exception as error:
        problem = problem_for(error)
        if problem.disposition is Disposition.BUG:
            logger.exception("job left for a retry after an unexpected error")
            return False
        if problem.disposition is Disposition.RETRY_LATER:
            logger.warning("job left for a retry", extra={"error": repr(error)})
            return False
        queues.dead_letter(
            wiring.sqs_client(),
            jobs_dlq_url(),
            body,
            problem,
            source_message_id=message_id,
            field=queues.field_of(error),
        )
        logger.warning(
            "job message dead-lettered", extra={"reason": problem.code, "detail": problem.message}
        )
        return True
    logger.info("job worked", extra=json_of(JobWorked.of(run)))
    return True


@logger.inject_lambda_context(clear_state=True)
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    """SQS's partial batch response (the template's batch size is 1: one job an invocation)."""
    try:
        failures = []
        for record in event.get("Records", []):
            message_id = record["messageId"]
            try:
                done = work(message_id, record["body"], context)
            except Exception:  # even dead-lettering failed: SQS delivers the record again
                logger.exception("job left for a retry: dead-lettering failed")
                done = False
            if not done:
                failures.append({"itemIdentifier": message_id})
        return {"batchItemFailures": failures}
    finally:
        invocation.resume_collector()  # a cold start's paused collector, once answered
