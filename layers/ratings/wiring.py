"""The one place that builds clients and the service from configuration.

Handlers call `service()` per invocation; the first call builds everything and later calls in
the same container reuse it (clients are the expensive part of a cold start).
"""

from datetime import timedelta
from functools import cache

from ratings.config import Config
from ratings.rules import DEFAULT_LADDERS
from ratings.service.usecases import RatingService, Settings


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
    return RatingService(storage, DEFAULT_LADDERS, settings=settings)


@cache
def config() -> Config:
    return Config.from_env()


@cache
def service() -> RatingService:
    return build_service(config())
