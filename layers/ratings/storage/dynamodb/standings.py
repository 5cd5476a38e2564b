"""The storage port's standing reads on DynamoDB: bounded counts of the players ahead of a
position on the sharded leaderboard index, the players just ahead of one, every entry of the
index (for the refresh), and the histogram item a refresh stores.

Every read here is an eventually consistent Query of the `leaderboard` index (global indexes
have no other kind) or a read of the one histogram item; nothing here writes a player state.
docs/table-layout.md and docs/performance.md give the requests and their read units.
"""

import json
from collections.abc import Iterator, Sequence

from pynamodb.constants import COUNT
from pynamodb.exceptions import PutError

from ratings.rules.standings import RatingHistogram, board_order
from ratings.service.ports import LeaderboardRow, Standings
from ratings.storage.dynamodb.errors import response_code, transient_as_storage_error
from ratings.storage.dynamodb.layout import (
    LEADERBOARD_INDEX,
    STANDINGS_SK,
    RatingsItem,
    StandingsItem,
    StateItem,
    compact_json,
    standings_key,
)
from ratings.storage.dynamodb.reads import TableReads, order_of
from ratings.timestamps import format_utc_millis, parse_utc_millis


class TableStandings(TableReads):
    """Where players stand: the reads behind a rank, a window and a histogram."""

    #: Entries per page when the refresh reads the index (None: DynamoDB's 1 MB pages).
    entries_page_limit: int | None = None

    def leaderboard_before(
        self, ladder: str, limit: int, before: tuple[int, str]
    ) -> Sequence[LeaderboardRow]:
        """The `limit` players nearest ahead of `before`, each at their current rating: the
        index's entries checked against the states, as `leaderboard` does (its module says
        why), read on upwards while stale entries leave fewer than `limit`."""
        if limit <= 0:
            return []
        end = board_order(*before)
        checked: dict[str, LeaderboardRow | None] = {}
        read_before = before
        while True:
            entries = self._index_before(ladder, limit, read_before)
            self._check(ladder, entries, checked)
            ended = len(entries) < limit  # the top of every shard was reached
            boundary = None if ended else order_of(entries[0])
            listed = [
                row
                for row in checked.values()
                if row is not None
                and order_of(row) < end
                and (boundary is None or order_of(row) >= boundary)
            ]
            if ended or len(listed) >= limit:
                return sorted(listed, key=order_of)[-limit:]
            read_before = (entries[0].rating, entries[0].player_id)

    def _index_before(
        self, ladder: str, limit: int, before: tuple[int, str]
    ) -> list[LeaderboardRow]:
        """The index's `limit` entries nearest ahead of `before`, as the index has them."""
        rows: list[LeaderboardRow] = []
        for shard in self._shards(ladder):
            rows.extend(self._shard_before(shard, limit, before))
        rows.sort(key=order_of)
        return rows[-limit:]

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

    def count_ahead(self, ladder: str, rating: int, player_id: str, limit: int) -> int | None:
        if limit <= 0:
            return None
        # One Query a shard, counted by DynamoDB: of the entries rated `rating` or more (read
        # at most `budget` of them, the player's own lagging entry included), those ahead.
        budget = 2 * limit + 2
        ahead = read = 0
        for shard in self._shards(ladder):
            start_key = None
            while True:
                response = self._query(
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
        for shard in self._shards(ladder):
            start_key = None
            while True:
                response = self._query(
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

    def put_standings(self, standings: Standings) -> bool:
        histogram = standings.histogram
        refreshed_at = format_utc_millis(standings.refreshed_at)
        item = StandingsItem(
            standings_key(standings.ladder),
            STANDINGS_SK,
            counts=compact_json([list(pair) for pair in histogram.counts]),
            players=histogram.players,
            refreshed_at=refreshed_at,
        )
        # Two refreshes that overlap: the one that started later wins, whichever ends last.
        newer_only = StandingsItem.pk.does_not_exist() | (StandingsItem.refreshed_at < refreshed_at)
        with transient_as_storage_error():
            try:
                item.save(condition=newer_only)
            except PutError as error:
                if response_code(error) == "ConditionalCheckFailedException":
                    return False
                raise
        return True

    def _shards(self, ladder: str) -> list[str]:
        return [f"{ladder}#{shard}" for shard in range(self.shards)]
