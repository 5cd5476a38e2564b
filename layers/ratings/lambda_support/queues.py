"""SQS for the queue consumers: settling one message (done, sent back to its queue after
contention, dead-lettered with its reason, or left for a retry after a bug), and receiving,
deleting and releasing messages while draining.

Nothing here builds a client or reads configuration: the handlers pass what `ratings.wiring`
built (wiring is the top of the package and may import this module, never the reverse).
"""

import random
import re
import time
from collections.abc import Callable, Iterator, Sequence
from enum import StrEnum
from typing import TYPE_CHECKING, Any, NamedTuple

from ratings.declare.kinds import parse_json_object
from ratings.errors import Disposition
from ratings.lambda_support import invocation
from ratings.lambda_support.problems import MAX_BODY_BYTES, PayloadTooLarge, Problem, problem_for
from ratings.service.errors import InvalidInput

if TYPE_CHECKING:
    from aws_lambda_powertools import Logger, Metrics
    from mypy_boto3_sqs import SQSClient
    from mypy_boto3_sqs.type_defs import (
        ChangeMessageVisibilityBatchRequestEntryTypeDef,
        DeleteMessageBatchRequestEntryTypeDef,
        MessageAttributeValueTypeDef,
        MessageTypeDef,
    )

    from ratings.service.facade import RatingService
    from ratings.service.game_result import Submitted

#: Longest wait of one receive while draining: long polling asks every server, so an empty
#: answer means the queue is drained (for now).
POLL_SECONDS = 1
#: SQS caps a receive (and a batch delete) at ten messages.
BATCH_SIZE = 10
#: SQS's limit on one message (a queue's default MaximumMessageSize): the body and every
#: attribute's name, data type and value, in bytes of UTF-8.
MAX_MESSAGE_BYTES = 256 * 1024
#: What SQS takes in a body or an attribute value: XML's characters (#x9 | #xA | #xD |
#: #x20-#xD7FF | #xE000-#xFFFD | #x10000-#x10FFFF); anything else fails the whole send with
#: InvalidMessageContents (a lone surrogate, which JSON can carry, cannot even be encoded).
_REFUSED_CHARACTER = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
#: Attribute values are cut to these lengths (in characters): reasons stay readable.
_MAX_REASON_CHARS = 1000
_MAX_FIELD_CHARS = 256
#: The attribute that counts how often a message was sent back to its queue.
REQUEUES_ATTRIBUTE = "requeues"
#: A message sent back waits about FIRST_REQUEUE_SECONDS, twice that the next time, and so
#: on up to SQS's longest delay; jittered, so that contending messages come back apart.
FIRST_REQUEUE_SECONDS = 5
MAX_DELAY_SECONDS = 900
_JITTER = random.Random()


class Outcome(StrEnum):
    """How a message was settled; each of these means it may be deleted from its queue."""

    STORED = "stored"
    DUPLICATE = "duplicate"  # a redelivery: the use case had stored it already
    DEAD_LETTERED = "dead_lettered"
    #: It met contention (or throttling, an outage, the invocation's end): a copy is back in
    #: its queue, delayed, as a new message whose receives count from zero.
    REQUEUED = "requeued"


class LeftForRetry(Exception):
    """The message stays in its queue and SQS delivers it again after its visibility timeout
    (the redrive policy dead-letters it after maxReceiveCount receives): after a bug, or when
    sending it back failed. Raised from the error that left it."""


class Request(NamedTuple):
    """A message's use case call, once its body is read."""

    #: Logged with every line about the message, when `logged_id` has the shape of an id.
    id_key: str
    logged_id: object
    submit: "Callable[[RatingService], Submitted]"


class LogLines(NamedTuple):
    """What the consumer logs about its messages, in words of their queue."""

    stored: str
    duplicate: str
    requeued: str
    left: str
    left_after_bug: str
    dead_lettered: str


