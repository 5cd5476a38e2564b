"""The leaderboard index as AWS documents it while it lags: a global secondary index is
updated asynchronously after each write to the table (normally within a second), and a query
of it in that time returns what the index has, not what the table has. A player whose rating
just changed may still show at the old rating, or at both; a new entry may not show yet; an
id just linked to an account (and so taken off the board) may still show.

No engine here lags, so these helpers put that view into a real table (moto's or DynamoDB
Local's): a lingering entry is an extra item that only the index reads (its key is no
player's), and an entry not yet indexed is a state item without its index attributes.
"""

import uuid
from typing import Any

from ratings.storage.dynamodb import DynamoStorage, leaderboard_shard, player_key


def lingering_entry(
    storage: DynamoStorage, ladder: str, player_id: str, rating: int, ranked_games: int = 1
) -> None:
    """The index also shows `player_id` at `rating`, as it did before a later write."""
    client: Any = storage.connection.client
    client.put_item(
        TableName=storage.table.table_name,
        Item={
            "pk": {"S": f"LAG#{uuid.uuid4().hex}"},
            "sk": {"S": "STATE"},
            "lb_shard": {"S": leaderboard_shard(ladder, player_id, storage.table.shards)},
            "lb_rating": {"N": str(rating)},
            "player_id": {"S": player_id},
            "ranked_games": {"N": str(ranked_games)},
        },
    )


def not_yet_indexed(storage: DynamoStorage, ladder: str, player_id: str) -> None:
    """The index does not show `player_id`'s current entry yet (its state is unchanged)."""
    client: Any = storage.connection.client
    client.update_item(
        TableName=storage.table.table_name,
        Key={"pk": {"S": player_key(ladder, player_id)}, "sk": {"S": "STATE"}},
        UpdateExpression="REMOVE lb_shard, lb_rating",
    )
