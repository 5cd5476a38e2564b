"""The invocation's deadline, from Lambda's context, and the guard that keeps every AWS call
inside it: an attempt (one HTTP request, a botocore retry included) starts only while its
timeouts can still run out before the deadline; otherwise it fails at once with OutOfTime.

OutOfTime is a TimeoutError, which `problems` answers as transient: 503 with Retry-After over
HTTP, the message back to its queue for the consumers. So a slow store ends in an answer, and
never in an invocation Lambda kills (whose caller would get a bare 5xx, or whose batch would
come back whole).

A queue consumer keeps `settle_seconds` of its time for the send that settles its last
message: the table's calls must end that much earlier than its SQS calls.

The deadline is a context variable: the local stack runs several invocations in one process,
each on its own thread, and each sees its own.
"""

import math
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, NamedTuple, Protocol

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
def invocation(context: RemainingTime, *, settle_seconds: float = 0.0) -> Iterator[None]:
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
