"""GamesQueue: rates the games that game backends queue (api.md, "Games queue").

Each record is one game: the submit body plus "ladder". A record that can never succeed
(not JSON, an invalid game, a game_id used with other content) is sent to the games DLQ with
its reason and counts as done; a transient failure fails the record alone, so SQS redelivers
it, and the queue's redrive policy dead-letters it after maxReceiveCount tries.
"""

from ratings.lambda_support import startup

startup.pause_collector()  # before the imports below: see ratings.lambda_support.startup

# isort: split

from typing import Any

from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.utilities.batch import (
    BatchProcessor,
    EventType,
    process_partial_response,
)
from aws_lambda_powertools.utilities.batch.types import PartialItemFailureResponse
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from aws_lambda_powertools.utilities.typing import LambdaContext

from ratings import wiring
from ratings.lambda_support import payloads, queues, telemetry
from ratings.lambda_support.problems import Problem, problem_for
from ratings.lambda_support.tracing import make_tracer

logger = Logger()
tracer = make_tracer()
metrics = Metrics()
# A batch whose records all failed is still a partial response: no function error, each
# record retried on its own.
processor = BatchProcessor(event_type=EventType.SQS, raise_on_entire_batch_failure=False)


@tracer.capture_method
def rate_game(record: SQSRecord) -> None:
    logger.set_correlation_id(record.message_id)
    try:
        ladder, game = payloads.queued_game(record.body)
        if game_id := telemetry.loggable_id(game.get("game_id")):
            logger.append_keys(game_id=game_id)
        service = wiring.service()
        with telemetry.counting_retries(metrics, service):
            submitted = service.submit_game(ladder, game)
    except Exception as error:
        problem = problem_for(error)
        if problem is None:
            logger.exception("game left for a retry after an unexpected error")
            raise  # a batch item failure: SQS delivers it again (and dead-letters it in the end)
        if problem.retryable:
            logger.warning("game left for a retry", extra={"error": repr(error)})
            raise
        dead_letter(record, error, problem)
    else:
        telemetry.record_game(metrics, submitted)
        logger.info("game stored" if submitted.created else "game already stored")
    finally:
        logger.remove_keys(["game_id"])


def dead_letter(record: SQSRecord, error: Exception, problem: Problem) -> None:
    field = queues.field_of(error)
    queue_url = queues.require_queue_url(wiring.config().games_dlq_url, "RATINGS_GAMES_DLQ_URL")
    queues.dead_letter(
        queue_url, record.body, problem, source_message_id=record.message_id, field=field
    )
    telemetry.count(metrics, telemetry.MESSAGES_DEAD_LETTERED)
    logger.warning(
        "game message dead-lettered",
        extra={"reason": problem.code, "field": field, "detail": problem.message},
    )


@startup.resumes_collector
@logger.inject_lambda_context(clear_state=True)
@tracer.capture_lambda_handler
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> PartialItemFailureResponse:
    return process_partial_response(
        event=event, record_handler=rate_game, processor=processor, context=context
    )
