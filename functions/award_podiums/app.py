"""AwardPodiums: on a schedule, drains the podium queue and awards each podium once.

A run receives until the queue is empty or its time budget is spent (RATINGS_DRAIN_SECONDS,
and always well inside the function timeout). A message is deleted only once its award is
committed (or found already committed); an invalid one goes to the podium DLQ with its reason;
a transient failure stays in the queue for a later run, and the redrive policy dead-letters it
after maxReceiveCount tries.
"""

from ratings.lambda_support import startup

startup.pause_collector()  # before the imports below: see ratings.lambda_support.startup

# isort: split

import time
from collections import Counter
from typing import TYPE_CHECKING, Any

from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.utilities.typing import LambdaContext

from ratings import wiring
from ratings.lambda_support import payloads, queues, telemetry
from ratings.lambda_support.problems import problem_for
from ratings.lambda_support.tracing import make_tracer

if TYPE_CHECKING:
    from mypy_boto3_sqs.type_defs import MessageTypeDef

logger = Logger()
tracer = make_tracer()
metrics = Metrics()

#: Time kept back from the function's remaining time: the last award and the deletes fit.
RESERVE_SECONDS = 20.0
#: What a message's handling ends in; `DONE` outcomes are deleted from the queue.
AWARDED, DUPLICATE, DEAD_LETTERED, LEFT = "awarded", "duplicate", "dead_lettered", "left"
DONE = frozenset({AWARDED, DUPLICATE, DEAD_LETTERED})


@tracer.capture_method
def award(message: "MessageTypeDef", dlq_url: str) -> str:
    """Award one podium message; the outcome says whether it may be deleted."""
    logger.set_correlation_id(message["MessageId"])
    try:
        podium = payloads.queued_object(message["Body"])
        if tournament_id := telemetry.loggable_id(podium.get("tournament_id")):
            logger.append_keys(tournament_id=tournament_id)
        service = wiring.service()
        with telemetry.counting_retries(metrics, service):
            submitted = service.award_podium(podium)
    except Exception as error:
        return settle_failure(message, error, dlq_url)
    else:
        if not submitted.created:
            logger.info("podium already awarded")
            return DUPLICATE
        telemetry.count(metrics, telemetry.PODIUMS_AWARDED)
        logger.info("podium awarded")
        return AWARDED
    finally:
        logger.remove_keys(["tournament_id"])


def settle_failure(message: "MessageTypeDef", error: Exception, dlq_url: str) -> str:
    """Dead-letter a podium that can never be awarded; leave one that may be, later."""
    problem = problem_for(error)
    if problem is None:
        logger.exception("podium left in the queue after an unexpected error")
        return LEFT
    if problem.retryable:
        logger.warning("podium left in the queue for a later run", extra={"error": repr(error)})
        return LEFT
    field = queues.field_of(error)
    queues.dead_letter(
        dlq_url, message["Body"], problem, source_message_id=message["MessageId"], field=field
    )
    telemetry.count(metrics, telemetry.MESSAGES_DEAD_LETTERED)
    logger.warning(
        "podium message dead-lettered",
        extra={"reason": problem.code, "field": field, "detail": problem.message},
    )
    return DEAD_LETTERED


def drain(queue_url: str, dlq_url: str, deadline: float) -> Counter[str]:
    outcomes: Counter[str] = Counter()
    for batch in queues.receive_batches(queue_url, deadline):
        done: list[MessageTypeDef] = []
        unhandled: list[MessageTypeDef] = []
        try:
            for message in batch:
                if time.monotonic() >= deadline:
                    unhandled.append(message)
                    continue
                outcome = award(message, dlq_url)
                outcomes[outcome] += 1
                if outcome in DONE:
                    done.append(message)
        finally:
            undeleted = queues.delete(queue_url, done)
            if undeleted:  # they come back and are settled again, as duplicates
                logger.warning("handled messages not deleted", extra={"count": undeleted})
            outcomes["undeleted"] += undeleted
            queues.release(queue_url, unhandled)
            outcomes["released"] += len(unhandled)
        # A first run may drain for minutes: collect from its second batch on (see startup).
        startup.resume_collector()
    return outcomes


@startup.resumes_collector
@logger.inject_lambda_context(correlation_id_path="id", clear_state=True)
@tracer.capture_lambda_handler
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    config = wiring.config()
    queue_url = queues.require_queue_url(config.podium_queue_url, "RATINGS_PODIUM_QUEUE_URL")
    dlq_url = queues.require_queue_url(config.podium_dlq_url, "RATINGS_PODIUM_DLQ_URL")
    remaining = context.get_remaining_time_in_millis() / 1000 - RESERVE_SECONDS
    budget = max(0.0, min(config.drain_seconds, remaining))
    outcomes = drain(queue_url, dlq_url, time.monotonic() + budget)
    logger.set_correlation_id(event.get("id"))  # the run's again, after its messages'
    summary = {name: outcomes[name] for name in (*sorted(DONE), LEFT, "released", "undeleted")}
    logger.info("podium queue drained", extra={"budget_seconds": budget, **summary})
    return summary
