"""The one place that builds clients and the service from configuration.

Handlers call `service()` per invocation; the first call builds everything and later calls in
the same container reuse it (clients are the expensive part of a cold start).
"""

from datetime import timedelta
from functools import cache
from typing import TYPE_CHECKING

from ratings.config import Config
from ratings.rules import DEFAULT_LADDERS
from ratings.service.usecases import RatingService, Settings

if TYPE_CHECKING:
    from mypy_boto3_sqs import SQSClient

#: The ladders this deployment serves.
LADDERS = DEFAULT_LADDERS


def build_service(config: Config) -> RatingService:
    from ratings.storage.dynamodb import DynamoStorage

    storage = DynamoStorage(
        config.table_name,
        region=config.region,
        endpoint_url=config.endpoint_url,
        leaderboard_shards=config.leaderboard_shards,
    )
    retention = timedelta(days=config.retention_days)
    settings = Settings(history_retention=retention, game_retention=retention)
    return RatingService(storage, LADDERS, settings=settings)


@cache
def config() -> Config:
    return Config.from_env()


@cache
def service() -> RatingService:
    return build_service(config())


@cache
def sqs_client() -> "SQSClient":
    """The container's SQS client, made on first use (the Api never pays for it)."""
    import boto3

    settings = config()
    return boto3.client("sqs", region_name=settings.region, endpoint_url=settings.endpoint_url)


def reset() -> None:
    """Forget everything built so far: the next call builds afresh from the environment.

    For processes that change their environment between uses (tests, the local stack).
    """
    config.cache_clear()
    service.cache_clear()
    sqs_client.cache_clear()
