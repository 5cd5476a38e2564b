"""The sanctions port on DynamoDB: the sanction's record and decisions (one partition per
sanction), the sanctioned player's games on the `ranked_by_time` index, and the commits, each
one TransactWriteItems whose conditions make every step safe to repeat."""

from collections.abc import Sequence

from pynamodb.exceptions import PutError

from ratings.declare.answers import format_utc_millis, parse_utc_millis
from ratings.rules.refunds import Window
from ratings.service.errors import AlreadyStored, WriteConflict
from ratings.service.game_result import GAME_EVENT
from ratings.service.player import Player
from ratings.service.ports import SanctionStore
from ratings.service.sanction_records import (
    SANCTION,
    GameAgainst,
    GamePosition,
    GamesPage,
    NamedInSanctions,
    RefundDecision,
    RefundReads,
    Sanction,
    SanctionReads,
    SanctionView,
    plan_refunds,
    sanction_job_id,
)
from ratings.service.stored import PlayerEvent, StoredGame
from ratings.storage.dynamodb.job_layout import JobItem, job_item, job_key, job_of
from ratings.storage.dynamodb.layout import (
    ACCOUNT_SK,
    ANON_SK,
    GAME_SK,
    LINK_PK_PREFIX,
    RANKED_INDEX,
    STATE_SK,
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
    LIFT_SK,
    DecisionItem,
    LiftItem,
    decision_item,
    decision_of,
    decision_sort_key,
    game_decisions_range,
    pointer_item,
    position_text,
    sanction_key,
)
from ratings.storage.dynamodb.table import BoundTable, transient_as_storage_error
from ratings.storage.dynamodb.unit_of_work import Tx, state_puts, transact

#: Sorts after every `{played_at}#{game_id}` of the same millisecond (ids are A-Z a-z 0-9 . _ : -).
_AFTER_ANY_ID = "#~"


