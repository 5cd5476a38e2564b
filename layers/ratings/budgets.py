"""How a function's time is shared out: the timeouts and retries of every AWS call, and how
long a use case may retry a write that met a concurrent one, all derived from the function's
timeout (template.yaml's Globals `Timeout`, given to the code as RATINGS_FUNCTION_TIMEOUT).

The SDKs' defaults would outlast any of our functions: pynamodb waits 15 s to connect and
30 s for an answer, 4 times; botocore's SQS client 60 s and 60 s, 3 times. The Api has 10 s,
so a slow DynamoDB would kill its invocation and API Gateway would answer a bare 5xx. Cut to
these, a call ends (or fails) well inside the budget, and each attempt is only started while
it can end in time (`ratings.lambda_support.invocation`), so a slow store is a 503 with
Retry-After, or a message sent back to its queue, never a timed-out function.

Standard library only, like `ratings.config`, which reads the timeout.
"""

from typing import NamedTuple

#: botocore's standard retry mode waits at most min(20 s, 2**i s) before retry i + 1 (that
#: for throttling; 25-50 ms times 2**i otherwise).
_BOTOCORE_MAX_BACKOFF_SECONDS = 20.0


class CallTimeouts(NamedTuple):
    """The timeouts and retries of one AWS call (botocore's standard retry mode)."""

    connect_seconds: float
    read_seconds: float
    #: Retries botocore makes of a throttled, failed or timed-out attempt.
    retries: int

    @property
    def attempt_seconds(self) -> float:
        """The longest one attempt (one HTTP request) can take."""
        return self.connect_seconds + self.read_seconds

    @property
    def call_seconds(self) -> float:
        """The longest a call can take, its retries and their backoff included."""
        backoff = sum(min(_BOTOCORE_MAX_BACKOFF_SECONDS, 2.0**i) for i in range(self.retries))
        return (1 + self.retries) * self.attempt_seconds + backoff


def call_timeouts(function_timeout: float) -> CallTimeouts:
    """A twentieth of the timeout to connect, up to 1 s; 15% to read, up to 3 s; one retry.

    DynamoDB and SQS answer in milliseconds: these leave room for a slow moment, not for an
    outage. For the Api's 10 s: 0.5 s + 1.5 s an attempt, 5 s for a call and its retry.
    """
    return CallTimeouts(
        connect_seconds=min(1.0, function_timeout * 0.05),
        read_seconds=min(3.0, function_timeout * 0.15),
        retries=1,
    )


def retry_seconds(function_timeout: float) -> float:
    """How long a use case may retry contention: 40% of the timeout, at most 5 s (4 s for the
    Api). A game that still meets contention then is answered 503, or goes back to its queue,
    rather than hold the invocation."""
    return min(5.0, function_timeout * 0.4)
