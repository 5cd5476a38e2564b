"""The one place that builds clients and the service from configuration.

Handlers call `service()` per invocation; the first call builds everything and later calls in
the same container reuse it (clients are the expensive part of a cold start).
"""

from datetime import timedelta
from functools import cache
from typing import TYPE_CHECKING, cast

from ratings.config import Config
from ratings.rules import DEFAULT_LADDERS
from ratings.service.facade import RatingService
from ratings.service.settings import Settings

if TYPE_CHECKING:
    from mypy_boto3_sqs import SQSClient

    from ratings.storage.dynamodb import DynamoStorage

#: The ladders this deployment serves.
LADDERS = DEFAULT_LADDERS


def build_storage(config: Config) -> "DynamoStorage":
    from ratings.storage.dynamodb import DynamoStorage

    return DynamoStorage(
        config.table_name,
        region=config.region,
        endpoint_url=config.dynamodb_endpoint_url,
        leaderboard_shards=config.leaderboard_shards,
    )


def build_service(config: Config, storage: "DynamoStorage") -> RatingService:
    retention = timedelta(days=config.retention_days)
    settings = Settings(
        history_retention=retention,
        game_retention=retention,
        exact_rank_limit=config.exact_rank_limit,
    )
    return RatingService(storage, LADDERS, settings=settings)


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
    importing boto3 for it costs more still (docs/performance.md).
    """
    settings = config()
    client = storage().connection.session.create_client(
        "sqs", region_name=settings.region, endpoint_url=settings.sqs_endpoint_url
    )
    return cast("SQSClient", client)


def reset() -> None:
    """Forget everything built so far: the next call builds afresh from the environment.

    For processes that change their environment between uses (tests, the local stack).
    """
    config.cache_clear()
    storage.cache_clear()
    service.cache_clear()
    sqs_client.cache_clear()
