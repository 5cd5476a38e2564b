"""The storage ports on DynamoDB, with pynamodb: the only package that knows the table layout.

The layout (keys, indexes, items, transactions) is described in docs/table-layout.md; keep the
two in step. Every commit is one TransactWriteItems; reads on the hot path are strongly
consistent and batched. Its modules, one job each:

- `layout`: key formats, the pynamodb models, items <-> values
- `table`: one table's own connection (the models are bound to none) and the requests every
  adapter makes through it
- `batch_reads`: BatchGetItem, its unprocessed keys sent again with backoff inside the deadline
- `job_layout`: background jobs' records (erasures, sanctions): keys, model, items <-> values
- `unit_of_work`: the unit of work (the reads a commit is conditioned on, and the commits,
  each one transaction; the sanctions and erasure stores' transactions go through it too)
- `results`, `history`, `leaderboard`, `ranks`: the read views (results; a player's
  history; leaderboard pages; ranks and the histogram)
- `sanctions`, `sanction_layout`: the sanctions port and its items
- `jobs`: background jobs' records
- `erasures`: the erasure port (erasing a player's items)
- `errors`: what a failed request means (transient, conflict, already stored)
"""

from functools import cached_property

from pynamodb.connection import Connection

from ratings.service import ports
from ratings.service.unit_of_work import Retrier, UnitOfWork
from ratings.storage.dynamodb.batch_reads import Resends
from ratings.storage.dynamodb.history import DynamoHistory
from ratings.storage.dynamodb.layout import (
    Leaderboard,
    RankedByTime,
    RatingsItem,
    game_key,
    leaderboard_shard,
    player_key,
    table_definition,
)
from ratings.storage.dynamodb.leaderboard import DynamoLeaderboard
from ratings.storage.dynamodb.ranks import DynamoRanks
from ratings.storage.dynamodb.results import DynamoResults
from ratings.storage.dynamodb.table import BoundTable, Client
from ratings.storage.dynamodb.unit_of_work import DynamoUnitOfWork

#: pynamodb's own timeouts and retries.
DEFAULT_CLIENT = Client()


class DynamoStorage:
    """Each storage port on one DynamoDB table (real, or emulated locally and in tests)."""

    def __init__(
        self,
        table_name: str,
        *,
        region: str = "us-east-1",
        endpoint_url: str | None = None,
        leaderboard_shards: int = 4,
        client: Client = DEFAULT_CLIENT,
        resends: Resends | None = None,
    ) -> None:
        """`client`: the table client's timeouts and retries (pynamodb's defaults unless
        given; wiring fits them to the function's time); `resends`: how a BatchGetItem's
        unprocessed keys are sent again (wiring bounds them by the invocation's deadline)."""
        self.table = BoundTable(
            table_name, region, endpoint_url, leaderboard_shards, client, resends
        )
        self.results: ports.ResultsView = DynamoResults(self.table)
        self.history: ports.HistoryView = DynamoHistory(self.table)
        self.leaderboard: ports.LeaderboardView = DynamoLeaderboard(self.table)
        self.ranks: ports.RankView = DynamoRanks(self.table)

    def unit_of_work(self, retrier: Retrier | None = None) -> UnitOfWork:
        return DynamoUnitOfWork(self.table, retrier)

    # The moderation stores are made, and their modules imported, on first use: the game
    # functions never use them, and each import is cold-start time (docs/performance.md).

    @cached_property
    def sanctions(self) -> ports.SanctionStore:
        from ratings.storage.dynamodb.sanctions import DynamoSanctions

        return DynamoSanctions(self.table)

    @cached_property
    def jobs(self) -> ports.JobRecords:
        from ratings.storage.dynamodb.jobs import DynamoJobs

        return DynamoJobs(self.table)

    @cached_property
    def erasures(self) -> ports.ErasureStore:
        from ratings.storage.dynamodb.erasures import DynamoErasures

        return DynamoErasures(self.table)

    @property
    def connection(self) -> Connection:
        """The low-level connection (one botocore client) every request goes through."""
        return self.table.connection

    def create_table(self) -> None:
        """Create the table with its indexes and TTL (tests and the local stack)."""
        self.table.create_table()


__all__ = [
    "Client",
    "DynamoStorage",
    "Leaderboard",
    "RankedByTime",
    "RatingsItem",
    "Resends",
    "game_key",
    "leaderboard_shard",
    "player_key",
    "table_definition",
]
