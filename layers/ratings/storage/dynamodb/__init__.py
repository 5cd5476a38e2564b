"""The storage port on DynamoDB, with pynamodb: the only package that knows the table layout.

The layout (keys, indexes, items, transactions) is described in docs/table-layout.md; keep the
two in step. Every commit is one TransactWriteItems; reads on the hot path are strongly
consistent and batched. Its modules, one job each:

- `layout`: key formats, the pynamodb models, their binding to a table, items <-> records
- `reads`: the port's reads (gets, the window count, history, the leaderboard)
- `standings`: where players stand (bounded rank counts, windows, the histogram item)
- `commits`: the port's transactional commits
- `errors`: what a failed request means (transient, conflict, already stored)
"""

from ratings.service.ports import Storage
from ratings.storage.dynamodb.commits import TableCommits
from ratings.storage.dynamodb.layout import (
    Leaderboard,
    RankedByTime,
    RatingsItem,
    game_key,
    leaderboard_shard,
    player_key,
    table_definition,
)
from ratings.storage.dynamodb.standings import TableStandings


class DynamoStorage(TableStandings, TableCommits, Storage):
    """The storage port on one DynamoDB table (real, or moto locally and in tests)."""


__all__ = [
    "DynamoStorage",
    "Leaderboard",
    "RankedByTime",
    "RatingsItem",
    "game_key",
    "leaderboard_shard",
    "player_key",
    "table_definition",
]
