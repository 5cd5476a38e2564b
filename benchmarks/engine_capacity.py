"""Capacity units per rated game and per standing read as Amazon's DynamoDB Local meters them,
with moto's figures beside them, on template.yaml's table.

Both engines get the same work: per ruleset, games between players who all have a state (the
common path), then on a board of B players a player's read (GET player: state, window and
standing) at several ranks. Every request asks for ReturnConsumedCapacity=INDEXES (the total,
and the table's and each index's share) and is seen at the adapter's botocore client. A last
check puts equal small items in one TransactWriteItems, to show how each engine meters it
beside AWS's documented rule (2 write units per item per started KB).

    python -m benchmarks.engine_capacity [--games N] [--players P] [--board B]

Needs DynamoDB Local (`make setup-dynamodb-local`).
"""

import functools
import math
import random
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import timedelta
from itertools import starmap
from typing import Any

import boto3
from botocore.client import BaseClient
from botocore.model import OperationModel

from ratings.rules import DEFAULT_LADDERS
from ratings.service.facade import RatingService, Settings
from ratings.service.unit_of_work import Retrier
from ratings.storage.dynamodb import DynamoStorage
from ratings.storage.dynamodb.layout import LEADERBOARD_INDEX
from ratings_local.dynamodb_local import VERSION, DynamoDBLocal
from ratings_local.resources import create_table, template_table
from ratings_local.stack import DEFAULT_TEMPLATE
from ratings_local.template import read_stack

from ._cli import game_parser
from .requests_per_game import NOW, body, fake_aws, item_size, moto_version
from .standing_reads import fill

ENGINES = ("dynamodb_local", "moto")
LABELS = {"dynamodb_local": f"DynamoDB Local {VERSION}", "moto": "moto"}


@dataclass
class Meter:
    """Requests and the capacity each engine reported, summed, at one botocore client."""

    requests: Counter[str] = field(default_factory=Counter)
    #: Units reported, by (operation, part): part "total", "table", or an index's name.
    units: defaultdict[tuple[str, str], float] = field(default_factory=lambda: defaultdict(float))
    #: Write units by AWS's documented rule, from the size of each item a transaction puts.
    rule_wcu: float = 0.0
    #: Units reported by the requests on the leaderboard index and the histogram GetItem.
    standing_units: float = 0.0
    standing_requests: int = 0
    #: Bytes of the answers' bodies.
    response_bytes: int = 0
    #: Whether the request under way is one of the standing's.
    _standing: bool = False

    def attach(self, client: BaseClient) -> None:
        events = client.meta.events
        events.register("before-parameter-build.dynamodb", self._ask)
        events.register("after-call.dynamodb", self._answered)

    def reset(self) -> None:
        """Every figure back to its start, as a new Meter's (it stays attached to its client)."""
        vars(self).update(vars(Meter()))

    def _ask(self, params: dict[str, Any], model: OperationModel, **_: Any) -> None:
        shape = model.input_shape
        if shape is not None and "ReturnConsumedCapacity" in shape.members:
            params["ReturnConsumedCapacity"] = "INDEXES"
        if model.name == "TransactWriteItems":
            for entry in params.get("TransactItems", []):
                if "Put" in entry:
                    self.rule_wcu += 2 * math.ceil(item_size(entry["Put"]["Item"]) / 1024)
        self._standing = model.name == "GetItem" or params.get("IndexName") == LEADERBOARD_INDEX

    def _answered(
        self, parsed: dict[str, Any], model: OperationModel, http_response: Any, **_: Any
    ) -> None:
        self.requests[model.name] += 1
        self.response_bytes += len(http_response.content or b"")
        consumed = parsed.get("ConsumedCapacity") or []
        total = 0.0
        for entry in [consumed] if isinstance(consumed, dict) else consumed:
            total += float(entry.get("CapacityUnits", 0))
            self.units[(model.name, "table")] += float(
                entry.get("Table", {}).get("CapacityUnits", 0)
            )
            for kind in ("LocalSecondaryIndexes", "GlobalSecondaryIndexes"):
                for name, share in entry.get(kind, {}).items():
                    self.units[(model.name, name)] += float(share.get("CapacityUnits", 0))
        self.units[(model.name, "total")] += total
        if self._standing and model.name in ("Query", "GetItem"):
            self.standing_units += total
            self.standing_requests += 1

    def reads(self) -> float:
        return sum(
            units
            for (name, part), units in self.units.items()
            if part == "total" and name != "TransactWriteItems"
        )

    def writes(self, part: str = "total") -> float:
        return self.units[("TransactWriteItems", part)]


@dataclass
class GameFigures:
    ladder: str
    ruleset: str
    games: int
    meter: Meter


