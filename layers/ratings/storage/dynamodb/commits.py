"""The transactions of the writes port on DynamoDB: each commit is one TransactWriteItems, its
items guarded by conditions (a record created once, players' states over the version they
came from), and a cancelled transaction read back as what it means.
"""

from collections.abc import Iterator, Sequence
from datetime import datetime
from typing import NamedTuple

from pynamodb.exceptions import TransactWriteError
from pynamodb.expressions.condition import Condition
from pynamodb.transactions import TransactWrite

from ratings.service.errors import AlreadyStored, WriteConflict
from ratings.service.player import Player
from ratings.service.stored import Link, PlayerEvent
from ratings.storage.dynamodb.errors import raise_for_cancelled
from ratings.storage.dynamodb.layout import (
    ACCOUNT_SK,
    ANON_SK,
    BoundTable,
    LinkItem,
    RatingsItem,
    StateItem,
    event_item,
    leaderboard_shard,
    link_key,
    state_item_of,
)


class _Tx(NamedTuple):
    """One transaction item, remembered with what its failed condition would mean."""

    item: RatingsItem
    condition: Condition | None
    on_fail: type[Exception]
    check_only: bool = False


def commit_created(
    table: BoundTable,
    created: RatingsItem,
    players: Sequence[Player],
    events: Sequence[PlayerEvent],
    *,
    expired_by: datetime | None = None,
) -> None:
    """A result created once (game, tournament), with the states and events it changes; with
    `expired_by`, a stored one whose expires_at is at or before it is replaced, as absent."""
    absent = RatingsItem.pk.does_not_exist()
    if expired_by is not None:
        # Past its expires_at the record counts as gone, whether or not TTL deleted it.
        absent = absent | (RatingsItem.expires_at <= expired_by)
    _transact(
        table,
        [
            _Tx(created, absent, AlreadyStored),
            *_state_puts(table, players),
            *(_Tx(event_item(event), None, WriteConflict) for event in events),
        ],
    )


def commit_link(table: BoundTable, link: Link, players: Sequence[Player]) -> None:
    anonymous, account = link.anonymous_id, link.account_id
    free = LinkItem.pk.does_not_exist()
    _transact(
        table,
        [
            _Tx(LinkItem(link_key(anonymous), ANON_SK, other_id=account), free, AlreadyStored),
            _Tx(LinkItem(link_key(account), ACCOUNT_SK, other_id=anonymous), free, AlreadyStored),
            # Neither id may already be linked the other way round.
            _Tx(LinkItem(link_key(account), ANON_SK, other_id=""), free, AlreadyStored, True),
            _Tx(LinkItem(link_key(anonymous), ACCOUNT_SK, other_id=""), free, AlreadyStored, True),
            *_state_puts(table, players),
        ],
    )


def _state_puts(table: BoundTable, players: Sequence[Player]) -> Iterator[_Tx]:
    for player in players:
        item = state_item_of(player)
        # The leaderboard index is sparse: listed players with a ranked game only.
        if player.on_the_board:
            item.lb_shard = leaderboard_shard(player.ladder, player.player_id, table.shards)
            item.lb_rating = player.rating
        condition: Condition
        if player.replaces_version == 0:
            condition = StateItem.pk.does_not_exist()
        else:
            condition = StateItem.version == player.replaces_version
        yield _Tx(item, condition, WriteConflict)


def _transact(table: BoundTable, operations: Sequence[_Tx]) -> None:
    # pynamodb sends condition checks before puts, and DynamoDB reports one cancellation
    # reason per item in the order sent: keep `operations` in that order to match them.
    operations = sorted(operations, key=lambda operation: not operation.check_only)
    try:
        with TransactWrite(connection=table.connection) as transaction:
            for operation in operations:
                if operation.check_only:
                    transaction.condition_check(
                        type(operation.item),
                        operation.item.pk,
                        operation.item.sk,
                        condition=operation.condition,
                    )
                else:
                    transaction.save(operation.item, condition=operation.condition)
    except TransactWriteError as error:
        failed = [operation.on_fail(operation.item.pk) for operation in operations]
        raise_for_cancelled(error, failed)
