"""The one place that reads configuration: environment variables set by template.yaml."""

import os
from collections.abc import Mapping
from typing import NamedTuple

#: Every environment variable the code reads, with what it is for (the template sets them).
ENVIRONMENT = {
    "RATINGS_TABLE": "name of the DynamoDB table",
    "RATINGS_LEADERBOARD_SHARDS": "write shards of the leaderboard index (default 4)",
    "RATINGS_RETENTION_DAYS": "days history records and game records are kept (default 30)",
    "RATINGS_EXACT_RANK_LIMIT": "ranks counted exactly, beyond them estimated (default 1000)",
    "RATINGS_GAMES_DLQ_URL": "games dead-letter queue (GamesQueue function)",
    "RATINGS_PODIUM_QUEUE_URL": "podium queue to drain (AwardPodiums function)",
    "RATINGS_PODIUM_DLQ_URL": "podium dead-letter queue (AwardPodiums function)",
    "RATINGS_DRAIN_SECONDS": "time budget of one podium drain (default 60)",
    "RATINGS_MODERATION_JOBS_QUEUE_URL": "moderation jobs queue (Moderation, ModerationWorker)",
    "RATINGS_MODERATION_JOBS_DLQ_URL": "moderation jobs dead-letter queue (ModerationWorker)",
}


class Config(NamedTuple):
    table_name: str
    region: str = "us-east-1"
    #: Set only locally: the emulated AWS endpoint (boto3 reads AWS_ENDPOINT_URL itself).
    endpoint_url: str | None = None
    leaderboard_shards: int = 4
    retention_days: int = 30
    exact_rank_limit: int = 1000
    games_dlq_url: str | None = None
    podium_queue_url: str | None = None
    podium_dlq_url: str | None = None
    drain_seconds: float = 60.0
    moderation_jobs_queue_url: str | None = None
    moderation_jobs_dlq_url: str | None = None

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> "Config":
        env = os.environ if env is None else env
        return cls(
            table_name=env.get("RATINGS_TABLE", "ratings"),
            region=env.get("AWS_REGION") or env.get("AWS_DEFAULT_REGION") or "us-east-1",
            endpoint_url=env.get("AWS_ENDPOINT_URL") or None,
            leaderboard_shards=int(env.get("RATINGS_LEADERBOARD_SHARDS", "4")),
            retention_days=int(env.get("RATINGS_RETENTION_DAYS", "30")),
            exact_rank_limit=int(env.get("RATINGS_EXACT_RANK_LIMIT", "1000")),
            games_dlq_url=env.get("RATINGS_GAMES_DLQ_URL") or None,
            podium_queue_url=env.get("RATINGS_PODIUM_QUEUE_URL") or None,
            podium_dlq_url=env.get("RATINGS_PODIUM_DLQ_URL") or None,
            drain_seconds=float(env.get("RATINGS_DRAIN_SECONDS", "60")),
            moderation_jobs_queue_url=env.get("RATINGS_MODERATION_JOBS_QUEUE_URL") or None,
            moderation_jobs_dlq_url=env.get("RATINGS_MODERATION_JOBS_DLQ_URL") or None,
        )
