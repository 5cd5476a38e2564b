"""Helpers of the integration tests: a movable clock, game bodies, a DynamoDB request counter,
a storage that lets a concurrent writer in between a use case's reads and its commit, and raw
reads of the table (to see what is physically stored, expired items included)."""

import random
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from botocore.awsrequest import AWSResponse, HTTPHeaders
from botocore.client import BaseClient
from botocore.model import OperationModel
from support.games import DAY, FIRST, MS, NOW, WEEK, FixedClock, game, ts

from ratings.rules import DEFAULT_LADDERS
from ratings.service.ports import Link, PlayerEvent, StateWrite, Storage, StoredGame
from ratings.service.ports import StoredTournament as StoredTournamentRecord
from ratings.service.usecases import RatingService, Submitted
from ratings.storage.dynamodb import DynamoStorage

MINUTE = timedelta(minutes=1)
HOUR = timedelta(hours=1)

__all__ = ["DAY", "FIRST", "MS", "NOW", "WEEK", "FixedClock", "game", "ts"]


def podium(
    tournament_id: str,
    places: Sequence[str],
    *,
    ladder: str = "backgammon",
    finished_at: datetime = NOW - HOUR,
    public: bool = True,
) -> dict[str, Any]:
    """A podium message: `places[0]` first, `places[1]` second..."""
    return {
        "tournament_id": tournament_id,
        "ladder": ladder,
        "finished_at": ts(finished_at),
        "public": public,
        "podium": [
            {"place": place, "player_id": player_id}
            for place, player_id in enumerate(places, start=1)
        ],
    }


def make_service(storage: Storage, clock: Callable[[], datetime]) -> RatingService:
    """The service as production builds it, with the test's clock and no real sleeping."""
    return RatingService(
        storage,
        DEFAULT_LADDERS,
        clock=clock,
        sleep=lambda seconds: None,
        rng=random.Random(20261129),
    )


def play_series(
    service: RatingService,
    hero: str,
    times: Iterable[datetime],
    *,
    prefix: str,
    ladder: str = "backgammon",
    **extra: Any,
) -> list[Submitted]:
    """One game of `hero` at each time, each against a fresh opponent.

    The hero loses the first, wins the second, and so on (under gammon42 with K 32 this keeps
    them at 1500 after every pair).
    """
    done = []
    for index, at in enumerate(times):
        opponent = f"{prefix}-opp-{index}"
        winner = opponent if index % 2 == 0 else hero
        body = game(f"{prefix}-{index}", hero, opponent, winner=winner, played_at=at, **extra)
        done.append(service.submit_game(ladder, body))
    return done


def minutes_before(t: datetime, count: int, *, start: timedelta = HOUR) -> list[datetime]:
    """`count` distinct times in [t - 7 days, t): a minute apart, the latest `start` before t."""
    return [t - start - index * MINUTE for index in range(count)]


def side(result: dict[str, Any], player_id: str) -> dict[str, Any]:
    """One player's entry of a game result."""
    (entry,) = [player for player in result["players"] if player["id"] == player_id]
    return dict(entry)


@dataclass
class RequestCounter:
    """Every DynamoDB request a botocore client sends, by operation name, in order.

    With `capacity=True` it also asks each request for its consumed capacity
    (ReturnConsumedCapacity=TOTAL) and records what the response reports.
    """

    operations: list[str] = field(default_factory=list)
    #: (operation, ConsumedCapacity as parsed from the response), when asked for.
    capacity: list[tuple[str, Any]] = field(default_factory=list)

    @classmethod
    def attach(cls, client: BaseClient, *, capacity: bool = False) -> "RequestCounter":
        counter = cls()
        events = client.meta.events
        events.register("before-call.dynamodb", counter._before_call)
        if capacity:
            events.register("before-parameter-build.dynamodb", counter._ask_capacity)
            events.register("after-call.dynamodb", counter._after_call)
        return counter

    def _before_call(self, model: OperationModel, **_: Any) -> None:
        self.operations.append(model.name)

    @staticmethod
    def _ask_capacity(params: dict[str, Any], model: OperationModel, **_: Any) -> None:
        shape = model.input_shape
        if shape is not None and "ReturnConsumedCapacity" in shape.members:
            params["ReturnConsumedCapacity"] = "TOTAL"

    def _after_call(self, parsed: dict[str, Any], model: OperationModel, **_: Any) -> None:
        self.capacity.append((model.name, parsed.get("ConsumedCapacity")))

    def reset(self) -> None:
        self.operations.clear()
        self.capacity.clear()

    def counts(self) -> Counter[str]:
        return Counter(self.operations)


@dataclass
class FaultInjector:
    """Answers the next `times` requests of `operation` with a DynamoDB error response.

    A botocore before-call handler that returns a response short-circuits the request: the
    client raises the error exactly as if DynamoDB had answered it (after botocore's own
    retries gave up), so the adapter's error mapping is what runs.
    """

    operation: str
    code: str
    times: int = 1
    #: For TransactionCanceledException: one reason code per transaction item ("None": fine).
    cancellation_reasons: Sequence[str] | None = None
    injected: int = 0

    def attach(self, client: BaseClient) -> "FaultInjector":
        client.meta.events.register(f"before-call.dynamodb.{self.operation}", self._answer)
        return self

    def _answer(self, **_: Any) -> Any:  # (http response, parsed) or None: send as usual
        if self.injected >= self.times:
            return None
        self.injected += 1
        parsed: dict[str, Any] = {
            "Error": {"Code": self.code, "Message": "injected by the test"},
            "ResponseMetadata": {"HTTPStatusCode": 400, "HTTPHeaders": {}},
        }
        if self.cancellation_reasons is not None:
            parsed["CancellationReasons"] = [{"Code": code} for code in self.cancellation_reasons]
        return AWSResponse("https://dynamodb.invalid/", 400, HTTPHeaders(), None), parsed


class InterleavingDynamoStorage(DynamoStorage):
    """DynamoStorage that lets another writer in at the start of a commit.

    `before_commit` runs once (or on every commit with `every_commit`), before this commit's
    transaction is sent, so the use case's reads are already done: the hook's writes are a
    concurrent request that got there first.
    """

    def __init__(self, table_name: str, *, leaderboard_shards: int = 4) -> None:
        super().__init__(table_name, region="us-east-1", leaderboard_shards=leaderboard_shards)
        self.before_commit: Callable[[], None] | None = None
        self.every_commit = False
        self.interleaved = 0

    def _interleave(self) -> None:
        hook = self.before_commit
        if hook is None:
            return
        if not self.every_commit:
            self.before_commit = None
        self.interleaved += 1
        hook()

    def commit_game(
        self, game: StoredGame, states: Sequence[StateWrite], events: Sequence[PlayerEvent]
    ) -> None:
        self._interleave()
        super().commit_game(game, states, events)

    def commit_tournament(
        self,
        tournament: StoredTournamentRecord,
        states: Sequence[StateWrite],
        events: Sequence[PlayerEvent],
    ) -> None:
        self._interleave()
        super().commit_tournament(tournament, states, events)

    def commit_link(self, link: Link, states: Sequence[StateWrite]) -> None:
        self._interleave()
        super().commit_link(link, states)


def raw_items(storage: DynamoStorage, pk: str) -> list[dict[str, Any]]:
    """Every item stored under partition `pk`, as DynamoDB returns them (nothing filtered)."""
    response = storage.connection.query(storage.table_name, pk, consistent_read=True)
    return list(response.get("Items", []))
