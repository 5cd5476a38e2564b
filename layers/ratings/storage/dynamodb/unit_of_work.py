"""The unit of work on DynamoDB: batched, strongly consistent reads of what a commit is
conditioned on (players' states, links, the recent-games window), and the commits, each one
TransactWriteItems whose items carry their conditions (a record created once, states over
the versions read) and what each failed condition means. The attempts, and their retry, are
the port's (`ratings.service.unit_of_work`).
"""

from collections.abc import Iterator, Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, NamedTuple, NoReturn

from pynamodb.constants import COUNT
from pynamodb.exceptions import PutError, TransactWriteError
from pynamodb.expressions.condition import Condition

from ratings.declare.answers import format_utc_millis
from ratings.errors import TRANSIENT_AWS_CODES, TRANSIENT_CANCELLATION_REASONS, is_transient
from ratings.service.errors import (
    AlreadyStored,
    PlayerStorageFull,
    TransientStorageError,
    WriteConflict,
)
from ratings.service.player import Player
from ratings.service.seasons import SeasonStarts
from ratings.service.stored import (
    DONE,
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
from ratings.service.unit_of_work import Retrier, UnitOfWork
from ratings.storage.dynamodb.job_layout import JobItem, job_key
from ratings.storage.dynamodb.layout import (
    ACCOUNT_SK,
    ANON_SK,
    GAME_SK,
    LINK_PK_PREFIX,
    RANKED_INDEX,
    SEASONS_SK,
    STANDINGS_SK,
    STATE_SK,
    TOURNAMENT_SK,
    GameItem,
    LinkItem,
    RatingsItem,
    SeasonStartsItem,
    StandingItem,
    StandingsItem,
    StateItem,
    TournamentItem,
    award_pointer_item,
    compact_json,
    event_item,
    game_item,
    game_key,
    leaderboard_shard,
    link_key,
    player_key,
    player_of,
    season_starts_of,
    seasons_key,
    standing_item,
    standings_key,
    state_item_of,
    stored_game_of,
    stored_tournament_of,
    tournament_item,
    tournament_key,
)
from ratings.storage.dynamodb.table import (
    FULL_COLLECTION_REASON,
    BoundTable,
    response_code,
    transient_as_storage_error,
)

if TYPE_CHECKING:
    from ratings.storage.dynamodb import DynamoStorage


class DynamoUnitOfWork(UnitOfWork):
    """The reads (consistent BatchGetItems, a counted Query for the window) and the commits,
    each one transaction."""

    def __init__(self, storage: "DynamoStorage", retrier: Retrier | None = None) -> None:
        self.retrier = retrier or Retrier()
        self._table = storage.table

    def _read_for_game(
        self, ladder: str, game_id: str | None, player_ids: Sequence[str], with_starts: bool
    ) -> GameReads:
        created = None if game_id is None else (game_key(ladder, game_id), GAME_SK)
        item, links, states, starts = self._read_with_players(
            ladder, player_ids, created, with_starts
        )
        game = stored_game_of(ladder, game_id or "", item) if isinstance(item, GameItem) else None
        return GameReads(game, links, states, starts)

    def _read_for_podium(
        self, ladder: str, tournament_id: str, player_ids: Sequence[str], with_starts: bool
    ) -> PodiumReads:
        created = (tournament_key(ladder, tournament_id), TOURNAMENT_SK)
        item, links, states, starts = self._read_with_players(
            ladder, player_ids, created, with_starts
        )
        tournament = None
        if isinstance(item, TournamentItem):
            tournament = stored_tournament_of(ladder, tournament_id, item)
        return PodiumReads(tournament, links, states, starts)

    def _read_with_players(
        self,
        ladder: str,
        player_ids: Sequence[str],
        created: tuple[str, str] | None,
        with_starts: bool,
    ) -> tuple[RatingsItem | None, dict[str, str], dict[str, Player], SeasonStarts | None]:
        """One BatchGetItem: the players' states and anonymous-link items, the game or
        tournament item at the key `created` when given (it comes back as the first value),
        and with `with_starts` the ladder's operator-started seasons (the last)."""
        keys = [(player_key(ladder, pid), STATE_SK) for pid in player_ids]
        keys += [(link_key(pid), ANON_SK) for pid in player_ids]
        if created is not None:
            keys.append(created)
        if with_starts:
            keys.append((seasons_key(ladder), SEASONS_SK))
        found = None
        links: dict[str, str] = {}
        states: dict[str, Player] = {}
        starts = SeasonStarts() if with_starts else None
        for item in self._table.batch_get(keys):
            if isinstance(item, LinkItem):
                links[item.pk.removeprefix(LINK_PK_PREFIX)] = item.other_id
            elif isinstance(item, StateItem):
                states[item.player_id] = player_of(item)
            elif isinstance(item, SeasonStartsItem):
                starts = season_starts_of(item)
            else:
                found = item
        return found, links, states, starts

    def _read_for_link(
        self,
        anonymous_id: str,
        account_id: str,
        ladders: Sequence[str],
        starts_of: Sequence[str],
    ) -> LinkReads:
        ids = (anonymous_id, account_id)
        keys = [(link_key(pid), side) for pid in ids for side in (ANON_SK, ACCOUNT_SK)]
        keys += [(player_key(ladder, pid), STATE_SK) for ladder in ladders for pid in ids]
        keys += [job_key(ERASURE, erasure_id(pid)) for pid in ids]
        keys += [(seasons_key(ladder), SEASONS_SK) for ladder in starts_of]
        sides: dict[tuple[str, str], str] = {}
        states: dict[tuple[str, str], Player] = {}
        erased: set[str] = set()
        starts = dict.fromkeys(starts_of, SeasonStarts())
        for item in self._table.batch_get(keys):
            if isinstance(item, SeasonStartsItem):
                starts[item.pk.removeprefix(seasons_key(""))] = season_starts_of(item)
            elif isinstance(item, LinkItem):
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
            erasing=tuple(pid for pid in ids if erasure_id(pid) in erased),
            season_starts=starts,
        )

    def _read_states(self, ladder: str, player_ids: Sequence[str]) -> Mapping[str, Player]:
        keys = [(player_key(ladder, pid), STATE_SK) for pid in player_ids]
        states = {
            item.player_id: player_of(item)
            for item in self._table.batch_get(keys)
            if isinstance(item, StateItem)
        }
        return states

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

    def _commit_game(
        self, game: StoredGame, players: Players, events: Events, now: datetime | None
    ) -> StoredGame | None:
        try:
            commit_created(self._table, game_item(game), players, events, expired_by=now)
        except AlreadyStored:
            item = self._table.get(game_key(game.ladder, game.game_id), GAME_SK)
            if isinstance(item, GameItem):
                stored = stored_game_of(game.ladder, game.game_id, item)
                if now is None or stored.expires_at > now:
                    return stored
            raise WriteConflict(game.game_id) from None  # gone again: the attempt reads afresh
        return None

    def _commit_tournament(
        self,
        tournament: StoredTournament,
        players: Players,
        events: Events,
        unchanged: Players,
        podium_ids: Sequence[str],
    ) -> StoredTournament | None:
        ladder, tournament_id = tournament.ladder, tournament.tournament_id
        pointers = [award_pointer_item(ladder, pid, tournament_id) for pid in podium_ids]
        created = tournament_item(tournament)
        try:
            commit_created(self._table, created, players, events, unchanged, pointers)
        except AlreadyStored:
            item = self._table.get(tournament_key(ladder, tournament_id), TOURNAMENT_SK)
            if isinstance(item, TournamentItem):
                return stored_tournament_of(ladder, tournament_id, item)
            raise WriteConflict(tournament_id) from None
        return None

    def _commit_link(self, link: Link, players: Players) -> None:
        anonymous, account = link.anonymous_id, link.account_id
        free = LinkItem.pk.does_not_exist()
        transact(
            self._table,
            [
                Tx(LinkItem(link_key(anonymous), ANON_SK, other_id=account), free, AlreadyStored),
                Tx(
                    LinkItem(link_key(account), ACCOUNT_SK, other_id=anonymous), free, AlreadyStored
                ),
                # Neither id may already be linked the other way round.
                Tx(LinkItem(link_key(account), ANON_SK, other_id=""), free, AlreadyStored, True),
                Tx(
                    LinkItem(link_key(anonymous), ACCOUNT_SK, other_id=""),
                    free,
                    AlreadyStored,
                    True,
                ),
                # Neither id may have an erasure pending (requested after the reads).
                *(_erasure_done_or_none(player_id) for player_id in (anonymous, account)),
                *state_puts(self._table, players),
            ],
        )

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


