"""Reading a ladder's stored games out of the table (the local stack's or a real one).

The table, region and endpoint come from flags or, as for every other part of the service,
from RATINGS_TABLE, AWS_REGION and AWS_ENDPOINT_URL_DYNAMODB (else AWS_ENDPOINT_URL);
credentials are boto3's usual chain.
A full-table scan: run it against a copy or off-peak on a busy production table.
"""

from collections.abc import Callable
from datetime import UTC, datetime

from botocore.exceptions import BotoCoreError, ClientError
from pynamodb.exceptions import PynamoDBException

from ratings.config import Config
from ratings.service.errors import TransientStorageError
from ratings.storage.dynamodb import DynamoStorage
from ratings_cli.records import InputError, Record


def stored_results(
    ladder: str,
    *,
    table: str | None = None,
    region: str | None = None,
    endpoint_url: str | None = None,
    now: Callable[[], datetime] = lambda: datetime.now(UTC),
) -> list[Record]:
    """The ladder's stored game results, sorted by played_at then game_id.

    Games past their retention (TTL not yet applied by DynamoDB) are left out, as the API
    leaves them out.
    """
    config = Config.from_env()
    endpoint_url = endpoint_url or config.dynamodb_endpoint_url
    storage = DynamoStorage(
        table or config.table_name, region=region or config.region, endpoint_url=endpoint_url
    )
    moment = now()
    try:
        results = [
            stored.result
            for stored in storage.results.stored_games(ladder)
            if stored.expires_at > moment
        ]
    except (PynamoDBException, BotoCoreError, ClientError, TransientStorageError) as error:
        raise InputError(
            f"cannot read table {storage.table.table_name!r} "
            f"(region {region or config.region}, endpoint "
            f"{endpoint_url or 'AWS'}): {type(error).__name__}: {error}"
        ) from None
    results.sort(key=_sort_key)
    return results


def _sort_key(result: Record) -> tuple[datetime, str]:
    played_at = result.get("played_at")
    try:
        at = datetime.fromisoformat(str(played_at))
    except ValueError:
        at = datetime.min.replace(tzinfo=UTC)
    return (at, str(result.get("game_id")))
