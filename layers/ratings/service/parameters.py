"""The parameters of a read, as callers send them in a path or a query: ids, and the page
sizes of the listings (history, leaderboard, a sanction's decisions)."""

from ratings.declare.kinds import ID, Integer

DEFAULT_HISTORY_LIMIT = 50
DEFAULT_LEADERBOARD_LIMIT = 100
MAX_PAGE = 100
#: A sanction's decisions per answer: small entries, read by moderation tools that want them
#: all; the largest page stays far under Lambda's 6 MB answer (docs/api.md, "Limits").
DEFAULT_SANCTION_LIMIT = 100
MAX_SANCTION_PAGE = 1000


def page_size(maximum: int = MAX_PAGE) -> Integer:
    """A listing's `limit`, as it is checked here and shown in the OpenAPI document."""
    return Integer(1, maximum)


def page_limit(limit: object, default: int, maximum: int = MAX_PAGE) -> int:
    if limit is None:
        return default
    if isinstance(limit, str) and limit.isdigit() and len(limit) <= 6:
        limit = int(limit)
    parsed: int = page_size(maximum).parse(limit, "limit")
    return parsed


def require_id(value: object, field: str) -> str:
    parsed: str = ID.parse(value, field)
    return parsed
