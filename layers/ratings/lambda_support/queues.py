"""SQS for the queue consumers: one client per container, dead-lettering with the reason,
and draining a queue within a deadline.
"""

import time
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from ratings import wiring
from ratings.lambda_support.problems import Problem
from ratings.service.errors import InvalidInput

if TYPE_CHECKING:
    from mypy_boto3_sqs import SQSClient
    from mypy_boto3_sqs.type_defs import (
        ChangeMessageVisibilityBatchRequestEntryTypeDef,
        DeleteMessageBatchRequestEntryTypeDef,
        MessageAttributeValueTypeDef,
        MessageTypeDef,
    )

#: Longest wait of one receive while draining: long polling sees every server, so an empty
#: answer means the queue is drained (for now).
POLL_SECONDS = 1
#: SQS caps a receive (and a batch delete) at ten messages.
BATCH_SIZE = 10
#: SQS message attribute values are capped well above this; the reason stays readable.
_MAX_REASON_CHARS = 1000


def sqs_client() -> "SQSClient":
    return wiring.sqs_client()


def require_queue_url(url: str | None, variable: str) -> str:
    if not url:
        raise RuntimeError(f"{variable} is not set: the template sets it for this function")
    return url


def dead_letter(
    queue_url: str, body: str, problem: Problem, *, source_message_id: str, field: str | None
) -> None:
    """Send a message that can never succeed to `queue_url`, its reason as attributes."""
    attributes: dict[str, MessageAttributeValueTypeDef] = {
        "reason": {"DataType": "String", "StringValue": problem.code},
        "reason_message": {
            "DataType": "String",
            "StringValue": problem.message[:_MAX_REASON_CHARS] or problem.code,
        },
        "source_message_id": {"DataType": "String", "StringValue": source_message_id},
    }
    if field:
        attributes["field"] = {"DataType": "String", "StringValue": field}
    sqs_client().send_message(QueueUrl=queue_url, MessageBody=body, MessageAttributes=attributes)


def field_of(error: BaseException) -> str | None:
    """The input field an error is about (InvalidInput names it), for logs and attributes."""
    return error.field if isinstance(error, InvalidInput) else None


def receive_batches(queue_url: str, deadline: float) -> Iterator[list["MessageTypeDef"]]:
    """Batches of up to ten messages until the queue is empty or `deadline` (monotonic) passes.

    A caller deletes what it has handled; whatever it leaves becomes visible again after the
    queue's visibility timeout (or at once, through `release`).
    """
    client = sqs_client()
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return
        response = client.receive_message(
            QueueUrl=queue_url,
            MaxNumberOfMessages=BATCH_SIZE,
            WaitTimeSeconds=max(0, min(POLL_SECONDS, int(remaining))),
        )
        messages = response.get("Messages", [])
        if not messages:
            return
        yield messages


def delete(queue_url: str, messages: Sequence["MessageTypeDef"]) -> int:
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
    response = sqs_client().delete_message_batch(QueueUrl=queue_url, Entries=entries)
    return len(response.get("Failed", []))


def release(queue_url: str, messages: Sequence["MessageTypeDef"]) -> None:
    """Make received but unhandled messages visible again now, for the next run."""
    if not messages:
        return
    entries: list[ChangeMessageVisibilityBatchRequestEntryTypeDef] = [
        {"Id": str(index), "ReceiptHandle": message["ReceiptHandle"], "VisibilityTimeout": 0}
        for index, message in enumerate(messages)
    ]
    sqs_client().change_message_visibility_batch(QueueUrl=queue_url, Entries=entries)
