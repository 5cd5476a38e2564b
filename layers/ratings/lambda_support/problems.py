"""The one mapping from an error to what the caller is told: status, stable code, message.

The HTTP API answers with it (api.md's error body), and the queue consumers use it to tell a
message that can never succeed (a 4xx: dead-letter it) from one that may succeed later (a 503:
retry it). An error with no mapping is a bug on our side: the adapters log it and answer 500.
"""

import sys
from collections.abc import Mapping
from typing import Any, NamedTuple

from ratings.aws_errors import TRANSIENT_AWS_CODES
from ratings.service.errors import (
    AlreadyLinked,
    GameConflict,
    InvalidCursor,
    InvalidInput,
    NotFound,
    NotRanked,
    RetryLater,
    TournamentConflict,
)
from ratings.service.ports import TransientStorageError, WriteConflict

#: The largest body (HTTP request or queue message) a caller may send.
MAX_BODY_BYTES = 64 * 1024

#: How far `is_transient` follows the causes of an error.
_MAX_CAUSES = 8


class PayloadTooLarge(Exception):
    """A body over MAX_BODY_BYTES; refused before it is parsed."""

    def __init__(self, size: int) -> None:
        super().__init__(
            f"the body has {size} bytes; at most {MAX_BODY_BYTES} bytes (64 KiB) are accepted"
        )
        self.message = str(self)


class Problem(NamedTuple):
    """What a caller is told about a request that did not succeed."""

    status: int
    code: str
    message: str

    @property
    def retryable(self) -> bool:
        """The same request may succeed later (throttling, contention, an outage)."""
        return self.status in (429, 503)

    def body(self) -> dict[str, Any]:
        return {"error": {"code": self.code, "message": self.message}}


#: Status and code per error type; the most specific type in an error's MRO wins.
_ANSWERS: Mapping[type[Exception], tuple[int, str]] = {
    InvalidInput: (400, "invalid_request"),
    InvalidCursor: (400, InvalidCursor.code),
    NotFound: (404, NotFound.code),
    NotRanked: (404, NotRanked.code),
    GameConflict: (409, GameConflict.code),
    TournamentConflict: (409, TournamentConflict.code),
    AlreadyLinked: (409, AlreadyLinked.code),
    PayloadTooLarge: (413, "payload_too_large"),
    RetryLater: (503, RetryLater.code),
}

RETRY_LATER_MESSAGE = "the service is busy or briefly unavailable; retry later with backoff"


def problem_for(error: BaseException) -> Problem | None:
    """The answer for an error the caller caused or that retrying can cure; None for a bug."""
    for kind in type(error).__mro__:
        answer = _ANSWERS.get(kind)
        if answer is not None:
            status, code = answer
            return Problem(status, code, str(getattr(error, "message", error)))
    if is_transient(error):
        return Problem(503, RetryLater.code, RETRY_LATER_MESSAGE)
    return None


def is_transient(error: BaseException) -> bool:
    """True when the error, or one it was raised from, is throttling, contention or an outage."""
    seen: BaseException | None = error
    for _depth in range(_MAX_CAUSES):
        if seen is None:
            return False
        if isinstance(seen, TransientStorageError | WriteConflict | RetryLater | TimeoutError):
            return True
        if _is_transient_aws_error(seen):
            return True
        # `raise ... from`, or pynamodb's wrapped botocore error; never the implicit context,
        # which would make a bug in an except block look transient.
        cause = seen.__cause__ or getattr(seen, "cause", None)
        seen = cause if isinstance(cause, BaseException) else None
    return False


def _is_transient_aws_error(error: BaseException) -> bool:
    aws = sys.modules.get("botocore.exceptions")
    if aws is None:
        return False  # no AWS client was ever made, so this is no AWS error
    if isinstance(error, aws.ConnectionError | aws.HTTPClientError):
        return True  # could not connect, connection closed, read timeout
    if isinstance(error, aws.ClientError):  # pynamodb's VerboseClientError too
        code = error.response.get("Error", {}).get("Code", "")
        status = error.response.get("ResponseMetadata", {}).get("HTTPStatusCode", 0)
        return code in TRANSIENT_AWS_CODES or status >= 500
    return False
