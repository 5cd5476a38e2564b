"""The storage port on DynamoDB, with pynamodb: the only module that knows the table layout.

The layout (keys, indexes, items, transactions) is described in docs/table-layout.md; keep the
two in step. Every commit is one TransactWriteItems; reads on the hot path are strongly
consistent and batched.
"""

import json
import zlib
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from pynamodb.attributes import (
    BooleanAttribute,
    DiscriminatorAttribute,
    NumberAttribute,
    TTLAttribute,
    UnicodeAttribute,
)
from pynamodb.connection import Connection
from pynamodb.constants import COUNT, PAY_PER_REQUEST_BILLING_MODE
from pynamodb.exceptions import PynamoDBException, TransactWriteError
from pynamodb.expressions.condition import Condition
from pynamodb.indexes import (
    GlobalSecondaryIndex,
    IncludeProjection,
    KeysOnlyProjection,
    LocalSecondaryIndex,
)
from pynamodb.models import Model
from pynamodb.transactions import TransactWrite

from ratings.service.ports import (
    AlreadyStored,
    GameReads,
    HistoryPage,
    LeaderboardRow,
    Link,
    LinkReads,
    PlayerEvent,
    PlayerRecord,
    StateWrite,
    Storage,
    StoredGame,
    StoredTournament,
    TransientStorageError,
    WriteConflict,
)

RANKED_INDEX = "ranked_by_time"
LEADERBOARD_INDEX = "leaderboard"
TTL_ATTRIBUTE = "expires_at"
STATE_SK = "STATE"
GAME_SK = "GAME"
TOURNAMENT_SK = "TOURNAMENT"
ANON_SK = "ANON"
ACCOUNT_SK = "ACCOUNT"

#: Error codes after which the same request may succeed: the use case retries them.
TRANSIENT_CODES = frozenset(
    {
        "ProvisionedThroughputExceededException",
        "ThrottlingException",
        "RequestLimitExceeded",
        "InternalServerError",
        "ServiceUnavailable",
        "TransactionInProgressException",
        "TransactionConflictException",
        "LimitExceededException",
    }
)
_CONFLICT_REASONS = frozenset({"TransactionConflict", "ConditionalCheckFailed"})


def player_key(ladder: str, player_id: str) -> str:
    return f"P#{ladder}#{player_id}"


def game_key(ladder: str, game_id: str) -> str:
    return f"G#{ladder}#{game_id}"


def tournament_key(ladder: str, tournament_id: str) -> str:
    return f"T#{ladder}#{tournament_id}"


def link_key(player_id: str) -> str:
    return f"L#{player_id}"


def timestamp(at: datetime) -> str:
    """UTC, to the millisecond, fixed width: sorts as text in time order."""
    at = at.astimezone(UTC)
    return at.strftime("%Y-%m-%dT%H:%M:%S.") + f"{at.microsecond // 1000:03d}Z"


def leaderboard_shard(ladder: str, player_id: str, shards: int) -> str:
    return f"{ladder}#{zlib.crc32(player_id.encode()) % shards}"


class RankedByTime(LocalSecondaryIndex["RatingsItem"]):  # type: ignore[no-untyped-call]
    """A player's ranked games by played_at: the recent-games window as a key range."""

    class Meta:
        index_name = RANKED_INDEX
        projection = KeysOnlyProjection()

    pk = UnicodeAttribute(hash_key=True)
    ranked_at = UnicodeAttribute(range_key=True)


class Leaderboard(GlobalSecondaryIndex["RatingsItem"]):  # type: ignore[no-untyped-call]
    """Ratings per write shard, highest first when read backwards."""

    class Meta:
        index_name = LEADERBOARD_INDEX
        projection = IncludeProjection(["player_id", "ranked_games"])

    lb_shard = UnicodeAttribute(hash_key=True)
    lb_rating = NumberAttribute(range_key=True)


class RatingsItem(Model):
    """Every item of the table; the subclasses below are its kinds."""

    class Meta:
        table_name = "ratings"
        billing_mode = PAY_PER_REQUEST_BILLING_MODE

    pk = UnicodeAttribute(hash_key=True)
    sk = UnicodeAttribute(range_key=True)
    kind = DiscriminatorAttribute()
    expires_at = TTLAttribute(null=True)
    ranked_at = UnicodeAttribute(null=True)
    lb_shard = UnicodeAttribute(null=True)
    lb_rating = NumberAttribute(null=True)

    ranked_by_time = RankedByTime()
    leaderboard = Leaderboard()


