"""The table one process serves: the pynamodb models bound to it, the connection every request
goes through, and the few requests every adapter makes (a transient failure raised as
TransientStorageError)."""

from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple

from pynamodb.connection import Connection
from pynamodb.settings import get_settings_value

from ratings.storage.dynamodb import batch_reads
from ratings.storage.dynamodb.batch_reads import Resends
from ratings.storage.dynamodb.errors import transient_as_storage_error
from ratings.storage.dynamodb.layout import RatingsItem


class Client(NamedTuple):
    """The table client's timeouts and retries: pynamodb's defaults (15 s, 30 s, 3) where
    None (wiring fits them to the function's time)."""

    connect_timeout_seconds: float | None = None
    read_timeout_seconds: float | None = None
    max_retry_attempts: int | None = None


class BoundTable:
    """The models bound to one table, the connection every request goes through, and the
    requests every adapter makes (transient failures raised as TransientStorageError)."""

    def __init__(
        self,
        table_name: str,
        region: str,
        endpoint_url: str | None,
        shards: int,
        client: Client,
        resends: Resends | None = None,
    ) -> None:
        if shards < 1:
            raise ValueError("leaderboard_shards must be at least 1")
        # The models are process-wide classes; one process serves one table.
        meta = RatingsItem.Meta
        meta.table_name = table_name
        setattr(meta, "region", region)  # noqa: B010 - pynamodb reads these optional settings
        setattr(meta, "host", endpoint_url)  # noqa: B010
        settings = {
            name: get_settings_value(name) if value is None else value
            for name, value in client._asdict().items()
        }
        for name, value in settings.items():
            setattr(meta, name, value)
        RatingsItem._connection = None  # rebind to the table configured above
        self.table_name = table_name
        self.endpoint_url = endpoint_url
        self.shards = shards
        #: How a BatchGetItem's unprocessed keys are sent again (`batch_reads`).
        self.resends = resends or Resends()
        #: The longest one request can take (both timeouts), kept in hand for a re-send.
        self.attempt_seconds = float(
            settings["connect_timeout_seconds"] + settings["read_timeout_seconds"]
        )

    @property
    def connection(self) -> Connection:
        """The low-level connection (one botocore client) every request goes through."""
        return RatingsItem._get_connection().connection

    @staticmethod
    def create_table() -> None:
        """Create the table from the models, with its indexes and TTL, unless it exists (the
        benchmarks; the tests and the local stack create template.yaml's own)."""
        if not RatingsItem.exists():
            # pynamodb enables the TTL itself: enabling it again is refused by DynamoDB
            # ("TimeToLive is already enabled"), though moto accepts it.
            RatingsItem.create_table(wait=True)

    def batch_get(self, keys: Sequence[tuple[str, str]]) -> Iterator[RatingsItem]:
        """The items at `keys`, strongly consistent; unprocessed keys are sent again after a
        growing wait, inside the deadline (`batch_reads`)."""
        with transient_as_storage_error():
            yield from batch_reads.batch_get(keys, self.resends, self.attempt_seconds)

    def get(self, pk: str, sk: str) -> RatingsItem | None:
        with transient_as_storage_error():
            try:
                return RatingsItem.get(pk, sk, consistent_read=True)
            except RatingsItem.DoesNotExist:
                return None

    def query(self, hash_key: str, **options: Any) -> dict[str, Any]:
        """One page of a query on the table (or one of its indexes), as DynamoDB answers it."""
        with transient_as_storage_error():
            return dict(self.connection.query(self.table_name, hash_key, **options))

    def pages(self, hash_key: str, **options: Any) -> Iterator[dict[str, Any]]:
        """Every page of a query, as DynamoDB answers them, each after the last one's
        LastEvaluatedKey; a caller that stops iterating reads no further page."""
        start_key = None
        while True:
            response = self.query(hash_key, exclusive_start_key=start_key, **options)
            yield response
            start_key = response.get("LastEvaluatedKey")
            if not start_key:
                return

    def leaderboard_shards(self, ladder: str) -> list[str]:
        """The hash keys of the ladder's leaderboard index, one a write shard."""
        return [f"{ladder}#{shard}" for shard in range(self.shards)]
