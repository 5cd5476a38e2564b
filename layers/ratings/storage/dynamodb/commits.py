"""The storage port's writes on DynamoDB: each commit is one TransactWriteItems, its items
guarded by conditions (a record created once, player states at their expected version).
"""

from collections.abc import Iterator, Sequence
from datetime import datetime
from typing import NamedTuple

from pynamodb.exceptions import TransactWriteError
from pynamodb.expressions.condition import Condition
from pynamodb.transactions import TransactWrite

from ratings.service.ports import (
    AlreadyStored,
    Link,
    PlayerEvent,
    StateWrite,
    StoredGame,
    StoredTournament,
    WriteConflict,
)
from ratings.storage.dynamodb.errors import raise_for_cancelled
from ratings.storage.dynamodb.layout import (
    ACCOUNT_SK,
    ANON_SK,
    BoundTable,
    LinkItem,
    RatingsItem,
    StateItem,
    event_item,
    game_item,
    leaderboard_shard,
    link_key,
    state_item_of,
    tournament_item,
)


class _Tx(NamedTuple):
    """One transaction item, remembered with what its failed condition would mean."""

    item: RatingsItem
    condition: Condition | None
    on_fail: type[Exception]
    check_only: bool = False


class TableCommits(BoundTable):
    """The write half of the storage port."""

    def commit_game(
        self,
        game: StoredGame,
        states: Sequence[StateWrite],
        events: Sequence[PlayerEvent],
        *,
        now: datetime | None = None,
    ) -> None:
        absent = RatingsItem.pk.does_not_exist()
        if now is not None:
            # Past its expires_at the record counts as gone, whether or not TTL deleted it.
            absent = absent | (RatingsItem.expires_at <= now)
        self._commit_record(game_item(game), states, events, absent)

    def commit_tournament(
        self,
        tournament: StoredTournament,
        states: Sequence[StateWrite],
        events: Sequence[PlayerEvent],
    ) -> None:
        self._commit_record(
            tournament_item(tournament), states, events, RatingsItem.pk.does_not_exist()
        )

    def commit_link(self, link: Link, states: Sequence[StateWrite]) -> None:
        anonymous, account = link.anonymous_id, link.account_id
        free = LinkItem.pk.does_not_exist()
        self._transact(
            [
                _Tx(LinkItem(link_key(anonymous), ANON_SK, other_id=account), free, AlreadyStored),
                _Tx(
                    LinkItem(link_key(account), ACCOUNT_SK, other_id=anonymous), free, AlreadyStored
                ),
                # Neither id may already be linked the other way round.
                _Tx(LinkItem(link_key(account), ANON_SK, other_id=""), free, AlreadyStored, True),
                _Tx(
                    LinkItem(link_key(anonymous), ACCOUNT_SK, other_id=""),
                    free,
                    AlreadyStored,
                    True,
                ),
                *self._state_writes(states),
            ]
        )

    def _commit_record(
        self,
        record: RatingsItem,
        states: Sequence[StateWrite],
        events: Sequence[PlayerEvent],
        absent: Condition,
    ) -> None:
        """A record created once (game, tournament) where `absent` holds, with the states and
        events it changes."""
        self._transact(
            [
                _Tx(record, absent, AlreadyStored),
                *self._state_writes(states),
                *(_Tx(event_item(event), None, WriteConflict) for event in events),
            ]
        )

    def _state_writes(self, states: Sequence[StateWrite]) -> Iterator[_Tx]:
        for write in states:
            item = state_item_of(write.record())
            # The leaderboard index is sparse: listed players with a ranked game only.
            if write.ranked_games > 0 and write.listed:
                item.lb_shard = leaderboard_shard(write.ladder, write.player_id, self.shards)
                item.lb_rating = write.rating
            condition: Condition
            if write.expected_version == 0:
                condition = StateItem.pk.does_not_exist()
            else:
                condition = StateItem.version == write.expected_version
            yield _Tx(item, condition, WriteConflict)

    def _transact(self, operations: Sequence[_Tx]) -> None:
        # pynamodb sends condition checks before puts, and DynamoDB reports one cancellation
        # reason per item in the order sent: keep `operations` in that order to match them.
        operations = sorted(operations, key=lambda operation: not operation.check_only)
        try:
            with TransactWrite(connection=self.connection) as transaction:
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
