"""A hot player on Amazon's engine: twelve writers, fifteen games each, all against one
player, on DynamoDB Local. Its transactions cancel each other (TransactionConflict) and its
version conditions fail as DynamoDB's do, which moto never shows.

Before the fix, 32 of these 180 games ended RetryLater after the service's 8 attempts, and
over the queue such a game was left to use up maxReceiveCount and dead-lettered without a
reason. Now contention is transient everywhere:

- over the games queue (eleven writers, each a GamesQueue container of its own) no record is
  ever a batch item failure: a game that still meets contention after the retry budget goes
  back to the queue as a new, delayed message, received once (receive count 1);
- over HTTP (one writer, through the Api function) the worst answer is 503 with Retry-After,
  and the client that waits that long and sends the same body again gets its 201.

Every game is stored, and applied to the hot player exactly once.
"""

import json
import threading
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from support.lambda_events import rest_event, sqs_event
from support.queues import queue_depth, wait_for_messages
from support.stack import running_stack, sqs_client, wait_for

from ratings import wiring
from ratings_local.functions import LocalFunction

# Amazon's engine only (the fixture's stack): moto's DynamoDB does not contend as DynamoDB does.
pytestmark = [
    # The stack sets process-wide state: its modules share a worker (support.stack).
    pytest.mark.xdist_group("local_stack"),
    pytest.mark.filterwarnings("ignore:No application metrics:UserWarning"),
]

LADDER = "backgammon"
HOT = "hot"
WRITERS = 12
GAMES_EACH = 15
STARTING_RATING = 1500


@dataclass
class Seen:
    """What the writers were answered."""

    lock: threading.Lock = field(default_factory=threading.Lock)
    http: Counter[int] = field(default_factory=Counter)
    retry_after: list[str | None] = field(default_factory=list)
    batch_item_failures: list[str] = field(default_factory=list)
    requeue_receive_counts: Counter[str] = field(default_factory=Counter)


@dataclass
class Queues:
    """The stack's games queue and its dead letters, with an SQS client of the stack's."""

    sqs: Any
    games_arn: str
    games_url: str
    games_dlq_url: str


@dataclass
class Functions:
    """The Api and GamesQueue functions of template.yaml as the local stack runs them: each
    invocation in an execution environment (a process) of its own, the table on DynamoDB
    Local, the queues on the stack's moto server. Its own consumers take what is sent back,
    as the event source mapping does."""

    games: LocalFunction
    api: LocalFunction
    stack: Queues


@pytest.fixture
def containers() -> Iterator[Functions]:
    with running_stack(dynamodb_local=True, print_function_logs=False) as local:
        assert local.resources is not None
        queues = local.endpoints()["queues"]
        yield Functions(
            games=local.functions["GamesQueueFunction"],
            api=local.functions["ApiFunction"],
            stack=Queues(
                sqs=sqs_client(local),
                games_arn=local.resources.queue_arns["GamesQueue"],
                games_url=queues["games"],
                games_dlq_url=queues["games_dlq"],
            ),
        )


def hot_game(writer: int, number: int, now: datetime) -> dict[str, Any]:
    opponent = f"opp-{writer}-{number}"
    return {
        "game_id": f"hot-{writer:02d}-{number:02d}",
        "played_at": (now - timedelta(hours=2, minutes=number)).isoformat(),
        "players": [{"id": HOT}, {"id": opponent}],
        "winner": HOT if (writer + number) % 2 else opponent,
    }


def over_http(functions: Functions, seen: Seen, games: list[dict[str, Any]]) -> None:
    """A client that honours Retry-After: it waits that long and sends the same body again."""
    path = f"/v1/ladders/{LADDER}/games"
    for body in games:
        retried = False
        while True:
            answer = functions.api.invoke(rest_event("POST", path, body=body))
            with seen.lock:
                seen.http[answer["statusCode"]] += 1
            if answer["statusCode"] != 503:
                break
            headers = dict(answer.get("headers") or {})
            for name, values in (answer.get("multiValueHeaders") or {}).items():
                headers[name] = values[-1]
            retry_after = headers.get("Retry-After")
            with seen.lock:
                seen.retry_after.append(retry_after)
            assert json.loads(answer["body"])["error"]["code"] == "retry_later"
            time.sleep(float(retry_after or 1))
            retried = True
        # A 503 whose commit landed after all (its answer ran out of time) is answered 200
        # from the stored game when sent again; a first answer is a 201.
        assert answer["statusCode"] in ({200, 201} if retried else {201}), answer


