"""What a failed DynamoDB request means to the use cases: retry later (TransientStorageError),
re-read and retry (WriteConflict), the record exists (AlreadyStored), or a bug (re-raised).
"""

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import NoReturn

from pynamodb.exceptions import PynamoDBException, TransactWriteError

from ratings.aws_errors import TRANSIENT_AWS_CODES, TRANSIENT_CANCELLATION_REASONS
from ratings.service.errors import TransientStorageError, WriteConflict

#: Cancellation reasons that mean another writer got there first.
_CONFLICT_REASONS = frozenset({"TransactionConflict", "ConditionalCheckFailed"})


@contextmanager
def transient_as_storage_error() -> Iterator[None]:
    """Inside the block, a pynamodb error with a transient code becomes TransientStorageError;
    any other error passes unchanged."""
    try:
        yield
    except PynamoDBException as error:
        if error.cause_response_code in TRANSIENT_AWS_CODES:
            raise TransientStorageError(str(error)) from error
        raise


def raise_for_cancelled(error: TransactWriteError, failed: Sequence[Exception]) -> NoReturn:
    """Raise what a cancelled transaction means: `failed[i]` when the condition of the i-th
    item (in the order sent) failed; `error` itself when no meaning fits."""
    reasons = error.cancellation_reasons or []
    for meaning, reason in zip(failed, reasons, strict=False):
        if reason is not None and reason.code == "ConditionalCheckFailed":
            raise meaning from error
    codes = {reason.code for reason in reasons if reason is not None}
    if codes & _CONFLICT_REASONS:
        raise WriteConflict(str(codes)) from error
    transient = TRANSIENT_AWS_CODES | TRANSIENT_CANCELLATION_REASONS
    if error.cause_response_code in TRANSIENT_AWS_CODES or codes & transient:
        raise TransientStorageError(str(error)) from error
    raise error