class DynamoSanctions(SanctionStore):
    def __init__(self, table: BoundTable) -> None:
        self._table = table

    def read_for_sanction(self, ladder: str, sanction_id: str, player_id: str) -> SanctionReads:
        record = job_key(SANCTION, sanction_job_id(ladder, sanction_id))
        keys = [
            record,
            (record[0], LIFT_SK),
            (player_key(ladder, player_id), STATE_SK),
            (link_key(player_id), ANON_SK),
            (link_key(player_id), ACCOUNT_SK),
        ]
        job = lifted_at = account_of = anonymous_of = None
        states: dict[str, Player] = {}
        for item in self._table.batch_get(keys):
            if isinstance(item, JobItem):
                job = job_of(item)
            elif isinstance(item, LiftItem):
                lifted_at = parse_utc_millis(item.lifted_at)
            elif isinstance(item, StateItem):
                states[item.player_id] = player_of(item)
            elif isinstance(item, LinkItem) and item.sk == ANON_SK:
                account_of = item.other_id
            elif isinstance(item, LinkItem):
                anonymous_of = item.other_id
        sanction = None if job is None else Sanction.of_job(job, lifted_at)
        return SanctionReads(sanction, account_of, anonymous_of, states)

    def read_sanction(
        self, ladder: str, sanction_id: str, after: str | None, limit: int
    ) -> SanctionView:
        # The record and the lift, then the page of decisions: they share the sanction's
        # partition, but its record sorts after every decision (SANCTION > R#...).
        record = job_key(SANCTION, sanction_job_id(ladder, sanction_id))
        job = lifted_at = None
        for item in self._table.batch_get([record, (record[0], LIFT_SK)]):
            if isinstance(item, JobItem):
                job = job_of(item)
            elif isinstance(item, LiftItem):
                lifted_at = parse_utc_millis(item.lifted_at)
        if job is None:
            return SanctionView(None)
        partition = record[0]
        start_key = None
        if after is not None:
            start_key = {"pk": {"S": partition}, "sk": {"S": decision_sort_key(after)}}
        # One decision more than the page says whether more follow. A decision item is about
        # 800 bytes at most (the longest ids), so 1,001 of them fit in one response (1 MB);
        # the loop is for a response cut short all the same, and stops at limit + 1.
        found: list[RefundDecision] = []
        while len(found) <= limit:
            response = self._table.query(
                partition,
                range_key_condition=RatingsItem.sk.startswith(DECISION_SK_PREFIX),
                consistent_read=True,
                limit=limit + 1 - len(found),
                exclusive_start_key=start_key,
            )
            for raw in response.get("Items", []):
                item = RatingsItem.from_raw_data(raw)
                if isinstance(item, DecisionItem):
                    found.append(decision_of(ladder, sanction_id, item))
            start_key = response.get("LastEvaluatedKey")
            if not start_key:
                break
        sanction = Sanction.of_job(job, lifted_at)
        return SanctionView(sanction, found[:limit], more=len(found) > limit)

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
        self,
        ladder: str,
        sanction_id: str,
        player_id: str,
        games: Sequence[GameAgainst],
        budget: int | None = None,
    ) -> RefundReads:
        partition = sanction_key(ladder, sanction_id)
        keys = [(partition, decision_sort_key(game.game_id)) for game in games]
        keys += [(game_key(ladder, game.game_id), GAME_SK) for game in games]
        decided: dict[str, RefundDecision] = {}
        stored: dict[str, StoredGame] = {}
        games_prefix = game_key(ladder, "")
        for item in self._table.batch_get(keys):
            if isinstance(item, DecisionItem):
                decision = decision_of(ladder, sanction_id, item)
                decided[decision.ref] = decision
            elif isinstance(item, GameItem):
                game_id = item.pk.removeprefix(games_prefix)
                stored[game_id] = stored_game_of(ladder, game_id, item)
        # The victims, and the decisions by seat, are known from the stored games only: a
        # second round trip, for the games the budget covers.
        plan = plan_refunds(games, stored, decided, player_id, budget)
        covered = {game.game_id for game in games[: plan.covered]}
        keys = [(partition, decision_sort_key(ref)) for ref in plan.refs]
        keys += [(player_key(ladder, pid), STATE_SK) for pid in plan.victims]
        keys += [(link_key(pid), ANON_SK) for pid in plan.victims]
        decided = {ref: decision for ref, decision in decided.items() if ref in covered}
        links: dict[str, str] = {}
        states: dict[str, Player] = {}
        for item in self._table.batch_get(keys) if keys else ():
            if isinstance(item, DecisionItem):
                decision = decision_of(ladder, sanction_id, item)
                decided[decision.ref] = decision
            elif isinstance(item, StateItem):
                states[item.player_id] = player_of(item)
            elif isinstance(item, LinkItem):
                links[item.pk.removeprefix(LINK_PK_PREFIX)] = item.other_id
        stored = {game_id: game for game_id, game in stored.items() if game_id in covered}
        return RefundReads(decided, stored, links, states, plan.covered)

    def commit_sanction(self, sanction: Sanction, player: Player) -> None:
        self._transact(
            [
                Tx(job_item(sanction.job()), RatingsItem.pk.does_not_exist(), AlreadyStored),
                *self._state_puts([player]),
                Tx(pointer_item(sanction), None, WriteConflict),
            ]
        )

    def commit_lift(self, sanction: Sanction, players: Sequence[Player]) -> None:
        assert sanction.lifted_at is not None
        lift = LiftItem(
            sanction_key(sanction.ladder, sanction.sanction_id),
            LIFT_SK,
            lifted_at=format_utc_millis(sanction.lifted_at),
        )
        self._transact(
            [
                Tx(lift, RatingsItem.pk.does_not_exist(), AlreadyStored),
                *self._state_puts(players),
            ]
        )

    def commit_refund(self, decision: RefundDecision, victim: Player, event: PlayerEvent) -> None:
        self._transact(
            [
                Tx(decision_item(decision), RatingsItem.pk.does_not_exist(), AlreadyStored),
                *self._state_puts([victim]),
                Tx(event_item(event), None, WriteConflict),
            ]
        )

    def record_withheld(self, decision: RefundDecision) -> None:
        with transient_as_storage_error():
            try:
                self._table.put(decision_item(decision), condition=RatingsItem.pk.does_not_exist())
            except PutError as error:
                if error.cause_response_code == "ConditionalCheckFailedException":
                    raise AlreadyStored(decision.ref) from error
                raise

    def read_named(
        self,
        ladder: str,
        sanction_ids: Sequence[str],
        decision_keys: Sequence[tuple[str, str]],
    ) -> NamedInSanctions:
        records = {job_key(SANCTION, sanction_job_id(ladder, sid)): sid for sid in sanction_ids}
        keys = list(records)
        keys += [(sanction_key(ladder, sid), decision_sort_key(gid)) for sid, gid in decision_keys]
        sanctions: dict[str, Sanction] = {}
        decisions: dict[tuple[str, str], RefundDecision] = {}
        sanction_of_partition = {sanction_key(ladder, sid): sid for sid, _gid in decision_keys}
        for item in self._table.batch_get(keys):
            if isinstance(item, JobItem):
                sanctions[records[(item.pk, item.sk)]] = Sanction.of_job(job_of(item))
            elif isinstance(item, DecisionItem):
                sid = sanction_of_partition[item.pk]
                decisions[(sid, item.game_id)] = decision_of(ladder, sid, item)
        # A game of more than two players has its decisions by seat (one per victim): those
        # of the games not found by id, one query each (at most 15 decisions a game).
        for sid, gid in dict.fromkeys(decision_keys):
            if (sid, gid) not in decisions:
                for decision in self._game_decisions(ladder, sid, gid):
                    decisions[(sid, decision.ref)] = decision
        return NamedInSanctions(sanctions, decisions)

    def _game_decisions(self, ladder: str, sanction_id: str, game_id: str) -> list[RefundDecision]:
        """Every decision of one game of the sanction, strongly consistent."""
        low, high = game_decisions_range(game_id)
        found: list[RefundDecision] = []
        for response in self._table.pages(
            sanction_key(ladder, sanction_id),
            range_key_condition=RatingsItem.sk.between(low, high),
            consistent_read=True,
        ):
            for raw in response.get("Items", []):
                item = RatingsItem.from_raw_data(raw)
                if isinstance(item, DecisionItem):
                    found.append(decision_of(ladder, sanction_id, item))
        return found

    def rename(self, sanctions: Sequence[Sanction], decisions: Sequence[RefundDecision]) -> None:
        operations = [
            Tx(
                job_item(sanction.job()),
                JobItem.progress_version == sanction.progress_version - 1,
                WriteConflict,
            )
            for sanction in sanctions
        ]
        operations += [
            Tx(decision_item(decision), RatingsItem.pk.exists(), WriteConflict)
            for decision in decisions
        ]
        if operations:
            self._transact(operations)

    def _state_puts(self, players: Sequence[Player]) -> list[Tx]:
        return list(state_puts(self._table, players))

    def _transact(self, operations: Sequence[Tx]) -> None:
        transact(self._table, operations)
