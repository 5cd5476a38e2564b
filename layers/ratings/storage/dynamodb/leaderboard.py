"""The leaderboard view on DynamoDB: pages of the sharded `leaderboard` index, from the top,
after a position or just before one. Each shard is one Query a page (eventually consistent,
as global indexes are); the shards' rows are merged in leaderboard order.
"""

from collections.abc import Callable, Iterator, Sequence

from pynamodb.expressions.condition import Condition

from ratings.rules.ranking import board_order
from ratings.service.ports import LeaderboardView
from ratings.service.stored import LeaderboardRow
from ratings.storage.dynamodb.layout import LEADERBOARD_INDEX, BoundTable, RatingsItem


class DynamoLeaderboard(LeaderboardView):
    """Leaderboard pages: each shard read in rating order from a position, the
    shards' rows merged into leaderboard order."""

    def __init__(self, table: BoundTable) -> None:
        self._table = table

    def leaderboard(
        self, ladder: str, limit: int, after: tuple[int, str] | None
    ) -> Sequence[LeaderboardRow]:
        rows: list[LeaderboardRow] = []
        for shard in self._table.leaderboard_shards(ladder):
            rows.extend(self._shard_top(shard, limit, after))
        rows.sort(key=lambda row: board_order(row.rating, row.player_id))
        return rows[:limit]

    def leaderboard_before(
        self, ladder: str, limit: int, before: tuple[int, str]
    ) -> Sequence[LeaderboardRow]:
        if limit <= 0:
            return []
        rows: list[LeaderboardRow] = []
        for shard in self._table.leaderboard_shards(ladder):
            rows.extend(self._shard_before(shard, limit, before))
        rows.sort(key=lambda row: board_order(row.rating, row.player_id))
        return rows[-limit:]

    def _shard_top(
        self, shard: str, limit: int, after: tuple[int, str] | None
    ) -> Iterator[LeaderboardRow]:
        """The shard's first `limit` rows after `after`, plus every row tied with the last."""
        if after is None:
            return self._shard_rows(shard, limit, None, ascending=False, skip=lambda _: False)
        start = board_order(*after)
        return self._shard_rows(
            shard,
            limit,
            RatingsItem.lb_rating <= after[0],
            ascending=False,
            skip=lambda position: position <= start,
        )

    def _shard_before(
        self, shard: str, limit: int, before: tuple[int, str]
    ) -> Iterator[LeaderboardRow]:
        """The shard's `limit` rows nearest ahead of `before`, plus every row tied with the
        farthest of them."""
        end = board_order(*before)
        return self._shard_rows(
            shard,
            limit,
            RatingsItem.lb_rating >= before[0],
            ascending=True,
            skip=lambda position: position >= end,
        )

    def _shard_rows(
        self,
        shard: str,
        limit: int,
        condition: Condition | None,
        *,
        ascending: bool,
        skip: Callable[[tuple[int, str]], bool],
    ) -> Iterator[LeaderboardRow]:
        """The shard's first `limit` rows in rating order within `condition` whose board
        position (`board_order`) `skip` does not reject, plus every row tied with the last.

        Rows of equal rating come in no particular order from the index, so the shard is read
        until the rating moves past the `limit`-th row's: no tie can then be missed.
        """
        taken = 0
        boundary: int | None = None
        for response in self._table.pages(
            shard,
            range_key_condition=condition,
            index_name=LEADERBOARD_INDEX,
            scan_index_forward=ascending,
            limit=limit + 1,
        ):
            for raw in response.get("Items", []):
                rating = int(raw["lb_rating"]["N"])
                player_id = raw["player_id"]["S"]
                if skip(board_order(rating, player_id)):
                    continue
                # The index is in rating order: the first other rating is past the boundary.
                if boundary is not None and rating != boundary:
                    return
                yield LeaderboardRow(player_id, rating, int(raw["ranked_games"]["N"]))
                taken += 1
                if taken == limit:
                    boundary = rating
