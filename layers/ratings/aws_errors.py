"""Which failures are transient, classified once for every adapter: the AWS error codes after
which the same call may succeed, `is_transient_aws_error`, which reads one AWS client error,
and `is_transient`, which follows an error's causes.

The storage adapter turns a transient DynamoDB error into TransientStorageError (the use cases
retry it at once); whatever reaches a Lambda adapter still transient is answered 503 or left in
its queue for a retry (`ratings.service.errors.classify`). Standard library only, so importing
it costs nothing on a cold start; botocore is consulted only once something has loaded it.
"""

import sys

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

#: The disposition of an error that retrying later may cure (`Disposition.RETRY_LATER`).
RETRY_LATER = "retry_later"

#: How far `is_transient` follows the causes of an error.
_MAX_CAUSES = 8


def is_transient(error: BaseException) -> bool:
    """True when the error, or one it was raised from, is throttling, contention or an outage:
    an error whose disposition is retry later, a timeout, or a transient AWS error."""
    seen: BaseException | None = error
    for _depth in range(_MAX_CAUSES):
        if seen is None:
            return False
        if getattr(seen, "disposition", None) == RETRY_LATER or isinstance(seen, TimeoutError):
            return True
        if is_transient_aws_error(seen):
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
