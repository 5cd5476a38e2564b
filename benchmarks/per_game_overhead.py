"""Per-game overhead of the service over the bare DynamoDB requests it makes, per ruleset.

Starts the emulated AWS of the local stack (moto's server, serialized, fast transactions) and
two identical tables on it. The service (RatingService over DynamoStorage) rates games on the
first table while a hook on its botocore client records every request it makes (operation and
parameters, at botocore's 'provide-client-params' event). Right after each game, the same
requests (same keys, the same Query COUNTs on the LSI, the same TransactWriteItems with the
same items and conditions) are replayed with a plain boto3 client on the second table, which
so goes through exactly the same states: that is the floor. Service and floor alternate game
by game, so a busy moment of the machine hits both alike; the ratio is taken per round and the
median of the rounds is printed. Target: at most 1.5x.

    python -m benchmarks.per_game_overhead [--games N] [--rounds R] [--players P]
"""

import copy
import os
import random
import statistics
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import boto3
from botocore.config import Config
from botocore.model import OperationModel

from benchmarks._cli import game_parser
from benchmarks.requests_per_game import NOW, Clock, body
from ratings.rules import DEFAULT_LADDERS
from ratings.service.facade import RatingService
from ratings.service.unit_of_work import Retrier
from ratings.storage.dynamodb import DynamoStorage
from ratings_local.aws import EmulatedAws

SERVICE_TABLE = "overhead-service"
FLOOR_TABLE = "overhead-floor"
TARGET = 1.5


@dataclass
class Recorder:
    """The requests a botocore client makes: (operation name, parameters as the caller gave)."""

    calls: list[tuple[str, dict[str, Any]]] = field(default_factory=list)

    def __call__(self, params: dict[str, Any], model: OperationModel, **_: Any) -> None:
        # A reference only: copying here would be timed as the service's own work.
        self.calls.append((model.name, params))

    def take(self) -> list[tuple[str, dict[str, Any]]]:
        calls, self.calls = self.calls, []
        return calls


def retarget(value: Any, old: str, new: str) -> Any:
    """A deep copy of request parameters with table name `old` replaced by `new`."""
    if isinstance(value, dict):
        return {
            (new if key == old else key): (
                new if key == "TableName" and item == old else retarget(item, old, new)
            )
            for key, item in value.items()
        }
    if isinstance(value, list | tuple):
        return type(value)(retarget(item, old, new) for item in value)
    return copy.deepcopy(value)


@dataclass
class Result:
    ladder: str
    ruleset: str
    service: list[float] = field(default_factory=list)  # seconds per round
    floor: list[float] = field(default_factory=list)
    operations: Counter[str] = field(default_factory=Counter)
    games: int = 0


def replay(client: Any, calls: list[tuple[str, dict[str, Any]]]) -> None:
    for operation, params in calls:
        # The same call the generated method makes (client.batch_get_item(**params)...).
        client._make_api_call(operation, params)


