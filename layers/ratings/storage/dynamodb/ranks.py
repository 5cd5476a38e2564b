"""The rank view on DynamoDB: bounded counts of the players ahead of a position on the sharded
leaderboard index, every entry of the index (for the refresh), and the histogram item a
refresh stores (the unit of work stores it).

Every read here is an eventually consistent Query of the `leaderboard` index (a global index
has no strongly consistent reads) or a read of the one histogram item; nothing here writes a
player state.
docs/table-layout.md and docs/performance.md give the requests and their read units.
"""

import json
from collections.abc import Iterator

from pynamodb.constants import COUNT
from pynamodb.expressions.condition import Condition

from ratings.declare.answers import parse_utc_millis
from ratings.rules.ranking import RatingHistogram
from ratings.service.ports import RankView
from ratings.service.stored import Standings
from ratings.storage.dynamodb.layout import (
    LEADERBOARD_INDEX,
    STANDINGS_SK,
    RatingsItem,
    StandingsItem,
    StateItem,
    standings_key,
)
from ratings.storage.dynamodb.table import BoundTable


class DynamoRanks(RankView):
    """Counts ahead of a position (DynamoDB counts, bounded by a read budget), the
    index's entries for a refresh, and the stored histogram."""

    #: Entries per page when the refresh reads the index (None: DynamoDB's 1 MB pages).
    entries_page_limit: int | None = None

    def __init__(self, table: BoundTable) -> None:
        self._table = table

    def count_ahead(self, ladder: str, rating: int, player_id: str, limit: int) -> int | None:
        if limit <= 0:
            return None
        # Counted by DynamoDB, at most `2 * limit + 2` entries read in all (the player's own
        # lagging entry included): per shard the entries rated higher, then the ones tied
        # with a smaller id. The rating is the index's sort key, so it can only be a key
        # condition: DynamoDB refuses a filter on it, and the tie needs a Query of its own.
        count = _BoundedCount(budget=2 * limit + 2, limit=limit)
        shards = self._table.leaderboard_shards(ladder)
        higher = RatingsItem.lb_rating > rating
        for shard in shards:
            if not self._count(count, shard, higher, StateItem.player_id != player_id):
                return None
        tied = RatingsItem.lb_rating == rating
        for shard in shards:
            if not self._count(count, shard, tied, StateItem.player_id < player_id):
                return None
        return count.ahead

    def _count(self, count: "_BoundedCount", shard: str, key: Condition, keep: Condition) -> bool:
        """Add the shard's entries within `key` that `keep` keeps to `count`; False once the
        count is past its bound (then nothing more is read)."""
        start_key = None
        while True:
            response = self._table.query(
                shard,
                range_key_condition=key,
                filter_condition=keep,
                index_name=LEADERBOARD_INDEX,
                select=COUNT,
                limit=count.left(),
                exclusive_start_key=start_key,
            )
            if not count.add(int(response.get("Count", 0)), int(response.get("ScannedCount", 0))):
                return False
            start_key = response.get("LastEvaluatedKey")
            if not start_key:
                return True

    def leaderboard_entries(self, ladder: str) -> Iterator[tuple[str, int]]:
        # Only the two attributes the histogram needs travel back; the read units are those
        # of the whole index entries all the same.
        attributes = ["player_id", "lb_rating"]
        for shard in self._table.leaderboard_shards(ladder):
            for response in self._table.pages(
                shard,
                index_name=LEADERBOARD_INDEX,
                attributes_to_get=attributes,
                limit=self.entries_page_limit,
            ):
                for raw in response.get("Items", []):
                    yield raw["player_id"]["S"], int(raw["lb_rating"]["N"])

    def read_standings(self, ladder: str) -> Standings | None:
        item = self._table.get(standings_key(ladder), STANDINGS_SK, consistent_read=False)
        if not isinstance(item, StandingsItem):
            return None
        counts = tuple((int(rating), int(players)) for rating, players in json.loads(item.counts))
        return Standings(ladder, RatingHistogram(counts), parse_utc_millis(item.refreshed_at))


class _BoundedCount:
    """The players ahead counted so far, and the index entries read to count them."""

    def __init__(self, *, budget: int, limit: int) -> None:
        self.budget = budget
        self.limit = limit
        self.ahead = 0
        self.read = 0

    def left(self) -> int:
        """The Limit of the next Query: one entry past the budget tells it is exceeded."""
        return self.budget + 1 - self.read

    def add(self, ahead: int, read: int) -> bool:
        """False once `limit` are ahead or more than `budget` entries were read."""
        self.ahead += ahead
        self.read += read
        return self.read <= self.budget and self.ahead < self.limit
