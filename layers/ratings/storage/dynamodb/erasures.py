"""The erasure port on DynamoDB: what erasing a player reads (the id's links, states and
partitions) and writes (its job record, guarded against a link; the steps' transactions).
The items it touches are described in docs/table-layout.md ("Erasing a player").
"""

from collections.abc import Mapping, Sequence

from pynamodb.expressions.condition import Condition

from ratings.service.errors import AlreadyLinked, AlreadyStored, WriteConflict
from ratings.service.game_result import GAME_EVENT
from ratings.service.player import FrozenStanding, Player
from ratings.service.ports import ErasureStore
from ratings.service.sanction_records import SANCTION_POINTER
from ratings.service.stored import (
    AWARD_POINTER,
    FROZEN_STANDING,
    ErasedIdentity,
    EventKey,
    Job,
    Link,
    PlayerEvent,
    PlayerItem,
    Pseudonymized,
    References,
    StoredGame,
    StoredTournament,
)
from ratings.storage.dynamodb.job_layout import JobItem, job_item
from ratings.storage.dynamodb.layout import (
    ACCOUNT_SK,
    ANON_SK,
    GAME_SK,
    STATE_SK,
    TOURNAMENT_SK,
    AwardPointerItem,
    EventItem,
    GameItem,
    LinkItem,
    RatingsItem,
    StandingItem,
    StateItem,
    TournamentItem,
    event_item,
    event_of,
    event_sort_key,
    game_item,
    game_key,
    link_key,
    player_key,
    player_of,
    standing_item,
    standing_of,
    stored_game_of,
    stored_tournament_of,
    tournament_item,
    tournament_key,
)
from ratings.storage.dynamodb.sanction_layout import SanctionPointerItem
from ratings.storage.dynamodb.table import BoundTable
from ratings.storage.dynamodb.unit_of_work import Tx, state_puts, transact


