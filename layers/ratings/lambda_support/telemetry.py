"""The service's metrics (CloudWatch EMF through Powertools), named once for every function.

- GamesRated: ranked games stored (a retry of a stored game is not counted again)
- GamesUnranked: unranked games stored, with the dimension `reason` (mode, bot, shared_network)
- ConflictsRetried: commits redone because another writer got there first, or throttling
- MessagesDeadLettered: queue messages that can never succeed, sent to their DLQ
- MessagesRequeued: queue messages that met contention or throttling, sent back to their queue
- PodiumsAwarded: tournaments whose podium was awarded (once per tournament id)
"""

from collections.abc import Iterator
from contextlib import contextmanager

from aws_lambda_powertools import Metrics, single_metric
from aws_lambda_powertools.metrics import MetricUnit

from ratings.declare.kinds import ID_PATTERN
from ratings.service.facade import RatingService
from ratings.service.game_result import Submitted

GAMES_RATED = "GamesRated"
GAMES_UNRANKED = "GamesUnranked"
CONFLICTS_RETRIED = "ConflictsRetried"
MESSAGES_DEAD_LETTERED = "MessagesDeadLettered"
MESSAGES_REQUEUED = "MessagesRequeued"
PODIUMS_AWARDED = "PodiumsAwarded"


def count(metrics: Metrics, name: str, value: int = 1) -> None:
    metrics.add_metric(name=name, unit=MetricUnit.Count, value=value)


def count_game(metrics: Metrics, submitted: Submitted) -> None:
    """Count a stored game as rated, or as unranked by its reason."""
    if not submitted.created:
        return
    reason = submitted.result.get("unranked_reason")
    if reason is None:
        count(metrics, GAMES_RATED)
        return
    # A dimension only this metric has: its own EMF record, with the function's defaults.
    with single_metric(
        name=GAMES_UNRANKED,
        unit=MetricUnit.Count,
        value=1,
        namespace=metrics.namespace,
        default_dimensions=metrics.default_dimensions,
    ) as metric:
        metric.add_dimension(name="reason", value=str(reason))


def count_podium(metrics: Metrics, submitted: Submitted) -> None:
    """Count an awarded podium (a podium awarded before is not counted again)."""
    if submitted.created:
        count(metrics, PODIUMS_AWARDED)


@contextmanager
def counting_retries(metrics: Metrics, service: RatingService) -> Iterator[RatingService]:
    """Count the conflicts `service` retries inside the block, whether it succeeds or not."""
    retrier = service.retrier
    before = retrier.retries
    try:
        yield service
    finally:
        retried = retrier.retries - before
        if retried:
            count(metrics, CONFLICTS_RETRIED, retried)


def loggable_id(value: object) -> str | None:
    """`value` if it is a well-formed id (game, tournament), else None: what a caller sends
    reaches the log keys only once it has the shape of an id."""
    if isinstance(value, str) and ID_PATTERN.fullmatch(value):
        return value
    return None
