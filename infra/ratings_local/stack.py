"""The whole service on one machine: emulated AWS, the API, the queue consumers, the schedule.

Everything is read from template.yaml: which functions exist, what triggers them (Api, SQS,
Schedule), the table, the queues and their redrive policies, and the environment each
function gets. Everything lives in memory and stops with the process.
"""

import json
import os
import threading
import time
import uuid
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import boto3

from ratings import wiring
from ratings_local import swagger
from ratings_local.aws import EmulatedAws
from ratings_local.functions import LocalFunction
from ratings_local.http_api import JSON, LocalAnswer, LocalApiServer
from ratings_local.resources import CreatedResources, create_resources
from ratings_local.routing import Routing, Target
from ratings_local.template import StackSpec, read_stack, resolve

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_TEMPLATE = REPO_ROOT / "template.yaml"
#: Names of the queues in `/_local/endpoints`, by the logical id they are found under.
QUEUE_ROLES = {
    "games": "GamesQueue",
    "games_dlq": "GamesDeadLetterQueue",
    "podiums": "PodiumQueue",
    "podiums_dlq": "PodiumDeadLetterQueue",
    "moderation_jobs": "ModerationJobsQueue",
    "moderation_jobs_dlq": "ModerationJobsDeadLetterQueue",
}


@dataclass(frozen=True)
class Options:
    port: int = 3000
    aws_port: int = 0
    host: str = "127.0.0.1"
    region: str = "us-east-1"
    schedule_interval: float = 60.0
    api_key: str | None = None
    #: The key moderation routes require in x-moderation-key (None: not enforced).
    moderation_key: str | None = None
    #: The template's ExactRankLimit, when not its default.
    exact_rank_limit: int | None = None
    template: Path = DEFAULT_TEMPLATE
    #: Seconds a consumer waits on an empty queue before polling again (long polling).
    poll_wait: int = 1