class Consumer(NamedTuple):
    """Settles the messages of one queue, each on its own: read the body, call the use case,
    then, by the disposition of what it ended in: done; sent back to the queue (retry later);
    dead-lettered (refused, conflict, not found: never succeeds); or left for a retry
    (`LeftForRetry`: a bug, or sending it back failed).

    Contention is transient and must never dead-letter a message: left in its queue, a hot
    player's game would use up maxReceiveCount and go to the DLQ without a reason. Sent back
    as a new message instead, it starts its receives afresh; the original counts as done only
    once the copy is sent, so nothing is lost, and a copy handled twice (the original's
    delete lost) is a duplicate, which the use cases make harmless.
    """

    #: The body as a use case call; raises a refusal when it is invalid or too large.
    read: Callable[[str], Request]
    #: The metrics of a stored result (not called for a duplicate).
    count_stored: "Callable[[Metrics, Submitted], None]"
    lines: LogLines
    #: The dead-letter queue's URL, looked up when a message is dead-lettered.
    dead_letter_queue: Callable[[], str]
    #: The queue's own URL, looked up when a message is sent back to it.
    queue: Callable[[], str]
    service: "Callable[[], RatingService]"
    sqs: "Callable[[], SQSClient]"
    logger: "Logger"
    metrics: "Metrics"

    def settle(self, message_id: str, body: str, requeues: int = 0) -> Outcome:
        """Settle one message; `requeues` is how often it was sent back already."""
        logger = self.logger
        logger.set_correlation_id(message_id)
        id_key = None
        try:
            request = self.read(body)
            if logged_id := invocation.loggable_id(request.logged_id):
                id_key = request.id_key
                logger.append_keys(**{id_key: logged_id})
            service = self.service()
            with invocation.counting_retries(self.metrics, service):
                submitted = request.submit(service)
        except Exception as error:
            problem = problem_for(error)
            if problem.disposition is Disposition.BUG:
                logger.exception(self.lines.left_after_bug)
                raise LeftForRetry(message_id) from error
            if problem.disposition is Disposition.RETRY_LATER:
                self._requeue(message_id, body, requeues + 1, error)
                return Outcome.REQUEUED
            self._dead_letter(message_id, body, error, problem)
            return Outcome.DEAD_LETTERED
        else:
            if not submitted.created:
                logger.info(self.lines.duplicate)
                return Outcome.DUPLICATE
            self.count_stored(self.metrics, submitted)
            logger.info(self.lines.stored)
            return Outcome.STORED
        finally:
            if id_key is not None:
                logger.remove_keys([id_key])

    def _requeue(self, message_id: str, body: str, requeues: int, error: Exception) -> None:
        delay = requeue_delay(requeues)
        try:
            send_back(self.sqs(), self.queue(), body, requeues, delay)
        except Exception as failure:
            self.logger.warning(
                self.lines.left, extra={"error": repr(error), "requeue_error": repr(failure)}
            )
            raise LeftForRetry(message_id) from error
        invocation.count(self.metrics, invocation.MESSAGES_REQUEUED)
        self.logger.warning(
            self.lines.requeued,
            extra={"error": repr(error), "requeues": requeues, "delay_seconds": delay},
        )

    def _dead_letter(self, message_id: str, body: str, error: Exception, problem: Problem) -> None:
        field = field_of(error)
        dead_letter(
            self.sqs(),
            self.dead_letter_queue(),
            body,
            problem,
            source_message_id=message_id,
            field=field,
        )
        invocation.count(self.metrics, invocation.MESSAGES_DEAD_LETTERED)
        self.logger.warning(
            self.lines.dead_lettered,
            extra={"reason": problem.code, "field": field, "detail": problem.message},
        )


def require_queue_url(url: str | None, variable: str) -> str:
    if not url:
        raise RuntimeError(f"{variable} is not set: the template sets it for this function")
    return url


def requeue_delay(requeues: int, rng: random.Random | None = None) -> int:
    """Seconds a message sent back for the `requeues`-th time waits (SQS's DelaySeconds):
    FIRST_REQUEUE_SECONDS doubled each time, between half of it and all of it, at most 900."""
    doublings = min(max(requeues, 1) - 1, 16)
    ceiling = min(MAX_DELAY_SECONDS, FIRST_REQUEUE_SECONDS << doublings)
    share = (rng or _JITTER).uniform(0.5, 1.0)
    return max(1, round(ceiling * share))


def send_back(
    client: "SQSClient", queue_url: str, body: str, requeues: int, delay_seconds: int
) -> None:
    """Send `body` to its queue again as a new message, after `delay_seconds`."""
    client.send_message(
        QueueUrl=queue_url,
        MessageBody=body,
        DelaySeconds=delay_seconds,
        MessageAttributes={
            REQUEUES_ATTRIBUTE: {"DataType": "Number", "StringValue": str(requeues)}
        },
    )


def requeues_of(attributes: object) -> int:
    """How often a message was sent back, from its message attributes as a Lambda event
    record (`stringValue`) or a receive (`StringValue`) carries them; 0 when unreadable."""
    if not isinstance(attributes, dict):
        return 0
    value = attributes.get(REQUEUES_ATTRIBUTE)
    if not isinstance(value, dict):
        return 0
    text: object = value.get("stringValue", value.get("StringValue"))
    if isinstance(text, str) and text.isdigit() and len(text) <= 6:
        return int(text)
    return 0


def dead_letter(
    client: "SQSClient",
    queue_url: str,
    body: str,
    problem: Problem,
    *,
    source_message_id: str,
    field: str | None,
) -> None:
    """Send a message that can never succeed to `queue_url`, its reason as attributes."""
    attributes = dead_letter_attributes(
        body, problem, source_message_id=source_message_id, field=field
    )
    client.send_message(QueueUrl=queue_url, MessageBody=body, MessageAttributes=attributes)


