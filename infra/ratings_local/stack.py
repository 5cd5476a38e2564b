"""The whole service on one machine: emulated AWS, the API, the queue consumers, the schedule.

Everything is read from template.yaml: which functions exist, what triggers them (Api, SQS,
Schedule, the table's stream), the table, the queues and their redrive policies, the event bus,
and the environment each function gets. The ladders are the layer's ladders.json, or the file
`Options.ladders_file` (or RATINGS_LADDERS_FILE) names: read before anything starts, so a file
that cannot work stops the start with its message. Everything lives in memory and stops with
the process.

The table is on moto, or with `dynamodb_local` on Amazon's DynamoDB Local; the queues are
always on moto. The functions find them the way botocore finds any endpoint override:
AWS_ENDPOINT_URL_DYNAMODB for the table, AWS_ENDPOINT_URL for the rest. Each function runs in
execution environments of its own (`ratings_local.functions`), the Api with as many
concurrent invocations as requests come, each SQS mapping with up to its MaximumConcurrency
(`ratings_local.sources`), each stream mapping one batch at a time (`ratings_local.streams`).

The events the service puts on its bus reach the `events` queue through a rule, as they would
reach a backend's, and with `Options.webhook_url` a webhook too (`ratings_local.bus`).
"""

import json
import os
import threading
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import boto3

from ratings import wiring
from ratings.config import ladders_file
from ratings.rules import Ladder
from ratings.rules.ladder_config import DEFAULT_FILE
from ratings_local import swagger
from ratings_local.aws import EmulatedAws
from ratings_local.bus import WebhookDelivery, subscribe_queue
from ratings_local.dynamodb_local import DynamoDBLocal
from ratings_local.environments import Metrics
from ratings_local.functions import DEFAULT_MAX_CONCURRENCY, LocalFunction
from ratings_local.http_api import JSON, GatewayAnswers, LocalAnswer, LocalApiServer
from ratings_local.resources import ACCOUNT_ID, CreatedResources, create_resources
from ratings_local.routing import Routing, Target
from ratings_local.schedule import ScheduledRuns
from ratings_local.sources import SqsMapping, SqsPoller, scheduled_event, sqs_record
from ratings_local.streams import StreamMapping, StreamPoller
from ratings_local.template import DEFAULT_TEMPLATE, StackSpec, read_stack, resolve

__all__ = ["DEFAULT_TEMPLATE", "LocalStack", "Options", "scheduled_event", "sqs_record"]

