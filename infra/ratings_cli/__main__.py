"""`ratings export | replay | calibrate | simulate`: see `ratings COMMAND --help`."""

import argparse
import contextlib
import csv
import json
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import IO, Any

from ratings.rules import Ruleset
from ratings_cli import progress
from ratings_cli.calibration import calibrate, rating_spread
from ratings_cli.records import (
    GameLine,
    InputError,
    Record,
    dumps,
    parse_time,
    read_games,
    write_lines,
)
from ratings_cli.replay import Replayer, TableRow
from ratings_cli.rules import (
    choose_ruleset,
    divisor_of,
    ladder_named,
    parse_params,
    recorded_divisor,
)

#: Exit statuses: 0 done, 1 the table could not be read, 2 bad input or flags.
EXIT_INPUT = 2


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.run(args))
    except InputError as error:
        print(f"ratings {args.command}: error: {error}", file=sys.stderr)
        return EXIT_INPUT
    except BrokenPipeError:  # `ratings export | head`: the reader left, nothing to report
        return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="ratings",
        description=(
            "Show the math: export a ladder's games, replay them under other rules, "
            "calibrate the expected-score curve, simulate games. Files are JSON Lines of "
            "stored game results, as GET /v1/ladders/{ladder}/games/{game_id} returns them."
        ),
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _export_parser(commands)
    _replay_parser(commands)
    _calibrate_parser(commands)
    _simulate_parser(commands)
    return parser


# export -------------------------------------------------------------------------------------


def _export_parser(commands: Any) -> None:
    command = commands.add_parser(
        "export",
        help="write a ladder's stored games as JSON Lines",
        description=(
            "Write the stored games of a ladder as JSON Lines, sorted by played_at then "
            "game_id. The table comes from --table/--endpoint-url/--region, else from "
            "RATINGS_TABLE, AWS_ENDPOINT_URL and AWS_REGION (the local stack prints its "
            "endpoint and table at start and at GET /_local/endpoints)."
        ),
    )
    command.add_argument("--ladder", required=True, help="ladder id, e.g. backgammon")
    command.add_argument("--table", help="DynamoDB table (default: $RATINGS_TABLE or ratings)")
    command.add_argument(
        "--endpoint-url", help="AWS endpoint, e.g. the local stack's (default: $AWS_ENDPOINT_URL)"
    )
    command.add_argument("--region", help="AWS region (default: $AWS_REGION or us-east-1)")
    command.add_argument("-o", "--output", help="file to write (default: standard output)")
    command.set_defaults(run=run_export)


def run_export(args: argparse.Namespace) -> int:
    from ratings_cli.export import stored_results  # boto3 and pynamodb only when needed

    results = stored_results(
        args.ladder, table=args.table, region=args.region, endpoint_url=args.endpoint_url
    )
    with _open_output(args.output) as out:
        count = write_lines(results, out)
    where = args.output or "standard output"
    print(f"exported {count} games of ladder {args.ladder} to {where}", file=sys.stderr)
    return 0


# replay -------------------------------------------------------------------------------------


def _rules_arguments(command: argparse.ArgumentParser) -> None:
    rules = command.add_argument_group(
        "rules",
        "Default: the ladder's current ruleset version. Parameters change single fields "
        "of the chosen version; the results then carry a version label like 1.3.1+divisor=1000.",
    )
    rules.add_argument(
        "--ruleset-version", help="a published version, e.g. 1.0.5, 1.2.0 or 1.3.1 (gammon42)"
    )
    rules.add_argument("--divisor", type=float, help="D of the expected score")
    rules.add_argument("--k", type=int, help="K (gammon42)")
    rules.add_argument("--heavy-volume-k", type=int, help="K after a heavy week (gammon42)")
    rules.add_argument(
        "--heavy-volume-games",
        help="recent ranked games that switch to the heavy-volume K, or none (gammon42)",
    )
    rules.add_argument("--starting-rating", type=int, help="rating of a new player")
    rules.add_argument(
        "--param",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="any other numeric parameter, e.g. established_k=24 (classic); repeatable",
    )


def _ruleset_from(args: argparse.Namespace) -> tuple[str, Ruleset]:
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


def _progress_arguments(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help=f"progress bar on stderr (default: on for {progress.LONG_INPUT}+ games "
        "when stderr is a terminal)",
    )


