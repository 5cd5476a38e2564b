"""What a sanction's refunds cost per refunded game, for a cheater with 10, 100 and 1,000 games
in the refund window, on moto and on Amazon's DynamoDB Local (template.yaml's table).

Each size: a fresh table, the cheater beating N distinct victims over six days (so every game
is one refund), then the sanction (POST), its whole job run by the worker's runner (as the
ModerationWorker runs it, one invocation with time enough), and the answer read back (GET of
the largest page, 1,000 decisions). Every request asks for ReturnConsumedCapacity=INDEXES;
requests, capacity units and wall time are counted at the adapter's botocore client. moto's
capacity figures are placeholders (it reports 1 unit a request, or none): the units to read
are DynamoDB Local's. moto runs with the local stack's TransactWriteItems
(`ratings_local.aws`): stock moto deep-copies the whole table for every transaction: with it,
the 1,000-game run (some 4,000 items) had not finished after 25 minutes and held 8.8 GB of
memory when it was stopped.

    python -m benchmarks.sanction_refunds [--sizes 10,100,1000] [--engines moto,dynamodb_local]

Needs DynamoDB Local for its half (`make setup-dynamodb-local`).
"""

import argparse
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta

from moto.dynamodb.models import DynamoDBBackend

from ratings.service.jobs import JobRun
from ratings.service.parameters import MAX_SANCTION_PAGE
from ratings.storage.dynamodb import DynamoStorage
from ratings_local.aws import transact_write_items
from ratings_local.dynamodb_local import VERSION

from ._moderation import moderating_service
from .engine_capacity import Meter, engine_endpoint, new_table
from .requests_per_game import NOW, moto_version

LABELS = {"dynamodb_local": f"DynamoDB Local {VERSION}", "moto": "moto"}
WRITES = ("TransactWriteItems", "PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem")


@dataclass
class Phase:
    """One measured part: its requests by operation, units read and written, seconds."""

    requests: dict[str, int]
    read_units: float
    write_units: float
    seconds: float
    #: Write units by part: "table", or an index's name.
    write_parts: dict[str, float]
    #: Write units of the transactions' puts by AWS's documented rule (2 per started KB).
    rule_write_units: float

    @classmethod
    def of(cls, meter: Meter, seconds: float) -> "Phase":
        totals = {name: units for (name, part), units in meter.units.items() if part == "total"}
        writes = sum(units for name, units in totals.items() if name in WRITES)
        reads = sum(units for name, units in totals.items() if name not in WRITES)
        parts: dict[str, float] = {}
        for (name, part), units in meter.units.items():
            if name in WRITES and part != "total":
                parts[part] = parts.get(part, 0.0) + units
        return cls(dict(meter.requests), reads, writes, seconds, parts, meter.rule_wcu)

    @property
    def request_count(self) -> int:
        return sum(self.requests.values())


@dataclass
class Figures:
    engine: str
    games: int
    refunds: int
    steps: int
    sanction: Phase
    job: Phase
    answer: Phase


@contextmanager
def local_transactions(engine: str) -> Iterator[None]:
    """moto with the local stack's item-level TransactWriteItems, for the block."""
    if engine != "moto":
        yield
        return
    stock = DynamoDBBackend.transact_write_items
    DynamoDBBackend.transact_write_items = transact_write_items  # type: ignore[method-assign]
    try:
        yield
    finally:
        DynamoDBBackend.transact_write_items = stock  # type: ignore[method-assign]


def measure(engine: str, games: int) -> Figures:
    with engine_endpoint(engine) as endpoint, local_transactions(engine):
        storage = DynamoStorage(new_table(endpoint, "bench-sanction"), endpoint_url=endpoint)
        service, queue = moderating_service(storage)
        start, step = NOW - timedelta(days=6), timedelta(days=6) / games
        for number in range(games):  # not measured: the cheater's games
            game = {
                "game_id": f"g-{number:05d}",
                "played_at": (start + number * step).isoformat(),
                "players": [{"id": "cheater"}, {"id": f"victim-{number:05d}"}],
                "winner": "cheater",
            }
            service.submit_game("backgammon", game)
        meter = Meter()
        meter.attach(storage.connection.client)
        body = {"sanction_id": "s-bench", "player_id": "cheater", "reason": "benchmark"}

        started = time.perf_counter()
        made = service.sanction_player("backgammon", body)
        sanction = Phase.of(meter, time.perf_counter() - started)
        (message,) = queue.sent
        meter.reset()
        started = time.perf_counter()
        run: JobRun = service.run_job({"job": message.kind, "job_id": message.job_id}, lambda: 600)
        job = Phase.of(meter, time.perf_counter() - started)
        meter.reset()
        started = time.perf_counter()
        answer = service.get_sanction("backgammon", "s-bench", MAX_SANCTION_PAGE)
        read = Phase.of(meter, time.perf_counter() - started)
    if made.result["status"] != "pending" or answer["status"] != "done" or run.continued:
        raise AssertionError(f"the sanction did not complete in one run: {answer['status']}")
    refunds = answer["totals"]["refunds"]
    if refunds != games or len(answer["refunds"]) != min(games, MAX_SANCTION_PAGE):
        raise AssertionError(f"{refunds} refunds for {games} lost games")
    return Figures(engine, games, refunds, run.steps, sanction, job, read)


def report(figures: list[Figures]) -> str:
    lines = [
        "| engine | games in window | refunds | steps | job requests | per refund | "
        "job write units | per refund | job read units | per refund | job seconds | "
        "ms per refund | POST requests / WCU | GET requests / RCU |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for entry in figures:
        job, refunds = entry.job, max(entry.refunds, 1)
        lines.append(
            f"| {LABELS[entry.engine]} | {entry.games} | {entry.refunds} | {entry.steps} "
            f"| {job.request_count} | {job.request_count / refunds:.3f} "
            f"| {job.write_units:g} | {job.write_units / refunds:.2f} "
            f"| {job.read_units:g} | {job.read_units / refunds:.2f} "
            f"| {job.seconds:.2f} | {1000 * job.seconds / refunds:.1f} "
            f"| {entry.sanction.request_count} / {entry.sanction.write_units:g} "
            f"| {entry.answer.request_count} / {entry.answer.read_units:g} |"
        )
    lines.append("")
    lines.append("Write units of each job per refund, by where they were spent:")
    for entry in figures:
        refunds = max(entry.refunds, 1)
        parts = ", ".join(
            f"{part} {units / refunds:.2f}" for part, units in sorted(entry.job.write_parts.items())
        )
        rule = entry.job.rule_write_units / refunds
        lines.append(
            f"- {LABELS[entry.engine]}, {entry.games} games: {parts or 'none reported'}; "
            f"the transactions' puts by AWS's rule (2 per item and started KB): {rule:.2f}"
        )
    lines.append("")
    lines.append("Requests of each job, by operation:")
    for entry in figures:
        by_operation = ", ".join(
            f"{name} {count}" for name, count in sorted(entry.job.requests.items())
        )
        lines.append(f"- {LABELS[entry.engine]}, {entry.games} games: {by_operation}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10,100,1000")
    parser.add_argument("--engines", default="moto,dynamodb_local")
    args = parser.parse_args(argv)
    sizes = [int(size) for size in args.sizes.split(",")]
    engines = args.engines.split(",")
    print(
        f"moto {moto_version()} (the local stack's TransactWriteItems); {LABELS['dynamodb_local']};"
        " backgammon; refund_days 7; every game a loss for its victim"
    )
    figures = [measure(engine, size) for engine in engines for size in sizes]
    print(report(figures))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