@dataclass
class StandingFigures:
    rank: int
    exact: bool
    requests: int
    player_units: float
    standing_requests: int
    standing_units: float


@dataclass
class CountFigures:
    """One way of counting the players ahead: requests, units, answer bytes, client CPU."""

    requests: int
    units: float
    response_bytes: int
    cpu_ms: float


@dataclass
class CountComparison:
    rank: int
    ahead: int | None
    built: CountFigures
    entries: CountFigures


@dataclass
class EngineFigures:
    engine: str
    games: list[GameFigures] = field(default_factory=list)
    standings: list[StandingFigures] = field(default_factory=list)
    counts: list[CountComparison] = field(default_factory=list)
    #: (items, units of their TransactWriteItems, of their BatchWriteItem), as reported.
    write_check: tuple[int, float, float] = (0, 0.0, 0.0)


@contextmanager
def engine_endpoint(engine: str) -> Iterator[str | None]:
    """The engine's endpoint for the block (None: moto in this process), fake credentials."""
    with fake_aws():
        if engine == "moto":
            yield None
            return
        with DynamoDBLocal() as local:
            yield local.endpoint_url


def new_table(endpoint: str | None, prefix: str) -> str:
    name = f"{prefix}-{uuid.uuid4().hex[:8]}"
    client = boto3.client("dynamodb", region_name="us-east-1", endpoint_url=endpoint)
    # Without the stream: what is measured here is the table's, and moto's stock transactions
    # would copy the stream's records at each one (ratings_local.resources.create_table).
    properties = template_table(read_stack(DEFAULT_TEMPLATE), "RatingsTable")
    create_table(client, name, properties, stream=False)
    return name


def rate_games(
    endpoint: str | None, games: int, players: int, rng: random.Random
) -> list[GameFigures]:
    ids = [f"pl-{index:03d}" for index in range(players)]
    results = []
    for ladder_id, ladder in DEFAULT_LADDERS.items():
        storage = DynamoStorage(new_table(endpoint, f"bench-{ladder_id}"), endpoint_url=endpoint)
        service = RatingService(
            storage, DEFAULT_LADDERS, clock=lambda: NOW, retrier=Retrier(sleep=lambda _: None)
        )
        meter = Meter()
        meter.attach(storage.connection.client)
        start = NOW - timedelta(days=6)
        for index in range(0, players, 2):  # everybody gets a state first (not measured)
            warm = body(ladder_id, f"warm-{index}", ids[index], ids[index + 1], start, rng)
            service.submit_game(ladder_id, warm)
        meter.reset()
        step = timedelta(days=5) / games
        for number in range(games):
            a, b = rng.sample(ids, 2)
            at = start + timedelta(hours=1) + number * step
            if not service.submit_game(
                ladder_id, body(ladder_id, f"g-{number}", a, b, at, rng)
            ).created:
                raise AssertionError(f"game {number} was not rated")
        results.append(GameFigures(ladder_id, ladder.ruleset.name, games, meter))
    return results


