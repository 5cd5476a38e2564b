"""The transactions of the writes port on DynamoDB: each commit is one TransactWriteItems, its
items guarded by conditions (a record created once, players' states over the version they
came from), and a cancelled transaction read back as what it means.
"""

from collections.abc import Iterator, Sequence
from datetime import datetime
from typing import NamedTuple

from pynamodb.exceptions import TransactWriteError
from pynamodb.expressions.condition import Condition

from ratings.service.errors import AlreadyStored, WriteConflict
from ratings.service.player import Player
from ratings.service.stored import DONE, ERASURE, Link, PlayerEvent, erasure_id
from ratings.storage.dynamodb.errors import raise_for_cancelled
from ratings.storage.dynamodb.job_layout import JobItem, job_key
from ratings.storage.dynamodb.layout import (
    ACCOUNT_SK,
    ANON_SK,
    LinkItem,
    RatingsItem,
    StateItem,
    event_item,
    leaderboard_shard,
    link_key,
    state_item_of,
)
from ratings.storage.dynamodb.table import BoundTable


class Tx(NamedTuple):
    """One transaction item, remembered with what its failed condition would mean."""

    item: RatingsItem
    condition: Condition | None
    on_fail: type[Exception]
    check_only: bool = False
    delete: bool = False

    @property
    def sent_as(self) -> int:
        """Where pynamodb sends it: condition checks, then deletes, then puts."""
        return 0 if self.check_only else 1 if self.delete else 2


def commit_created(
    table: BoundTable,
    created: RatingsItem,
    players: Sequence[Player],
    events: Sequence[PlayerEvent],
    unchanged: Sequence[Player] = (),
    also: Sequence[RatingsItem] = (),
    *,
    expired_by: datetime | None = None,
) -> None:
    """A result created once (game, tournament), with the states and events it changes, over
    the `unchanged` states' versions, with the items `also` (pointers to it); with
    `expired_by`, a stored one whose expires_at is at or before it is replaced, as absent."""
    absent = RatingsItem.pk.does_not_exist()
    if expired_by is not None:
        # Past its expires_at the record counts as gone, whether or not TTL deleted it.
        absent = absent | (RatingsItem.expires_at <= expired_by)
    transact(
        table,
        [
            Tx(created, absent, AlreadyStored),
            *state_puts(table, players),
            *state_checks(unchanged),
            *(Tx(event_item(event), None, WriteConflict) for event in events),
            *(Tx(item, None, WriteConflict) for item in also),
        ],
    )


def state_checks(players: Sequence[Player]) -> Iterator[Tx]:
    """Condition checks that each state is still at the version read (0: none stored)."""
    for player in players:
        item = state_item_of(player)
        condition: Condition
        if player.version == 0:
            condition = StateItem.pk.does_not_exist()
        else:
            condition = StateItem.version == player.version
        yield Tx(item, condition, WriteConflict, check_only=True)


def commit_link(table: BoundTable, link: Link, players: Sequence[Player]) -> None:
    anonymous, account = link.anonymous_id, link.account_id
    free = LinkItem.pk.does_not_exist()
    transact(
        table,
        [
            Tx(LinkItem(link_key(anonymous), ANON_SK, other_id=account), free, AlreadyStored),
            Tx(LinkItem(link_key(account), ACCOUNT_SK, other_id=anonymous), free, AlreadyStored),
            # Neither id may already be linked the other way round.
            Tx(LinkItem(link_key(account), ANON_SK, other_id=""), free, AlreadyStored, True),
            Tx(LinkItem(link_key(anonymous), ACCOUNT_SK, other_id=""), free, AlreadyStored, True),
            # Neither id may have an erasure pending (requested after the reads).
            *(_erasure_done_or_none(player_id) for player_id in (anonymous, account)),
            *state_puts(table, players),
        ],
    )


def _erasure_done_or_none(player_id: str) -> Tx:
    pk, sk = job_key(ERASURE, erasure_id(player_id))
    condition = JobItem.pk.does_not_exist() | (JobItem.status == DONE)
    return Tx(JobItem(pk, sk), condition, WriteConflict, check_only=True)


def state_puts(table: BoundTable, players: Sequence[Player]) -> Iterator[Tx]:
    """Each state stored over the version it came from (none stored for version 1)."""
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
        yield Tx(item, condition, WriteConflict)


def transact(table: BoundTable, operations: Sequence[Tx]) -> None:
    # pynamodb sends condition checks, then deletes, then puts, and DynamoDB reports one
    # cancellation reason per item in the order sent: keep `operations` in that order.
    operations = sorted(operations, key=lambda operation: operation.sent_as)
    try:
        with table.transact_write() as transaction:
            for operation in operations:
                if operation.check_only:
                    transaction.condition_check(
                        type(operation.item),
                        operation.item.pk,
                        operation.item.sk,
                        condition=operation.condition,
                    )
                elif operation.delete:
                    transaction.delete(operation.item, condition=operation.condition)
                else:
                    transaction.save(operation.item, condition=operation.condition)
    except TransactWriteError as error:
        failed = [operation.on_fail(operation.item.pk) for operation in operations]
        raise_for_cancelled(error, failed)
