"""Every error a use case can end in, each class declaring its stable `code` and its
`disposition` (what it means for the caller, and so what the adapters do with it). The
dispositions, the base `ServiceError`, which failures are transient and `classify` are the
error taxonomy, `ratings.errors`; `ServiceError`, `Disposition` and the rules' `InvalidInput`
are re-exported here so callers need one import. The storage ports' errors are here too: a use
case retries them, and those left over are transient for the caller.
"""

from ratings.declare.kinds import InvalidInput
from ratings.errors import RETRY_LATER_MESSAGE, Disposition, ServiceError


class InvalidCursor(InvalidInput):
    """A page cursor that is not a next_cursor of this very listing."""

    code = "invalid_cursor"

    def __init__(self) -> None:
        super().__init__(
            "cursor", "cursor must be the next_cursor of a previous page of this same listing"
        )


class NotFound(ServiceError):
    """An unknown ladder, or a game or tournament that is not (or no longer) stored."""

    code = "not_found"
    disposition = Disposition.NOT_FOUND


class NotRanked(NotFound):
    """The player has no ranked games in the ladder, so has no place on its leaderboard."""

    code = "not_ranked"


class Conflict(ServiceError):
    """The request collides with what is stored under the same id: sending it again never
    helps, a new id or the stored content would."""

    disposition = Disposition.CONFLICT


class GameConflict(Conflict):
    """The game id was already used with other content."""

    code = "game_conflict"


class TournamentConflict(Conflict):
    """The tournament id was already awarded with another podium."""

    code = "tournament_conflict"


class SeasonConflict(Conflict):
    """The season id was used before, for another start (or with other content)."""

    code = "season_conflict"


class AlreadyLinked(Conflict):
    """The anonymous id is already linked, or the account already absorbed one."""

    code = "already_linked"


class SanctionConflict(Conflict):
    """The sanction id was already used with other content."""

    code = "sanction_conflict"


class AlreadySanctioned(Conflict):
    """The player is under another sanction in the ladder already (lift it first)."""

    code = "already_sanctioned"


class RetryLater(ServiceError):
    """A transient failure (contention, throttling): the same request may succeed later."""

    code = Disposition.RETRY_LATER.value
    disposition = Disposition.RETRY_LATER


class PlayerErasing(RetryLater):
    """A player of the request is being erased: once the erasure is done, the same request
    meets a player never seen (a retry of a game already stored is answered as ever)."""

    code = "erasure_pending"

    def __init__(self) -> None:
        # No id in the words: the adapters log them (docs/security.md, "Erasure").
        super().__init__(
            "a player of this request is being erased; retry later (once the erasure is done, "
            "the id starts afresh)"
        )


class PlayerDailyLimit(ServiceError):
    """A player of the game has had the day's most games rated already (UTC days): the limit
    that keeps a player's stored history within the store's size limit
    (`ratings.service.facade`). The same game is accepted from the next UTC day on."""

    code = "player_daily_limit"
    disposition = Disposition.REFUSED

    def __init__(self, position: int, limit: int) -> None:
        # The position, not the id: the adapters log the message.
        super().__init__(
            f"players[{position}] has had {limit} games rated today (UTC), the most a player "
            "may have in a day; send the game again after 00:00 UTC"
        )


class PlayerStorageFull(ServiceError):
    """The store refused a write to a player's partition: its items and their index entries
    reached the 10 GB DynamoDB lets one partition key hold in a table with a local secondary
    index (ItemCollectionSizeLimitExceeded). The daily game limit keeps it out of reach
    (docs/table-layout.md, "How big a player's partition gets"); met all the same, the request
    is refused at once: retrying cannot help until the player's old history expires."""

    code = "player_storage_full"
    disposition = Disposition.REFUSED

    def __init__(self) -> None:
        # No id in the words: the store's error does not say which player's partition is full.
        super().__init__(
            "the stored history of a player of this request has reached the store's size "
            "limit, so nothing was stored; sending it again does not help until older "
            "history expires: report it to the operator"
        )


# The storage ports' errors ------------------------------------------------------------------


class StorageContention(ServiceError):
    """What a use case retries itself; left over, it is transient for the caller, who is
    told so in general words (the error's own are the store's, for the logs)."""

    code = RetryLater.code
    disposition = Disposition.RETRY_LATER

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = RETRY_LATER_MESSAGE


class WriteConflict(StorageContention):
    """A version condition failed or a concurrent transaction got there first: re-read, retry."""


class TransientStorageError(StorageContention):
    """The store throttled or failed in a way that retrying later can cure."""


class AlreadyStored(Exception):
    """The record a commit creates (game, tournament, identity link) exists already. The use
    cases always handle it: one that escapes is a bug."""


__all__ = [
    "AlreadyLinked",
    "AlreadySanctioned",
    "AlreadyStored",
    "Conflict",
    "Disposition",
    "GameConflict",
    "InvalidCursor",
    "InvalidInput",
    "NotFound",
    "NotRanked",
    "PlayerDailyLimit",
    "PlayerErasing",
    "PlayerStorageFull",
    "RetryLater",
    "SanctionConflict",
    "ServiceError",
    "StorageContention",
    "TournamentConflict",
    "TransientStorageError",
    "WriteConflict",
]
