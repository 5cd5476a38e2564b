"""Tools of the DynamoDB adapter tests: a counter of the requests a client sends, a storage
that lets a concurrent writer in between a use case's reads and its commit, and raw reads of
the table (to see what is physically stored, expired items included)."""

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from botocore.client import BaseClient
from botocore.model import OperationModel

from ratings.service.stored import StoredGame, StoredTournament
from ratings.service.unit_of_work import Retrier
from ratings.storage.dynamodb import DynamoStorage
from ratings.storage.dynamodb.unit_of_work import DynamoUnitOfWork


@dataclass
class RequestCounter:
    """Every DynamoDB request a botocore client sends, by operation name, in order.

    With `capacity=True` it also asks each request for its consumed capacity
    (ReturnConsumedCapacity=TOTAL) and records what the response reports.
    """

    operations: list[str] = field(default_factory=list)
    #: (operation, ConsumedCapacity as parsed from the response), when asked for.
    capacity: list[tuple[str, Any]] = field(default_factory=list)

    @classmethod
    def attach(cls, client: BaseClient, *, capacity: bool = False) -> "RequestCounter":
        counter = cls()
        events = client.meta.events
        events.register("before-call.dynamodb", counter._before_call)
        if capacity:
            events.register("before-parameter-build.dynamodb", counter._ask_capacity)
            events.register("after-call.dynamodb", counter._after_call)
        return counter

    def _before_call(self, model: OperationModel, **_: Any) -> None:
        self.operations.append(model.name)

    @staticmethod
    def _ask_capacity(params: dict[str, Any], model: OperationModel, **_: Any) -> None:
        shape = model.input_shape
        if shape is not None and "ReturnConsumedCapacity" in shape.members:
            params["ReturnConsumedCapacity"] = "TOTAL"

    def _after_call(self, parsed: dict[str, Any], model: OperationModel, **_: Any) -> None:
        self.capacity.append((model.name, parsed.get("ConsumedCapacity")))

    def reset(self) -> None:
        self.operations.clear()
        self.capacity.clear()

    def counts(self) -> Counter[str]:
        return Counter(self.operations)


class InterleavingDynamoStorage(DynamoStorage):
    """DynamoStorage that lets another writer in at the start of a commit.

    `before_commit` runs once (or on every commit with `every_commit`), before this commit's
    transaction is sent, so the use case's reads are already done: the hook's writes are a
    concurrent request that got there first.
    """

    def __init__(
        self, table_name: str, *, endpoint_url: str | None = None, leaderboard_shards: int = 4
    ) -> None:
        super().__init__(
            table_name,
            region="us-east-1",
            endpoint_url=endpoint_url,
            leaderboard_shards=leaderboard_shards,
        )
        self.before_commit: Callable[[], None] | None = None
        self.every_commit = False
        self.interleaved = 0

    def unit_of_work(self, retrier: Retrier | None = None) -> "InterleavingUnitOfWork":
        return InterleavingUnitOfWork(self, self._interleave, retrier)

    def _interleave(self) -> None:
        hook = self.before_commit
        if hook is None:
            return
        if not self.every_commit:
            self.before_commit = None
        self.interleaved += 1
        hook()


class InterleavingUnitOfWork(DynamoUnitOfWork):
    """The DynamoDB unit of work, calling `interleave` before each commit is sent."""

    def __init__(
        self, storage: DynamoStorage, interleave: Callable[[], None], retrier: Retrier | None
    ) -> None:
        super().__init__(storage, retrier)
        self._interleave = interleave

    # Each commit as the adapter's, with the same arguments, once the hook has run.

    def _commit_game(self, *args: Any, **kwargs: Any) -> StoredGame | None:
        self._interleave()
        return super()._commit_game(*args, **kwargs)

    def _commit_tournament(self, *args: Any, **kwargs: Any) -> StoredTournament | None:
        self._interleave()
        return super()._commit_tournament(*args, **kwargs)

    def _commit_link(self, *args: Any, **kwargs: Any) -> None:
        self._interleave()
        super()._commit_link(*args, **kwargs)


def raw_items(storage: DynamoStorage, pk: str) -> list[dict[str, Any]]:
    """Every item stored under partition `pk`, as DynamoDB returns them (nothing filtered)."""
    response = storage.connection.query(storage.table.table_name, pk, consistent_read=True)
    return list(response.get("Items", []))
