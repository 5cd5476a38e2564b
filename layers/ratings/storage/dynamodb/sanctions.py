"""The sanctions port on DynamoDB: the sanction's record and decisions (one partition per
sanction), the sanctioned player's games on the `ranked_by_time` index, and the commits, each
one TransactWriteItems whose conditions make every step safe to repeat."""

from collections.abc import Sequence
from typing import NamedTuple

from pynamodb.exceptions import PutError, TransactWriteError, UpdateError
from pynamodb.expressions.condition import Condition
from pynamodb.expressions.update import Action
from pynamodb.transactions import TransactWrite

from ratings.rules.refunds import Window
from ratings.service.errors import AlreadyStored, WriteConflict
from ratings.service.player import Player
from ratings.service.ports import SanctionStore
from ratings.service.sanction_records import (
    GameAgainst,
    GamePosition,
    GamesPage,
    RefundDecision,
    RefundReads,
    Sanction,
    SanctionReads,
    opponents_undecided,
)
from ratings.service.stored import GAME_EVENT, PlayerEvent, StoredGame
from ratings.storage.dynamodb import commits
from ratings.storage.dynamodb.errors import raise_for_cancelled, transient_as_storage_error
from ratings.storage.dynamodb.layout import (
    ACCOUNT_SK,
    ANON_SK,
    GAME_SK,
    LINK_PK_PREFIX,
    RANKED_INDEX,
    STATE_SK,
    BoundTable,
    GameItem,
    LinkItem,
    RatingsItem,
    StateItem,
    event_item,
    event_sort_key,
    game_key,
    link_key,
    player_key,
    player_of,
    stored_game_of,
)
from ratings.storage.dynamodb.sanction_layout import (
    DECISION_SK_PREFIX,
    SANCTION_SK,
    DecisionItem,
    SanctionItem,
    decision_item,
    decision_of,
    decision_sort_key,
    pointer_item,
    position_text,
    sanction_item,
    sanction_key,
    sanction_of,
)
from ratings.timestamps import format_utc_millis, parse_utc_millis

#: Sorts after every `{played_at}#{game_id}` of the same millisecond (ids are A-Z a-z 0-9 . _ : -).
_AFTER_ANY_ID = "#~"


class _Op(NamedTuple):
    """One item of a transaction, with what its failed condition would mean."""

    item: RatingsItem
    condition: Condition | None
    on_fail: type[Exception]
    #: Update actions; None: the item is put whole.
    actions: Sequence[Action] | None = None


