"""The error taxonomy, in one place: what each error means for the caller (its `Disposition`),
which failures are transient, and `classify`, the one reading of an error that the adapters
act on.

- refused: the request is wrong; sending it again never helps (HTTP 4xx, dead-lettered)
- conflict: it collides with what is stored under the same id (409, dead-lettered)
- not found: what it names is not stored (404, dead-lettered)
- retry later: contention, throttling, an outage; the same request may succeed (503, the
  message stays in its queue)
- bug: none of the above; our fault (500, the message stays in its queue)

An error the service raises on purpose is a `ServiceError`, whose class declares its `code`
and `disposition` (the rules' `InvalidInput`, the service's errors in
`ratings.service.errors`, the adapters' `PayloadTooLarge`). Anything else is transient when it,
or an error it was raised from, is a timeout or a transient AWS error (`is_transient`), and a
bug when not. The storage adapter turns a transient DynamoDB error into TransientStorageError
(the use cases retry it at once); the HTTP mapping (`ratings.lambda_support.problems`) and the
queue consumers (`ratings.lambda_support.queues`) read `classify(error).disposition`; nothing
matches error types or messages anywhere else.

Standard library only, so importing it costs nothing on a cold start; botocore is consulted
only once something has loaded it.
"""

import sys
from enum import StrEnum
from typing import ClassVar, NamedTuple


class Disposition(StrEnum):
    REFUSED = "refused"
    CONFLICT = "conflict"
    NOT_FOUND = "not_found"
    RETRY_LATER = "retry_later"
    BUG = "bug"


#: What a caller is told about a transient failure whose own words are not for it.
RETRY_LATER_MESSAGE = "the service is busy or briefly unavailable; retry later with backoff"
#: What a caller is told about a bug (the adapters log the error itself).
BUG_MESSAGE = "an unexpected error happened"


class ServiceError(Exception):
    """Base of the service's own outcomes: each class declares its stable machine-readable
    `code` and its `disposition`; `message` is what the caller is told."""

    code: ClassVar[str] = "service_error"
    disposition: ClassVar[Disposition] = Disposition.BUG

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


# Transient failures ---------------------------------------------------------------------------

#: Error codes of a whole request (DynamoDB, SQS, and generic ones): throttling, contention,
#: an outage.
TRANSIENT_AWS_CODES = frozenset(
    {
        "InternalError",
        "InternalFailure",
        "InternalServerError",
        "LimitExceededException",
        "ProvisionedThroughputExceededException",
        "RequestLimitExceeded",
        "RequestThrottled",
        "RequestTimeout",
        "RequestTimeoutException",
        "ServiceUnavailable",
        "ThrottledException",
        "Throttling",
        "ThrottlingException",
        "TooManyRequestsException",
        "TransactionConflictException",
        "TransactionInProgressException",
    }
)

#: Cancellation reasons of one item of a cancelled DynamoDB transaction that retrying cures
#: (they are named differently from the request's error codes).
TRANSIENT_CANCELLATION_REASONS = frozenset({"ThrottlingError", "ProvisionedThroughputExceeded"})

#: How far `is_transient` follows the causes of an error.
_MAX_CAUSES = 8


def is_transient(error: BaseException) -> bool:
    """True when the error, or one it was raised from, is throttling, contention or an outage:
    a ServiceError whose disposition is retry later, a timeout, or a transient AWS error."""
    seen: BaseException | None = error
    for _depth in range(_MAX_CAUSES):
        if seen is None:
            return False
        if isinstance(seen, ServiceError) and seen.disposition is Disposition.RETRY_LATER:
            return True
        if isinstance(seen, TimeoutError) or is_transient_aws_error(seen):
            return True
        # `raise ... from`, or pynamodb's wrapped botocore error; never the implicit context,
        # which would make a bug in an except block look transient.
        cause = seen.__cause__ or getattr(seen, "cause", None)
        seen = cause if isinstance(cause, BaseException) else None
    return False


def is_transient_aws_error(error: BaseException) -> bool:
    """True when `error` itself (not its causes) is an AWS client error that retrying may
    cure: no answer in time or none at all, a transient code, or a 5xx."""
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


# Classifying ----------------------------------------------------------------------------------


class Classified(NamedTuple):
    """What an error means to the caller: its disposition, code and message."""

    disposition: Disposition
    code: str
    message: str


def classify(error: BaseException) -> Classified:
    """A ServiceError's own disposition, code and message; any other error is retry later
    when it (or an error it was raised from) is transient, and a bug when not."""
    if isinstance(error, ServiceError):
        return Classified(error.disposition, error.code, error.message or str(error))
    if is_transient(error):
        retry_later = Disposition.RETRY_LATER
        return Classified(retry_later, retry_later.value, RETRY_LATER_MESSAGE)
    return Classified(Disposition.BUG, "internal_error", BUG_MESSAGE)
