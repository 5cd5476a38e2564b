"""`make run`: start the whole service locally, print what runs where, stop on Ctrl-C."""

import argparse
import contextlib
import os
import signal
import sys
import threading
from pathlib import Path

from ratings.rules.ladder_config import LadderConfigError
from ratings_local.dynamodb_local import VERSION, DynamoDBLocalUnavailable
from ratings_local.stack import DEFAULT_TEMPLATE, LocalStack, Options


def parse_args(argv: list[str]) -> Options:
    parser = argparse.ArgumentParser(
        prog="make run ARGS=...",
        description="Run the Elo rating service locally: API, queues and schedule on moto "
        "(the table on moto too, or on DynamoDB Local).",
    )
    parser.add_argument("--port", type=int, default=3000, help="API port (default 3000)")
    parser.add_argument(
        "--aws-port", type=int, default=0, help="emulated AWS port (default: a free one)"
    )
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1)")
    parser.add_argument(
        "--schedule-interval",
        type=float,
        default=60.0,
        metavar="SECONDS",
        help="run each scheduled function every SECONDS (default 60)",
    )
    parser.add_argument(
        "--api-key",
        default=os.environ.get("RATINGS_API_KEY"),
        help="require this x-api-key (default: $RATINGS_API_KEY; unset accepts any request)",
    )
    parser.add_argument(
        "--moderation-key",
        default=os.environ.get("RATINGS_MODERATION_KEY"),
        help=(
            "require this x-moderation-key on the moderation routes (erasure), as the deployed "
            "API requires a signed request (default: $RATINGS_MODERATION_KEY; unset: not checked)"
        ),
    )
    parser.add_argument(
        "--exact-rank-limit",
        type=int,
        default=None,
        metavar="N",
        help="ranks up to N are counted exactly, beyond estimated (default: the template's 1000)",
    )
    parser.add_argument(
        "--dynamodb-local",
        action="store_true",
        help="run the table on Amazon's DynamoDB Local (make setup-dynamodb-local installs it); "
        "the queues stay on moto",
    )
    parser.add_argument(
        "--ladders",
        type=Path,
        default=None,
        metavar="FILE",
        help="serve the ladders of FILE (default: $RATINGS_LADDERS_FILE, else the layer's "
        "layers/ratings/ladders.json; docs/api.md, Configuring ladders)",
    )
    parser.add_argument(
        "--webhook",
        default=None,
        metavar="URL",
        help="also POST every event the service publishes to URL, as JSON (EventBridge's "
        "event; retried until URL answers 2xx, 5 sends at most); the events queue gets them "
        "either way",
    )
    parser.add_argument("--template", type=Path, default=DEFAULT_TEMPLATE, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.schedule_interval <= 0:
        parser.error("--schedule-interval must be a positive number of seconds")
    if args.webhook is not None and not args.webhook.startswith(("http://", "https://")):
        parser.error("--webhook must be an http:// or https:// URL")
    if args.exact_rank_limit is not None and not 0 <= args.exact_rank_limit <= 10000:
        parser.error("--exact-rank-limit must be an integer from 0 to 10000")
    return Options(
        port=args.port,
        aws_port=args.aws_port,
        host=args.host,
        schedule_interval=args.schedule_interval,
        api_key=args.api_key or None,
        moderation_key=args.moderation_key or None,
        exact_rank_limit=args.exact_rank_limit,
        template=args.template,
        dynamodb_local=args.dynamodb_local,
        ladders_file=args.ladders,
        webhook_url=args.webhook,
    )


def banner(stack: LocalStack) -> str:
    endpoints = stack.endpoints()
    api = endpoints["api_url"]
    if api is None:
        return "template.yaml declares no function with an Api event: nothing to serve."
    key_header = f" -H 'x-api-key: {stack.options.api_key}'" if stack.options.api_key else ""
    ladders = ", ".join(stack.ladders)
    rows = [
        ("API", f"{api}/v1/ladders"),
        ("Ladders", f"{ladders} ({stack.ladders_source})"),
        ("Swagger", f"{api}/swagger"),
        ("Endpoints", f"{api}/_local/endpoints"),
        ("AWS (moto)", f"{endpoints['aws_endpoint_url']}  region {endpoints['region']}"),
        ("Table", f"{endpoints['table']} on {table_engine(stack)}"),
        ("Table endpoint", endpoints["dynamodb_endpoint_url"]),
    ]
    rows += [(f"Queue {role}", url) for role, url in endpoints["queues"].items() if url]
    if stack.options.webhook_url:
        rows.append(("Webhook", f"every event POSTed to {stack.options.webhook_url}"))
    rows += [
        ("Function", f"{logical_id} ({', '.join(triggers)})")
        for logical_id, triggers in endpoints["functions"].items()
    ]
    rows.append(("Schedule", f"every {stack.options.schedule_interval:g} s"))
    # One column for every value, past the longest label (a queue's role can be long).
    width = max(len(label) for label, _ in rows) + 2
    lines = ["Elo rating service, running locally (everything in memory; Ctrl-C stops it)"]
    lines += [f"  {label:<{width}}{value}" for label, value in rows]
    if "backgammon" not in stack.ladders:
        return "\n".join(lines)
    lines += [
        "",
        "Rate a first game:",
        f"  curl -s -X POST {api}/v1/ladders/backgammon/games{key_header} \\",
        "    -H 'content-type: application/json' \\",
        '    -d \'{"game_id": "g-1", "players": [{"id": "alice"}, {"id": "bob"}], '
        '"winner": "alice", "cube": 2}\'',
    ]
    return "\n".join(lines)


def table_engine(stack: LocalStack) -> str:
    return f"DynamoDB Local {VERSION}" if stack.dynamodb_local is not None else "moto"


def main(argv: list[str]) -> int:
    options = parse_args(argv)
    stack = LocalStack(options)
    try:
        stack.start()
    except (OSError, DynamoDBLocalUnavailable, LadderConfigError) as error:
        print(f"could not start the local stack: {error}", file=sys.stderr)
        stack.stop()
        return 1
    print(banner(stack), flush=True)
    stopped = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stopped.set())
    with contextlib.suppress(KeyboardInterrupt):
        stopped.wait()
    print("\nstopping...", flush=True)
    stack.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