class DynamoErasures(ErasureStore):
    def __init__(self, table: BoundTable) -> None:
        self._table = table

    def holds_player(self, player_id: str, ladders: Sequence[str]) -> bool:
        keys = [(link_key(player_id), ANON_SK), (link_key(player_id), ACCOUNT_SK)]
        keys += [(player_key(ladder, player_id), STATE_SK) for ladder in ladders]
        if any(True for _item in self._table.batch_get(keys)):
            return True
        # No state: games that were all unranked, or podium awards, may still be stored.
        return any(
            self._table.query(player_key(ladder, player_id), consistent_read=True, limit=1).get(
                "Items"
            )
            for ladder in ladders
        )

    def request_erasure(self, job: Job, player_id: str) -> None:
        condition: Condition
        on_fail: type[Exception]
        if job.progress_version == 1:
            condition, on_fail = JobItem.pk.does_not_exist(), AlreadyStored
        else:
            condition = JobItem.progress_version == job.progress_version - 1
            on_fail = WriteConflict
        unlinked = LinkItem(link_key(player_id), ANON_SK, other_id="")
        transact(
            self._table,
            [
                Tx(job_item(job), condition, on_fail),
                Tx(unlinked, LinkItem.pk.does_not_exist(), AlreadyLinked, check_only=True),
            ],
        )

    def read_identity(self, player_id: str, ladders: Sequence[str]) -> ErasedIdentity:
        keys = [(link_key(player_id), ANON_SK), (link_key(player_id), ACCOUNT_SK)]
        keys += [(player_key(ladder, player_id), STATE_SK) for ladder in ladders]
        sides: dict[str, str] = {}
        states: dict[tuple[str, str], Player] = {}
        for item in self._table.batch_get(keys):
            if isinstance(item, LinkItem):
                sides[item.sk] = item.other_id
            elif isinstance(item, StateItem):
                states[(item.ladder, item.player_id)] = player_of(item)
        absorbed = sides.get(ACCOUNT_SK)
        if absorbed is not None:
            absorbed_keys = [(player_key(ladder, absorbed), STATE_SK) for ladder in ladders]
            for item in self._table.batch_get(absorbed_keys):
                if isinstance(item, StateItem):
                    states[(item.ladder, item.player_id)] = player_of(item)
        return ErasedIdentity(absorbed, sides.get(ANON_SK), states)

    def mark(self, players: Sequence[Player]) -> None:
        transact(self._table, list(state_puts(self._table, players)))

    def player_items(self, ladder: str, player_id: str, limit: int) -> Sequence[PlayerItem]:
        # The state sorts after every other item (STATE > E#..., AWARD#..., SEASON#...): one
        # item more than asked fills the page even when the state is among those read.
        response = self._table.query(
            player_key(ladder, player_id), consistent_read=True, limit=limit + 1
        )
        items = []
        for raw in response.get("Items", []):
            item = RatingsItem.from_raw_data(raw)
            if item.sk == STATE_SK:
                continue
            if isinstance(item, EventItem):
                event = event_of(ladder, player_id, item)
                items.append(
                    PlayerItem(ladder, player_id, event.event_type, event.ref_id, item.sk, event)
                )
            elif isinstance(item, AwardPointerItem):
                items.append(
                    PlayerItem(ladder, player_id, AWARD_POINTER, item.tournament_id, item.sk)
                )
            elif isinstance(item, SanctionPointerItem):
                items.append(
                    PlayerItem(ladder, player_id, SANCTION_POINTER, item.sanction_id, item.sk)
                )
            elif isinstance(item, StandingItem):
                standing = standing_of(item)
                items.append(
                    PlayerItem(
                        ladder,
                        player_id,
                        FROZEN_STANDING,
                        standing.season_id,
                        item.sk,
                        standing=standing,
                    )
                )
            else:
                items.append(PlayerItem(ladder, player_id, str(item.item_type), "", item.sk))
        return items[:limit]

    def read_references(
        self,
        ladder: str,
        game_ids: Sequence[str],
        tournament_ids: Sequence[str],
        events: Sequence[EventKey],
    ) -> References:
        keys = [(game_key(ladder, game_id), GAME_SK) for game_id in game_ids]
        keys += [(tournament_key(ladder, tid), TOURNAMENT_SK) for tid in tournament_ids]
        by_key = {
            (
                player_key(ladder, key.player_id),
                event_sort_key(key.at, GAME_EVENT, key.game_id),
            ): key
            for key in events
        }
        keys += list(by_key)
        games: dict[str, StoredGame] = {}
        tournaments: dict[str, StoredTournament] = {}
        found: dict[EventKey, PlayerEvent] = {}
        game_prefix, tournament_prefix = game_key(ladder, ""), tournament_key(ladder, "")
        for item in self._table.batch_get(keys):
            if isinstance(item, GameItem):
                game_id = item.pk.removeprefix(game_prefix)
                games[game_id] = stored_game_of(ladder, game_id, item)
            elif isinstance(item, TournamentItem):
                tid = item.pk.removeprefix(tournament_prefix)
                tournaments[tid] = stored_tournament_of(ladder, tid, item)
            elif isinstance(item, EventItem):
                key = by_key[(item.pk, item.sk)]
                found[key] = event_of(ladder, key.player_id, item)
        return References(games, tournaments, found)

    def pseudonymize(self, ladder: str, rewrite: Pseudonymized) -> None:
        operations = [
            Tx(
                game_item(game._replace(revision=game.revision + 1)),
                (GameItem.fingerprint == game.fingerprint) & _revision_is(GameItem, game.revision),
                WriteConflict,
            )
            for game in rewrite.games
        ]
        operations += [
            Tx(
                tournament_item(tournament._replace(revision=tournament.revision + 1)),
                (TournamentItem.fingerprint == tournament.fingerprint)
                & _revision_is(TournamentItem, tournament.revision),
                WriteConflict,
            )
            for tournament in rewrite.tournaments
        ]
        operations += [
            Tx(event_item(event), EventItem.pk.exists(), WriteConflict) for event in rewrite.events
        ]
        # Each standing under its pseudonym, its entry on its season's leaderboard with it.
        operations += [
            Tx(standing_item(standing, self._table.shards), None, WriteConflict)
            for standing in rewrite.standings
        ]
        operations += [
            Tx(
                _keys(player_key(ladder, item.player_id), item.key),
                _as_read(item),
                WriteConflict,
                delete=True,
            )
            for item in rewrite.deleted
        ]
        if operations:
            transact(self._table, operations)

    def unlink(self, links: Sequence[Link]) -> None:
        operations = []
        for link in links:
            operations.append(
                Tx(_keys(link_key(link.anonymous_id), ANON_SK), None, WriteConflict, delete=True)
            )
            operations.append(
                Tx(_keys(link_key(link.account_id), ACCOUNT_SK), None, WriteConflict, delete=True)
            )
        if operations:
            transact(self._table, operations)

    def read_states(self, keys: Sequence[tuple[str, str]]) -> Mapping[tuple[str, str], Player]:
        items = self._table.batch_get(
            [(player_key(ladder, player_id), STATE_SK) for ladder, player_id in keys]
        )
        return {
            (item.ladder, item.player_id): player_of(item)
            for item in items
            if isinstance(item, StateItem)
        }

    def delete_states(
        self, players: Sequence[Player], standings: Sequence[FrozenStanding] = ()
    ) -> None:
        operations = [
            Tx(
                _keys(player_key(player.ladder, player.player_id), STATE_SK),
                StateItem.pk.does_not_exist() | (StateItem.version == player.version),
                WriteConflict,
                delete=True,
            )
            for player in players
        ]
        # The final standings they leave, under pseudonyms (one item a pseudonym and season:
        # nothing is ever stored twice), with their leaderboard entries.
        operations += [
            Tx(standing_item(standing, self._table.shards), None, WriteConflict)
            for standing in standings
        ]
        if operations:
            transact(self._table, operations)


def _as_read(item: PlayerItem) -> Condition | None:
    """What a delete of one of the player's own items holds on: a frozen standing, that it is
    still hidden or shown as read (a sanction's lift may show it meanwhile: its copy under the
    pseudonym must be as it is); any other item, nothing."""
    if item.kind == FROZEN_STANDING and item.standing is not None:
        return StandingItem.hidden == item.standing.hidden
    return None


def _revision_is(model: type[GameItem] | type[TournamentItem], revision: int) -> Condition:
    if revision == 0:
        return model.revision.does_not_exist()
    return model.revision == revision


def _keys(pk: str, sk: str) -> RatingsItem:
    """An item that is only its keys: what a delete sends."""
    return RatingsItem(pk, sk)
