"""The rank view on DynamoDB: bounded counts of the players ahead of a position on the sharded
leaderboard index, every entry of the index (for the refresh), and the histogram item a
refresh stores (the writes port stores it).

Every read here is an eventually consistent Query of the `leaderboard` index (a global index
has no strongly consistent reads) or a read of the one histogram item; nothing here writes a
player state.
docs/table-layout.md and docs/performance.md give the requests and their read units.
"""

import json
from collections.abc import Iterator

from pynamodb.constants import COUNT

from ratings.rules.ranking import RatingHistogram
from ratings.service.ports import RankView
from ratings.service.stored import Standings
from ratings.storage.dynamodb.errors import transient_as_storage_error
from ratings.storage.dynamodb.layout import (
    LEADERBOARD_INDEX,
    STANDINGS_SK,
    BoundTable,
    RatingsItem,
    StandingsItem,
    StateItem,
    standings_key,
)
from ratings.timestamps import parse_utc_millis


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
        # One Query a shard, counted by DynamoDB: of the entries rated `rating` or more (read
        # at most `budget` of them, the player's own lagging entry included), those ahead.
        budget = 2 * limit + 2
        ahead = read = 0
        for shard in self._table.leaderboard_shards(ladder):
            start_key = None
            while True:
                response = self._table.query(
                    shard,
                    range_key_condition=RatingsItem.lb_rating >= rating,
                    filter_condition=(StateItem.player_id != player_id)
                    & ((RatingsItem.lb_rating > rating) | (StateItem.player_id < player_id)),
                    index_name=LEADERBOARD_INDEX,
                    select=COUNT,
                    limit=budget + 1 - read,
                    exclusive_start_key=start_key,
                )
                ahead += int(response.get("Count", 0))
                read += int(response.get("ScannedCount", 0))
                if read > budget or ahead >= limit:
                    return None
                start_key = response.get("LastEvaluatedKey")
                if not start_key:
                    break
        return ahead

    def leaderboard_entries(self, ladder: str) -> Iterator[tuple[str, int]]:
        # Only the two attributes the histogram needs travel back; the read units are those
        # of the whole index entries all the same.
        for shard in self._table.leaderboard_shards(ladder):
            start_key = None
            while True:
                response = self._table.query(
                    shard,
                    index_name=LEADERBOARD_INDEX,
                    attributes_to_get=["player_id", "lb_rating"],
                    limit=self.entries_page_limit,
                    exclusive_start_key=start_key,
                )
                for raw in response.get("Items", []):
                    yield raw["player_id"]["S"], int(raw["lb_rating"]["N"])
                start_key = response.get("LastEvaluatedKey")
                if not start_key:
                    break

    def read_standings(self, ladder: str) -> Standings | None:
        with transient_as_storage_error():
            try:
                item = RatingsItem.get(standings_key(ladder), STANDINGS_SK)
            except RatingsItem.DoesNotExist:
                return None
        if not isinstance(item, StandingsItem):
            return None
        counts = tuple((int(rating), int(players)) for rating, players in json.loads(item.counts))
        return Standings(ladder, RatingHistogram(counts), parse_utc_millis(item.refreshed_at))
