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
    "RATINGS_FUNCTION_TIMEOUT": "Globals Timeout, seconds: every AWS call fits in it (default 10)",
    "RATINGS_GAMES_QUEUE_URL": "games queue, for a game sent back after contention (GamesQueue)",
    "RATINGS_GAMES_DLQ_URL": "games dead-letter queue (GamesQueue function)",
    "RATINGS_PODIUM_QUEUE_URL": "podium queue to drain (AwardPodiums function)",
    "RATINGS_PODIUM_DLQ_URL": "podium dead-letter queue (AwardPodiums function)",
    "RATINGS_DRAIN_SECONDS": "time budget of one podium drain (default 60)",
    "RATINGS_MODERATION_JOBS_QUEUE_URL": "moderation jobs queue (Moderation, ModerationWorker)",
    "RATINGS_MODERATION_JOBS_DLQ_URL": "moderation jobs dead-letter queue (ModerationWorker)",
    "RATINGS_EVENT_BUS_NAME": "the event bus the events go on (PublishEvents function)",
    "RATINGS_LADDERS_FILE": (
        "another ladders file than the layer's ratings/ladders.json (the local stack, tests); "
        "the template sets none"
    ),
}
#: Of ENVIRONMENT, what the template leaves unset: the deployed functions use the default.
NOT_SET_BY_TEMPLATE = frozenset({"RATINGS_LADDERS_FILE"})


class Config(NamedTuple):
    table_name: str
    region: str = "us-east-1"
    #: Set only locally: where the table's requests go (the local stack's moto or DynamoDB Local).
    dynamodb_endpoint_url: str | None = None
    #: Set only locally: where the queues' requests go (moto).
    sqs_endpoint_url: str | None = None
    leaderboard_shards: int = 4
    retention_days: int = 30
    exact_rank_limit: int = 1000
    #: The Api's timeout, template.yaml's Globals Timeout; the other functions have more time,
    #: but their calls need no longer timeouts than the Api's (`ratings.budgets`).
    function_timeout: float = 10.0
    games_queue_url: str | None = None
    games_dlq_url: str | None = None
    podium_queue_url: str | None = None
    podium_dlq_url: str | None = None
    drain_seconds: float = 60.0
    moderation_jobs_queue_url: str | None = None
    moderation_jobs_dlq_url: str | None = None
    event_bus_name: str | None = None
    #: Set only locally: where the bus's requests go (moto).
    events_endpoint_url: str | None = None

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> "Config":
        env = os.environ if env is None else env
        return cls(
            table_name=env.get("RATINGS_TABLE", "ratings"),
            region=env.get("AWS_REGION") or env.get("AWS_DEFAULT_REGION") or "us-east-1",
            dynamodb_endpoint_url=configured_endpoint(env, "DYNAMODB"),
            sqs_endpoint_url=configured_endpoint(env, "SQS"),
            leaderboard_shards=int(env.get("RATINGS_LEADERBOARD_SHARDS", "4")),
            retention_days=int(env.get("RATINGS_RETENTION_DAYS", "30")),
            exact_rank_limit=int(env.get("RATINGS_EXACT_RANK_LIMIT", "1000")),
            function_timeout=float(env.get("RATINGS_FUNCTION_TIMEOUT", "10")),
            games_queue_url=env.get("RATINGS_GAMES_QUEUE_URL") or None,
            games_dlq_url=env.get("RATINGS_GAMES_DLQ_URL") or None,
            podium_queue_url=env.get("RATINGS_PODIUM_QUEUE_URL") or None,
            podium_dlq_url=env.get("RATINGS_PODIUM_DLQ_URL") or None,
            drain_seconds=float(env.get("RATINGS_DRAIN_SECONDS", "60")),
            moderation_jobs_queue_url=env.get("RATINGS_MODERATION_JOBS_QUEUE_URL") or None,
            moderation_jobs_dlq_url=env.get("RATINGS_MODERATION_JOBS_DLQ_URL") or None,
            event_bus_name=env.get("RATINGS_EVENT_BUS_NAME") or None,
            events_endpoint_url=configured_endpoint(env, "EVENTBRIDGE"),
        )


def ladders_file(env: Mapping[str, str] | None = None) -> str | None:
    """The ladders file RATINGS_LADDERS_FILE names; None for the one the layer ships.

    Read apart from `Config`: the ladders are read when `ratings.wiring` is imported, before
    anything else is configured (`ratings.rules.ladder_config`)."""
    env = os.environ if env is None else env
    return env.get("RATINGS_LADDERS_FILE") or None


def configured_endpoint(env: Mapping[str, str], service: str) -> str | None:
    """The endpoint botocore would configure for `service` from the environment.

    The clients are given their endpoint explicitly (pynamodb passes one whenever it has a
    host), and an explicit endpoint overrides botocore's own reading of the environment: so
    the precedence botocore documents is kept here. AWS_ENDPOINT_URL_<SERVICE> first, then
    AWS_ENDPOINT_URL, neither when AWS_IGNORE_CONFIGURED_ENDPOINT_URLS is true.
    """
    if env.get("AWS_IGNORE_CONFIGURED_ENDPOINT_URLS", "").strip().lower() == "true":
        return None
    return env.get(f"AWS_ENDPOINT_URL_{service}") or env.get("AWS_ENDPOINT_URL") or None
