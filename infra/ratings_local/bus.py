"""The local subscribers of the stack's event bus: the `events` queue, and the webhook.

A backend hears of the service's events with a rule of its own on the bus (api.md, "Events").
The local stack subscribes the same way, on moto's EventBridge: a rule matching every event of
the service (`{"source": ["elo-ratings"]}`) with an SQS queue as its target, so the queue gets
each event as EventBridge gives an SQS target (version, id, detail-type, source, account, time,
region, resources, detail). A test or a backend under development reads them there.

With a webhook URL, a second rule puts the same events on a queue of the stack's own, and
`WebhookDelivery` POSTs each one as JSON to the URL, deleting it only once the URL answered
2xx, as an API destination retries: a webhook that is down gets the event again a moment later,
up to `MAX_DELIVERIES` times, then the event is dropped with a log line.
"""

import json
import threading
import urllib.error
import urllib.request
from typing import Any

from ratings.service.events import SOURCE

#: The rules' pattern: every event the service publishes.
SERVICE_EVENTS = {"source": [SOURCE]}
#: Sends of one event to the webhook before it is dropped.
MAX_DELIVERIES = 5
#: Seconds a failed POST waits before the event comes again (the queue's visibility timeout).
RETRY_SECONDS = 1
POST_TIMEOUT_SECONDS = 5


def subscribe_queue(events: Any, sqs: Any, bus: str, name: str, attributes: dict[str, str]) -> str:
    """Create queue `name` and a rule `name` on `bus` sending it the service's events, as a
    backend would subscribe; the queue's URL."""
    url: str = sqs.create_queue(QueueName=name, Attributes=attributes)["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"][
        "QueueArn"
    ]
    events.put_rule(Name=name, EventBusName=bus, EventPattern=json.dumps(SERVICE_EVENTS))
    events.put_targets(Rule=name, EventBusName=bus, Targets=[{"Id": "queue", "Arn": arn}])
    return url


class WebhookDelivery:
    """POSTs each event of a queue to a URL, at least once, in the order they come."""

    def __init__(self, sqs: Any, queue_url: str, webhook_url: str, stopping: threading.Event):
        self._sqs = sqs
        self._queue_url = queue_url
        self.webhook_url = webhook_url
        self._stopping = stopping
        #: Events the webhook took (2xx), and those dropped after MAX_DELIVERIES sends.
        self.delivered = 0
        self.dropped = 0

    def run(self) -> None:
        while not self._stopping.is_set():
            try:
                received = self._sqs.receive_message(
                    QueueUrl=self._queue_url,
                    MaxNumberOfMessages=10,
                    WaitTimeSeconds=1,
                    AttributeNames=["ApproximateReceiveCount"],
                )
            except Exception as error:  # the emulated AWS stopping, or a hiccup: poll again
                print(f"[webhook] could not read the events: {type(error).__name__}: {error}")
                self._stopping.wait(1)
                continue
            for message in received.get("Messages", []):
                if self._stopping.is_set():
                    return
                self._deliver(message)

    def _deliver(self, message: dict[str, Any]) -> None:
        sends = int(message.get("Attributes", {}).get("ApproximateReceiveCount", "1"))
        problem = self.post(message["Body"])
        if problem is None:
            self.delivered += 1
        elif sends >= MAX_DELIVERIES:
            self.dropped += 1
            print(
                f"[webhook] dropped an event after {sends} sends to {self.webhook_url}: {problem}"
            )
        else:
            # Left in the queue: it comes again once its visibility timeout is over.
            return
        self._sqs.delete_message(QueueUrl=self._queue_url, ReceiptHandle=message["ReceiptHandle"])

    def post(self, body: str) -> str | None:
        """POST one event; None when the URL took it (2xx), else what went wrong."""
        request = urllib.request.Request(
            self.webhook_url,
            data=body.encode(),
            method="POST",
            headers={"content-type": "application/json"},
        )
        try:
            with urllib.request.urlopen(request, timeout=POST_TIMEOUT_SECONDS) as response:
                status = int(response.status)
        except urllib.error.HTTPError as error:
            status = error.code
        except (OSError, ValueError) as error:
            return f"{type(error).__name__}: {error}"
        return None if 200 <= status < 300 else f"HTTP {status}"
