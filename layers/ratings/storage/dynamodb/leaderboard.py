"""The leaderboard view on DynamoDB: pages of the sharded `leaderboard` index, from the top,
after a position or just before one. Each shard is one Query a page (eventually consistent,
as global indexes are); the shards' rows are merged in leaderboard order.

The index is a global secondary index, so eventually consistent: AWS documents that a change
reaches it asynchronously (normally within a second), and until then a query of it returns
the entry as it was, or both an old and a new one. A player whose rating just changed could be
listed twice, or at a rating they no longer have; an anonymous id linked a moment ago could be
listed beside its account. So the entries read are checked against the players' states (one
strongly consistent BatchGetItem): each player is listed once, at the rating their state has
now, and only where that rating places them within the part of the index read; an entry
whose player is no longer on the board (an absorbed anonymous id) is left out. Entries found
stale leave a page short: the index is then read on past them, until the page is full or the
index ends.
"""

from collections.abc import Callable, Iterator, Sequence

from pynamodb.expressions.condition import Condition

from ratings.rules.ranking import board_order
from ratings.service.player import FrozenStanding
from ratings.service.ports import LeaderboardView
from ratings.service.seasons import board_season, season_row
from ratings.service.stored import LeaderboardRow
from ratings.storage.dynamodb.layout import (
    LEADERBOARD_INDEX,
    STATE_SK,
    RatingsItem,
    StandingItem,
    StateItem,
    player_key,
    player_of,
    standing_of,
    standing_sort_key,
)
from ratings.storage.dynamodb.table import BoundTable


class DynamoLeaderboard(LeaderboardView):
    """Leaderboard pages: each shard read in rating order from a position, the
    shards' rows merged into leaderboard order."""

    def __init__(self, table: BoundTable) -> None:
        self._table = table

    def leaderboard(
        self, ladder: str, limit: int, after: tuple[int, str] | None
    ) -> Sequence[LeaderboardRow]:
        """The first `limit` players after `after`, each at their current rating."""
        if limit <= 0:
            return []
        start = None if after is None else board_order(*after)
        checked: dict[str, LeaderboardRow | None] = {}
        read_after = after
        while True:
            entries = self._index_after(ladder, limit, read_after)
            self._check(ladder, entries, checked)
            ended = len(entries) < limit  # every shard ran out: nothing lies further down
            boundary = None if ended else order_of(entries[-1])
            # Everyone met so far whose place now is within what was read (a player who
            # moved down past it is met again further down; one who moved up, before it).
            listed = [
                row
                for row in checked.values()
                if row is not None
                and (start is None or order_of(row) > start)
                and (boundary is None or order_of(row) <= boundary)
            ]
            if ended or len(listed) >= limit:
                return sorted(listed, key=order_of)[:limit]
            read_after = (entries[-1].rating, entries[-1].player_id)

    def leaderboard_before(
        self, ladder: str, limit: int, before: tuple[int, str]
    ) -> Sequence[LeaderboardRow]:
        """The `limit` players nearest ahead of `before`, each at their current rating."""
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

    def _index_after(
        self, ladder: str, limit: int, after: tuple[int, str] | None
    ) -> list[LeaderboardRow]:
        """The index's first `limit` entries after `after`, as the index has them."""
        rows: list[LeaderboardRow] = []
        for shard in self._table.leaderboard_shards(ladder):
            rows.extend(self._shard_top(shard, limit, after))
        rows.sort(key=order_of)
        return rows[:limit]

    def _index_before(
        self, ladder: str, limit: int, before: tuple[int, str]
    ) -> list[LeaderboardRow]:
        """The index's `limit` entries nearest ahead of `before`, as the index has them."""
        rows: list[LeaderboardRow] = []
        for shard in self._table.leaderboard_shards(ladder):
            rows.extend(self._shard_before(shard, limit, before))
        rows.sort(key=order_of)
        return rows[-limit:]

    def _check(
        self,
        board: str,
        entries: Sequence[LeaderboardRow],
        checked: dict[str, LeaderboardRow | None],
    ) -> None:
        """Add to `checked` each new player of the index `entries` as the board of `board`
        has them now (strongly consistent), or None when they are not on it.

        A season's board lists a player by their state while the state is in that season,
        and by the standing frozen there once it has left it (`season_row`)."""
        unread = list(
            dict.fromkeys(row.player_id for row in entries if row.player_id not in checked)
        )
        if not unread:
            return
        ladder, season_id = board_season(board)
        keys = [(player_key(ladder, player_id), STATE_SK) for player_id in unread]
        states = {
            item.player_id: player_of(item)
            for item in self._table.batch_get(keys)
            if isinstance(item, StateItem)
        }
        # A player whose state has left the season stands there by the standing they froze:
        # read only for them (none on the board of the season running now; all-time too, once
        # a ladder's first scheduled or started season has begun).
        left = [
            player_id
            for player_id in unread
            if player_id not in states or states[player_id].season_id != season_id
        ]
        frozen: dict[str, FrozenStanding] = {}
        if left:
            sort_key = standing_sort_key(season_id)
            keys = [(player_key(ladder, player_id), sort_key) for player_id in left]
            for item in self._table.batch_get(keys):
                if isinstance(item, StandingItem):
                    frozen[item.player_id] = standing_of(item)
        for player_id in unread:
            checked[player_id] = season_row(season_id, states.get(player_id), frozen.get(player_id))

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


def order_of(row: LeaderboardRow) -> tuple[int, str]:
    return board_order(row.rating, row.player_id)