class LocalStack:
    def __init__(self, options: Options) -> None:
        self.options = options
        self.spec: StackSpec = read_stack(options.template)
        if options.exact_rank_limit is not None:
            parameters = {**self.spec.parameters, "ExactRankLimit": options.exact_rank_limit}
            self.spec = replace(self.spec, parameters=parameters)
        self.aws = EmulatedAws(options.host, options.aws_port)
        self.functions: dict[str, LocalFunction] = {}
        self.resources: CreatedResources | None = None
        self._api: LocalApiServer | None = None
        self._stopping = threading.Event()
        self._threads: list[threading.Thread] = []
        self._sqs: Any = None

    # Lifecycle ---------------------------------------------------------------------------

    def start(self) -> None:
        endpoint = self.aws.start()
        region = self.options.region
        # The functions find the emulated AWS the way boto3 finds any endpoint override.
        os.environ.setdefault("AWS_ACCESS_KEY_ID", "local")
        os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "local")
        os.environ["AWS_ENDPOINT_URL"] = endpoint
        os.environ["AWS_REGION"] = region
        os.environ["AWS_DEFAULT_REGION"] = region
        # EMF metrics would be printed to the terminal for nobody to collect (the template
        # may still turn them on).
        os.environ.setdefault("POWERTOOLS_METRICS_DISABLED", "true")
        warnings.filterwarnings("ignore", message="No application metrics to publish")
        wiring.reset()  # clients built before (for another endpoint) must not be reused
        self.resources = create_resources(self.spec, endpoint, region)
        self._sqs = boto3.client("sqs", endpoint_url=endpoint, region_name=region)
        for logical_id, function in self.spec.functions.items():
            environment = resolve(
                dict(function.environment), self.resources.resolver, self.spec.parameters
            )
            # One process hosts every function: their variables share one environment.
            os.environ.update({name: str(value) for name, value in environment.items()})
            self.functions[logical_id] = LocalFunction(function, REPO_ROOT, region)
        for local_function in self.functions.values():
            local_function.warm()
        self._start_consumers()
        self._start_schedules()
        routing = Routing(self.spec.functions.values())
        if routing.functions:
            self._api = LocalApiServer(
                (self.options.host, self.options.port),
                self._invoke_api,
                self._local_route,
                self.options.api_key,
                routing,
                self.options.moderation_key,
            )
            self._spawn("api", self._api.serve_forever, 0.05)

    def stop(self) -> None:
        self._stopping.set()
        if self._api is not None:
            self._api.shutdown()
            self._api.server_close()
        for thread in self._threads:
            thread.join(timeout=5)
        self.aws.stop()

    def _spawn(self, name: str, target: Any, *args: Any) -> None:
        thread = threading.Thread(target=target, args=args, name=name, daemon=True)
        thread.start()
        self._threads.append(thread)

    # What runs where ---------------------------------------------------------------------

    @property
    def api_url(self) -> str:
        assert self._api is not None, "the template has no Api function"
        host, port = self._api.server_address[:2]
        return f"http://{host!s}:{port}"

    def endpoints(self) -> dict[str, Any]:
        assert self.resources is not None
        queues = {
            role: self.resources.queue_urls.get(logical_id)
            for role, logical_id in QUEUE_ROLES.items()
        }
        return {
            "api_url": self.api_url if self._api else None,
            "aws_endpoint_url": self.aws.endpoint_url,
            "region": self.options.region,
            "table": next(iter(self.resources.tables.values()), None),
            "queues": queues,
            "functions": {
                logical_id: function.spec.triggers()
                for logical_id, function in self.functions.items()
            },
        }

    def _invoke_api(self, target: Target, event: dict[str, Any]) -> Any:
        return self.functions[target.logical_id].invoke(event)

    # Local routes ------------------------------------------------------------------------

    def _local_route(self, method: str, raw_path: str, body: bytes) -> LocalAnswer | None:
        path, query = urlsplit(raw_path).path.rstrip("/"), urlsplit(raw_path).query
        if path == "/_local/endpoints" and method == "GET":
            return 200, JSON, json.dumps(self.endpoints()).encode()
        if path.startswith("/_local/invoke/") and method == "POST":
            return self._invoke_route(path.removeprefix("/_local/invoke/"), body)
        if path == "/openapi.json" or (path == "/swagger" and "format=json" in query):
            if method != "GET":
                return _not_allowed(method, path)
            return 200, JSON, json.dumps(self.openapi_document()).encode()
        if path == "/swagger" or path.startswith("/swagger/"):
            if method != "GET":
                return _not_allowed(method, path)
            if path == "/swagger":
                return 200, {"Content-Type": "text/html; charset=utf-8"}, swagger.page()
            found = swagger.asset(path.removeprefix("/swagger/"))
            if found is None:
                return 404, JSON, _error("not_found", f"no file {path}")
            return 200, {"Content-Type": found[0]}, found[1]
        if path.startswith("/_local/"):
            return 404, JSON, _error("not_found", f"no local route {path}")
        return None

    def _invoke_route(self, logical_id: str, body: bytes) -> LocalAnswer:
        function = self.functions.get(logical_id)
        if function is None:
            known = ", ".join(self.functions)
            message = f"no function {logical_id!r}; functions: {known}"
            return 404, JSON, _error("not_found", message)
        if body.strip():
            try:
                event = json.loads(body)
            except ValueError:
                return 400, JSON, _error("invalid_request", "body must be JSON")
        elif "Schedule" in function.spec.triggers():
            event = scheduled_event(logical_id, self.options.region)
        else:
            event = {}
        try:
            result = function.invoke(event)
        except Exception as error:
            message = f"{logical_id} raised {type(error).__name__}: {error}"
            return 502, JSON, _error("function_error", message)
        return 200, JSON, json.dumps(result, default=str).encode()

    def openapi_document(self) -> dict[str, Any]:
        """The OpenAPI document, with this stack's API as its server (so "Try it out" works)."""
        from ratings_local import openapi  # the document's module needs this one's paths

        return openapi.document(server_url=self.api_url)

    # Queue consumers ---------------------------------------------------------------------

    def _start_consumers(self) -> None:
        assert self.resources is not None
        for function in self.functions.values():
            for event in function.spec.events:
                if event.kind != "SQS":
                    continue
                queue_arn = resolve(
                    event.properties["Queue"], self.resources.resolver, self.spec.parameters
                )
                url = next(
                    url
                    for logical_id, url in self.resources.queue_urls.items()
                    if self.resources.queue_arns[logical_id] == queue_arn
                )
                batch_size = int(event.properties.get("BatchSize", 10))
                self._spawn(
                    f"poll-{function.logical_id}", self._poll, function, url, queue_arn, batch_size
                )

    def _poll(self, function: LocalFunction, url: str, queue_arn: str, batch_size: int) -> None:
        while not self._stopping.is_set():
            try:
                if not self.consume_once(function, url, queue_arn, batch_size):
                    # An empty queue: a long poll already waited; short polls pause here.
                    self._stopping.wait(0.05 if self.options.poll_wait <= 0 else 0)
            except Exception as error:  # keep polling: the next batch may do better
                print(f"[{function.logical_id}] poller error: {type(error).__name__}: {error}")
                time.sleep(1)

    def consume_once(
        self, function: LocalFunction, url: str, queue_arn: str, batch_size: int
    ) -> int:
        """Receive one batch, invoke, delete what succeeded. Returns the batch's size."""
        received = self._sqs.receive_message(
            QueueUrl=url,
            MaxNumberOfMessages=max(1, min(10, batch_size)),
            WaitTimeSeconds=self.options.poll_wait,
            AttributeNames=["All"],
            MessageAttributeNames=["All"],
        )
        messages = received.get("Messages", [])
        if not messages:
            return 0
        event = {
            "Records": [sqs_record(message, queue_arn, self.options.region) for message in messages]
        }
        try:
            response = function.invoke(event)
        except Exception as error:
            # The whole batch failed: nothing is deleted, all of it comes back after the
            # visibility timeout, and the redrive policy counts the attempt.
            print(f"[{function.logical_id}] batch failed: {type(error).__name__}: {error}")
            return len(messages)
        failed = {
            failure.get("itemIdentifier")
            for failure in (response or {}).get("batchItemFailures", [])
        }
        done = [
            {"Id": str(index), "ReceiptHandle": message["ReceiptHandle"]}
            for index, message in enumerate(messages)
            if message["MessageId"] not in failed
        ]
        if done:
            self._sqs.delete_message_batch(QueueUrl=url, Entries=done)
        return len(messages)

    # Schedules ---------------------------------------------------------------------------

    def _start_schedules(self) -> None:
        for function in self.functions.values():
            if "Schedule" in function.spec.triggers():
                self._spawn(f"schedule-{function.logical_id}", self._tick, function)

    def _tick(self, function: LocalFunction) -> None:
        while not self._stopping.wait(self.options.schedule_interval):
            try:
                function.invoke(scheduled_event(function.logical_id, self.options.region))
            except Exception as error:
                print(
                    f"[{function.logical_id}] scheduled run failed: {type(error).__name__}: {error}"
                )


