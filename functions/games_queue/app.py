"""GamesQueue: rates the games that game backends queue (api.md, "Games queue").

Each record is one game: the submit body plus "ladder". A record that can never succeed
(not JSON, an invalid game, a game_id used with other content) is sent to the games DLQ with
its reason and counts as done. A game that still meets contention (or throttling, or the end
of the invocation's time) is sent back to the games queue as a new, delayed message and
counts as done once that send succeeded: contention never uses up maxReceiveCount. Only a
bug, or a failed send, fails the record alone, so SQS redelivers it (and the redrive policy
dead-letters it after maxReceiveCount tries).
"""

from ratings.lambda_support import invocation

invocation.pause_collector()  # before the imports below: see ratings.lambda_support.invocation

# isort: split

from typing import Any

from aws_lambda_powertools import Logger, Metrics
from aws_lambda_powertools.utilities.typing import LambdaContext

from ratings import wiring
from ratings.lambda_support import invocation, queues

logger = Logger()
metrics = Metrics()


def game_request(body: str) -> queues.Request:
    ladder, game = queues.queued_game(body)
    return queues.Request(
        "game_id", game.get("game_id"), lambda service: service.submit_game(ladder, game)
    )


def games_dlq_url() -> str:
    return queues.require_queue_url(wiring.config().games_dlq_url, "RATINGS_GAMES_DLQ_URL")


def games_queue_url() -> str:
    return queues.require_queue_url(wiring.config().games_queue_url, "RATINGS_GAMES_QUEUE_URL")


consumer = queues.Consumer(
    read=game_request,
    count_stored=invocation.count_game,
    lines=queues.LogLines(
        stored="game stored",
        duplicate="game already stored",
        requeued="game sent back to the queue for a later try",
        left="game left for a retry: sending it back failed",
        left_after_bug="game left for a retry after an unexpected error",
        dead_lettered="game message dead-lettered",
    ),
    service=wiring.service,
    sqs=wiring.sqs_client,
    dead_letter_queue=games_dlq_url,
    queue=games_queue_url,
    logger=logger,
    metrics=metrics,
)


@logger.inject_lambda_context(clear_state=True)
@metrics.log_metrics
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    """SQS's partial batch response: the records left for a retry are the batch item
    failures, delivered again alone; the others are done (stored, duplicate, sent back or
    dead-lettered). A batch whose records all failed is still a partial response, never a
    function error. Every AWS call ends inside the invocation's time, with room kept for the
    send that settles the last record (`deadline`).

    Powertools' BatchProcessor does the same, but importing it loads asyncio and every event
    class of Powertools at each cold start, for a loop this short (docs/performance.md has
    what it costs)."""
    try:
        failures = []
        settle_seconds = wiring.call_timeouts(wiring.config()).call_seconds
        with invocation.deadline(context, settle_seconds=settle_seconds):
            for record in event.get("Records", []):
                message_id = record["messageId"]
                requeues = queues.requeues_of(record.get("messageAttributes"))
                try:
                    consumer.settle(message_id, record["body"], requeues)
                except queues.LeftForRetry:
                    failures.append({"itemIdentifier": message_id})
                except Exception:  # even dead-lettering failed: SQS delivers the record again
                    logger.exception(consumer.lines.left_after_bug)
                    failures.append({"itemIdentifier": message_id})
        return {"batchItemFailures": failures}
    finally:
        invocation.resume_collector()  # a cold start's paused collector, once answered
