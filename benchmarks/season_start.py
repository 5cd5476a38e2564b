"""What a season start costs, and what a player's first game of a season costs over their
next one: requests and capacity units on Amazon's DynamoDB Local, on template.yaml's table,
for ladders of 10, 1,000 and 100,000 players.

The ladder is gammon42's with monthly seasons (UTC), a soft reset and `min_games` 1, the
first season 2026-11. Each size gets a table of its own: two players (the heroes) play three
games against each other in November through the service; the others are put straight into
the table as November states on November's leaderboard (BatchWriteItem, timed, not
metered). Then, every request of the service counted at its botocore client, each asking for
ReturnConsumedCapacity=INDEXES:

- the scheduled boundary: the service's clock moves from just before December 1 to just
  after (what is sent from the moment the season starts until the next request: nothing
  runs, so nothing);
- the heroes' first game of December (both states still in November: each is reset, its
  November standing frozen and its reset event written, in the game's transaction) and the
  same game again (both already in December), and the difference;
- an operator's start (`start_season`, a hard reset) on December 10, what it sends until it
  begins 2 s later, and again the heroes' first game in it and the next one;
- a hero's GET player before the boundary and right after it (the reset shown);
- the first page (100) of November's leaderboard read while November is current and read
  again, ended, on December 1 (December's, still empty then, beside it); then once every
  player on that page has played in December (their November standings frozen), November's
  page again and December's, where they now are.

Each measured request comes more than a second after the one before it, so the service's
copy of the ladder's operator-started seasons (kept 1 s per container) is read again with it:
a GetItem beside a read, one more key in a game's BatchGetItem.

Units: DynamoDB Local's, as reported, except for the table's share of a TransactWriteItems,
which it under-meters (see docs/performance.md, "Capacity units on Amazon's engine"): that
share is AWS's documented rule, 2 write units per started KB of each item a transaction puts,
from the sizes of the items sent; the transaction's index shares are DynamoDB Local's.

    python -m benchmarks.season_start [--sizes 10,1000,100000]

Needs DynamoDB Local (`make setup-dynamodb-local`).
"""

import argparse
import math
import random
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import boto3
from botocore.client import BaseClient
from botocore.model import OperationModel

from ratings.declare.answers import format_utc_millis
from ratings.rules import Ladder
from ratings.rules.gammon42 import Gammon42
from ratings.rules.seasons import Reset, SeasonPlan
from ratings.service.facade import RatingService
from ratings.service.player import Player, RecentGames, millis
from ratings.service.seasons import board_id
from ratings.service.unit_of_work import Retrier
from ratings.storage.dynamodb import DynamoStorage
from ratings.storage.dynamodb.layout import RatingsItem, leaderboard_shard, state_item_of
from ratings_local.dynamodb_local import VERSION

from .engine_capacity import engine_endpoint, new_table
from .requests_per_game import body, item_size

LADDER = "backgammon"
NOVEMBER, DECEMBER, OPERATOR_SEASON = "2026-11", "2026-12", "winter-cup"
LADDERS = {
    LADDER: Ladder(LADDER, Gammon42(), season=SeasonPlan("monthly", Reset("soft"), 1, NOVEMBER))
}
NOV_1 = datetime(2026, 11, 1, tzinfo=UTC)
NOV_20 = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
DEC_1 = datetime(2026, 12, 1, tzinfo=UTC)
OPERATOR_AT = datetime(2026, 12, 10, 12, 0, tzinfo=UTC)
HEROES = ("hero-a", "hero-b")
PAGE = 100
#: Later than the service's copy of the operator-started seasons is kept (1 s).
STALE = timedelta(seconds=10)
WRITES = ("TransactWriteItems", "PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem")
SIZES = (10, 1_000, 100_000)


class Clock:
    """The service's clock, moved by the benchmark."""

    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


