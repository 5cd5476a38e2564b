"""The writes port on DynamoDB: batched, strongly consistent reads of what a commit is
conditioned on (players' states, links, the recent-games window), and the commits
(`commits`), each one TransactWriteItems.
"""

from collections.abc import Mapping, Sequence
from datetime import datetime

from pynamodb.constants import COUNT
from pynamodb.exceptions import PutError

from ratings.service.player import Player
from ratings.service.ports import Writes
from ratings.service.stored import (
    ERASURE,
    PENDING,
    Events,
    GameReads,
    Link,
    LinkReads,
    Players,
    PodiumReads,
    Standings,
    StoredGame,
    StoredTournament,
    erasure_id,
)
from ratings.storage.dynamodb import commits
from ratings.storage.dynamodb.errors import response_code, transient_as_storage_error
from ratings.storage.dynamodb.job_layout import JobItem, job_key
from ratings.storage.dynamodb.layout import (
    ACCOUNT_SK,
    ANON_SK,
    GAME_SK,
    LINK_PK_PREFIX,
    RANKED_INDEX,
    STANDINGS_SK,
    STATE_SK,
    TOURNAMENT_SK,
    GameItem,
    LinkItem,
    RatingsItem,
    StandingsItem,
    StateItem,
    TournamentItem,
    award_pointer_item,
    compact_json,
    game_item,
    game_key,
    link_key,
    player_key,
    player_of,
    standings_key,
    stored_game_of,
    stored_tournament_of,
    tournament_item,
    tournament_key,
)
from ratings.storage.dynamodb.table import BoundTable
from ratings.timestamps import format_utc_millis


class DynamoWrites(Writes):
    """The reads a commit is conditioned on (consistent BatchGetItems, a counted
    Query for the window) and the commits, each one transaction (`commits`)."""

    def __init__(self, table: BoundTable) -> None:
        self._table = table

    def read_for_game(
        self, ladder: str, game_id: str | None, player_ids: Sequence[str]
    ) -> GameReads:
        created = None if game_id is None else (game_key(ladder, game_id), GAME_SK)
        item, links, states = self._read_with_players(ladder, player_ids, created)
        game = stored_game_of(ladder, game_id or "", item) if isinstance(item, GameItem) else None
        return GameReads(game, links, states)

    def read_for_podium(
        self, ladder: str, tournament_id: str, player_ids: Sequence[str]
    ) -> PodiumReads:
        created = (tournament_key(ladder, tournament_id), TOURNAMENT_SK)
        item, links, states = self._read_with_players(ladder, player_ids, created)
        tournament = None
        if isinstance(item, TournamentItem):
            tournament = stored_tournament_of(ladder, tournament_id, item)
        return PodiumReads(tournament, links, states)

    def _read_with_players(
        self, ladder: str, player_ids: Sequence[str], created: tuple[str, str] | None
    ) -> tuple[RatingsItem | None, dict[str, str], dict[str, Player]]:
        """One BatchGetItem: the players' states and anonymous-link items, and the game or
        tournament item at the key `created` when given (it comes back as the first value)."""
        keys = [(player_key(ladder, pid), STATE_SK) for pid in player_ids]
        keys += [(link_key(pid), ANON_SK) for pid in player_ids]
        if created is not None:
            keys.append(created)
        found = None
        links: dict[str, str] = {}
        states: dict[str, Player] = {}
        for item in self._table.batch_get(keys):
            if isinstance(item, LinkItem):
                links[item.pk.removeprefix(LINK_PK_PREFIX)] = item.other_id
            elif isinstance(item, StateItem):
                states[item.player_id] = player_of(item)
            else:
                found = item
        return found, links, states

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
        keys += [job_key(ERASURE, erasure_id(pid)) for pid in (anonymous_id, account_id)]
        sides: dict[tuple[str, str], str] = {}
        states: dict[tuple[str, str], Player] = {}
        erased: set[str] = set()
        for item in self._table.batch_get(keys):
            if isinstance(item, LinkItem):
                sides[(item.pk.removeprefix(LINK_PK_PREFIX), item.sk)] = item.other_id
            elif isinstance(item, StateItem):
                states[(item.ladder, item.player_id)] = player_of(item)
            elif isinstance(item, JobItem) and item.status == PENDING:
                erased.add(item.job_id)
        return LinkReads(
            anonymous_linked_to=sides.get((anonymous_id, ANON_SK)),
            account_absorbed=sides.get((account_id, ACCOUNT_SK)),
            account_linked_to=sides.get((account_id, ANON_SK)),
            anonymous_absorbed=sides.get((anonymous_id, ACCOUNT_SK)),
            states=states,
            erasing=tuple(pid for pid in (anonymous_id, account_id) if erasure_id(pid) in erased),
        )

    def read_states(self, ladder: str, player_ids: Sequence[str]) -> Mapping[str, Player]:
        keys = [(player_key(ladder, pid), STATE_SK) for pid in player_ids]
        return {
            item.player_id: player_of(item)
            for item in self._table.batch_get(keys)
            if isinstance(item, StateItem)
        }

    def count_ranked_games(
        self, ladder: str, player_id: str, since: datetime, until: datetime, limit: int
    ) -> int:
        # The window as a key range on the sparse index: DynamoDB counts, at most `limit`.
        window = RatingsItem.ranked_at.between(format_utc_millis(since), format_utc_millis(until))
        response = self._table.query(
            player_key(ladder, player_id),
            range_key_condition=window,
            index_name=RANKED_INDEX,
            consistent_read=True,
            limit=limit,
            select=COUNT,
        )
        return min(int(response.get("Count", 0)), limit)

    def resolve(self, player_id: str) -> str:
        item = self._table.get(link_key(player_id), ANON_SK)
        return item.other_id if isinstance(item, LinkItem) else player_id

    def commit_game(
        self,
        game: StoredGame,
        players: Players,
        events: Events,
        unchanged: Players = (),
        *,
        now: datetime | None = None,
    ) -> None:
        commits.commit_created(
            self._table, game_item(game), players, events, unchanged, expired_by=now
        )

    def commit_tournament(
        self,
        tournament: StoredTournament,
        players: Players,
        events: Events,
        unchanged: Players = (),
        podium_ids: Sequence[str] = (),
    ) -> None:
        pointers = [
            award_pointer_item(tournament.ladder, player_id, tournament.tournament_id)
            for player_id in podium_ids
        ]
        commits.commit_created(
            self._table, tournament_item(tournament), players, events, unchanged, pointers
        )

    def commit_link(self, link: Link, players: Players) -> None:
        commits.commit_link(self._table, link, players)

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
                self._table.put(item, condition=newer_only)
            except PutError as error:
                if response_code(error) == "ConditionalCheckFailedException":
                    return False
                raise
        return True
