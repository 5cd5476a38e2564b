"""SQS in tests: how deep a queue is, what it holds, and the message rules SQS enforces that
moto does not (characters of attribute values, attribute names, the size of a message)."""

import re
from collections.abc import Iterator, Mapping
from typing import Any

from botocore.exceptions import ClientError

#: SQS's rules for a message, as its developer guide states them ("Amazon SQS message quotas",
#: "message attributes"): a queue's default MaximumMessageSize, which counts the body and each
#: attribute's name, type and value in UTF-8 bytes; at most 10 attributes; and the characters
#: of XML 1.0 in the body and in attribute values.
SQS_MAX_MESSAGE_BYTES = 262_144
SQS_MAX_ATTRIBUTES = 10
_SQS_CHARACTER = re.compile("[\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
#: Attribute names: letters, digits, "-", "_" and "."; 1-256 of them; not starting with
#: "AWS." or "Amazon." in any case; no leading, trailing or doubled period.
_SQS_ATTRIBUTE_NAME = re.compile("[A-Za-z0-9_.-]{1,256}")


def sqs_refusal(body: str, attributes: Mapping[str, Mapping[str, Any]]) -> tuple[str, str] | None:
    """(error code, message) SQS answers a SendMessage of this body and these attributes
    with, or None when it takes them."""

    def sendable(text: str) -> bool:
        return bool(text) and all(_SQS_CHARACTER.fullmatch(char) for char in text)

    if not sendable(body):
        return "InvalidMessageContents", "the message body contains characters SQS refuses"
    if len(attributes) > SQS_MAX_ATTRIBUTES:
        return "InvalidParameterValue", f"{len(attributes)} message attributes, at most 10"
    size = len(body.encode("utf-8", "surrogatepass"))
    for name, attribute in attributes.items():
        lowered = name.lower()
        if (
            not _SQS_ATTRIBUTE_NAME.fullmatch(name)
            or name.startswith(".")
            or name.endswith(".")
            or ".." in name
            or lowered.startswith(("aws.", "amazon."))
        ):
            return "InvalidParameterValue", f"the message attribute name {name!r} is invalid"
        value = attribute.get("StringValue", "")
        if not sendable(value):
            return "InvalidMessageContents", f"attribute {name} contains characters SQS refuses"
        size += sum(
            len(part.encode("utf-8", "surrogatepass"))
            for part in (name, attribute["DataType"], value)
        )
    if size > SQS_MAX_MESSAGE_BYTES:
        return "InvalidParameterValue", f"the message has {size} bytes, at most 262144"
    return None


def enforce_sqs_rules(client: Any) -> list[tuple[str, str]]:
    """Make `client`'s SendMessage calls fail as SQS would where moto lets them through;
    returns the list of refusals, filled as they happen."""
    refused: list[tuple[str, str]] = []

    def check(params: dict[str, Any], **_: Any) -> None:
        refusal = sqs_refusal(params.get("MessageBody", ""), params.get("MessageAttributes", {}))
        if refusal is not None:
            refused.append(refusal)
            code, message = refusal
            raise ClientError({"Error": {"Code": code, "Message": message}}, "SendMessage")

    client.meta.events.register("before-parameter-build.sqs.SendMessage", check)
    return refused


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


def wait_for_messages(sqs: Any, url: str, seconds: int = 20) -> list[dict[str, Any]]:
    """The messages that become visible in `url` within `seconds` (a delayed one included;
    SQS's longest wait by default, for a machine slowed down by others), received with their
    message attributes and deleted."""
    response = sqs.receive_message(
        QueueUrl=url,
        MaxNumberOfMessages=10,
        WaitTimeSeconds=seconds,
        MessageAttributeNames=["All"],
        AttributeNames=["All"],
    )
    messages: list[dict[str, Any]] = response.get("Messages", [])
    for message in messages:
        sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
    return messages


def fail_sends(client: Any, code: str = "ServiceUnavailable") -> list[str]:
    """Make every SendMessage of `client` fail with `code` (an SQS outage); returns the list
    of the queue URLs refused, filled as it happens."""
    refused: list[str] = []

    def refuse(params: dict[str, Any], **_: Any) -> None:
        refused.append(params["QueueUrl"])
        raise ClientError({"Error": {"Code": code, "Message": "injected"}}, "SendMessage")

    client.meta.events.register("before-parameter-build.sqs.SendMessage", refuse)
    return refused


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