class StateItem(RatingsItem, discriminator="state"):
    ladder = UnicodeAttribute()
    player_id = UnicodeAttribute()
    rating = NumberAttribute()
    ranked_games = NumberAttribute()
    version = NumberAttribute()
    absorbed_id = UnicodeAttribute(null=True)
    listed = BooleanAttribute(default=True)


class EventItem(RatingsItem, discriminator="event"):
    event_kind = UnicodeAttribute()
    ref_id = UnicodeAttribute()
    at = UnicodeAttribute()
    ranked = BooleanAttribute()
    body = UnicodeAttribute()


class GameItem(RatingsItem, discriminator="game"):
    fingerprint = UnicodeAttribute()
    result = UnicodeAttribute()


class TournamentItem(RatingsItem, discriminator="tournament"):
    fingerprint = UnicodeAttribute()
    result = UnicodeAttribute()


class LinkItem(RatingsItem, discriminator="link"):
    #: The other side: the account (on the ANON item) or the anonymous id (on the ACCOUNT item).
    other_id = UnicodeAttribute()


@dataclass(frozen=True)
class _Tx:
    """One transaction item, remembered with what its failed condition would mean."""

    item: RatingsItem
    condition: Condition | None
    on_fail: type[Exception]
    check_only: bool = False


class DynamoStorage(Storage):
    """The storage port on one DynamoDB table (real, or moto locally and in tests)."""

    def __init__(
        self,
        table_name: str,
        *,
        region: str = "us-east-1",
        endpoint_url: str | None = None,
        leaderboard_shards: int = 4,
    ) -> None:
        if leaderboard_shards < 1:
            raise ValueError("leaderboard_shards must be at least 1")
        # The models are process-wide classes; one process serves one table.
        meta = RatingsItem.Meta
        meta.table_name = table_name
        setattr(meta, "region", region)  # noqa: B010 - pynamodb reads these optional settings
        setattr(meta, "host", endpoint_url)  # noqa: B010
        RatingsItem._connection = None  # rebind to the table configured above
        self.table_name = table_name
        self.shards = leaderboard_shards

    @property
    def connection(self) -> Connection:
        """The low-level connection (one botocore client) every request goes through."""
        return RatingsItem._get_connection().connection

    @staticmethod
    def create_table() -> None:
        """Create the table with its indexes and TTL (tests and the local stack)."""
        if not RatingsItem.exists():
            RatingsItem.create_table(wait=True)
        RatingsItem.update_ttl(ignore_update_ttl_errors=False)

    # Reads -------------------------------------------------------------------------------

    def read_for_game(
        self, ladder: str, game_id: str | None, player_ids: Sequence[str]
    ) -> GameReads:
        keys = [(player_key(ladder, pid), STATE_SK) for pid in player_ids]
        keys += [(link_key(pid), ANON_SK) for pid in player_ids]
        if game_id is not None:
            keys.append((game_key(ladder, game_id), GAME_SK))
        game = None
        links: dict[str, str] = {}
        states: dict[str, PlayerRecord] = {}
        for item in self._batch_get(keys):
            if isinstance(item, GameItem):
                game = _stored_game(ladder, game_id or "", item)
            elif isinstance(item, LinkItem):
                links[item.pk.removeprefix("L#")] = item.other_id
            elif isinstance(item, StateItem):
                states[item.player_id] = _record(item)
        return GameReads(game, links, states)

    def read_states(self, ladder: str, player_ids: Sequence[str]) -> Mapping[str, PlayerRecord]:
        keys = [(player_key(ladder, pid), STATE_SK) for pid in player_ids]
        return {
            item.player_id: _record(item)
            for item in self._batch_get(keys)
            if isinstance(item, StateItem)
        }

    def count_ranked_games(
        self, ladder: str, player_id: str, since: datetime, until: datetime, limit: int
    ) -> int:
        # The window as a key range on the sparse index: DynamoDB counts, at most `limit`.
        window = RatingsItem.ranked_at.between(timestamp(since), timestamp(until))
        response = self._call(
            self.connection.query,
            self.table_name,
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
        return _stored_game(ladder, game_id, item) if isinstance(item, GameItem) else None

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
                sides[(item.pk.removeprefix("L#"), item.sk)] = item.other_id
            elif isinstance(item, StateItem):
                states[(item.ladder, item.player_id)] = _record(item)
        return LinkReads(
            anonymous_linked_to=sides.get((anonymous_id, ANON_SK)),
            account_absorbed=sides.get((account_id, ACCOUNT_SK)),
            account_linked_to=sides.get((account_id, ANON_SK)),
            anonymous_absorbed=sides.get((anonymous_id, ACCOUNT_SK)),
            states=states,
        )

    def history(self, ladder: str, player_id: str, limit: int, cursor: str | None) -> HistoryPage:
        last_key = None
        if cursor is not None:
            last_key = {
                "pk": {"S": player_key(ladder, player_id)},
                "sk": {"S": "E#" + cursor},
            }
        response = self._call(
            self.connection.query,
            self.table_name,
            player_key(ladder, player_id),
            range_key_condition=RatingsItem.sk.startswith("E#"),
            scan_index_forward=False,
            limit=limit,
            exclusive_start_key=last_key,
        )
        events = [
            _event(ladder, player_id, EventItem.from_raw_data(raw))
            for raw in response.get("Items", [])
        ]
        next_key = response.get("LastEvaluatedKey")
        next_cursor = next_key["sk"]["S"].removeprefix("E#") if next_key else None
        return HistoryPage(events, next_cursor)

    def leaderboard(
        self, ladder: str, limit: int, after: tuple[int, str] | None
    ) -> Sequence[LeaderboardRow]:
        rows: list[LeaderboardRow] = []
        for shard in range(self.shards):
            rows.extend(self._shard_top(f"{ladder}#{shard}", limit, after))
        rows.sort(key=lambda row: (-row.rating, row.player_id))
        return rows[:limit]

    def _shard_top(
        self, shard: str, limit: int, after: tuple[int, str] | None
    ) -> Iterator[LeaderboardRow]:
        """The shard's first `limit` rows after `after`, plus every row tied with the last.

        Rows of equal rating come in no particular order from the index, so the shard is read
        until the rating drops below the `limit`-th row's: no tie can then be missed.
        """
        condition = None
        if after is not None:
            condition = RatingsItem.lb_rating <= after[0]
        taken = 0
        boundary: int | None = None
        start_key = None
        while True:
            response = self._call(
                self.connection.query,
                self.table_name,
                shard,
                range_key_condition=condition,
                index_name=LEADERBOARD_INDEX,
                scan_index_forward=False,
                limit=limit + 1,
                exclusive_start_key=start_key,
            )
            for raw in response.get("Items", []):
                rating = int(raw["lb_rating"]["N"])
                player_id = raw["player_id"]["S"]
                if after is not None and (-rating, player_id) <= (-after[0], after[1]):
                    continue
                if boundary is not None and rating < boundary:
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
        try:
            for item in RatingsItem.scan(condition):
                if isinstance(item, GameItem):
                    yield _stored_game(ladder, item.pk.removeprefix(prefix), item)
        except PynamoDBException as error:
            _raise_transient(error)
            raise

    # Writes ------------------------------------------------------------------------------

    def commit_game(
        self, game: StoredGame, states: Sequence[StateWrite], events: Sequence[PlayerEvent]
    ) -> None:
        record = GameItem(
            game_key(game.ladder, game.game_id),
            GAME_SK,
            fingerprint=game.fingerprint,
            result=json.dumps(game.result, separators=(",", ":")),
            expires_at=game.expires_at,
        )
        self._transact(
            [
                _Tx(record, GameItem.pk.does_not_exist(), AlreadyStored),
                *self._state_writes(states),
                *(_Tx(_event_item(event), None, WriteConflict) for event in events),
            ]
        )

    def commit_tournament(
        self,
        tournament: StoredTournament,
        states: Sequence[StateWrite],
        events: Sequence[PlayerEvent],
    ) -> None:
        record = TournamentItem(
            tournament_key(tournament.ladder, tournament.tournament_id),
            TOURNAMENT_SK,
            fingerprint=tournament.fingerprint,
            result=json.dumps(tournament.result, separators=(",", ":")),
        )
        self._transact(
            [
                _Tx(record, TournamentItem.pk.does_not_exist(), AlreadyStored),
                *self._state_writes(states),
                *(_Tx(_event_item(event), None, WriteConflict) for event in events),
            ]
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

    def _state_writes(self, states: Sequence[StateWrite]) -> Iterator[_Tx]:
        for write in states:
            item = StateItem(
                player_key(write.ladder, write.player_id),
                STATE_SK,
                ladder=write.ladder,
                player_id=write.player_id,
                rating=write.rating,
                ranked_games=write.ranked_games,
                version=write.expected_version + 1,
                absorbed_id=write.absorbed_id,
                listed=write.listed,
            )
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
            reasons = error.cancellation_reasons or []
            for operation, reason in zip(operations, reasons, strict=False):
                if reason is not None and reason.code == "ConditionalCheckFailed":
                    raise operation.on_fail(operation.item.pk) from error
            codes = {reason.code for reason in reasons if reason is not None}
            if codes & _CONFLICT_REASONS:
                raise WriteConflict(str(codes)) from error
            if error.cause_response_code in TRANSIENT_CODES or codes & TRANSIENT_CODES:
                raise TransientStorageError(str(error)) from error
            if codes & {"ThrottlingError", "ProvisionedThroughputExceeded"}:
                raise TransientStorageError(str(error)) from error
            raise

    # Low-level helpers -------------------------------------------------------------------

    def _batch_get(self, keys: Sequence[tuple[str, str]]) -> Iterator[RatingsItem]:
        try:
            yield from RatingsItem.batch_get(keys, consistent_read=True)
        except PynamoDBException as error:
            _raise_transient(error)
            raise

    def _get(self, pk: str, sk: str) -> RatingsItem | None:
        try:
            return RatingsItem.get(pk, sk, consistent_read=True)
        except RatingsItem.DoesNotExist:
            return None
        except PynamoDBException as error:
            _raise_transient(error)
            raise

    @staticmethod
    def _call(method: Any, *args: Any, **kwargs: Any) -> dict[str, Any]:
        try:
            return dict(method(*args, **kwargs))
        except PynamoDBException as error:
            _raise_transient(error)
            raise


def _raise_transient(error: PynamoDBException) -> None:
    if error.cause_response_code in TRANSIENT_CODES:
        raise TransientStorageError(str(error)) from error


def _record(item: StateItem) -> PlayerRecord:
    return PlayerRecord(
        ladder=item.ladder,
        player_id=item.player_id,
        rating=int(item.rating),
        ranked_games=int(item.ranked_games),
        version=int(item.version),
        absorbed_id=item.absorbed_id,
        listed=item.listed is not False,
    )


def _stored_game(ladder: str, game_id: str, item: GameItem) -> StoredGame:
    expires_at = item.expires_at or datetime.max.replace(tzinfo=UTC)
    return StoredGame(ladder, game_id, item.fingerprint, json.loads(item.result), expires_at)


def _event_item(event: PlayerEvent) -> EventItem:
    at = timestamp(event.at)
    item = EventItem(
        player_key(event.ladder, event.player_id),
        f"E#{at}#{event.kind}#{event.ref_id}",
        event_kind=event.kind,
        ref_id=event.ref_id,
        at=at,
        ranked=event.ranked,
        body=json.dumps(event.body, separators=(",", ":")),
        expires_at=event.expires_at,
    )
    if event.kind == "game" and event.ranked:  # only ranked games enter the window index
        item.ranked_at = f"{at}#{event.ref_id}"
    return item


def _event(ladder: str, player_id: str, item: EventItem) -> PlayerEvent:
    at = datetime.fromisoformat(item.at.replace("Z", "+00:00"))
    expires_at = item.expires_at or datetime.max.replace(tzinfo=UTC)
    return PlayerEvent(
        ladder=ladder,
        player_id=player_id,
        at=at,
        kind=item.event_kind,
        ref_id=item.ref_id,
        ranked=item.ranked,
        body=json.loads(item.body),
        expires_at=expires_at,
    )


def table_definition() -> Mapping[str, Any]:
    """Keys, indexes and TTL attribute as the models declare them (checked against the template)."""
    return {
        "key": ("pk", "sk"),
        "local_indexes": {RANKED_INDEX: ("pk", "ranked_at")},
        "global_indexes": {LEADERBOARD_INDEX: ("lb_shard", "lb_rating")},
        "ttl_attribute": TTL_ATTRIBUTE,
    }