# The transactions, shared with the sanctions and erasure stores.


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
    events: Events,
    unchanged: Sequence[Player] = (),
    also: Sequence[RatingsItem] = (),
    *,
    expired_by: datetime | None = None,
) -> None:
    """A result created once (game, tournament), with the states and events it changes, over
    the `unchanged` states' versions, with the items `also` (pointers to it); with
    `expired_by`, a stored one whose expires_at is at or before it is replaced, as absent.
    AlreadyStored when it is stored (and not expired)."""
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
        yield Tx(state_item_of(player), _at_version(player.version), WriteConflict, True)


def state_puts(table: BoundTable, players: Sequence[Player]) -> Iterator[Tx]:
    """Each state stored over the version it came from (none stored for version 1), with
    what bringing it into its season left to store: the standing it froze and the history
    line of its reset (`ratings.service.seasons`)."""
    for player in players:
        item = state_item_of(player)
        # The leaderboard index is sparse: the players on the board of the state's season.
        if player.on_the_board:
            item.lb_shard = leaderboard_shard(player.board, player.player_id, table.shards)
            item.lb_rating = player.rating
        yield Tx(item, _at_version(player.replaces_version), WriteConflict)
        entered = player.entered
        if entered is not None:
            if entered.frozen is not None:
                # Once: the state left the season in this same transaction.
                frozen = standing_item(entered.frozen, table.shards)
                yield Tx(frozen, StandingItem.pk.does_not_exist(), WriteConflict)
            if entered.reset_event is not None:
                yield Tx(event_item(entered.reset_event), None, WriteConflict)


