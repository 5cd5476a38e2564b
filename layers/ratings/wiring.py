"""The one place that builds clients and the service from configuration.

Handlers call `service()` per invocation; the first call builds everything and later calls in
the same container reuse it (clients are the expensive part of a cold start). The ladders are
read from ladders.json when this module is imported, at the container's cold start: a file
that cannot work fails the start with its message, before any request is answered.
"""

from collections.abc import Mapping
from datetime import timedelta
from functools import cache
from typing import TYPE_CHECKING, Any, cast

from ratings import budgets
from ratings.config import Config, ladders_file
from ratings.lambda_support import invocation
from ratings.lambda_support.job_queue import SqsJobQueue
from ratings.rules import Ladder
from ratings.rules.ladder_config import load_ladders
from ratings.service.facade import RatingService, Settings
from ratings.service.unit_of_work import Retrier, RetryPolicy

if TYPE_CHECKING:
    from mypy_boto3_events import EventBridgeClient
    from mypy_boto3_sqs import SQSClient

    from ratings.storage.dynamodb import DynamoStorage


@cache
def ladders() -> Mapping[str, Ladder]:
    """The ladders this deployment serves: the layer's ladders.json (RATINGS_LADDERS_FILE:
    another file), read once per container. A wrong file raises LadderConfigError."""
    return load_ladders(ladders_file())


def call_timeouts(config: Config) -> budgets.CallTimeouts:
    return budgets.call_timeouts(config.function_timeout)


def build_storage(config: Config) -> "DynamoStorage":
    """The table's adapter, its client's calls cut to fit the function's time (and a
    BatchGetItem's re-sends of unprocessed keys stopped before the invocation's deadline)."""
    from ratings.storage.dynamodb import Client, DynamoStorage, Resends

    timeouts = call_timeouts(config)
    storage = DynamoStorage(
        config.table_name,
        region=config.region,
        endpoint_url=config.dynamodb_endpoint_url,
        leaderboard_shards=config.leaderboard_shards,
        client=Client(timeouts.connect_seconds, timeouts.read_seconds, timeouts.retries),
        resends=Resends(time_left=invocation.time_left),
    )
    invocation.guard(storage.connection.client, timeouts.attempt_seconds)
    return storage


def build_service(config: Config, storage: "DynamoStorage") -> RatingService:
    retention = timedelta(days=config.retention_days)
    settings = Settings(
        history_retention=retention,
        game_retention=retention,
        exact_rank_limit=config.exact_rank_limit,
    )
    retry = RetryPolicy(budget_seconds=budgets.retry_seconds(config.function_timeout))
    jobs_queue = SqsJobQueue(sqs_client, lambda: _jobs_queue_url(config))
    return RatingService(
        storage, ladders(), settings=settings, retrier=Retrier(retry), job_queue=jobs_queue
    )


def _jobs_queue_url(config: Config) -> str:
    if not config.moderation_jobs_queue_url:
        raise RuntimeError(
            "RATINGS_MODERATION_JOBS_QUEUE_URL is not set: the template sets it for the "
            "functions that queue moderation jobs"
        )
    return config.moderation_jobs_queue_url


@cache
def config() -> Config:
    return Config.from_env()


@cache
def storage() -> "DynamoStorage":
    return build_storage(config())


@cache
def service() -> RatingService:
    return build_service(config(), storage())


@cache
def sqs_client() -> "SQSClient":
    """The container's SQS client, made on first use (the Api never pays for it).

    It comes from the botocore session the table's client was made in: a second session
    would load botocore's endpoint and configuration data and resolve credentials again, and
    importing boto3 for it costs more still (docs/performance.md). Its calls fit in the
    function's time like the table's; they may use the time a consumer keeps for settling.
    """
    from ratings.lambda_support.queues import POLL_SECONDS

    settings = config()
    timeouts = call_timeouts(settings)
    # A drain's long poll holds its answer back for up to POLL_SECONDS.
    read_seconds = max(timeouts.read_seconds, POLL_SECONDS + 1.0)
    client = _session_client("sqs", settings.sqs_endpoint_url, read_seconds)
    invocation.guard(client, timeouts.connect_seconds + read_seconds, settling=True)
    return cast("SQSClient", client)


@cache
def events_client() -> "EventBridgeClient":
    """The container's EventBridge client (the PublishEvents function's), made like the SQS
    client, its calls cut to fit the function's time."""
    settings = config()
    timeouts = call_timeouts(settings)
    client = _session_client("events", settings.events_endpoint_url, timeouts.read_seconds)
    invocation.guard(client, timeouts.attempt_seconds)
    return cast("EventBridgeClient", client)


def _session_client(service: str, endpoint_url: str | None, read_seconds: float) -> Any:
    """A client of `service` from the table's botocore session, with the function's connect
    timeout and retries and `read_seconds` to read an answer."""
    from botocore.config import Config as ClientConfig

    settings = config()
    timeouts = call_timeouts(settings)
    client_config = ClientConfig(
        connect_timeout=timeouts.connect_seconds,
        read_timeout=read_seconds,
        retries={"total_max_attempts": 1 + timeouts.retries, "mode": "standard"},
    )
    return storage().connection.session.create_client(
        service, region_name=settings.region, endpoint_url=endpoint_url, config=client_config
    )


def reset() -> None:
    """Forget everything built so far: the next call builds afresh from the environment.

    For processes that change their environment between uses (tests, the local stack).
    """
    ladders.cache_clear()
    config.cache_clear()
    storage.cache_clear()
    service.cache_clear()
    sqs_client.cache_clear()
    events_client.cache_clear()


# Read with the module, at the cold start (`reset` forgets them: the local stack, tests).
ladders()
