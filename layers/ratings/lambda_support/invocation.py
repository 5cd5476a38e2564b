"""What every invocation of every function shares: the garbage collector paused during a cold
start, the deadline that every AWS call of an invocation ends before, and the metrics an
invocation counts. Each handler imports this first, so it imports only the standard library
and the declarations (standard library only themselves).

The cold start: the cyclic garbage collector waits until the first invocation is answered. A
cold start creates a few hundred thousand objects that live as long as the container
(modules, classes, botocore's service model) and almost no garbage, yet CPython's collector
walks them again and again while they are being created (what that costs each function as
built: docs/performance.md, "What each cold-start measure is worth").

So in Lambda each handler module calls `pause_collector()` before its imports, and its
entry point calls `resume_collector()` when it ends, however it ends: once the first
invocation has its answer, everything alive is moved to the permanent generation
(`gc.freeze`, so later collections skip it too) and the collector runs as usual again. The
price is that the few reference cycles that became garbage during start-up are never freed
(a few hundred objects, docs/performance.md).

Outside Lambda (tests, the local stack, tools that import a handler) nothing changes: a
long-lived process that imports a handler and never invokes it must not run without a
collector.
"""

import gc
import math
import os
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol

from ratings.declare.kinds import ID_PATTERN

if TYPE_CHECKING:
    from aws_lambda_powertools import Metrics

    from ratings.service.facade import RatingService
    from ratings.service.game_result import Submitted


_paused = False


def in_lambda(env: Mapping[str, str] | None = None) -> bool:
    """Whether this process is a Lambda execution environment (Lambda sets the name)."""
    return bool((os.environ if env is None else env).get("AWS_LAMBDA_FUNCTION_NAME"))


def pause_collector(env: Mapping[str, str] | None = None) -> bool:
    """In Lambda, stop automatic collection until `resume_collector`; True if it paused."""
    global _paused
    if _paused or not in_lambda(env) or not gc.isenabled():
        return False
    gc.disable()
    _paused = True
    return True


def resume_collector() -> None:
    """Freeze what start-up built and collect automatically again (once; later calls no-op)."""
    global _paused
    if not _paused:
        return
    _paused = False
    gc.freeze()
    gc.enable()


# The invocation's deadline, from Lambda's context, and the guard that keeps every AWS call
# inside it: an attempt (one HTTP request, a botocore retry included) starts only while its
# timeouts can still run out before the deadline; otherwise it fails at once with OutOfTime.
#
# OutOfTime is a TimeoutError, which `problems` answers as transient: 503 with Retry-After over
# HTTP, the message back to its queue for the consumers. So a slow store ends in an answer, and
# never in an invocation Lambda kills (whose caller would get a bare 5xx, or whose batch would
# come back whole).
#
# A queue consumer keeps `settle_seconds` of its time for the send that settles its last
# message: the table's calls must end that much earlier than its SQS calls.
#
# The deadline is a context variable: the local stack runs several invocations in one process,
# each on its own thread, and each sees its own.

#: Kept back from the time Lambda gives: more than the longest sleep between two attempts of a
#: use case (0.4 s), and the answer's own path (serialising it, the logs, the metrics).
MARGIN_SECONDS = 0.5


class OutOfTime(TimeoutError):
    """An AWS call that could not end before the invocation's deadline was not started."""


class RemainingTime(Protocol):
    def get_remaining_time_in_millis(self) -> int: ...


class _Deadline(NamedTuple):
    #: When the last SQS call must be over (monotonic seconds).
    ends_at: float
    #: When the last table call must be over: earlier by what settling a message needs.
    work_ends_at: float


_current: ContextVar[_Deadline | None] = ContextVar("ratings_deadline", default=None)


@contextmanager
def deadline(context: RemainingTime, *, settle_seconds: float = 0.0) -> Iterator[None]:
    """Within the block, AWS calls end before the context's time runs out."""
    left = context.get_remaining_time_in_millis() / 1000 - MARGIN_SECONDS
    now = time.monotonic()
    token = _current.set(_Deadline(now + left, now + left - settle_seconds))
    try:
        yield
    finally:
        _current.reset(token)


def time_left(*, settling: bool = False) -> float:
    """Seconds until the table's calls (or, settling, the SQS calls) must be over; infinite
    outside an invocation (tests, scripts)."""
    deadline = _current.get()
    if deadline is None:
        return math.inf
    ends_at = deadline.ends_at if settling else deadline.work_ends_at
    return ends_at - time.monotonic()


def guard(client: Any, attempt_seconds: float, *, settling: bool = False) -> None:
    """Refuse any attempt of `client`'s requests that could not end before the deadline.

    Registered on botocore's `before-send`, which every attempt passes, retries included;
    first, so that no other handler (moto's, in tests) has answered it already.
    """

    def check(**_: Any) -> None:
        left = time_left(settling=settling)
        if left < attempt_seconds:
            raise OutOfTime(
                f"{max(left, 0.0):.2f} s left, an attempt may take {attempt_seconds:.2f} s"
            )

    client.meta.events.register_first("before-send", check)


# The service's metrics (CloudWatch EMF through Powertools), named once for every function.
#
# - GamesRated: ranked games stored (a retry of a stored game is not counted again)
# - GamesUnranked: unranked games stored, with the dimension `reason` (mode, bot, shared_network)
# - ConflictsRetried: commits redone because another writer got there first, or throttling
# - MessagesDeadLettered: queue messages that can never succeed, sent to their DLQ
# - MessagesRequeued: queue messages that met contention or throttling, sent back to their queue
# - PodiumsAwarded: tournaments whose podium was awarded (once per tournament id)
#
# Powertools is not imported here (this module is imported before the collector pauses): a
# metric's unit is its name, which Powertools accepts as well as its MetricUnit.

#: Powertools' unit of a count.
COUNT = "Count"

GAMES_RATED = "GamesRated"
GAMES_UNRANKED = "GamesUnranked"
CONFLICTS_RETRIED = "ConflictsRetried"
MESSAGES_DEAD_LETTERED = "MessagesDeadLettered"
MESSAGES_REQUEUED = "MessagesRequeued"
PODIUMS_AWARDED = "PodiumsAwarded"


def count(metrics: "Metrics", name: str, value: int = 1) -> None:
    metrics.add_metric(name=name, unit=COUNT, value=value)


def count_game(metrics: "Metrics", submitted: "Submitted") -> None:
    """Count a stored game as rated, or as unranked by its reason."""
    if not submitted.created:
        return
    reason = submitted.result.get("unranked_reason")
    if reason is None:
        count(metrics, GAMES_RATED)
        return
    # Imported here, not above: this module is imported before the collector pauses.
    from aws_lambda_powertools.metrics import MetricUnit, single_metric

    # A dimension only this metric has: its own EMF record, with the function's defaults.
    with single_metric(
        name=GAMES_UNRANKED,
        unit=MetricUnit.Count,
        value=1,
        namespace=metrics.namespace,
        default_dimensions=metrics.default_dimensions,
    ) as metric:
        metric.add_dimension(name="reason", value=str(reason))


def count_podium(metrics: "Metrics", submitted: "Submitted") -> None:
    """Count an awarded podium (a podium awarded before is not counted again)."""
    if submitted.created:
        count(metrics, PODIUMS_AWARDED)


@contextmanager
def counting_retries(metrics: "Metrics", service: "RatingService") -> "Iterator[RatingService]":
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