def dead_letter_attributes(
    body: str, problem: Problem, *, source_message_id: str, field: str | None
) -> dict[str, "MessageAttributeValueTypeDef"]:
    """The reason attributes of a dead letter, always sendable with `body`.

    The field name and the message may quote what a hostile sender wrote: characters SQS
    refuses are written as escapes, values are cut, and an attribute that would take the
    message past SQS's size limit is left out (least telling first), so that the send cannot
    fail on them. The body is sent as it came: SQS delivered it, so SQS takes it.
    """
    wanted = [
        ("reason", problem.code, _MAX_REASON_CHARS),
        ("source_message_id", source_message_id, _MAX_REASON_CHARS),
        ("field", field or "", _MAX_FIELD_CHARS),
        ("reason_message", problem.message or problem.code, _MAX_REASON_CHARS),
    ]
    room = MAX_MESSAGE_BYTES - body_size(body)
    attributes: dict[str, MessageAttributeValueTypeDef] = {}
    for name, text, limit in wanted:
        if not text:
            continue
        value = sendable_text(text, limit)
        size = len(name) + len("String") + len(value.encode("utf-8"))
        if size <= room:
            attributes[name] = {"DataType": "String", "StringValue": value}
            room -= size
    return attributes


def sendable_text(text: str, limit: int) -> str:
    """`text` as SQS takes it in an attribute value: every character it refuses written as a
    `\\uXXXX` escape (so a reader still sees what was sent), at most `limit` characters."""
    escaped = _REFUSED_CHARACTER.sub(lambda match: f"\\u{ord(match.group()):04x}", text)
    if len(escaped) > limit:
        escaped = escaped[: limit - 3] + "..."
    return escaped


def field_of(error: BaseException) -> str | None:
    """The input field an error is about (InvalidInput names it), for logs and attributes."""
    return error.field if isinstance(error, InvalidInput) else None


def receive_batches(
    client: "SQSClient", queue_url: str, deadline: float
) -> Iterator[list["MessageTypeDef"]]:
    """Batches of up to ten messages until a receive comes back empty or `deadline`
    (monotonic) passes.

    A batch of fewer than ten does not mean the queue is drained: SQS may answer a receive
    with fewer messages than are waiting (AWS documents it even for long polls), so only an
    empty long poll ends the drain. What arrives later waits for the next run.

    A caller deletes what it has handled; whatever it leaves becomes visible again after the
    queue's visibility timeout (or at once, through `release`).
    """
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return
        response = client.receive_message(
            QueueUrl=queue_url,
            MaxNumberOfMessages=BATCH_SIZE,
            WaitTimeSeconds=max(0, min(POLL_SECONDS, int(remaining))),
            MessageAttributeNames=[REQUEUES_ATTRIBUTE],
        )
        messages = response.get("Messages", [])
        if not messages:
            return
        yield messages


def delete(client: "SQSClient", queue_url: str, messages: Sequence["MessageTypeDef"]) -> int:
    """Delete handled messages; returns how many SQS refused to delete.

    A message that stays is delivered again and handled again, which the use cases make
    harmless (a game or a podium is stored once), so a refusal is logged, not retried.
    """
    if not messages:
        return 0
    entries: list[DeleteMessageBatchRequestEntryTypeDef] = [
        {"Id": str(index), "ReceiptHandle": message["ReceiptHandle"]}
        for index, message in enumerate(messages)
    ]
    response = client.delete_message_batch(QueueUrl=queue_url, Entries=entries)
    return len(response.get("Failed", []))


def release(client: "SQSClient", queue_url: str, messages: Sequence["MessageTypeDef"]) -> None:
    """Make received but unhandled messages visible again now, for the next run."""
    if not messages:
        return
    entries: list[ChangeMessageVisibilityBatchRequestEntryTypeDef] = [
        {"Id": str(index), "ReceiptHandle": message["ReceiptHandle"], "VisibilityTimeout": 0}
        for index, message in enumerate(messages)
    ]
    client.change_message_visibility_batch(QueueUrl=queue_url, Entries=entries)


# Reading a message's body ----------------------------------------------------------------------


def queued_object(body: str) -> dict[str, Any]:
    """A queue message's JSON object body.

    The 64 KiB limit of the HTTP API holds for messages too (SQS itself would take 256 KiB).
    """
    size = body_size(body)
    if size > MAX_BODY_BYTES:
        raise PayloadTooLarge(size)
    return parse_json_object(body, "message body")


def queued_game(body: str) -> tuple[str, dict[str, Any]]:
    """The ladder and the submit body of a games queue message (the submit body + "ladder")."""
    game = queued_object(body)
    ladder = game.pop("ladder", None)
    if not isinstance(ladder, str):
        raise InvalidInput("ladder", "ladder is required: a ladder id, like backgammon")
    return ladder, game


def body_size(text: str) -> int:
    """Bytes of `text` as UTF-8 (what the 64 KiB limit counts)."""
    return len(text.encode("utf-8", "surrogatepass"))