def over_the_queue(functions: Functions, seen: Seen, bodies: list[str]) -> None:
    """One GamesQueue container's deliveries: a record at a time, as a first delivery."""
    for body in bodies:
        answer = functions.games.invoke(sqs_event(functions.stack.games_arn, [body]))
        with seen.lock:
            seen.batch_item_failures += [f["itemIdentifier"] for f in answer["batchItemFailures"]]


def drain_requeued(functions: Functions, seen: Seen) -> None:
    """Deliver what was sent back, as the event source mapping would, until none is left."""
    stack = functions.stack
    while queue_depth(stack.sqs, stack.games_url):
        for message in wait_for_messages(stack.sqs, stack.games_url, seconds=20):
            seen.requeue_receive_counts[message["Attributes"]["ApproximateReceiveCount"]] += 1
            event = sqs_event(stack.games_arn, [message["Body"]])
            record = event["Records"][0]
            record["messageAttributes"] = {
                name: {"stringValue": value["StringValue"], "dataType": value["DataType"]}
                for name, value in message.get("MessageAttributes", {}).items()
            }
            answer = functions.games.invoke(event)
            seen.batch_item_failures += [f["itemIdentifier"] for f in answer["batchItemFailures"]]


def test_twelve_writers_on_one_hot_player_all_land_once_on_dynamodb_local(
    containers: Functions,
) -> None:
    stack = containers.stack
    now = datetime.now(UTC)
    games = {w: [hot_game(w, n, now) for n in range(GAMES_EACH)] for w in range(WRITERS)}
    seen = Seen()
    containers.api.warm()
    containers.games.warm()
    started = time.monotonic()

    with ThreadPoolExecutor(WRITERS) as pool:
        futures = [pool.submit(over_http, containers, seen, games[0])]
        for writer in range(1, WRITERS):
            bodies = [json.dumps({**game, "ladder": LADDER}) for game in games[writer]]
            futures.append(pool.submit(over_the_queue, containers, seen, bodies))
        for future in futures:
            future.result()
    drain_requeued(containers, seen)
    wiring.reset()  # this process's service, on the stack's table
    # The stack's own consumers may still be applying a copy they took.
    wait_for(
        lambda: (
            wiring.storage().unit_of_work().read_states(LADDER, [HOT])[HOT].ranked_games
            >= WRITERS * GAMES_EACH
        ),
        what="every game applied to the hot player",
    )
    seconds = time.monotonic() - started

    service = wiring.service()
    print(
        f"\n[hot-player dynamodb-local] games={WRITERS * GAMES_EACH} http={dict(seen.http)} "
        f"requeued={sum(seen.requeue_receive_counts.values())} "
        f"metrics={dict(containers.games.metrics)} seconds={seconds:.1f}"
    )
    assert seen.batch_item_failures == []  # contention never left a record to redeliver
    assert set(seen.requeue_receive_counts) <= {"1"}  # each copy a new message, received once
    assert queue_depth(stack.sqs, stack.games_dlq_url) == 0
    assert set(seen.http) <= {200, 201, 503}
    assert seen.http[201] + seen.http[200] == GAMES_EACH
    assert all(value == "1" for value in seen.retry_after)
    hot = wiring.storage().unit_of_work().read_states(LADDER, [HOT])[HOT]
    assert hot.ranked_games == WRITERS * GAMES_EACH  # each game applied exactly once
    deltas = 0
    for writer_games in games.values():
        for game in writer_games:
            stored = service.get_game(LADDER, game["game_id"])
            (mine,) = [player for player in stored["players"] if player["id"] == HOT]
            deltas += mine["delta"]
    assert hot.rating == STARTING_RATING + deltas
