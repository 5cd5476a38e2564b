"""The one error the rating rules raise: input that no ruleset can rate."""

from ratings.errors import Disposition, ServiceError


class InvalidInput(ServiceError, ValueError):
    """A game, state or parameter the rules refuse.

    `field` names the offending input the way a caller wrote it (``cube``,
    ``players[1].stats.bad_moves``); the message says what was wrong and what is allowed.
    Like every error the service can end in, it carries its stable `code` and what it means
    for the caller (`disposition`: refused, sending it again never helps); the error taxonomy
    (`ratings.errors`) names the dispositions.
    """

    code = "invalid_request"
    disposition = Disposition.REFUSED

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
