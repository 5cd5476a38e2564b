"""The storage port's reads on DynamoDB: batched, strongly consistent gets on the hot path,
key-range queries for the recent-games window, history pages and the sharded leaderboard.

The leaderboard index is a global secondary index, so eventually consistent: AWS documents
that a change reaches it asynchronously (normally within a second), and until then a query of
it returns the entry as it was, or both an old and a new one. A player whose rating just
changed could be listed twice, or at a rating they no longer have; an anonymous id linked a
moment ago could be listed beside its account. So the rows of a leaderboard read are checked
against the players' states (one strongly consistent BatchGetItem): each player is listed once,
at the rating their state has now, and only where that rating places them in the range read;
an entry whose player is no longer on the board (an absorbed anonymous id) is left out.
"""

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import datetime
from typing import Any

from pynamodb.constants import COUNT
from pynamodb.expressions.condition import Condition

from ratings.rules.standings import board_order
from ratings.service.ports import (
    EventPosition,
    GameReads,
    HistoryPage,
    LeaderboardRow,
    LinkReads,
    PlayerRecord,
    PodiumReads,
    StoredGame,
    StoredTournament,
)
from ratings.storage.dynamodb.errors import transient_as_storage_error
from ratings.storage.dynamodb.layout import (
    ACCOUNT_SK,
    ANON_SK,
    EVENT_SK_PREFIX,
    GAME_SK,
    LEADERBOARD_INDEX,
    LINK_PK_PREFIX,
    RANKED_INDEX,
    STATE_SK,
    TOURNAMENT_SK,
    BoundTable,
    EventItem,
    GameItem,
    LinkItem,
    RatingsItem,
    StateItem,
    TournamentItem,
    event_of,
    event_sort_key,
    game_key,
    link_key,
    player_key,
    record_of,
    stored_game_of,
    tournament_key,
)
from ratings.timestamps import format_utc_millis


