"""`ratings export | replay | calibrate | simulate | republish`: see `ratings COMMAND --help`.

The command line: its arguments and help texts, and the exit statuses. What each command
does once its arguments are parsed lives in `ratings_cli.commands`.
"""

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ratings_cli import progress
from ratings_cli.commands import (
    run_calibrate,
    run_export,
    run_replay,
    run_republish,
    run_simulate,
)
from ratings_cli.records import InputError

#: Exit statuses: 0 done, 1 the table could not be read (republish: a message kept), 2 bad
#: input or flags.
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
            "stored game results, as GET /v1/ladders/{ladder}/games/{game_id} returns them. "
            "And for the operator: publish again the events of the events DLQ (republish)."
        ),
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    _export_parser(commands)
    _replay_parser(commands)
    _calibrate_parser(commands)
    _simulate_parser(commands)
    _republish_parser(commands)
    return parser


# export -------------------------------------------------------------------------------------


def _export_parser(commands: Any) -> None:
    command = commands.add_parser(
        "export",
        help="write a ladder's stored games as JSON Lines",
        description=(
            "Write the stored games of a ladder as JSON Lines, sorted by played_at then "
            "game_id. The table comes from --table/--endpoint-url/--region, else from "
            "RATINGS_TABLE, AWS_ENDPOINT_URL_DYNAMODB (else AWS_ENDPOINT_URL) and AWS_REGION "
            "(the local stack prints the table's endpoint at start and at GET /_local/endpoints)."
        ),
    )
    command.add_argument("--ladder", required=True, help="ladder id, e.g. backgammon")
    command.add_argument("--table", help="DynamoDB table (default: $RATINGS_TABLE or ratings)")
    command.add_argument(
        "--endpoint-url",
        help="the table's endpoint, e.g. the local stack's dynamodb_endpoint_url "
        "(default: $AWS_ENDPOINT_URL_DYNAMODB, else $AWS_ENDPOINT_URL)",
    )
    command.add_argument("--region", help="AWS region (default: $AWS_REGION or us-east-1)")
    command.add_argument("-o", "--output", help="file to write (default: standard output)")
    command.set_defaults(run=run_export)


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


def _progress_arguments(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help=f"progress bar on stderr (default: on for {progress.LONG_INPUT}+ games "
        "when stderr is a terminal)",
    )


def _active_days_argument(command: argparse.ArgumentParser) -> None:
    command.add_argument(
        "--active-days",
        type=float,
        metavar="DAYS",
        default=7.0,
        help="players with a ranked game in the file's last DAYS days count as active "
        "for the spread (default 7)",
    )


def _games_file_command(commands: Any, name: str, **texts: str) -> argparse.ArgumentParser:
    """A command that reads the games of one ladder from a JSON Lines file."""
    command: argparse.ArgumentParser = commands.add_parser(name, **texts)
    command.add_argument("games", type=Path, metavar="GAMES.jsonl")
    command.add_argument("--ladder", required=True, help="ladder id, e.g. backgammon")
    return command


def _replay_parser(commands: Any) -> None:
    command = _games_file_command(
        commands,
        "replay",
        help="rate a history from scratch under given rules",
        description=(
            "Rate the games of GAMES.jsonl from scratch, in played_at order (ties by game_id), "
            "under the given rules: deterministic, as the service would have rated them. "
            "Unranked games stay unranked. Writes each game's result (the export format) "
            "with --output and the final table with --table-out; prints a summary."
        ),
    )
    _rules_arguments(command)
    command.add_argument(
        "-o", "--output", help="per-game results as JSON Lines ('-': standard output)"
    )
    command.add_argument(
        "--table-out", type=Path, help="final table as .csv, or .json (any other name: JSON)"
    )
    command.add_argument("--top", type=int, default=10, help="table rows to print (default 10)")
    _active_days_argument(command)
    command.add_argument("--json", action="store_true", help="print the summary as JSON")
    _progress_arguments(command)
    command.set_defaults(run=run_replay)


# calibrate ----------------------------------------------------------------------------------


def _calibrate_parser(commands: Any) -> None:
    command = _games_file_command(
        commands,
        "calibrate",
        help="compare the expected-score curve with results; fit the divisor",
        description=(
            "Bucket the ranked games of GAMES.jsonl by the favourite's rating lead at the time "
            "(rating_before), compare the favourite's win share with the expected share, fit "
            "the divisor by maximum likelihood with a confidence interval, estimate the rating "
            "noise, report the rating spread, and draw it all in a PNG."
        ),
    )
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
    _active_days_argument(command)
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
    _float_option(
        command,
        "--luck",
        defaults.luck,
        "share of games decided by a coin flip on top of the skill curve, 0..1",
    )
    _float_option(
        command,
        "--true-divisor",
        defaults.true_divisor,
        "divisor of the real skill curve; 1200 is backgammon's dice",
    )
    _float_option(command, "--spread", defaults.spread, "sd of the hidden strengths, in points")
    _float_option(
        command,
        "--activity",
        defaults.activity,
        "sd of log activity: how unequally often players play",
    )
    _float_option(command, "--days", defaults.days, "days the games are spread over")
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


def _float_option(command: argparse.ArgumentParser, flag: str, default: float, help: str) -> None:
    command.add_argument(flag, type=float, default=default, help=f"{help} (default {default:g})")


# republish ----------------------------------------------------------------------------------


def _republish_parser(commands: Any) -> None:
    command = commands.add_parser(
        "republish",
        help="publish again the events of the stream batches in the events DLQ",
        description=(
            "For each message of the events DLQ (Lambda's on-failure record of a batch of the "
            "table's stream): read that range of records from the stream, invoke the "
            "PublishEvents function with those the event source mapping lets through, as "
            "Lambda passes them, at most 100 an invocation, and delete the message once "
            "every record is done. A message whose records the stream no longer has (past "
            "24 hours) is reported as expired and kept. Prints a line a message. Exit "
            'status 1 when any message is kept (docs/reliability.md, "Events").'
        ),
    )
    command.add_argument(
        "--dlq-url", required=True, help="the events DLQ (stack output EventsDeadLetterQueueUrl)"
    )
    command.add_argument(
        "--function",
        required=True,
        help="the PublishEvents function's name or ARN (the stack's PublishEventsFunction)",
    )
    command.add_argument("--region", help="AWS region (default: $AWS_REGION or us-east-1)")
    command.add_argument(
        "--endpoint-url", help="one endpoint for SQS, DynamoDB Streams and Lambda (a local stack)"
    )
    command.add_argument(
        "--drop-expired",
        action="store_true",
        help="delete the messages whose records the stream no longer has",
    )
    command.add_argument(
        "--wait-seconds",
        type=int,
        choices=range(21),
        metavar="0-20",
        default=1,
        help="long poll of the DLQ before it counts as empty (default 1)",
    )
    command.set_defaults(run=run_republish)


if __name__ == "__main__":
    sys.exit(main())