@dataclass
class Meter:
    """Requests and their units at one botocore client, since the last reset.

    `read_units`: as reported. `write_units`: as AWS charges them: reported, but for the
    table's share of a TransactWriteItems, taken by AWS's rule (2 per started KB of each item
    it puts, `rule_units`) instead of DynamoDB Local's figure (`reported_transaction_units`).
    """

    requests: Counter[str] = field(default_factory=Counter)
    read_units: float = 0.0
    write_units: float = 0.0
    #: The table's share of the transactions by AWS's rule, and as DynamoDB Local reported it.
    rule_units: float = 0.0
    reported_transaction_units: float = 0.0
    #: Items the transactions put (or checked, or deleted).
    transaction_items: int = 0
    #: The rule's units of the transaction under way (counted when it is answered).
    _pending_rule: float = 0.0

    def attach(self, client: BaseClient) -> None:
        client.meta.events.register("before-parameter-build.dynamodb", self._ask)
        client.meta.events.register("after-call.dynamodb", self._answered)

    def reset(self) -> None:
        vars(self).update(vars(Meter()))

    def snapshot(self) -> "Cost":
        return Cost(
            dict(self.requests),
            self.read_units,
            self.write_units,
            self.rule_units,
            self.reported_transaction_units,
            self.transaction_items,
        )

    def _ask(self, params: dict[str, Any], model: OperationModel, **_: Any) -> None:
        shape = model.input_shape
        if shape is not None and "ReturnConsumedCapacity" in shape.members:
            params["ReturnConsumedCapacity"] = "INDEXES"
        for entry in params.get("TransactItems", []):
            ((action, request),) = entry.items()
            # A check or a delete is charged by the item it names: none on these paths but a
            # put, so anything else is counted as an item under 1 KB.
            size = item_size(request["Item"]) if action == "Put" else 1
            self._pending_rule += 2 * max(1, math.ceil(size / 1024))
            self.transaction_items += 1

    def _answered(self, parsed: dict[str, Any], model: OperationModel, **_: Any) -> None:
        self.requests[model.name] += 1
        consumed = parsed.get("ConsumedCapacity") or []
        for entry in [consumed] if isinstance(consumed, dict) else consumed:
            total = float(entry.get("CapacityUnits", 0) or 0)
            if model.name == "TransactWriteItems":
                table = float(entry.get("Table", {}).get("CapacityUnits", 0) or 0)
                self.reported_transaction_units += table
                self.write_units += total - table  # the indexes' shares, as reported
            elif model.name in WRITES:
                self.write_units += total
            else:
                self.read_units += total
        if model.name == "TransactWriteItems":
            self.rule_units += self._pending_rule
            self.write_units += self._pending_rule
            self._pending_rule = 0.0


@dataclass(frozen=True)
class Cost:
    """What one measured step sent, and its units."""

    requests: dict[str, int]
    read_units: float
    write_units: float
    rule_units: float
    reported_transaction_units: float
    transaction_items: int

    @property
    def total(self) -> int:
        return sum(self.requests.values())

    def minus(self, other: "Cost") -> "Cost":
        names = set(self.requests) | set(other.requests)
        return Cost(
            {name: self.requests.get(name, 0) - other.requests.get(name, 0) for name in names},
            self.read_units - other.read_units,
            self.write_units - other.write_units,
            self.rule_units - other.rule_units,
            self.reported_transaction_units - other.reported_transaction_units,
            self.transaction_items - other.transaction_items,
        )

    def shown(self) -> tuple[int, float, float]:
        return self.total, self.read_units, self.write_units