def sqs_record(message: Mapping[str, Any], queue_arn: str, region: str) -> dict[str, Any]:
    """One record of an SQS event, as Lambda's event source mapping builds it."""
    attributes = {
        name: {
            "stringValue": value.get("StringValue"),
            "binaryValue": value.get("BinaryValue"),
            "stringListValues": [],
            "binaryListValues": [],
            "dataType": value.get("DataType", "String"),
        }
        for name, value in (message.get("MessageAttributes") or {}).items()
    }
    return {
        "messageId": message["MessageId"],
        "receiptHandle": message["ReceiptHandle"],
        "body": message.get("Body", ""),
        "attributes": message.get("Attributes", {}),
        "messageAttributes": attributes,
        "md5OfBody": message.get("MD5OfBody", ""),
        "eventSource": "aws:sqs",
        "eventSourceARN": queue_arn,
        "awsRegion": region,
    }


def scheduled_event(logical_id: str, region: str) -> dict[str, Any]:
    """An EventBridge scheduled event, as a Schedule trigger delivers it."""
    return {
        "version": "0",
        "id": str(uuid.uuid4()),
        "detail-type": "Scheduled Event",
        "source": "aws.events",
        "account": "123456789012",
        "time": datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "region": region,
        "resources": [f"arn:aws:events:{region}:123456789012:rule/{logical_id}"],
        "detail": {},
    }


def _not_allowed(method: str, path: str) -> LocalAnswer:
    message = f"{method} is not allowed on {path}; allowed: GET"
    return 405, {**JSON, "Allow": "GET"}, _error("method_not_allowed", message)


def _error(code: str, message: str) -> bytes:
    return json.dumps({"error": {"code": code, "message": message}}).encode()
