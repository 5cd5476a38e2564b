"""The storage ports on DynamoDB, with pynamodb: the only package that knows the table layout.

The layout (keys, indexes, items, transactions) is described in docs/table-layout.md; keep the
two in step. Every commit is one TransactWriteItems; reads on the hot path are strongly
consistent and batched. Its modules, one job each:

- `layout`: key formats, the pynamodb models, items <-> values
- `table`: one table's own connection (the models are bound to none), the requests every
  adapter makes through it, what a failed request means, and BatchGetItem's re-sends
- `job_layout`: background jobs' records (erasures, sanctions): keys, model, items <-> values
- `unit_of_work`: the unit of work (the reads a commit is conditioned on, and the commits,
  each one transaction whose items carry their conditions and what a failed one means; the
  sanctions and erasure stores' transactions go through it too)
- `results`, `history`, `leaderboard`, `ranks`: the read views (results; a player's
  history; leaderboard pages; ranks and the histogram)
- `sanctions`, `sanction_layout`: the sanctions port and its items
- `jobs`: background jobs' records
- `erasures`: the erasure port (erasing a player's items)
"""

from functools import cached_property, partialmethod

from pynamodb.connection import Connection

from ratings.service import ports
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
from ratings.storage.dynamodb.table import BoundTable, Client, Resends
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

    #: A new unit of work on this storage's table, for one use case's attempts:
    #: `storage.unit_of_work(retrier)` is `DynamoUnitOfWork(storage, retrier)`. Made so rather
    #: than by a method of its own, which every request would pass through on its way there.
    unit_of_work = partialmethod(DynamoUnitOfWork)

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

    @cached_property
    def seasons(self) -> ports.SeasonStore:
        from ratings.storage.dynamodb.seasons import DynamoSeasons

        return DynamoSeasons(self.table)

    @property
    def connection(self) -> Connection:
        """The low-level connection (one botocore client) every request goes through."""
        return self.table.connection

    def create_table(self) -> None:
        """Create the table from the models, with its indexes and TTL, unless it exists (the
        benchmarks; the tests and the local stack create template.yaml's own)."""
        model = self._model
        if not model.exists():
            # pynamodb enables the TTL itself: enabling it again is refused by DynamoDB
            # ("TimeToLive is already enabled"), though moto accepts it.
            model.create_table(wait=True)

    @cached_property
    def _model(self) -> type[RatingsItem]:
        """RatingsItem bound to this table by a Meta of its own, as pynamodb binds a model to a
        table: for creating the table only (keys, indexes, TTL and billing are the models').
        It reads no item: pynamodb refuses to read the item types through it, since they
        subclass RatingsItem, not it."""
        table = self.table

        class TableMeta(RatingsItem.Meta):
            table_name = table.table_name
            region = table.region
            host = table.endpoint_url
            connect_timeout_seconds = table.settings["connect_timeout_seconds"]
            read_timeout_seconds = table.settings["read_timeout_seconds"]
            max_retry_attempts = table.settings["max_retry_attempts"]

        class TableModel(RatingsItem):
            Meta = TableMeta

        return TableModel


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
