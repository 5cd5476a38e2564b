"""The opaque page cursors of the listings (history, leaderboard, a sanction's decisions).

A cursor is opaque to callers: URL-safe base64 of a small JSON array that names its listing
(ladder; player for a history, sanction for its decisions), so a cursor of another listing,
or anything else, is refused with 400 invalid_cursor rather than read as some other position.
"""

import base64
import binascii
import json
import re
from datetime import datetime
from typing import Any

from ratings.declare.answers import format_utc_millis, parse_utc_millis
from ratings.declare.kinds import ID_PATTERN
from ratings.service.errors import InvalidCursor

MAX_CURSOR = 1024
#: Ratings and ranks in a cursor are integers of smaller magnitude than this: far beyond any
#: rating the rules reach or rank a board has, exact in a JSON client's double, and well
#: inside the 38 significant digits DynamoDB accepts in a key condition (a forged cursor with
#: more would otherwise reach the engine, which refuses it: a 500, not the caller's 400).
CURSOR_NUMBER_LIMIT = 10**15


def encode_cursor(position: list[Any]) -> str:
    raw = json.dumps(position, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _decode(cursor: object, listing: str, length: int) -> list[Any]:
    if not isinstance(cursor, str) or len(cursor) > MAX_CURSOR:
        raise InvalidCursor
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        position = json.loads(base64.urlsafe_b64decode(padded.encode()))
    except (ValueError, binascii.Error):
        raise InvalidCursor from None
    if not isinstance(position, list) or len(position) != length or position[0] != listing:
        raise InvalidCursor
    return position


def decode_position(cursor: object, listing: str, length: int) -> list[Any]:
    """The position a cursor of `listing` holds (`length` values, the listing's name first),
    or InvalidCursor."""
    return _decode(cursor, listing, length)


def history_cursor(ladder: str, player_id: str, at: datetime, event_type: str, ref_id: str) -> str:
    return encode_cursor(["h", ladder, player_id, format_utc_millis(at), event_type, ref_id])


def decode_history_cursor(
    cursor: object, ladder: str, player_id: str
) -> tuple[datetime, str, str] | None:
    """The (at, event type, ref_id) a history page continues after, or InvalidCursor."""
    if cursor is None:
        return None
    _listing, of_ladder, of_player, at, event_type, ref_id = _decode(cursor, "h", 6)
    # The event's type and id become part of the key the read starts after: ids only.
    if (
        (of_ladder, of_player) != (ladder, player_id)
        or not isinstance(at, str)
        or not all(
            isinstance(value, str) and ID_PATTERN.fullmatch(value) for value in (event_type, ref_id)
        )
    ):
        raise InvalidCursor
    try:
        return parse_utc_millis(at), event_type, ref_id
    except ValueError:
        raise InvalidCursor from None


def leaderboard_cursor(ladder: str, rank: int, rating: int, player_id: str) -> str:
    return encode_cursor(["b", ladder, rank, rating, player_id])


def decode_leaderboard_cursor(cursor: object, ladder: str) -> tuple[int, tuple[int, str] | None]:
    """(entries before the page, the (rating, player_id) it continues after), or
    InvalidCursor."""
    if cursor is None:
        return 0, None
    _listing, of_ladder, rank, rating, player_id = _decode(cursor, "b", 5)
    if not (
        of_ladder == ladder
        and type(rank) is int
        and type(rating) is int
        and isinstance(player_id, str)
        and 0 <= rank < CURSOR_NUMBER_LIMIT
        and abs(rating) < CURSOR_NUMBER_LIMIT
    ):
        raise InvalidCursor
    return rank, (rating, player_id)


def sanction_cursor(ladder: str, sanction_id: str, ref: str) -> str:
    return encode_cursor(["n", ladder, sanction_id, ref])


#: A decision's ref (`sanction_records.decision_ref`): a game id, and a victim's seat in a game
#: of more than two players.
_DECISION_REF = re.compile(rf"(?:{ID_PATTERN.pattern})(?:#[0-9]{{2}})?")


def decode_sanction_cursor(cursor: object, ladder: str, sanction_id: str) -> str | None:
    """The decision ref (a game id, or a game id and a seat) a page of the sanction's
    decisions continues after, or InvalidCursor."""
    if cursor is None:
        return None
    _listing, of_ladder, of_sanction, ref = _decode(cursor, "n", 4)
    # The ref becomes part of the key the read starts after: an id (and a seat) only.
    if (of_ladder, of_sanction) != (ladder, sanction_id) or not (
        isinstance(ref, str) and _DECISION_REF.fullmatch(ref)
    ):
        raise InvalidCursor
    return ref