def _replay_parser(commands: Any) -> None:
    command = commands.add_parser(
        "replay",
        help="rate a history from scratch under given rules",
        description=(
            "Rate the games of GAMES.jsonl from scratch, in played_at order (ties by game_id), "
            "under the given rules: deterministic, as the service would have rated them. "
            "Unranked games stay unranked. Writes each game's result (the export format) "
            "with --output and the final table with --table-out; prints a summary."
        ),
    )
    command.add_argument("games", type=Path, metavar="GAMES.jsonl")
    command.add_argument("--ladder", required=True, help="ladder id, e.g. backgammon")
    _rules_arguments(command)
    command.add_argument(
        "-o", "--output", help="per-game results as JSON Lines ('-': standard output)"
    )
    command.add_argument(
        "--table-out", type=Path, help="final table as .csv, or .json (any other name: JSON)"
    )
    command.add_argument("--top", type=int, default=10, help="table rows to print (default 10)")
    command.add_argument(
        "--active-days",
        type=float,
        metavar="DAYS",
        default=7.0,
        help="players with a ranked game in the file's last DAYS days count as active "
        "for the spread (default 7)",
    )
    command.add_argument("--json", action="store_true", help="print the summary as JSON")
    _progress_arguments(command)
    command.set_defaults(run=run_replay)


def run_replay(args: argparse.Namespace) -> int:
    ladder_id, ruleset = _ruleset_from(args)
    games = read_games(args.games, ladder_id)
    replayer = Replayer(ladder_id, ruleset)
    results: list[Record] = []
    enabled = progress.wanted(args.progress, len(games))
    with progress.Progress(len(games), "replay", enabled=enabled) as bar:
        for game in games:
            results.append(replayer.rate(game))
            bar.advance()
    if args.output:
        with _open_output(None if args.output == "-" else args.output) as out:
            write_lines(results, out)
    table = replayer.table()
    if args.table_out:
        _write_table(table, args.table_out)
    replayed = [
        GameLine(game.line, game.played_at, result)
        for game, result in zip(games, results, strict=True)
    ]
    spread = rating_spread(replayed, args.active_days)
    summary: dict[str, Any] = {
        "ladder": ladder_id,
        "ruleset": ruleset.name,
        "ruleset_version": ruleset.version,
        "parameters": dict(ruleset.parameters()),
        "games": replayer.games,
        "ranked_games": replayer.ranked,
        "players": len(table),
        "spread": spread.to_json() if spread else None,
        "table": [row.to_json() for row in table],
    }
    report = sys.stderr if args.output == "-" else sys.stdout
    if args.json:
        print(json.dumps(summary, indent=2), file=report)
    else:
        print(_replay_text(summary, table, args.top), file=report)
    return 0


