"""Fixtures of the handler tests: each test gets the table and the queues of template.yaml, the
environment the template sets, and fresh per-container caches. The queues are moto's; the
table is on each DynamoDB engine in turn (moto's, DynamoDB Local)."""

import io
import json
import uuid
from collections.abc import Iterator
from functools import cache
from types import ModuleType
from typing import TYPE_CHECKING, Any

import boto3
import pytest
from moto import mock_aws
from support.engines import ENGINES, Engine
from support.handlers import Api, Stack, load_function
from support.lambda_events import REGION

from ratings import wiring

if TYPE_CHECKING:
    from mypy_boto3_sqs import SQSClient
    from mypy_boto3_sqs.literals import QueueAttributeNameType

#: What template.yaml's Globals set for Powertools.
POWERTOOLS_ENV = {
    "POWERTOOLS_SERVICE_NAME": "elo-ratings",
    "POWERTOOLS_METRICS_NAMESPACE": "EloRatings",
    "POWERTOOLS_LOG_LEVEL": "INFO",
}


@pytest.fixture(scope="session")
def functions() -> Iterator[dict[str, ModuleType]]:
    """The handler modules, imported once like in a Lambda container."""
    with pytest.MonkeyPatch.context() as patch:
        for name, value in POWERTOOLS_ENV.items():
            patch.setenv(name, value)
        patch.delenv("POWERTOOLS_DEV", raising=False)
        names = (
            "api",
            "games_queue",
            "award_podiums",
            "refresh_standings",
            "moderation",
            "moderation_worker",
            "publish_events",
        )
        yield {name: load_function(name) for name in names}


def _new_container() -> None:
    """Forget what a warm container keeps: configuration, the service, the SQS client."""
    wiring.reset()


@cache
def _test_sqs_client() -> "SQSClient":
    """The tests' own SQS client, made once per process (making one is the slow part of a
    setup); moto answers it in whichever test's mock is active."""
    return boto3.client("sqs", region_name=REGION)


@cache
def _test_events_client() -> Any:
    """The tests' own EventBridge client, made once per process like the SQS one."""
    return boto3.client("events", region_name=REGION)


@pytest.fixture(params=ENGINES)
def table_engine(request: pytest.FixtureRequest) -> Engine:
    """Where the table lives: moto (with the queues) or DynamoDB Local."""
    if request.param == "moto":
        return Engine("moto", None)
    return Engine("dynamodb_local", request.getfixturevalue("dynamodb_local_url"))