class TableReads(BoundTable):
    """The read half of the storage port."""

    def read_for_game(
        self, ladder: str, game_id: str | None, player_ids: Sequence[str]
    ) -> GameReads:
        record = None if game_id is None else (game_key(ladder, game_id), GAME_SK)
        item, links, states = self._read_with_players(ladder, player_ids, record)
        game = stored_game_of(ladder, game_id or "", item) if isinstance(item, GameItem) else None
        return GameReads(game, links, states)

    def read_for_podium(
        self, ladder: str, tournament_id: str, player_ids: Sequence[str]
    ) -> PodiumReads:
        record = (tournament_key(ladder, tournament_id), TOURNAMENT_SK)
        item, links, states = self._read_with_players(ladder, player_ids, record)
        tournament = None
        if isinstance(item, TournamentItem):
            tournament = StoredTournament(
                ladder, tournament_id, item.fingerprint, json.loads(item.result)
            )
        return PodiumReads(tournament, links, states)

    def _read_with_players(
        self, ladder: str, player_ids: Sequence[str], record: tuple[str, str] | None
    ) -> tuple[RatingsItem | None, dict[str, str], dict[str, PlayerRecord]]:
        """One BatchGetItem: the players' states and anonymous-link items, and the game or
        tournament `record` when given (it comes back as the first value)."""
        keys = [(player_key(ladder, pid), STATE_SK) for pid in player_ids]
        keys += [(link_key(pid), ANON_SK) for pid in player_ids]
        if record is not None:
            keys.append(record)
        found = None
        links: dict[str, str] = {}
        states: dict[str, PlayerRecord] = {}
        for item in self._batch_get(keys):
            if isinstance(item, LinkItem):
                links[item.pk.removeprefix(LINK_PK_PREFIX)] = item.other_id
            elif isinstance(item, StateItem):
                states[item.player_id] = record_of(item)
            else:
                found = item
        return found, links, states

    def read_states(self, ladder: str, player_ids: Sequence[str]) -> Mapping[str, PlayerRecord]:
        keys = [(player_key(ladder, pid), STATE_SK) for pid in player_ids]
        return {
            item.player_id: record_of(item)
            for item in self._batch_get(keys)
            if isinstance(item, StateItem)
        }

    def count_ranked_games(
        self, ladder: str, player_id: str, since: datetime, until: datetime, limit: int
    ) -> int:
        # The window as a key range on the sparse index: DynamoDB counts, at most `limit`.
        window = RatingsItem.ranked_at.between(format_utc_millis(since), format_utc_millis(until))
        response = self._query(
            player_key(ladder, player_id),
            range_key_condition=window,
            index_name=RANKED_INDEX,
            consistent_read=True,
            limit=limit,
            select=COUNT,
        )
        return min(int(response.get("Count", 0)), limit)

    def get_game(self, ladder: str, game_id: str) -> StoredGame | None:
        item = self._get(game_key(ladder, game_id), GAME_SK)
        return stored_game_of(ladder, game_id, item) if isinstance(item, GameItem) else None

    def get_tournament(self, ladder: str, tournament_id: str) -> StoredTournament | None:
        item = self._get(tournament_key(ladder, tournament_id), TOURNAMENT_SK)
        if not isinstance(item, TournamentItem):
            return None
        return StoredTournament(ladder, tournament_id, item.fingerprint, json.loads(item.result))

    def resolve(self, player_id: str) -> str:
        item = self._get(link_key(player_id), ANON_SK)
        return item.other_id if isinstance(item, LinkItem) else player_id

    def read_for_link(
        self, anonymous_id: str, account_id: str, ladders: Sequence[str]
    ) -> LinkReads:
        keys = [
            (link_key(pid), side)
            for pid in (anonymous_id, account_id)
            for side in (ANON_SK, ACCOUNT_SK)
        ]
        keys += [
            (player_key(ladder, pid), STATE_SK)
            for ladder in ladders
            for pid in (anonymous_id, account_id)
        ]
        sides: dict[tuple[str, str], str] = {}
        states: dict[tuple[str, str], PlayerRecord] = {}
        for item in self._batch_get(keys):
            if isinstance(item, LinkItem):
                sides[(item.pk.removeprefix(LINK_PK_PREFIX), item.sk)] = item.other_id
            elif isinstance(item, StateItem):
                states[(item.ladder, item.player_id)] = record_of(item)
        return LinkReads(
            anonymous_linked_to=sides.get((anonymous_id, ANON_SK)),
            account_absorbed=sides.get((account_id, ACCOUNT_SK)),
            account_linked_to=sides.get((account_id, ANON_SK)),
            anonymous_absorbed=sides.get((anonymous_id, ACCOUNT_SK)),
            states=states,
        )

    def history(
        self, ladder: str, player_id: str, limit: int, after: EventPosition | None
    ) -> HistoryPage:
        last_key = None
        if after is not None:
            at, kind, ref_id = after
            last_key = {
                "pk": {"S": player_key(ladder, player_id)},
                "sk": {"S": event_sort_key(at, kind, ref_id)},
            }
        response = self._query(
            player_key(ladder, player_id),
            range_key_condition=RatingsItem.sk.startswith(EVENT_SK_PREFIX),
            scan_index_forward=False,
            limit=limit,
            exclusive_start_key=last_key,
        )
        events = [
            event_of(ladder, player_id, EventItem.from_raw_data(raw))
            for raw in response.get("Items", [])
        ]
        return HistoryPage(events, more="LastEvaluatedKey" in response)

    def leaderboard(
        self, ladder: str, limit: int, after: tuple[int, str] | None
    ) -> Sequence[LeaderboardRow]:
        """The first `limit` players after `after`, each at their current rating (see above).

        Entries that turn out stale leave fewer than `limit`: the index is read on, past the
        last entry read, until `limit` are found or it ends.
        """
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

    def _index_after(
        self, ladder: str, limit: int, after: tuple[int, str] | None
    ) -> list[LeaderboardRow]:
        """The index's first `limit` entries after `after`, as the index has them."""
        rows: list[LeaderboardRow] = []
        for shard in range(self.shards):
            rows.extend(self._shard_top(f"{ladder}#{shard}", limit, after))
        rows.sort(key=order_of)
        return rows[:limit]

    def _check(
        self,
        ladder: str,
        entries: Sequence[LeaderboardRow],
        checked: dict[str, LeaderboardRow | None],
    ) -> None:
        """Add to `checked` each new player of the index `entries` as their state has them now
        (strongly consistent), or None when they are no longer on the board."""
        unread = list(
            dict.fromkeys(row.player_id for row in entries if row.player_id not in checked)
        )
        if not unread:
            return
        states = self.read_states(ladder, unread)
        for player_id in unread:
            state = states.get(player_id)
            on_board = state is not None and state.ranked_games > 0 and state.listed
            checked[player_id] = (
                LeaderboardRow(player_id, state.rating, state.ranked_games)
                if state is not None and on_board
                else None
            )

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
        start_key = None
        while True:
            response = self._query(
                shard,
                range_key_condition=condition,
                index_name=LEADERBOARD_INDEX,
                scan_index_forward=ascending,
                limit=limit + 1,
                exclusive_start_key=start_key,
            )
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
            start_key = response.get("LastEvaluatedKey")
            if not start_key:
                return

    def stored_games(self, ladder: str) -> Iterator[StoredGame]:
        # A scan reads the whole table: for exports and analysis, never on a request path.
        prefix = game_key(ladder, "")
        condition = RatingsItem.pk.startswith(prefix) & (RatingsItem.sk == GAME_SK)
        with transient_as_storage_error():
            for item in RatingsItem.scan(condition):
                if isinstance(item, GameItem):
                    yield stored_game_of(ladder, item.pk.removeprefix(prefix), item)

    # Low-level helpers -------------------------------------------------------------------

    def _batch_get(self, keys: Sequence[tuple[str, str]]) -> Iterator[RatingsItem]:
        with transient_as_storage_error():
            yield from RatingsItem.batch_get(keys, consistent_read=True)

    def _get(self, pk: str, sk: str) -> RatingsItem | None:
        with transient_as_storage_error():
            try:
                return RatingsItem.get(pk, sk, consistent_read=True)
            except RatingsItem.DoesNotExist:
                return None

    def _query(self, hash_key: str, **options: Any) -> dict[str, Any]:
        """One page of a query on the table (or one of its indexes), as DynamoDB answers it."""
        with transient_as_storage_error():
            return dict(self.connection.query(self.table_name, hash_key, **options))


def order_of(row: LeaderboardRow) -> tuple[int, str]:
    return board_order(row.rating, row.player_id)
