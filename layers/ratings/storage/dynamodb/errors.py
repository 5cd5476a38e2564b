"""What a failed DynamoDB request means to the use cases: retry later (TransientStorageError),
re-read and retry (WriteConflict), the record exists (AlreadyStored), a player's partition is
full (PlayerStorageFull), or a bug (re-raised). Which failures are transient is the error
taxonomy's to say (`ratings.errors.is_transient`).
"""

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import NoReturn

from pynamodb.exceptions import PynamoDBException, TransactWriteError

from ratings.errors import TRANSIENT_AWS_CODES, TRANSIENT_CANCELLATION_REASONS, is_transient
from ratings.service.errors import PlayerStorageFull, TransientStorageError, WriteConflict

#: Cancellation reasons that mean another writer got there first.
_CONFLICT_REASONS = frozenset({"TransactionConflict", "ConditionalCheckFailed"})
#: A partition key's items and their local index entries are at 10 GB: as a request's error
#: code, and as the cancellation reason of a transaction's item.
FULL_COLLECTION_CODE = "ItemCollectionSizeLimitExceededException"
FULL_COLLECTION_REASON = "ItemCollectionSizeLimitExceeded"


@contextmanager
def transient_as_storage_error() -> Iterator[None]:
    """Inside the block, a pynamodb error with a transient code, or one that never got an
    answer (could not connect, timed out), becomes TransientStorageError, and a full item
    collection PlayerStorageFull; any other error passes unchanged."""
    try:
        yield
    except PynamoDBException as error:
        if is_transient(error):
            raise TransientStorageError(str(error)) from error
        if response_code(error) == FULL_COLLECTION_CODE:
            raise PlayerStorageFull() from error
        raise


def response_code(error: PynamoDBException) -> str | None:
    """DynamoDB's error code of the request behind `error`; None when there was no answer.

    (pynamodb's own `cause_response_code` fails on a timeout, whose cause has a `response`
    of None: the store's slowness became an AttributeError, and a 500.)
    """
    response = getattr(error.cause, "response", None)
    if not isinstance(response, dict):
        return None
    code = response.get("Error", {}).get("Code")
    return code if isinstance(code, str) else None


def raise_for_cancelled(error: TransactWriteError, failed: Sequence[Exception]) -> NoReturn:
    """Raise what a cancelled transaction means: `failed[i]` when the condition of the i-th
    item (in the order sent) failed; `error` itself when no meaning fits."""
    reasons = error.cancellation_reasons or []
    for meaning, reason in zip(failed, reasons, strict=False):
        if reason is not None and reason.code == "ConditionalCheckFailed":
            raise meaning from error
    codes = {reason.code for reason in reasons if reason is not None}
    # Before the conflicts: a retry would meet the full partition again.
    if FULL_COLLECTION_REASON in codes:
        raise PlayerStorageFull() from error
    if codes & _CONFLICT_REASONS:
        raise WriteConflict(str(codes)) from error
    transient = TRANSIENT_AWS_CODES | TRANSIENT_CANCELLATION_REASONS
    if is_transient(error) or codes & transient:
        raise TransientStorageError(str(error)) from error
    raise error