@pytest.fixture
def stack(
    functions: dict[str, ModuleType], table_engine: Engine, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Stack]:
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"):
        monkeypatch.setenv(name, "testing")
    monkeypatch.setenv("AWS_DEFAULT_REGION", REGION)
    monkeypatch.setenv("AWS_REGION", REGION)
    # Whatever an earlier test of this process left: no endpoint, metrics on.
    for name in (
        "AWS_PROFILE",
        "AWS_ENDPOINT_URL",
        "AWS_ENDPOINT_URL_DYNAMODB",
        "AWS_ENDPOINT_URL_SQS",
        "AWS_ENDPOINT_URL_EVENTBRIDGE",
        "POWERTOOLS_METRICS_DISABLED",
        "POWERTOOLS_DEV",
    ):
        monkeypatch.delenv(name, raising=False)
    suffix = uuid.uuid4().hex[:10]
    with mock_aws():
        sqs = _test_sqs_client()

        def arn(url: str) -> str:
            attributes = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])
            found: str = attributes["Attributes"]["QueueArn"]
            return found

        def queue(name: str, visibility: int = 30, dead_letters: str | None = None) -> str:
            """A queue as template.yaml makes it: visibility timeout, redrive after 5 tries."""
            attributes: dict[QueueAttributeNameType, str] = {"VisibilityTimeout": str(visibility)}
            if dead_letters is not None:
                redrive = {"deadLetterTargetArn": arn(dead_letters), "maxReceiveCount": "5"}
                attributes["RedrivePolicy"] = json.dumps(redrive)
            created = sqs.create_queue(QueueName=f"{name}-{suffix}", Attributes=attributes)
            return created["QueueUrl"]

        games_dlq = queue("games-dlq")
        podium_dlq = queue("podium-dlq")
        games = queue("games", visibility=180, dead_letters=games_dlq)
        podiums = queue("podiums", visibility=720, dead_letters=podium_dlq)
        jobs_dlq = queue("jobs-dlq")
        jobs = queue("jobs", visibility=390, dead_letters=jobs_dlq)
        # The stack's bus (template.yaml's EventBus): PutEvents to a bus that is not is refused.
        bus = f"ratings-events-{suffix}"
        _test_events_client().create_event_bus(Name=bus)
        stack = Stack(
            table=f"ratings-{suffix}",
            sqs=sqs,
            games_url=games,
            games_arn=arn(games),
            games_dlq_url=games_dlq,
            podium_url=podiums,
            podium_dlq_url=podium_dlq,
            jobs_url=jobs,
            jobs_arn=arn(jobs),
            jobs_dlq_url=jobs_dlq,
            bus=bus,
        )
        env = {
            "RATINGS_TABLE": stack.table,
            "RATINGS_LEADERBOARD_SHARDS": "4",
            "RATINGS_RETENTION_DAYS": "30",
            "RATINGS_FUNCTION_TIMEOUT": "10",
            "RATINGS_GAMES_QUEUE_URL": games,
            "RATINGS_GAMES_DLQ_URL": games_dlq,
            "RATINGS_PODIUM_QUEUE_URL": podiums,
            "RATINGS_PODIUM_DLQ_URL": podium_dlq,
            "RATINGS_DRAIN_SECONDS": "60",
            "RATINGS_MODERATION_JOBS_QUEUE_URL": jobs,
            "RATINGS_MODERATION_JOBS_DLQ_URL": jobs_dlq,
            "RATINGS_EVENT_BUS_NAME": bus,
            **POWERTOOLS_ENV,
        }
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        if table_engine.endpoint_url is not None:
            # boto3's own per-service override: the table's client goes there, SQS's stays.
            monkeypatch.setenv("AWS_ENDPOINT_URL_DYNAMODB", table_engine.endpoint_url)
        _new_container()
        for module in functions.values():
            if hasattr(module, "metrics"):
                module.metrics.clear_metrics()  # one store per process, shared by every Metrics
        table_engine.create_table(stack.table)
        try:
            yield stack
        finally:
            _new_container()
            table_engine.drop_table(stack.table)


@pytest.fixture
def logs(functions: dict[str, ModuleType]) -> Iterator[io.StringIO]:
    """What the functions' Powertools loggers print during the test (JSON lines).

    Their handlers keep the stream they were made with, so they are pointed here for the test.
    """
    buffer = io.StringIO()
    handlers = {
        id(module.logger.registered_handler): module.logger.registered_handler
        for module in functions.values()
    }
    previous = [(handler, handler.setStream(buffer)) for handler in handlers.values()]
    try:
        yield buffer
    finally:
        for handler, stream in previous:
            handler.setStream(stream)


@pytest.fixture
def api(stack: Stack, functions: dict[str, ModuleType]) -> Api:
    return Api(functions["api"])


@pytest.fixture
def moderation(stack: Stack, functions: dict[str, ModuleType]) -> Api:
    """The Moderation function, called the way API Gateway calls it (a signed request)."""
    return Api(functions["moderation"])


def _handler(name: str) -> Any:
    """A fixture named `name` that gives the handler module of functions/<name>."""

    @pytest.fixture(name=name)
    def handler(functions: dict[str, ModuleType]) -> ModuleType:
        """The function's handler module, as `functions` loaded it."""
        return functions[name]

    return handler


moderation_worker = _handler("moderation_worker")
games_queue = _handler("games_queue")
award_podiums = _handler("award_podiums")
refresh_standings = _handler("refresh_standings")
publish_events = _handler("publish_events")