def measure(games: int, rounds: int, players: int, seed: int) -> list[Result]:
    os.environ.setdefault("AWS_ACCESS_KEY_ID", "bench")
    os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "bench")
    os.environ.pop("AWS_ENDPOINT_URL", None)
    aws = EmulatedAws()
    url = aws.start()
    try:
        # The models are process-wide: create the floor's table first, then bind the service.
        DynamoStorage(FLOOR_TABLE, endpoint_url=url).create_table()
        storage = DynamoStorage(SERVICE_TABLE, endpoint_url=url)
        storage.create_table()
        service = RatingService(
            storage, DEFAULT_LADDERS, clock=Clock(NOW), retrier=Retrier(sleep=lambda seconds: None)
        )
        recorder = Recorder()
        storage.connection.client.meta.events.register("provide-client-params.dynamodb", recorder)
        # The same client settings as pynamodb's (no parameter validation), plain boto3.
        floor = boto3.client(
            "dynamodb",
            endpoint_url=url,
            region_name="us-east-1",
            config=Config(parameter_validation=False, retries={"mode": "standard"}),
        )
        rng = random.Random(seed)
        results = {
            ladder_id: Result(ladder_id, ladder.ruleset.name)
            for ladder_id, ladder in DEFAULT_LADDERS.items()
        }
        ids = [f"pl-{index:03d}" for index in range(players)]
        start = NOW - timedelta(days=6)
        # Everybody gets a state first (not timed), on both tables.
        for ladder_id in results:
            for index in range(0, players, 2):
                game = body(ladder_id, f"warm-{index}", ids[index], ids[index + 1], start, rng)
                service.submit_game(ladder_id, game)
                replay(floor, retarget(recorder.take(), SERVICE_TABLE, FLOOR_TABLE))
        step = timedelta(days=5) / (games * rounds * len(results))
        number = 0
        for _round in range(rounds):
            for result in results.values():
                service_seconds = floor_seconds = 0.0
                for _ in range(games):
                    a, b = rng.sample(ids, 2)
                    at = start + timedelta(hours=1) + number * step
                    game = body(result.ladder, f"g-{number}", a, b, at, rng)
                    number += 1
                    started = time.perf_counter()
                    submitted = service.submit_game(result.ladder, game)
                    service_seconds += time.perf_counter() - started
                    if not submitted.created:
                        raise AssertionError(f"game {game['game_id']} was not rated")
                    calls = retarget(recorder.take(), SERVICE_TABLE, FLOOR_TABLE)
                    result.operations.update(operation for operation, _ in calls)
                    started = time.perf_counter()
                    replay(floor, calls)
                    floor_seconds += time.perf_counter() - started
                result.service.append(service_seconds)
                result.floor.append(floor_seconds)
                result.games += games
        check_same_items(floor)
        return list(results.values())
    finally:
        aws.stop()


def check_same_items(floor: Any) -> None:
    """Both tables hold the same items: the replay went through the same states."""
    counts = {
        table: floor.scan(TableName=table, Select="COUNT")["Count"]
        for table in (SERVICE_TABLE, FLOOR_TABLE)
    }
    if counts[SERVICE_TABLE] != counts[FLOOR_TABLE]:
        raise AssertionError(f"the tables differ after the replay: {counts}")


def report(results: list[Result], games: int, rounds: int, players: int) -> str:
    lines = [
        f"Per-game time: the service vs the same DynamoDB requests replayed with boto3 "
        f"(emulated AWS, {players} players per ladder, {games} games x {rounds} rounds per "
        "ruleset, alternating game by game)",
        "",
        f"{'ladder':<11} {'ruleset':<9} {'req/game':>8} {'service ms':>10} {'floor ms':>9} "
        f"{'overhead ms':>11} {'ratio':>6} {'min..max ratio':>15}",
    ]
    lines.append("-" * len(lines[-1]))
    worst = 0.0
    for result in results:
        ratios = [s / f for s, f in zip(result.service, result.floor, strict=True)]
        ratio = statistics.median(ratios)
        worst = max(worst, ratio)
        service_ms = statistics.median(result.service) / games * 1000
        floor_ms = statistics.median(result.floor) / games * 1000
        requests = sum(result.operations.values()) / result.games
        lines.append(
            f"{result.ladder:<11} {result.ruleset:<9} {requests:>8.2f} {service_ms:>10.2f} "
            f"{floor_ms:>9.2f} {service_ms - floor_ms:>11.2f} {ratio:>5.2f}x "
            f"{min(ratios):>7.2f}..{max(ratios):.2f}x"
        )
    lines += [
        "",
        "service ms: RatingService.submit_game per game (parse, rules, pynamodb, requests);",
        "floor ms: the same requests (same parameters) with a boto3 client, same client settings",
        "  as pynamodb's (parameter validation off); both on the same in-process moto server.",
        "ms columns: median round / games; ratio: median over rounds of service/floor time.",
        f"target: ratio <= {TARGET:.2f}x; worst ruleset here {worst:.2f}x "
        f"({'met' if worst <= TARGET else 'NOT met'})",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = game_parser(
        __doc__, (100, "games per ruleset per round"), (24, "players per ladder (even)")
    )
    parser.add_argument("--rounds", type=int, default=5, help="rounds (a ratio each)")
    parser.add_argument("--seed", type=int, default=1129)
    args = parser.parse_args(argv)
    if args.games < 1 or args.rounds < 1 or args.players < 2 or args.players % 2:
        parser.error("--games and --rounds must be >= 1, --players an even number >= 2")
    results = measure(args.games, args.rounds, args.players, args.seed)
    print(report(results, args.games, args.rounds, args.players))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
