"""AWS error codes after which the same call may succeed: listed once, for every adapter.

The storage adapter turns them into TransientStorageError (the use cases retry it) and the
Lambda adapters answer them with 503 or leave the message for a retry. Standard library only,
so importing it costs nothing on a cold start.
"""

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