def read_standings(
    endpoint: str | None, board_size: int, rng: random.Random
) -> tuple[list[StandingFigures], list[CountComparison]]:
    """A backgammon board of `board_size` players (ratings around 1500, sigma 200, put
    straight into the table), refreshed, then each chosen rank's GET player."""
    storage = DynamoStorage(new_table(endpoint, "bench-board"), endpoint_url=endpoint)
    settings = Settings()
    service = RatingService(storage, DEFAULT_LADDERS, settings=settings, clock=lambda: NOW)
    board = fill(storage, board_size, rng)
    service.refresh_standings("backgammon")
    meter = Meter()
    meter.attach(storage.connection.client)
    limit = settings.exact_rank_limit
    ranks = sorted({1, 10, 100, limit // 2, limit, limit + 1, board_size // 2, board_size})
    ranks = [rank for rank in ranks if 1 <= rank <= board_size]
    figures = []
    for rank in ranks:
        meter.reset()
        player = service.get_player("backgammon", board[rank - 1][0])
        figures.append(
            StandingFigures(
                rank,
                bool(player["standing"]["exact"]),
                sum(meter.requests.values()),
                meter.reads() - meter.standing_units,
                meter.standing_requests,
                meter.standing_units,
            )
        )
    counts = []
    for rank in ranks:
        player_id, rating = board[rank - 1]
        as_built = functools.partial(
            storage.ranks.count_ahead, "backgammon", rating, player_id, limit
        )
        built, ahead = timed(meter, as_built)
        alternative = functools.partial(count_from_entries, storage, rating, player_id, limit)
        entries, same = timed(meter, alternative)
        if same != ahead:
            raise AssertionError(f"the two counts disagree at rank {rank}: {ahead} != {same}")
        counts.append(CountComparison(rank, ahead, built, entries))
    return figures, counts


def timed(meter: Meter, count: Callable[[], int | None]) -> tuple[CountFigures, int | None]:
    """`count()`'s requests, units, answer bytes and this process's CPU time."""
    meter.reset()
    started = time.process_time()
    ahead = count()
    cpu_ms = (time.process_time() - started) * 1000
    figures = CountFigures(
        sum(meter.requests.values()), meter.reads(), meter.response_bytes, cpu_ms
    )
    return figures, ahead


def count_from_entries(
    storage: DynamoStorage, rating: int, player_id: str, limit: int
) -> int | None:
    """The alternative to the adapter's count: one Query a shard (`lb_rating >= r`, the same
    bound on entries read) that returns each entry's id and rating, counted here."""
    client: Any = storage.connection.client
    budget, ahead, read = 2 * limit + 2, 0, 0
    for shard in range(storage.table.shards):
        start_key: dict[str, Any] | None = None
        while True:
            request: dict[str, Any] = {
                "TableName": storage.table.table_name,
                "IndexName": LEADERBOARD_INDEX,
                "KeyConditionExpression": "lb_shard = :shard AND lb_rating >= :rating",
                "ExpressionAttributeValues": {
                    ":shard": {"S": f"backgammon#{shard}"},
                    ":rating": {"N": str(rating)},
                },
                "ProjectionExpression": "player_id, lb_rating",
                "Limit": budget + 1 - read,
            }
            if start_key:
                request["ExclusiveStartKey"] = start_key
            answer = client.query(**request)
            for entry in answer.get("Items", []):
                other, theirs = entry["player_id"]["S"], int(entry["lb_rating"]["N"])
                ahead += other != player_id and (theirs > rating or other < player_id)
            read += int(answer.get("ScannedCount", 0))
            if read > budget or ahead >= limit:
                return None
            start_key = answer.get("LastEvaluatedKey")
            if not start_key:
                break
    return ahead


def check_writes(endpoint: str | None, items: int = 5) -> tuple[int, float, float]:
    """`items` new small items (under 1 KB), written in one TransactWriteItems and, on other
    keys, in one BatchWriteItem: (items, transaction's units, batch's units) as reported."""
    name = new_table(endpoint, "bench-tx")
    client = boto3.client("dynamodb", region_name="us-east-1", endpoint_url=endpoint)

    def item(key: str) -> dict[str, Any]:
        return {"pk": {"S": key}, "sk": {"S": "X"}}

    transaction = client.transact_write_items(
        TransactItems=[{"Put": {"TableName": name, "Item": item(f"t-{n}")}} for n in range(items)],
        ReturnConsumedCapacity="TOTAL",
    )
    batch = client.batch_write_item(
        RequestItems={name: [{"PutRequest": {"Item": item(f"b-{n}")}} for n in range(items)]},
        ReturnConsumedCapacity="TOTAL",
    )

    def units(answer: Any) -> float:
        return sum(
            float(entry.get("CapacityUnits", 0)) for entry in answer.get("ConsumedCapacity") or []
        )

    return items, units(transaction), units(batch)


def measure(engine: str, games: int, players: int, board: int) -> EngineFigures:
    rng = random.Random(1201)
    figures = EngineFigures(engine)
    with engine_endpoint(engine) as endpoint:
        started = time.perf_counter()
        figures.games = rate_games(endpoint, games, players, rng)
        figures.standings, figures.counts = read_standings(endpoint, board, rng)
        figures.write_check = check_writes(endpoint)
        print(f"{LABELS[engine]}: measured in {time.perf_counter() - started:.1f} s", flush=True)
    return figures


def table(header: str, rows: Iterable[str]) -> list[str]:
    """A text table: its header, a rule as wide, and its rows."""
    return [header, "-" * len(header), *rows]


GAME_HEADER = (
    f"{'ladder':<11}{'ruleset':<9}{'req/game':>9}{'RCU':>7}{'moto':>6}"
    f"{'WCU':>7}{'table':>7}{'LSI':>6}{'GSI':>6}{'moto':>6}{'rule':>7}"
)


def game_row(ours: GameFigures, theirs: GameFigures) -> str:
    """One ladder's figures per game on DynamoDB Local, with moto's totals beside them."""
    meter, other, games = ours.meter, theirs.meter, ours.games
    return (
        f"{ours.ladder:<11}{ours.ruleset:<9}"
        f"{sum(meter.requests.values()) / games:>9.2f}"
        f"{meter.reads() / games:>7.2f}{other.reads() / games:>6.2f}"
        f"{meter.writes() / games:>7.2f}{meter.writes('table') / games:>7.2f}"
        f"{meter.writes('ranked_by_time') / games:>6.2f}"
        f"{meter.writes('leaderboard') / games:>6.2f}"
        f"{other.writes() / games:>6.2f}{meter.rule_wcu / games:>7.2f}"
    )


STANDING_HEADER = (
    f"{'rank':>6}{'exact':>7}{'requests':>9}{'player RCU':>11}{'standing':>9}"
    f"{'standing RCU':>13}{'moto':>6}"
)


def standing_row(read: StandingFigures, theirs: StandingFigures) -> str:
    """One rank's GET player on DynamoDB Local, with moto's standing units beside it."""
    return (
        f"{read.rank:>6}{read.exact!s:>7}{read.requests:>9}{read.player_units:>11.1f}"
        f"{read.standing_requests:>9}{read.standing_units:>13.1f}"
        f"{theirs.standing_units:>6.1f}"
    )


COUNT_HEADER = (
    f"{'rank':>6}{'ahead':>7}   {'requests':>8}{'RCU':>6}{'KB':>7}{'CPU ms':>8}"
    f"   {'requests':>8}{'RCU':>6}{'KB':>7}{'CPU ms':>8}"
)


def count_row(compared: CountComparison) -> str:
    """One rank's count of the players ahead, as built and from the entries."""
    cells = ""
    for way in (compared.built, compared.entries):
        cells += (
            f"   {way.requests:>8}{way.units:>6.1f}{way.response_bytes / 1024:>7.1f}"
            f"{way.cpu_ms:>8.1f}"
        )
    ahead = "-" if compared.ahead is None else str(compared.ahead)
    return f"{compared.rank:>6}{ahead:>7}{cells}"


def report(measured: dict[str, EngineFigures], players: int, board: int) -> str:
    local, moto = measured["dynamodb_local"], measured["moto"]
    lines = [
        f"Per rated game ({players} players who all have a state); DynamoDB Local {VERSION} "
        f"beside moto {moto_version()}. Units: what each engine reported "
        "(ReturnConsumedCapacity=INDEXES).",
        "",
        *table(GAME_HEADER, starmap(game_row, zip(local.games, moto.games, strict=True))),
        "",
        "req/game: DynamoDB Local's (moto's: "
        + ", ".join(
            f"{g.ladder} {sum(g.meter.requests.values()) / g.games:.2f}" for g in moto.games
        )
        + ")",
        "RCU, WCU: DynamoDB Local's totals per game (WCU split: table, LSI ranked_by_time, GSI",
        "  leaderboard); moto: moto's totals; rule: the table's write units by AWS's documented",
        "  rule from the sizes of the items each transaction puts (2 per item per started KB).",
        "",
        f"GET player on a board of {board} (backgammon, 4 shards, ExactRankLimit 1000)",
        "",
        *table(
            STANDING_HEADER,
            starmap(standing_row, zip(local.standings, moto.standings, strict=True)),
        ),
        "",
        "player RCU: the state's BatchGetItem and the window's Query; standing: the requests on",
        "  the leaderboard index and the histogram's GetItem, and their units (moto: its figure).",
        "",
        "The exact count of the players ahead (the standing's Queries, limit 1000), two ways",
        "on DynamoDB Local: as built, per shard one Select=COUNT Query of the ratings above and",
        "one of the tie (the rating is the index's sort key: no filter may name it); or one",
        "Query a shard that returns every entry's id and rating, counted in this process.",
        "",
        f"{'':13}   {'as built (COUNT)':<29}   {'one Query returning entries':<29}",
        *table(COUNT_HEADER, map(count_row, local.counts)),
        "ahead '-': past the limit or the bound (the rank is then estimated from the histogram).",
        "",
        "New small items written at once (AWS's documented rule: 2 units each in a",
        "TransactWriteItems, 1 in a BatchWriteItem):",
    ]
    for figures in (local, moto):
        items, transaction, batch = figures.write_check
        lines.append(
            f"  {LABELS[figures.engine]:<22} {items} items: TransactWriteItems {transaction:.1f} "
            f"(rule {2 * items:.1f}), BatchWriteItem {batch:.1f} (rule {items:.1f})"
        )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = game_parser(
        __doc__, (100, "rated games per ruleset"), (24, "players per ladder (even)")
    )
    parser.add_argument("--board", type=int, default=20_000, help="players on the standing board")
    args = parser.parse_args(argv)
    if args.games < 1 or args.players < 2 or args.players % 2 or args.board < 1:
        parser.error("--games and --board must be >= 1, --players an even number >= 2")
    measured = {engine: measure(engine, args.games, args.players, args.board) for engine in ENGINES}
    print()
    print(report(measured, args.players, args.board))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