REPO_ROOT = Path(__file__).resolve().parents[2]
#: The logical ids the stack gives the queues it makes itself (not in the template): the
#: `events` queue a rule on the bus fills, and the one the webhook is sent from.
EVENTS_QUEUE = "LocalEventsQueue"
WEBHOOK_QUEUE = "LocalWebhookQueue"
#: Names of the queues in `/_local/endpoints`, by the logical id they are found under.
QUEUE_ROLES = {
    "games": "GamesQueue",
    "games_dlq": "GamesDeadLetterQueue",
    "podiums": "PodiumQueue",
    "podiums_dlq": "PodiumDeadLetterQueue",
    "moderation_jobs": "ModerationJobsQueue",
    "moderation_jobs_dlq": "ModerationJobsDeadLetterQueue",
    "events": EVENTS_QUEUE,
    "events_dlq": "EventsDeadLetterQueue",
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
    #: The table on Amazon's DynamoDB Local instead of moto (the queues stay on moto).
    dynamodb_local: bool = False
    #: Concurrent environments of a function that the template does not bound.
    max_concurrency: int = DEFAULT_MAX_CONCURRENCY
    #: Whether what the functions log is printed (False: only counted, `LocalFunction.log_bytes`).
    print_function_logs: bool = True
    #: The ladders file the functions read (RATINGS_LADDERS_FILE); None: the environment's
    #: RATINGS_LADDERS_FILE if set, else the layer's own ladders.json.
    ladders_file: Path | None = None
    #: Where every event on the bus is also POSTed as JSON (None: only the `events` queue).
    webhook_url: str | None = None


class LocalStack:
    def __init__(self, options: Options) -> None:
        self.options = options
        self.spec: StackSpec = read_stack(options.template)
        if options.exact_rank_limit is not None:
            parameters = {**self.spec.parameters, "ExactRankLimit": options.exact_rank_limit}
            self.spec = replace(self.spec, parameters=parameters)
        self.aws = EmulatedAws(options.host, options.aws_port)
        self.dynamodb_local = DynamoDBLocal(options.host) if options.dynamodb_local else None
        self.dynamodb_endpoint_url: str | None = None
        self.functions: dict[str, LocalFunction] = {}
        self.pollers: list[SqsPoller] = []
        self.stream_pollers: list[StreamPoller] = []
        self.webhook: WebhookDelivery | None = None
        self.schedules: list[ScheduledRuns] = []
        self.resources: CreatedResources | None = None
        self._api: LocalApiServer | None = None
        self._stopping = threading.Event()
        self._threads: list[threading.Thread] = []
        self._sqs: Any = None
        #: The ladders the functions serve, read by `start`.
        self.ladders: Mapping[str, Ladder] = {}
        self.ladders_source = ""

    # Lifecycle ---------------------------------------------------------------------------

    def start(self) -> None:
        # The ladders first: a file that cannot work stops the start before anything runs,
        # with its message (LadderConfigError). The functions' environments read the same one.
        if self.options.ladders_file is not None:
            os.environ["RATINGS_LADDERS_FILE"] = str(self.options.ladders_file.resolve())
        wiring.reset()
        self.ladders = wiring.ladders()
        self.ladders_source = ladders_file() or DEFAULT_FILE
        endpoint = self.aws.start()
        table_endpoint = self.dynamodb_local.start() if self.dynamodb_local else endpoint
        self.dynamodb_endpoint_url = table_endpoint
        region = self.options.region
        # The functions find the emulated AWS the way botocore finds any endpoint override.
        os.environ.setdefault("AWS_ACCESS_KEY_ID", "local")
        os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "local")
        os.environ["AWS_ENDPOINT_URL"] = endpoint
        os.environ["AWS_ENDPOINT_URL_DYNAMODB"] = table_endpoint
        os.environ["AWS_REGION"] = region
        os.environ["AWS_DEFAULT_REGION"] = region
        wiring.reset()  # clients built before (for another endpoint) must not be reused
        self.resources = create_resources(self.spec, endpoint, table_endpoint, region)
        self._sqs = boto3.client("sqs", endpoint_url=endpoint, region_name=region)
        self._subscribe(endpoint)
        shared = dict(os.environ)
        for logical_id, function in self.spec.functions.items():
            variables = resolve(
                dict(function.environment), self.resources.resolver, self.spec.parameters
            )
            variables = {name: str(value) for name, value in variables.items()}
            # The stack counts what the functions publish (LocalFunction.metrics).
            environment = {**shared, "POWERTOOLS_METRICS_DISABLED": "false", **variables}
            self.functions[logical_id] = LocalFunction(
                function,
                REPO_ROOT,
                region,
                environment,
                self.options.max_concurrency,
                self.options.print_function_logs,
            )
            # This process's tools (tests, the CLI) read the table and queues the same way.
            os.environ.update(variables)
        self._warm()
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
                GatewayAnswers(self.spec.gateway_responses),
            )
            self._spawn("api", self._api.serve_forever, 0.05)

    def _warm(self) -> None:
        """One environment of each function with an Api, SQS or stream event, started side by
        side (scheduled functions start theirs when they first run)."""
        warming = [
            threading.Thread(target=function.warm, name=f"warm-{function.logical_id}")
            for function in self.functions.values()
            if {"Api", "SQS", "DynamoDB"} & set(function.spec.triggers())
        ]
        for thread in warming:
            thread.start()
        for thread in warming:
            thread.join()

    def stop(self) -> None:
        self._stopping.set()
        if self._api is not None:
            self._api.shutdown()
            self._api.server_close()
        for thread in self._threads:
            thread.join(timeout=5)
        for function in self.functions.values():
            function.stop()
        self.aws.stop()
        if self.dynamodb_local is not None:
            self.dynamodb_local.stop()

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
            "dynamodb_endpoint_url": self.dynamodb_endpoint_url,
            "region": self.options.region,
            "table": next(iter(self.resources.tables.values()), None),
            "queues": queues,
            "functions": {
                logical_id: function.spec.triggers()
                for logical_id, function in self.functions.items()
            },
        }

    @property
    def table_engine(self) -> str:
        """What runs the table: "moto" or "DynamoDB Local"."""
        return "DynamoDB Local" if self.dynamodb_local is not None else "moto"

    def metrics(self) -> Metrics:
        """Every metric the functions published so far, summed by name (what CloudWatch
        would have received from their embedded-metric-format records)."""
        total: Metrics = defaultdict(float)
        for function in self.functions.values():
            for name, value in function.metrics.items():
                total[name] += value
        return total

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
        except Exception as error:  # environments.FunctionError: "<errorType>: <message>"
            return 502, JSON, _error("function_error", f"{logical_id} failed: {error}")
        return 200, JSON, json.dumps(result, default=str).encode()

    def openapi_document(self) -> dict[str, Any]:
        """The OpenAPI document, with this stack's API as its server (so "Try it out" works)."""
        from ratings_local import openapi  # the document's module needs this one's paths

        return openapi.document(server_url=self.api_url)

    # The bus's local subscribers ---------------------------------------------------------

    def _subscribe(self, endpoint: str) -> None:
        """The `events` queue, and the webhook's, each filled by a rule on the template's bus."""
        assert self.resources is not None
        if not self.resources.bus_names:
            return
        bus = next(iter(self.resources.bus_names.values()))
        events = boto3.client("events", endpoint_url=endpoint, region_name=self.options.region)
        subscriptions = {EVENTS_QUEUE: "events"}
        if self.options.webhook_url:
            subscriptions[WEBHOOK_QUEUE] = "webhook"
        for logical_id, role in subscriptions.items():
            # The webhook's queue hides a message it could not deliver for a second.
            attributes = {"VisibilityTimeout": "1"} if role == "webhook" else {}
            url = subscribe_queue(events, self._sqs, bus, f"ratings-local-{role}", attributes)
            self.resources.queue_urls[logical_id] = url
            self.resources.queue_arns[logical_id] = self._sqs.get_queue_attributes(
                QueueUrl=url, AttributeNames=["QueueArn"]
            )["Attributes"]["QueueArn"]
        if self.options.webhook_url:
            self.webhook = WebhookDelivery(
                self._sqs,
                self.resources.queue_urls[WEBHOOK_QUEUE],
                self.options.webhook_url,
                self._stopping,
            )
            self._spawn("webhook", self.webhook.run)

    # Queue and stream consumers ----------------------------------------------------------

    def _start_consumers(self) -> None:
        assert self.resources is not None
        for function in self.functions.values():
            for event in function.spec.events:
                if event.kind == "DynamoDB":
                    self._start_stream_poller(function, event.properties)
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
                mapping = SqsMapping.of(function, event.properties, url, queue_arn)
                poller = SqsPoller(
                    mapping, self._sqs, self.options.region, self.options.poll_wait, self._stopping
                )
                self.pollers.append(poller)
                self._spawn(f"poll-{function.logical_id}", poller.run)

    def _start_stream_poller(self, function: LocalFunction, properties: Mapping[str, Any]) -> None:
        """Read the stream of a DynamoDB event where the table runs, for `function`."""
        assert self.resources is not None
        resolved = resolve(dict(properties), self.resources.resolver, self.spec.parameters)
        destination = (resolved.get("DestinationConfig") or {}).get("OnFailure") or {}
        on_failure = self._queue_url_of(destination.get("Destination"))
        region = self.options.region
        function_arn = f"arn:aws:lambda:{region}:{ACCOUNT_ID}:function:{function.logical_id}"
        mapping = StreamMapping.of(function, resolved, resolved["Stream"], on_failure, function_arn)
        streams = boto3.client(
            "dynamodbstreams", endpoint_url=self.dynamodb_endpoint_url, region_name=region
        )
        poller = StreamPoller(mapping, streams, self._sqs, region, self._stopping)
        self.stream_pollers.append(poller)
        self._spawn(f"stream-{function.logical_id}", poller.run)

    def _queue_url_of(self, arn: str | None) -> str | None:
        assert self.resources is not None
        return next(
            (
                self.resources.queue_urls[logical_id]
                for logical_id, queue_arn in self.resources.queue_arns.items()
                if queue_arn == arn
            ),
            None,
        )

    # Schedules ---------------------------------------------------------------------------

    def _start_schedules(self) -> None:
        region = self.options.region
        for function in self.functions.values():
            if "Schedule" in function.spec.triggers():
                name = function.logical_id
                runs = ScheduledRuns(
                    function,
                    self.options.schedule_interval,
                    partial(scheduled_event, name, region),
                    self._stopping,
                )
                self.schedules.append(runs)
                self._spawn(f"schedule-{name}", runs.run)


def _not_allowed(method: str, path: str) -> LocalAnswer:
    message = f"{method} is not allowed on {path}; allowed: GET"
    return 405, {**JSON, "Allow": "GET"}, _error("method_not_allowed", message)


def _error(code: str, message: str) -> bytes:
    return json.dumps({"error": {"code": code, "message": message}}).encode()
