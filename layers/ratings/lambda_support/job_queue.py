"""The jobs queue port on SQS: a job's message sent as its JSON body.

The client and the queue's URL are looked up on the first send, so a function that never
queues a job (the game Api) never builds an SQS client for it.
"""

from collections.abc import Callable
from typing import TYPE_CHECKING

from ratings.service.ports import JobQueue
from ratings.service.stored import JobMessage

if TYPE_CHECKING:
    from mypy_boto3_sqs import SQSClient


class SqsJobQueue(JobQueue):
    def __init__(self, client: "Callable[[], SQSClient]", queue_url: Callable[[], str]) -> None:
        self._client = client
        self._queue_url = queue_url

    def send(self, message: JobMessage) -> None:
        self._client().send_message(QueueUrl=self._queue_url(), MessageBody=message.body())
