"""The one timestamp codec: RFC 3339 in UTC with a Z, to the millisecond, fixed width.

This is the form the service writes (played_at, history `at`) and the table stores: fixed
width, so the text sorts in time order and a key range on it is a time window. Standard
library only.
"""

from datetime import UTC, datetime


def format_utc_millis(at: datetime) -> str:
    """`at` in UTC to the millisecond (truncated), like 2024-05-01T12:00:00.250Z."""
    at = at.astimezone(UTC)
    return at.strftime("%Y-%m-%dT%H:%M:%S.") + f"{at.microsecond // 1000:03d}Z"


def parse_utc_millis(text: str) -> datetime:
    """The aware datetime (UTC) of a timestamp written by `format_utc_millis`."""
    return datetime.fromisoformat(text.replace("Z", "+00:00"))