@dataclass
class SizeFigures:
    """Everything measured on a ladder of `players`."""

    players: int
    seed_seconds: float
    #: From the moment the scheduled season starts to the next request.
    scheduled_boundary: Cost
    #: The operator's start_season, then its START_DELAY passing.
    operator_start: Cost
    operator_delay: Cost
    #: The heroes' first game in December and the next one; the same after the operator's.
    first_game: Cost
    second_game: Cost
    operator_first_game: Cost
    operator_second_game: Cost
    #: GET player of a hero before the boundary and right after it (which shows the reset).
    player_before: Cost
    player_after: Cost
    #: The first page of November's leaderboard while current, then ended; December's empty.
    page_current: Cost
    page_ended: Cost
    page_empty: Cost
    #: Once the players of that page played in December (their November standings frozen):
    #: November's page again, and December's, where they now are.
    page_ended_moved: Cost
    page_new: Cost
    page_entries: int


def seed(storage: DynamoStorage, players: int, rng: random.Random) -> int:
    """`players` November states on November's leaderboard, straight into the table (each
    with 1 to 20 ranked games in November, their times kept as gammon42 keeps them)."""
    board = board_id(LADDER, NOVEMBER)
    items: list[RatingsItem] = []
    for index in range(players):
        player_id = f"player-{index:07d}"
        season_games = rng.randint(1, 20)
        played = sorted(
            millis(NOV_1 + timedelta(minutes=rng.randrange(19 * 24 * 60)))
            for _ in range(season_games)
        )
        rating = round(rng.gauss(1500, 200))
        player = Player(
            LADDER,
            player_id,
            rating,
            ranked_games=season_games + rng.randrange(100),
            version=season_games,
            games_day=format_utc_millis(NOV_20)[:10],
            games_that_day=1,
            recent=RecentGames(tuple(played)),
            season_id=NOVEMBER,
            season_start=NOV_1,
            season_games=season_games,
        )
        item = state_item_of(player)
        item.lb_shard = leaderboard_shard(board, player_id, storage.table.shards)
        item.lb_rating = rating
        items.append(item)
    storage.table.put_all(items)
    return len(items)


class Run:
    """One ladder's table, its service on a clock the benchmark moves, and the meter."""

    def __init__(self, storage: DynamoStorage) -> None:
        self.storage = storage
        self.clock = Clock(NOV_20)
        self.service = RatingService(
            storage, LADDERS, clock=self.clock, retrier=Retrier(sleep=lambda _: None)
        )
        self.meter = Meter()
        self.meter.attach(storage.connection.client)
        self.rng = random.Random(1201)
        self.games = 0

    def measured(self, at: datetime | None = None) -> "Measured":
        """A block whose requests are metered, the clock at `at` (default: STALE later)."""
        self.clock.now = self.clock.now + STALE if at is None else at
        return Measured(self.meter)

    def play(self, played_at: datetime, a: str = HEROES[0], b: str = HEROES[1]) -> None:
        self.games += 1
        game = body(LADDER, f"g-{self.games:05d}", a, b, played_at, self.rng)
        submitted = self.service.submit_game(LADDER, game)
        if not submitted.created or not submitted.result.get("ranked"):
            raise AssertionError(f"game {self.games} was not rated: {submitted.result}")

    def game(self) -> Cost:
        """One game of the heroes, played a second before it is sent (STALE on), metered."""
        with self.measured() as measured:
            self.play(self.clock.now - timedelta(seconds=1))
        return measured.cost

    def page(self, season_id: str | None) -> tuple[Cost, list[Any]]:
        """The first page of the current season's leaderboard, or of `season_id`'s."""
        with self.measured() as measured:
            if season_id is None:
                page = self.service.get_leaderboard(LADDER, PAGE)
            else:
                page = self.service.get_season_leaderboard(LADDER, season_id, PAGE)
        return measured.cost, page["entries"]

    def player(self) -> Cost:
        with self.measured() as measured:
            self.service.get_player(LADDER, HEROES[0])
        return measured.cost

    def season_of(self, player_id: str) -> str:
        season: str = self.service.get_player(LADDER, player_id)["season"]["season_id"]
        return season

    def frozen(self, player_id: str) -> list[str]:
        return [s.season_id for s in self.storage.seasons.standings_of(LADDER, player_id)]

    def move_on(self, player_ids: list[str]) -> None:
        """A game in the current season for each of `player_ids` (in pairs; the last of an
        odd number against a hero), not metered."""
        ids = [pid for pid in player_ids if pid not in HEROES]
        if len(ids) % 2:
            ids.append(HEROES[0])
        for a, b in zip(ids[::2], ids[1::2], strict=True):
            self.clock.now += timedelta(seconds=2)
            self.play(self.clock.now - timedelta(seconds=1), a, b)


