"""Writes made once per id (a game, a tournament): a retry with the same content is answered
with the stored result, other content under the same id is a conflict."""

from collections.abc import Callable

from ratings.service.errors import AlreadyStored, ServiceError, WriteConflict
from ratings.service.results import Submitted
from ratings.service.stored import StoredGame, StoredTournament

Stored = StoredGame | StoredTournament


def commit_once(
    record: Stored,
    conflict: ServiceError,
    commit: Callable[[], None],
    stored_now: Callable[[], Stored | None],
) -> Submitted:
    """`commit` (which creates `record`), answered with the record's result; if the id was
    stored meanwhile, answered as a retry of what `stored_now` reads back (or `conflict`)."""
    try:
        commit()
    except AlreadyStored:  # stored meanwhile: answered as a retry of it
        return answer_again(stored_now(), record.fingerprint, conflict)
    return Submitted(record.result, created=True)


def answer_again(stored: Stored | None, fingerprint: str, conflict: ServiceError) -> Submitted:
    """The stored result when `fingerprint` is the stored one's, else `conflict`. None (the
    record was stored and is gone again since the commit said so) is a WriteConflict: the
    attempt is made afresh."""
    if stored is None:
        raise WriteConflict(conflict.message)
    if stored.fingerprint != fingerprint:
        raise conflict
    return Submitted(stored.result, created=False)