def _at_version(version: int) -> Condition:
    """The state is at `version` (0: none is stored)."""
    return StateItem.pk.does_not_exist() if version == 0 else StateItem.version == version


def _erasure_done_or_none(player_id: str) -> Tx:
    pk, sk = job_key(ERASURE, erasure_id(player_id))
    condition = JobItem.pk.does_not_exist() | (JobItem.status == DONE)
    return Tx(JobItem(pk, sk), condition, WriteConflict, check_only=True)


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


#: Cancellation reasons that mean another writer got there first.
_CONFLICT_REASONS = frozenset({"TransactionConflict", "ConditionalCheckFailed"})


def raise_for_cancelled(error: TransactWriteError, failed: Sequence[Exception]) -> NoReturn:
    """Raise what a cancelled transaction means: `failed[i]` when the condition of the i-th
    item (in the order sent) failed; `error` itself when no meaning fits."""
    reasons = error.cancellation_reasons or []
    for meaning, reason in zip(failed, reasons, strict=False):
        if reason is not None and reason.code == "ConditionalCheckFailed":
            raise meaning from error
    codes = {reason.code for reason in reasons if reason is not None}
    # Before the conflicts: a retry would meet the full partition again.
    if FULL_COLLECTION_REASON in codes:
        raise PlayerStorageFull() from error
    if codes & _CONFLICT_REASONS:
        raise WriteConflict(str(codes)) from error
    transient = TRANSIENT_AWS_CODES | TRANSIENT_CANCELLATION_REASONS
    if is_transient(error) or codes & transient:
        raise TransientStorageError(str(error)) from error
    raise error