class Measured:
    """The meter's figures for the block, kept when it ends."""

    def __init__(self, meter: Meter) -> None:
        self.meter = meter
        self.cost = Cost({}, 0.0, 0.0, 0.0, 0.0, 0)

    def __enter__(self) -> "Measured":
        self.meter.reset()
        return self

    def __exit__(self, *_: object) -> None:
        self.cost = self.meter.snapshot()


def measure_size(storage: DynamoStorage, players: int) -> SizeFigures:
    """The figures of a ladder of `players` (at least the two heroes) on `storage`'s table,
    fresh."""
    if players < len(HEROES):
        raise ValueError(f"a ladder needs at least {len(HEROES)} players")
    run = Run(storage)
    for hour in range(3):  # the heroes' November (not metered)
        run.play(NOV_20 - timedelta(hours=3 - hour))
    started = time.perf_counter()
    seed(storage, players - len(HEROES), random.Random(players))
    seed_seconds = time.perf_counter() - started

    run.clock.now = DEC_1 - timedelta(hours=1)
    player_before = run.player()
    page_current, november = run.page(None)

    # The scheduled boundary: from just before the season starts to just after it, the
    # service's clock moves; nothing runs, so nothing is sent until the next request.
    with run.measured(DEC_1 - timedelta(milliseconds=1)) as boundary:
        run.clock.now = DEC_1
        run.clock.now = DEC_1 + timedelta(milliseconds=1)
    player_after = run.player()
    page_ended, ended = run.page(NOVEMBER)
    page_empty, december = run.page(None)
    if ended != november or december:
        raise AssertionError("November's page changed when it ended, or December's is not empty")
    if run.season_of(HEROES[0]) != DECEMBER or run.frozen(HEROES[0]):
        raise AssertionError("the boundary did not show December, or it froze a standing")

    run.clock.now = DEC_1 + timedelta(hours=1)
    first_game = run.game()
    if any(run.frozen(hero) != [NOVEMBER] for hero in HEROES):
        raise AssertionError("the first game of December did not freeze both standings")
    second_game = run.game()

    run.move_on([entry["player_id"] for entry in november])
    page_ended_moved, ended = run.page(NOVEMBER)
    page_new, _ = run.page(None)
    if ended != november:
        raise AssertionError("November's page changed when its players moved on")

    with run.measured(OPERATOR_AT) as start:
        run.service.start_season(LADDER, {"season_id": OPERATOR_SEASON, "reset": {"kind": "hard"}})
    # Until the operator's season begins (START_DELAY, 2 s), and just after.
    with run.measured(OPERATOR_AT + timedelta(milliseconds=1)) as delay:
        run.clock.now = OPERATOR_AT + timedelta(seconds=2, milliseconds=1)
    operator_first_game = run.game()
    if run.season_of(HEROES[0]) != OPERATOR_SEASON:
        raise AssertionError("the operator's season did not begin")
    operator_second_game = run.game()
    reads = (player_before, player_after, page_current, page_ended, page_empty, page_ended_moved)
    if any(name in WRITES for cost in (*reads, page_new) for name in cost.requests):
        raise AssertionError("a read wrote")
    return SizeFigures(
        players=players,
        seed_seconds=seed_seconds,
        scheduled_boundary=boundary.cost,
        operator_start=start.cost,
        operator_delay=delay.cost,
        first_game=first_game,
        second_game=second_game,
        operator_first_game=operator_first_game,
        operator_second_game=operator_second_game,
        player_before=player_before,
        player_after=player_after,
        page_current=page_current,
        page_ended=page_ended,
        page_empty=page_empty,
        page_ended_moved=page_ended_moved,
        page_new=page_new,
        page_entries=len(november),
    )


