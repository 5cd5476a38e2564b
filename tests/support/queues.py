"""Reading SQS queues in tests: how deep a queue is, and what it holds."""

from collections.abc import Iterator
from typing import Any


def queue_depth(sqs: Any, url: str) -> int:
    """Messages in `url`: visible, in flight and delayed."""
    attributes = sqs.get_queue_attributes(
        QueueUrl=url,
        AttributeNames=[
            "ApproximateNumberOfMessages",
            "ApproximateNumberOfMessagesNotVisible",
            "ApproximateNumberOfMessagesDelayed",
        ],
    )["Attributes"]
    return sum(int(value) for value in attributes.values())


def peek_messages(sqs: Any, url: str) -> Iterator[dict[str, Any]]:
    """Every message now in the queue, with its message attributes (received, not deleted)."""
    while True:
        response = sqs.receive_message(
            QueueUrl=url, MaxNumberOfMessages=10, MessageAttributeNames=["All"]
        )
        messages = response.get("Messages", [])
        if not messages:
            return
        yield from messages


def drain_bodies(sqs: Any, url: str) -> list[str]:
    """Every message body now in `url`, each received and deleted once."""
    bodies: list[str] = []
    while True:
        received = sqs.receive_message(
            QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=0, VisibilityTimeout=30
        )
        messages = received.get("Messages", [])
        if not messages:
            return bodies
        for message in messages:
            bodies.append(message["Body"])
            sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
