"""What each `ratings` command does, once __main__ has parsed its arguments: read the
games, call the replay, calibration or simulation, write the results and print the report.
"""

import contextlib
import csv
import json
import sys
from argparse import Namespace
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from ratings.config import Config
from ratings.declare.answers import json_of
from ratings.rules import Ruleset
from ratings_cli import progress
from ratings_cli.calibration_figures import rating_spread
from ratings_cli.calibration_report import calibrate
from ratings_cli.records import (
    GameLine,
    InputError,
    Record,
    dumps,
    parse_time,
    read_games,
    write_lines,
)
from ratings_cli.replay import Replayer, ReplaySummary, TableRow
from ratings_cli.rules import (
    choose_ruleset,
    divisor_of,
    ladder_named,
    parse_params,
    recorded_divisor,
)


def run_export(args: Namespace) -> int:
    from ratings_cli.export import stored_results  # boto3 and pynamodb only when needed

    results = stored_results(
        args.ladder, table=args.table, region=args.region, endpoint_url=args.endpoint_url
    )
    with open_output(args.output) as out:
        count = write_lines(results, out)
    where = args.output or "standard output"
    print(f"exported {count} games of ladder {args.ladder} to {where}", file=sys.stderr)
    return 0


def run_republish(args: Namespace) -> int:
    """The events DLQ's ranges published again; 1 when any message is kept."""
    import boto3  # boto3 only when needed
    from botocore.config import Config as ClientConfig

    from ratings_cli import republish

    region = args.region or Config.from_env().region
    session = boto3.session.Session(region_name=region)
    retries: Any = {"mode": "standard", "total_max_attempts": 3}
    sqs = session.client("sqs", endpoint_url=args.endpoint_url)
    # Calls naming a StreamArn would go to an endpoint of the account, which the local
    # engines do not answer; the regional endpoint is DynamoDB Streams' own on AWS too.
    streams = session.client(
        "dynamodbstreams",
        endpoint_url=args.endpoint_url,
        config=ClientConfig(account_id_endpoint_mode="disabled", retries=retries),
    )
    # The function's timeout is 30 s: the answer may take that long.
    functions = session.client(
        "lambda",
        endpoint_url=args.endpoint_url,
        config=ClientConfig(read_timeout=70, retries=retries),
    )
    totals = republish.republish(
        args.dlq_url,
        sqs=sqs,
        streams=streams,
        invoke=republish.lambda_invoker(functions, args.function),
        drop_expired=args.drop_expired,
        wait_seconds=args.wait_seconds,
        out=sys.stdout,
    )
    return 1 if totals.kept else 0


def ruleset_from(args: Namespace) -> tuple[str, Ruleset]:
    ladder = ladder_named(args.ladder)
    params: dict[str, object] = {}
    for name in ("divisor", "k", "heavy_volume_k", "starting_rating"):
        value = getattr(args, name)
        if value is not None:
            params[name] = value
    if args.heavy_volume_games is not None:
        params.update(parse_params([f"heavy_volume_games={args.heavy_volume_games}"]))
    params.update(parse_params(args.param))
    return ladder.ladder_id, choose_ruleset(ladder, args.ruleset_version, params)


def run_replay(args: Namespace) -> int:
    ladder_id, ruleset = ruleset_from(args)
    games = read_games(args.games, ladder_id)
    replayer = Replayer(ladder_id, ruleset)
    results: list[Record] = []
    enabled = progress.wanted(args.progress, len(games))
    with progress.Progress(len(games), "replay", enabled=enabled) as bar:
        for game in games:
            results.append(replayer.rate(game))
            bar.advance()
    if args.output:
        with open_output(None if args.output == "-" else args.output) as out:
            write_lines(results, out)
    table = replayer.table()
    if args.table_out:
        _write_table(table, args.table_out)
    replayed = [
        GameLine(game.line, game.played_at, result)
        for game, result in zip(games, results, strict=True)
    ]
    spread = rating_spread(replayed, args.active_days)
    summary = ReplaySummary(
        ladder=ladder_id,
        ruleset=ruleset.name,
        ruleset_version=ruleset.version,
        parameters=dict(ruleset.parameters()),
        games=replayer.games,
        ranked_games=replayer.ranked,
        players=len(table),
        spread=spread.figures() if spread else None,
        table=[row.replayed() for row in table],
    )
    report = sys.stderr if args.output == "-" else sys.stdout
    if args.json:
        print(json.dumps(json_of(summary), indent=2), file=report)
    else:
        print(_replay_text(summary, table, args.top), file=report)
    return 0


def _replay_text(summary: ReplaySummary, table: list[TableRow], top: int) -> str:
    divisor = summary.parameters.get("divisor")
    lines = [
        f"replayed {summary.games} games ({summary.ranked_games} ranked) of ladder "
        f"{summary.ladder} under {summary.ruleset} {summary.ruleset_version} "
        f"(divisor {divisor:g}): {summary.players} players",
    ]
    spread = summary.spread
    if spread:
        lines.append(
            f"rating spread of {spread.active_players} active players: middle half within "
            f"{spread.middle_half_span:.0f} points ({spread.p25:.0f}-{spread.p75:.0f}), "
            f"middle 80% within {spread.middle_80_span:.0f}, sd {spread.sd:.0f}"
        )
    if top > 0 and table:
        lines += [
            "",
            f"{'rank':>4}  {'player':<12} {'rating':>6} {'games':>6} {'won':>6} "
            f"{'expected':>8} {'points':>7}",
        ]
        for row in table[:top]:
            lines.append(
                f"{row.rank:>4}  {row.player_id:<12} {row.rating:>6} {row.ranked_games:>6} "
                f"{row.win_share or 0:>6.1%} {row.expected_share or 0:>8.1%} {row.points:>+7}"
            )
    return "\n".join(lines)


