"""An SQS long poll waits for messages without holding up the rest of the emulated AWS."""

import threading
import time
from typing import Any

import boto3


def test_a_message_sent_during_a_long_poll_is_received_by_it(emulated_aws: str) -> None:
    sqs = boto3.client("sqs", endpoint_url=emulated_aws, region_name="us-east-1")
    url = sqs.create_queue(QueueName="long-poll")["QueueUrl"]
    received: list[Any] = []

    def poll() -> None:
        response = sqs.receive_message(QueueUrl=url, WaitTimeSeconds=5, MaxNumberOfMessages=1)
        received.extend(response.get("Messages", []))

    poller = threading.Thread(target=poll)
    poller.start()
    time.sleep(0.3)  # let the poll start waiting
    # If the poll held the emulator for its whole wait, this send would only get through
    # after the poll had given up empty-handed.
    sqs.send_message(QueueUrl=url, MessageBody="hello")
    poller.join(timeout=10)
    assert [message["Body"] for message in received] == ["hello"]


def test_an_empty_long_poll_still_answers_with_no_messages(emulated_aws: str) -> None:
    sqs = boto3.client("sqs", endpoint_url=emulated_aws, region_name="us-east-1")
    url = sqs.create_queue(QueueName="empty")["QueueUrl"]
    response = sqs.receive_message(QueueUrl=url, WaitTimeSeconds=1)
    assert response.get("Messages", []) == []
    assert response["ResponseMetadata"]["HTTPStatusCode"] == 200
