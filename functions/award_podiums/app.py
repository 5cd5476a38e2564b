"""AwardPodiums: on a schedule, drains the podium queue and awards each podium once.

A run receives until a receive comes back empty (a short batch does not say the queue is
drained: SQS may return fewer messages than are waiting) or its time budget is spent
(RATINGS_DRAIN_SECONDS, and always well inside the function timeout). A message is deleted
only once its award is committed (or found already committed); an invalid one goes to the
podium DLQ with its reason; one that meets contention (or throttling) is sent back to the
podium queue as a new, delayed message, and deleted once that is sent. Only a bug, or a
failed send, leaves a message in the queue for a later run (the redrive policy dead-letters
it after maxReceiveCount tries).
"""

from ratings.lambda_support import invocation

invocation.pause_collector()  # before the imports below: see ratings.lambda_support.invocation

# isort: split

import time
from collections import Counter
from typing import TYPE_CHECKING, Any

from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.utilities.typing import LambdaContext

from ratings import wiring
from ratings.lambda_support import invocation, queues
from ratings.service.results import PodiumsDrained, json_of

if TYPE_CHECKING:
    from mypy_boto3_sqs.type_defs import MessageTypeDef

logger = Logger()
metrics = Metrics()

#: Time kept back from the function's remaining time: the last award and the deletes fit.
RESERVE_SECONDS = 20.0
#: What a message's handling ends in; `DONE` outcomes are deleted from the queue.
AWARDED, DUPLICATE, DEAD_LETTERED, LEFT = "awarded", "duplicate", "dead_lettered", "left"
REQUEUED = "requeued"
DONE = frozenset({AWARDED, DUPLICATE, DEAD_LETTERED, REQUEUED})
#: What the drain counts besides the outcomes: messages released, and handled but undeleted.
RELEASED, UNDELETED = "released", "undeleted"


def podium_request(body: str) -> queues.Request:
    podium = queues.queued_object(body)
    return queues.Request(
        "tournament_id", podium.get("tournament_id"), lambda service: service.award_podium(podium)
    )


def podium_dlq_url() -> str:
    return queues.require_queue_url(wiring.config().podium_dlq_url, "RATINGS_PODIUM_DLQ_URL")


def podium_queue_url() -> str:
    return queues.require_queue_url(wiring.config().podium_queue_url, "RATINGS_PODIUM_QUEUE_URL")


consumer = queues.Consumer(
    read=podium_request,
    count_stored=invocation.count_podium,
    lines=queues.LogLines(
        stored="podium awarded",
        duplicate="podium already awarded",
        requeued="podium sent back to the queue for a later run",
        left="podium left in the queue for a later run: sending it back failed",
        left_after_bug="podium left in the queue after an unexpected error",
        dead_lettered="podium message dead-lettered",
    ),
    service=wiring.service,
    sqs=wiring.sqs_client,
    dead_letter_queue=podium_dlq_url,
    queue=podium_queue_url,
    logger=logger,
    metrics=metrics,
)
#: The summary's names of the consumer's outcomes.
_NAMES = {
    queues.Outcome.STORED: AWARDED,
    queues.Outcome.DUPLICATE: DUPLICATE,
    queues.Outcome.DEAD_LETTERED: DEAD_LETTERED,
    queues.Outcome.REQUEUED: REQUEUED,
}


def award(message: "MessageTypeDef") -> str:
    """Award one podium message; the outcome says whether it may be deleted."""
    requeues = queues.requeues_of(message.get("MessageAttributes"))
    try:
        return _NAMES[consumer.settle(message["MessageId"], message["Body"], requeues)]
    except queues.LeftForRetry:
        return LEFT


def drain(queue_url: str, deadline: float) -> Counter[str]:
    client = wiring.sqs_client()
    outcomes: Counter[str] = Counter()
    for batch in queues.receive_batches(client, queue_url, deadline):
        done: list[MessageTypeDef] = []
        unhandled: list[MessageTypeDef] = []
        try:
            for message in batch:
                if time.monotonic() >= deadline:
                    unhandled.append(message)
                    continue
                outcome = award(message)
                outcomes[outcome] += 1
                if outcome in DONE:
                    done.append(message)
        finally:
            undeleted = queues.delete(client, queue_url, done)
            if undeleted:  # they come back and are settled again, as duplicates
                logger.warning("handled messages not deleted", extra={"count": undeleted})
            outcomes[UNDELETED] += undeleted
            queues.release(client, queue_url, unhandled)
            outcomes[RELEASED] += len(unhandled)
        # A first run may drain for minutes: collect from its second batch on (see
        # ratings.lambda_support.invocation).
        invocation.resume_collector()
    return outcomes


@logger.inject_lambda_context(correlation_id_path="id", clear_state=True)
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    try:
        config = wiring.config()
        queue_url = podium_queue_url()
        podium_dlq_url()  # both queues are known before anything is received
        remaining = context.get_remaining_time_in_millis() / 1000 - RESERVE_SECONDS
        budget = max(0.0, min(config.drain_seconds, remaining))
        # The last award's send, the deletes and the release fit in what the table leaves.
        settle_seconds = 3 * wiring.call_timeouts(config).call_seconds
        with invocation.deadline(context, settle_seconds=settle_seconds):
            outcomes = drain(queue_url, time.monotonic() + budget)
        logger.set_correlation_id(event.get("id"))  # the run's again, after its messages'
        summary = json_of(
            PodiumsDrained(
                awarded=outcomes[AWARDED],
                dead_lettered=outcomes[DEAD_LETTERED],
                duplicate=outcomes[DUPLICATE],
                requeued=outcomes[REQUEUED],
                left=outcomes[LEFT],
                released=outcomes[RELEASED],
                undeleted=outcomes[UNDELETED],
            )
        )
        logger.info("podium queue drained", extra={"budget_seconds": budget, **summary})
        return summary
    finally:
        invocation.resume_collector()  # a cold start's paused collector, once answered