def _write_table(table: list[TableRow], path: Path) -> None:
    rows = [json_of(row.replayed()) for row in table]
    try:
        with path.open("w", encoding="utf-8", newline="") as out:
            if path.suffix.lower() == ".csv":
                fields = list(rows[0]) if rows else ["rank", "player_id", "rating"]
                writer = csv.DictWriter(out, fieldnames=fields)
                writer.writeheader()
                writer.writerows(rows)
            else:
                json.dump(rows, out, indent=1)
                out.write("\n")
    except OSError as error:
        raise cannot_write(path, error) from None


def run_calibrate(args: Namespace) -> int:
    ladder = ladder_named(args.ladder)
    if args.bucket_width <= 0 or args.max_lead <= 0:
        raise InputError("--bucket-width and --max-lead must be positive")
    if not 0 < args.confidence < 1:
        raise InputError("--confidence must be between 0 and 1, e.g. 0.95")
    if not 0 < args.top_share <= 1:
        raise InputError("--top-share must be above 0 and at most 1, e.g. 0.1")
    if args.min_games < 0:
        raise InputError("--min-games must be 0 or more")
    if args.divisor is not None and args.divisor <= 0:
        raise InputError("--divisor must be positive")
    since = parse_time(args.since, "--since") if args.since else None
    games = read_games(args.games, ladder.ladder_id)
    fallback = divisor_of(ladder.ruleset)
    if args.divisor is not None:
        current, source = args.divisor, "--divisor"
    else:
        current, source = fallback, f"ladder default, {ladder.ruleset.version}"
        ranked = [game for game in games if game.record.get("ranked", True)]
        if ranked:
            latest = ranked[-1].record
            found = recorded_divisor(latest.get("ruleset"), latest.get("ruleset_version"))
            if found is not None:
                current = found
                source = (
                    f"rules of the latest game: {latest.get('ruleset')} "
                    f"{latest.get('ruleset_version')}"
                )

    def divisor_for(record: Record) -> float:
        found = recorded_divisor(record.get("ruleset"), record.get("ruleset_version"))
        return current if found is None else found

    try:
        report = calibrate(
            games,
            ladder=ladder.ladder_id,
            current_divisor=current,
            current_source=source,
            divisor_for=divisor_for,
            min_games=args.min_games,
            since=since,
            bucket_width=args.bucket_width,
            max_lead=args.max_lead,
            confidence=args.confidence,
            active_days=args.active_days,
            top_share=args.top_share,
        )
    except ValueError as error:
        raise InputError(f"{args.games}: {error} (check --min-games and --since)") from None
    plot: Path | None = None
    if not args.no_plot:
        from ratings_cli.plot import write_plot  # matplotlib only when a plot is wanted

        plot = args.plot
        try:
            write_plot(report, plot, args.title)
        except OSError as error:
            raise cannot_write(plot, error) from None
    if args.json:
        figures = report.to_json()
        figures["plot"] = str(plot) if plot else None
        print(json.dumps(figures, indent=2))
    else:
        print(report.to_text())
        if plot:
            print(f"plot: {plot}")
    return 0


def run_simulate(args: Namespace) -> int:
    from ratings_cli.simulate import Simulation, Simulator

    ladder_id, ruleset = ruleset_from(args)
    simulation = Simulation(
        players=args.players,
        games=args.games,
        luck=args.luck,
        true_divisor=args.true_divisor,
        spread=args.spread,
        activity=args.activity,
        days=args.days,
        seed=args.seed,
        start=parse_time(args.start, "--start"),
    )
    try:
        simulator = Simulator(simulation, ladder_id, ruleset)
    except ValueError as error:
        raise InputError(str(error)) from None
    enabled = progress.wanted(args.progress, simulation.games)
    with (
        open_output(args.output) as out,
        progress.Progress(simulation.games, "simulate", enabled=enabled) as bar,
    ):
        for result in simulator.games():
            out.write(dumps(result))
            out.write("\n")
            bar.advance()
    if args.strengths_out:
        truth = {
            "true_divisor": simulation.true_divisor,
            "luck": simulation.luck,
            "spread": simulation.spread,
            "seed": simulation.seed,
            "strengths": {pid: round(value, 3) for pid, value in simulator.strengths.items()},
        }
        try:
            args.strengths_out.write_text(json.dumps(truth, indent=1) + "\n", encoding="utf-8")
        except OSError as error:
            raise cannot_write(args.strengths_out, error) from None
    print(
        f"simulated {simulation.games} games between {simulation.players} players "
        f"(true divisor {simulation.true_divisor:g}, luck {simulation.luck:g}, "
        f"spread {simulation.spread:g}, seed {simulation.seed}) rated under {ruleset.name} "
        f"{ruleset.version}" + (f" -> {args.output}" if args.output else ""),
        file=sys.stderr,
    )
    return 0


@contextlib.contextmanager
def open_output(path: str | None) -> Iterator[IO[str]]:
    if path is None:
        yield sys.stdout
        sys.stdout.flush()
        return
    try:
        handle = open(path, "w", encoding="utf-8")  # noqa: SIM115 - closed below
    except OSError as error:
        raise cannot_write(path, error) from None
    with handle:
        yield handle


def cannot_write(path: object, error: OSError) -> InputError:
    return InputError(f"cannot write {path}: {error.strerror or error}")
