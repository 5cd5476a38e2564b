"""The one error the rating rules raise: input that no ruleset can rate."""


class InvalidInput(ValueError):
    """A game, state or parameter the rules refuse.

    `field` names the offending input the way a caller wrote it (``cube``,
    ``players[1].stats.bad_moves``); the message says what was wrong and what is allowed.
    Like every error the service can end in, it carries its stable `code` and what it means
    for the caller (`disposition`: "refused", sending it again never helps); the service's
    error taxonomy (`ratings.service.errors`) names the dispositions.
    """

    code = "invalid_request"
    disposition = "refused"

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message
