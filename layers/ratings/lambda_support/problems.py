"""The HTTP side of the error taxonomy: what a caller is told (status, stable code, message),
derived from the error's disposition (`ratings.errors.classify`).

The HTTP API answers with it (api.md's error body); the queue consumers read the same
disposition to dead-letter a message or leave it for a retry. A bug is answered 500 and
logged by the adapter that met it.
"""

from typing import Any, NamedTuple

from ratings.errors import Disposition, ServiceError, classify
from ratings.service.results import ErrorBody, ErrorDetail, json_of

#: The largest body (HTTP request or queue message) a caller may send.
MAX_BODY_BYTES = 64 * 1024

#: The HTTP status of each disposition.
STATUS = {
    Disposition.REFUSED: 400,
    Disposition.NOT_FOUND: 404,
    Disposition.CONFLICT: 409,
    Disposition.RETRY_LATER: 503,
    Disposition.BUG: 500,
}
#: Refusals that HTTP has a status of their own for, by code: a player's partition at the
#: store's limit is 507 Insufficient Storage (the server cannot store it; sending it again
#: does not help); a player's daily limit 429, as an API key's quota is.
_REFUSAL_STATUS = {"payload_too_large": 413, "player_storage_full": 507, "player_daily_limit": 429}


class PayloadTooLarge(ServiceError):
    """A body over MAX_BODY_BYTES; refused before it is parsed."""

    code = "payload_too_large"
    disposition = Disposition.REFUSED

    def __init__(self, size: int) -> None:
        super().__init__(
            f"the body has {size} bytes; at most {MAX_BODY_BYTES} bytes (64 KiB) are accepted"
        )


class Problem(NamedTuple):
    """What a caller is told about a request that did not succeed."""

    status: int
    code: str
    message: str
    disposition: Disposition

    @property
    def retryable(self) -> bool:
        """The same request may succeed later (throttling, contention, an outage)."""
        return self.disposition is Disposition.RETRY_LATER

    def body(self) -> dict[str, Any]:
        return json_of(ErrorBody(ErrorDetail(self.code, self.message)))


def problem_for(error: BaseException) -> Problem:
    """The answer for any error, by its disposition (a bug is a 500)."""
    disposition, code, message = classify(error)
    status = STATUS[disposition]
    if disposition is Disposition.REFUSED:
        status = _REFUSAL_STATUS.get(code, status)
    return Problem(status, code, message, disposition)


def refused(code: str, message: str, status: int = 400) -> Problem:
    """A refusal an adapter makes itself (a body or a route no use case sees)."""
    return Problem(status, code, message, Disposition.REFUSED)