def _replay_text(summary: dict[str, Any], table: list[TableRow], top: int) -> str:
    parameters = summary["parameters"]
    lines = [
        f"replayed {summary['games']} games ({summary['ranked_games']} ranked) of ladder "
        f"{summary['ladder']} under {summary['ruleset']} {summary['ruleset_version']} "
        f"(divisor {parameters.get('divisor'):g}): {summary['players']} players",
    ]
    spread = summary["spread"]
    if spread:
        lines.append(
            f"rating spread of {spread['active_players']} active players: middle half within "
            f"{spread['middle_half_span']:.0f} points ({spread['p25']:.0f}-{spread['p75']:.0f}), "
            f"middle 80% within {spread['middle_80_span']:.0f}, sd {spread['sd']:.0f}"
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
    rows = [row.to_json() for row in table]
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
        raise InputError(f"cannot write {path}: {error.strerror or error}") from None


# calibrate ----------------------------------------------------------------------------------


def _calibrate_parser(commands: Any) -> None:
    command = commands.add_parser(
        "calibrate",
        help="compare the expected-score curve with results; fit the divisor",
        description=(
            "Bucket the ranked games of GAMES.jsonl by the favourite's rating lead at the time "
            "(rating_before), compare the favourite's win share with the expected share, fit "
            "the divisor by maximum likelihood with a confidence interval, estimate the rating "
            "noise, report the rating spread, and draw it all in a PNG."
        ),
    )
    command.add_argument("games", type=Path, metavar="GAMES.jsonl")
    command.add_argument("--ladder", required=True, help="ladder id, e.g. backgammon")
    command.add_argument(
        "--divisor",
        type=float,
        help="the current divisor to compare with (default: the one that rated the "
        "file's latest game)",
    )
    command.add_argument(
        "--min-games",
        type=int,
        default=0,
        help="fit only games where both players already had N ranked games in the file: "
        "skips the burn-in while ratings settle (default 0)",
    )
    command.add_argument("--since", help="fit only games played at or after this time")
    command.add_argument("--bucket-width", type=int, default=50, help="points (default 50)")
    command.add_argument(
        "--max-lead", type=int, default=500, help="leads from here share a bucket (default 500)"
    )
    command.add_argument(
        "--confidence", type=float, default=0.95, help="of the interval (default 0.95)"
    )
    command.add_argument(
        "--active-days",
        type=float,
        metavar="DAYS",
        default=7.0,
        help="players with a ranked game in the file's last DAYS days count as active "
        "for the spread (default 7)",
    )
    command.add_argument(
        "--top-share",
        type=float,
        default=0.1,
        help="the ladder's top share of players whose games are summed up (default 0.1)",
    )
    command.add_argument("--plot", type=Path, default=Path("calibration.png"), help="PNG to write")
    command.add_argument("--no-plot", action="store_true", help="write no PNG")
    command.add_argument("--title", help="title of the plot")
    command.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    command.set_defaults(run=run_calibrate)


def run_calibrate(args: argparse.Namespace) -> int:
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
            raise InputError(f"cannot write {plot}: {error.strerror or error}") from None
    if args.json:
        figures = report.to_json()
        figures["plot"] = str(plot) if plot else None
        print(json.dumps(figures, indent=2))
    else:
        print(report.to_text())
        if plot:
            print(f"plot: {plot}")
    return 0


# simulate -----------------------------------------------------------------------------------


def _simulate_parser(commands: Any) -> None:
    from ratings_cli.simulate import Simulation

    defaults = Simulation()
    command = commands.add_parser(
        "simulate",
        help="make synthetic games from hidden true strengths",
        description=(
            "Make synthetic games, rated as they happen, in the export format. Players get "
            "hidden strengths (normal, sd --spread); the player ahead by GAP true points wins "
            "with probability luck/2 + (1-luck) / (1 + 10^(-GAP/true_divisor)). Deterministic "
            "for a --seed."
        ),
    )
    command.add_argument("--players", type=int, default=defaults.players)
    command.add_argument("--games", type=int, default=defaults.games)
    command.add_argument(
        "--luck",
        type=float,
        default=defaults.luck,
        help="share of games decided by a coin flip on top of the skill curve, 0..1 "
        f"(default {defaults.luck:g})",
    )
    command.add_argument(
        "--true-divisor",
        type=float,
        default=defaults.true_divisor,
        help="divisor of the real skill curve; 1200 is backgammon's dice "
        f"(default {defaults.true_divisor:g})",
    )
    command.add_argument(
        "--spread",
        type=float,
        default=defaults.spread,
        help=f"sd of the hidden strengths, in points (default {defaults.spread:g})",
    )
    command.add_argument(
        "--activity",
        type=float,
        default=defaults.activity,
        help="sd of log activity: how unequally often players play "
        f"(default {defaults.activity:g})",
    )
    command.add_argument(
        "--days",
        type=float,
        default=defaults.days,
        help=f"days the games are spread over (default {defaults.days:g})",
    )
    command.add_argument(
        "--start",
        default=defaults.start.strftime("%Y-%m-%dT%H:%M:%SZ"),
        help="played_at of the start (default %(default)s)",
    )
    command.add_argument("--seed", type=int, default=defaults.seed)
    command.add_argument("--ladder", default="backgammon", help="ladder id (default backgammon)")
    _rules_arguments(command)
    command.add_argument("-o", "--output", help="games file (default: standard output)")
    command.add_argument(
        "--strengths-out", type=Path, help="write the hidden strengths as JSON here"
    )
    _progress_arguments(command)
    command.set_defaults(run=run_simulate)


def run_simulate(args: argparse.Namespace) -> int:
    from ratings_cli.simulate import Simulation, Simulator

    ladder_id, ruleset = _ruleset_from(args)
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
        _open_output(args.output) as out,
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
            raise InputError(
                f"cannot write {args.strengths_out}: {error.strerror or error}"
            ) from None
    print(
        f"simulated {simulation.games} games between {simulation.players} players "
        f"(true divisor {simulation.true_divisor:g}, luck {simulation.luck:g}, "
        f"spread {simulation.spread:g}, seed {simulation.seed}) rated under {ruleset.name} "
        f"{ruleset.version}" + (f" -> {args.output}" if args.output else ""),
        file=sys.stderr,
    )
    return 0


# shared -------------------------------------------------------------------------------------


@contextlib.contextmanager
def _open_output(path: str | None) -> Iterator[IO[str]]:
    if path is None:
        yield sys.stdout
        sys.stdout.flush()
        return
    try:
        handle = open(path, "w", encoding="utf-8")  # noqa: SIM115 - closed below
    except OSError as error:
        raise InputError(f"cannot write {path}: {error.strerror or error}") from None
    with handle:
        yield handle


if __name__ == "__main__":
    sys.exit(main())