def measure(sizes: Iterable[int]) -> list[SizeFigures]:
    figures = []
    with engine_endpoint("dynamodb_local") as endpoint:
        client = boto3.client("dynamodb", region_name="us-east-1", endpoint_url=endpoint)
        for players in sizes:
            storage = DynamoStorage(new_table(endpoint, "bench-season"), endpoint_url=endpoint)
            started = time.perf_counter()
            figures.append(measure_size(storage, players))
            print(
                f"{players} players: seeded in {figures[-1].seed_seconds:.1f} s, "
                f"measured in {time.perf_counter() - started:.1f} s",
                flush=True,
            )
            client.delete_table(TableName=storage.table.table_name)  # its memory freed
    return figures


def flat(costs: Iterable[Cost]) -> str:
    """Whether every cost sent the same requests for the same units: "yes" or "NO"."""
    distinct = {(tuple(sorted(c.requests.items())), c.read_units, c.write_units) for c in costs}
    return "yes" if len(distinct) == 1 else "NO"


def table(headers: list[str], rows: Iterable[str]) -> list[str]:
    """A text table: its header lines, a rule as wide as the widest, and its rows."""
    headers = [header.rstrip() for header in headers]
    return [*headers, "-" * max(map(len, headers)), *rows]


def cells(cost: Cost) -> str:
    """Requests, read units, write units."""
    requests, reads, writes = cost.shown()
    return f"{requests:>5}{reads:>6.1f}{writes:>6.1f}"


def read_cells(cost: Cost) -> str:
    """Requests and read units (a read writes nothing: checked)."""
    return f"{cost.total:>5}{cost.read_units:>6.1f}"


def operations(cost: Cost) -> str:
    short = {"BatchGetItem": "BatchGet", "TransactWriteItems": "TxWrite"}
    named = [(short.get(name, name), count) for name, count in sorted(cost.requests.items())]
    return " + ".join(f"{count} {name}" for name, count in named if count) or "nothing"


def units(count: int, reads_only: bool = False) -> str:
    one = f"{'req':>5}{'RCU':>6}" + ("" if reads_only else f"{'WCU':>6}")
    return "   ".join(one for _ in range(count))