class DynamoSanctions(SanctionStore):
    def __init__(self, table: BoundTable) -> None:
        self._table = table

    def read_for_sanction(self, ladder: str, sanction_id: str, player_id: str) -> SanctionReads:
        keys = [
            (sanction_key(ladder, sanction_id), SANCTION_SK),
            (player_key(ladder, player_id), STATE_SK),
            (link_key(player_id), ANON_SK),
            (link_key(player_id), ACCOUNT_SK),
        ]
        sanction = account_of = anonymous_of = None
        states: dict[str, Player] = {}
        for item in self._table.batch_get(keys):
            if isinstance(item, SanctionItem):
                sanction = sanction_of(item)
            elif isinstance(item, StateItem):
                states[item.player_id] = player_of(item)
            elif isinstance(item, LinkItem) and item.sk == ANON_SK:
                account_of = item.other_id
            elif isinstance(item, LinkItem):
                anonymous_of = item.other_id
        return SanctionReads(sanction, account_of, anonymous_of, states)

    def get_sanction(self, ladder: str, sanction_id: str) -> Sanction | None:
        item = self._table.get(sanction_key(ladder, sanction_id), SANCTION_SK)
        return sanction_of(item) if isinstance(item, SanctionItem) else None

    def decisions(self, ladder: str, sanction_id: str) -> Sequence[RefundDecision]:
        found: list[RefundDecision] = []
        start_key = None
        while True:
            response = self._table.query(
                sanction_key(ladder, sanction_id),
                range_key_condition=RatingsItem.sk.startswith(DECISION_SK_PREFIX),
                consistent_read=True,
                exclusive_start_key=start_key,
            )
            for raw in response.get("Items", []):
                item = DecisionItem.from_raw_data(raw)
                found.append(decision_of(ladder, sanction_id, item))
            start_key = response.get("LastEvaluatedKey")
            if not start_key:
                return found

    def games_against(
        self,
        ladder: str,
        player_id: str,
        window: Window,
        after: GamePosition | None,
        limit: int,
    ) -> GamesPage:
        pk = player_key(ladder, player_id)
        # The window as a key range on the sparse index of ranked games: both ends included.
        in_window = RatingsItem.ranked_at.between(
            format_utc_millis(window.since), format_utc_millis(window.until) + _AFTER_ANY_ID
        )
        start_key = None
        if after is not None:
            at, game_id = after
            start_key = {
                "pk": {"S": pk},
                "sk": {"S": event_sort_key(at, GAME_EVENT, game_id)},
                "ranked_at": {"S": position_text(after)},
            }
        # Keys only: the played_at and game id are the index's sort key, the rest is in the
        # stored game, read with the page's decisions.
        response = self._table.query(
            pk,
            range_key_condition=in_window,
            index_name=RANKED_INDEX,
            consistent_read=True,
            limit=limit + 1,
            exclusive_start_key=start_key,
        )
        raws = response.get("Items", [])
        games = []
        for raw in raws[:limit]:
            at, game_id = raw["ranked_at"]["S"].split("#", 1)
            games.append(GameAgainst(game_id, parse_utc_millis(at)))
        return GamesPage(games, more=len(raws) > limit or "LastEvaluatedKey" in response)

    def read_for_refunds(
        self, ladder: str, sanction_id: str, player_id: str, games: Sequence[GameAgainst]
    ) -> RefundReads:
        partition = sanction_key(ladder, sanction_id)
        keys = [(partition, decision_sort_key(game.game_id)) for game in games]
        keys += [(game_key(ladder, game.game_id), GAME_SK) for game in games]
        decided: dict[str, RefundDecision] = {}
        stored: dict[str, StoredGame] = {}
        games_prefix = game_key(ladder, "")
        for item in self._table.batch_get(keys):
            if isinstance(item, DecisionItem):
                decided[item.game_id] = decision_of(ladder, sanction_id, item)
            elif isinstance(item, GameItem):
                game_id = item.pk.removeprefix(games_prefix)
                stored[game_id] = stored_game_of(ladder, game_id, item)
        # The opponents are known from the stored games only: a second round trip.
        opponents = opponents_undecided(stored, decided, player_id)
        keys = [(player_key(ladder, pid), STATE_SK) for pid in opponents]
        keys += [(link_key(pid), ANON_SK) for pid in opponents]
        links: dict[str, str] = {}
        states: dict[str, Player] = {}
        for item in self._table.batch_get(keys) if keys else ():
            if isinstance(item, StateItem):
                states[item.player_id] = player_of(item)
            elif isinstance(item, LinkItem):
                links[item.pk.removeprefix(LINK_PK_PREFIX)] = item.other_id
        return RefundReads(decided, stored, links, states)

    def commit_sanction(self, sanction: Sanction, player: Player) -> None:
        self._transact(
            [
                _Op(sanction_item(sanction), RatingsItem.pk.does_not_exist(), AlreadyStored),
                *self._state_puts([player]),
                _Op(pointer_item(sanction), None, WriteConflict),
            ]
        )

    def commit_lift(self, sanction: Sanction, player: Player | None) -> None:
        assert sanction.lifted_at is not None
        record = SanctionItem(sanction_key(sanction.ladder, sanction.sanction_id), SANCTION_SK)
        not_lifted = RatingsItem.pk.exists() & SanctionItem.lifted_at.does_not_exist()
        lift = [SanctionItem.lifted_at.set(format_utc_millis(sanction.lifted_at))]
        self._transact(
            [
                _Op(record, not_lifted, AlreadyStored, lift),
                *self._state_puts([] if player is None else [player]),
            ]
        )

    def commit_refund(self, decision: RefundDecision, victim: Player, event: PlayerEvent) -> None:
        self._transact(
            [
                _Op(decision_item(decision), RatingsItem.pk.does_not_exist(), AlreadyStored),
                *self._state_puts([victim]),
                _Op(event_item(event), None, WriteConflict),
            ]
        )

    def record_withheld(self, decision: RefundDecision) -> None:
        with transient_as_storage_error():
            try:
                decision_item(decision).save(condition=RatingsItem.pk.does_not_exist())
            except PutError as error:
                if error.cause_response_code == "ConditionalCheckFailedException":
                    raise AlreadyStored(decision.game_id) from error
                raise

    def save_progress(self, sanction: Sanction) -> None:
        record = SanctionItem(sanction_key(sanction.ladder, sanction.sanction_id), SANCTION_SK)
        after = position_text(sanction.progress.after)
        completed = sanction.completed_at
        actions: list[Action] = [
            SanctionItem.status.set(sanction.status),
            SanctionItem.progress_phase.set(sanction.progress.phase),
            SanctionItem.progress_version.set(sanction.progress_version),
            SanctionItem.progress_after.remove()
            if after is None
            else SanctionItem.progress_after.set(after),
        ]
        if completed is not None:
            actions.append(SanctionItem.completed_at.set(format_utc_millis(completed)))
        previous = SanctionItem.progress_version == sanction.progress_version - 1
        with transient_as_storage_error():
            try:
                record.update(actions, condition=previous)
            except UpdateError as error:
                if error.cause_response_code == "ConditionalCheckFailedException":
                    raise WriteConflict(sanction.sanction_id) from error
                raise

    def _state_puts(self, players: Sequence[Player]) -> list[_Op]:
        return [
            _Op(tx.item, tx.condition, tx.on_fail)
            for tx in commits._state_puts(self._table, players)
        ]

    def _transact(self, operations: Sequence[_Op]) -> None:
        # pynamodb sends puts before updates, and DynamoDB reports one cancellation reason
        # per item in the order sent: keep `operations` in that order to match them.
        operations = sorted(operations, key=lambda operation: operation.actions is not None)
        try:
            with TransactWrite(connection=self._table.connection) as transaction:
                for operation in operations:
                    if operation.actions is None:
                        transaction.save(operation.item, condition=operation.condition)
                    else:
                        transaction.update(
                            operation.item,
                            list(operation.actions),
                            condition=operation.condition,
                        )
        except TransactWriteError as error:
            failed = [operation.on_fail(operation.item.pk) for operation in operations]
            raise_for_cancelled(error, failed)
