"""The errors a use case can end in. Adapters (HTTP, queues) map them; nothing else does.

`InvalidInput` comes from the rules package and is re-exported here so callers need one import.
"""

from ratings.rules.errors import InvalidInput


class InvalidCursor(InvalidInput):
    """A page cursor that is not a next_cursor of this very listing."""

    code = "invalid_cursor"

    def __init__(self) -> None:
        super().__init__(
            "cursor", "cursor must be the next_cursor of a previous page of this same listing"
        )


class ServiceError(Exception):
    """Base of the service's own outcomes; `code` is the stable machine-readable name."""

    code = "service_error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class NotFound(ServiceError):
    """An unknown ladder, or a game or tournament that is not (or no longer) stored."""

    code = "not_found"


class NotRanked(NotFound):
    """The player has no ranked games in the ladder, so has no place on its leaderboard."""

    code = "not_ranked"


class GameConflict(ServiceError):
    """The game id was already used with other content."""

    code = "game_conflict"


class TournamentConflict(ServiceError):
    """The tournament id was already awarded with another podium."""

    code = "tournament_conflict"


class AlreadyLinked(ServiceError):
    """The anonymous id is already linked, or the account already absorbed one."""

    code = "already_linked"


class RetryLater(ServiceError):
    """A transient failure (contention, throttling): the same request may succeed later."""

    code = "retry_later"


__all__ = [
    "AlreadyLinked",
    "GameConflict",
    "InvalidCursor",
    "InvalidInput",
    "NotFound",
    "NotRanked",
    "RetryLater",
    "ServiceError",
    "TournamentConflict",
]