def report(figures: list[SizeFigures]) -> str:
    lines = [
        f"Seasons on DynamoDB Local {VERSION}: gammon42, monthly, soft reset, min_games 1.",
        "req: requests; RCU: read units reported; WCU: write units, the table's share of a",
        "TransactWriteItems by AWS's rule (2 per started KB of each item put), the rest reported.",
        "",
        "The boundary: what is sent from the moment a season starts until the next request",
        "",
    ]
    lines += table(
        [
            f"{'players':>8}{'seeded':>8}   {'scheduled':<17}   {'operator start':<17}"
            f"   {'its 2 s delay':<17}",
            f"{'':16}   {units(3)}",
        ],
        (
            f"{size.players:>8}{size.seed_seconds:>7.1f}s   {cells(size.scheduled_boundary)}"
            f"   {cells(size.operator_start)}   {cells(size.operator_delay)}"
            for size in figures
        ),
    )
    boundaries = [f.scheduled_boundary for f in figures] + [f.operator_delay for f in figures]
    lines += [
        "",
        f"Flat in the ladder's size: scheduled and delay {flat(boundaries)}, "
        f"operator start {flat(f.operator_start for f in figures)}.",
        f"Operator start: {operations(figures[0].operator_start)} (start_season). seeded: the",
        "time BatchWriteItem took to put the other players' states (not metered).",
        "",
        "A game of the two heroes: the first in the season (both states still in the one",
        "before: reset, standing frozen, reset event) and the next one, and the difference",
        "",
    ]
    rows = []
    extras = []
    for size in figures:
        for season, entering, next_game in (
            (DECEMBER, size.first_game, size.second_game),
            (OPERATOR_SEASON, size.operator_first_game, size.operator_second_game),
        ):
            extra = entering.minus(next_game)
            extras.append(extra)
            rows.append(
                f"{size.players:>8}  {season:<11}{cells(entering)}   {cells(next_game)}   "
                f"{cells(extra)}   {extra.total / 2:>5g}{extra.read_units / 2:>6.1f}"
                f"{extra.write_units / 2:>6.1f}   {entering.transaction_items:>3} / "
                f"{next_game.transaction_items}"
            )
    lines += table(
        [
            f"{'players':>8}  {'season':<11}{'first':<17}   {'next':<17}   {'extra':<17}"
            f"   {'extra per player':<17}   {'tx items'}",
            f"{'':21}{units(4)}",
        ],
        rows,
    )
    first = figures[0]
    lines += [
        "",
        f"Flat in the ladder's size: {flat(extras)}. First game: {operations(first.first_game)};",
        f"next: {operations(first.second_game)}. tx items: the items each game's transaction",
        "puts, first / next. The table's share of those transactions, DynamoDB Local reported: "
        f"{first.first_game.reported_transaction_units:g} / "
        f"{first.second_game.reported_transaction_units:g};",
        f"AWS's rule: {first.first_game.rule_units:g} / {first.second_game.rule_units:g} "
        "(counted above).",
        "",
        f"Reads around the boundary: a hero's GET player, the first page ({PAGE}) of a",
        "leaderboard (no read wrote anything)",
        "",
    ]
    lines += table(
        [
            f"{'players':>8}{'entries':>8}   {'player':<11}   {'player':<11}   {'Nov. page':<11}"
            f"   {'Nov. page':<11}   {'Nov. page':<11}   {'Dec. page':<11}",
            f"{'':16}   {'before':<11}   {'after':<11}   {'current':<11}   {'ended':<11}"
            f"   {'ended *':<11}   {'current *':<11}",
            f"{'':16}   {units(6, reads_only=True)}",
        ],
        (
            f"{size.players:>8}{size.page_entries:>8}   {read_cells(size.player_before)}   "
            f"{read_cells(size.player_after)}   {read_cells(size.page_current)}   "
            f"{read_cells(size.page_ended)}   {read_cells(size.page_ended_moved)}   "
            f"{read_cells(size.page_new)}"
            for size in figures
        ),
    )
    largest = figures[-1]
    lines += [
        "",
        "player: before the boundary (its rank on November's board included), right after it",
        "(the reset shown; no December game, so no rank). Nov. page: while November is current;",
        "ended, at the boundary; *: once every player on it has played in December (standings",
        "frozen), and December's page then (those players). December's page at the boundary",
        f"(empty): {operations(largest.page_empty)}, {largest.page_empty.read_units:g} RCU.",
        f"At {largest.players} players, November's page: current "
        f"{operations(largest.page_current)}; ended * {operations(largest.page_ended_moved)}.",
        "Every measured step reads the ladder's operator-started seasons again (the service",
        "keeps them 1 s): a GetItem beside a read, one more key in a game's BatchGetItem.",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument(
        "--sizes",
        default=",".join(str(size) for size in SIZES),
        help="players per ladder, comma-separated (each at least 2)",
    )
    args = parser.parse_args(argv)
    try:
        sizes = [int(value) for value in args.sizes.split(",")]
    except ValueError:
        parser.error("--sizes must be integers, comma-separated")
    if any(size < len(HEROES) for size in sizes):
        parser.error(f"every size must be at least {len(HEROES)}")
    figures = measure(sizes)
    print()
    print(report(figures))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
