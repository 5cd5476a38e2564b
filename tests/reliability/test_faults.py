"""Transient DynamoDB failures, consumer crashes and poison messages: nothing lost, nothing twice.

The emulated AWS injects throttling, transaction conflicts and internal errors (some after the
write landed) at random DynamoDB requests; HTTP clients send the same body again on 5xx, SQS
delivers a failed record again after the visibility timeout (2 s here), and only messages that
can never succeed may reach the dead-letter queue.
"""

import json
import random
import time
from collections import Counter
from datetime import UTC, datetime
from typing import Any

import pytest
from support.http import Client
from support.queues import drain_bodies, queue_depth
from support.reliability import (
    LADDER,
    STARTING_RATING,
    deliver,
    make_games,
    plan_deliveries,
    summary,
    verify,
)
from support.stack import sqs_client, wait_for

from ratings.lambda_support.invocation import CONFLICTS_RETRIED
from ratings_local.faults import FaultPlan
from ratings_local.stack import LocalStack, sqs_record

pytestmark = pytest.mark.xdist_group("local_stack")

GAMES_FUNCTION = "GamesQueueFunction"


def players(prefix: str, count: int) -> list[str]:
    return [f"{prefix}-p{number}" for number in range(count)]


def poison_messages(client: Client, prefix: str) -> list[str]:
    """Three messages that can never succeed: not JSON, an invalid game, a conflicting id."""
    anchor = {
        "game_id": f"{prefix}-anchor",
        "players": [{"id": f"{prefix}-x"}, {"id": f"{prefix}-y"}],
        "winner": f"{prefix}-x",
    }
    status, _answer, _seen = client.submit(anchor)
    assert status == 201
    invalid = {**anchor, "game_id": f"{prefix}-bad-cube", "cube": 3, "ladder": LADDER}
    conflicting = {**anchor, "winner": f"{prefix}-y", "ladder": LADDER}
    return ["{not json", json.dumps(invalid), json.dumps(conflicting)]


def run_phase(
    stack: LocalStack,
    client: Client,
    sqs: Any,
    plan: FaultPlan,
    prefix: str,
    games_count: int,
    seed: int,
    *,
    poison: bool,
) -> dict[str, Any]:
    started = time.monotonic()
    queues = stack.endpoints()["queues"]
    rng = random.Random(seed)
    names = players(prefix, 5)
    games = make_games(rng, prefix, names, games_count, datetime.now(UTC))
    deliveries = plan_deliveries(rng, games)
    poisons = poison_messages(client, prefix) if poison else []
    retries_before = stack.metrics()[CONFLICTS_RETRIED]
    statuses_before = Counter(client.statuses)
    stack.aws.faults = plan
    try:
        outcome = deliver(
            deliveries, client, lambda: sqs_client(stack), queues["games"], extra_messages=poisons
        )
        wait_for(lambda: queue_depth(sqs, queues["games"]) == 0, 90, "games queue drained")
    finally:
        stack.aws.faults = None
    checked = verify(client, games, names, outcome=outcome)
    retries = stack.metrics()[CONFLICTS_RETRIED] - retries_before
    dlq = drain_bodies(sqs, queues["games_dlq"])
    figures = {
        "games": len(games),
        "deliveries": len(deliveries),
        "http": sum(d.channel == "http" for d in deliveries),
        "sqs": outcome.sqs_sent,
        "poison": len(poisons),
        "http_statuses": dict(sorted((Counter(client.statuses) - statuses_before).items())),
        "service_retries": retries,
        "faults": dict(sorted(plan.injected.items())),
        "dlq": len(dlq),
        "wall_seconds": round(time.monotonic() - started, 1),
        "longest_batch_seconds": round(stack.functions["GamesQueueFunction"].longest_seconds, 1),
    }
    # Only the poison reached the dead-letter queue, each exactly once.
    assert Counter(dlq) == Counter(poisons), dlq
    for game_id, statuses in outcome.http_final.items():
        assert statuses.count(201) <= 1, (game_id, statuses)
        # Every HTTP delivery ended in success, whatever it met on the way.
        assert set(statuses) <= {200, 201}, (game_id, statuses)
    assert sum(plan.injected.values()) > 0
    return {**figures, "k16": checked.k16_games}


def test_modest_faults_are_absorbed(stack: LocalStack, client: Client, sqs: Any) -> None:
    plan = FaultPlan(rate=0.08, seed=11)  # every kind, on any DynamoDB request
    figures = run_phase(stack, client, sqs, plan, "mf", 100, 21, poison=True)
    summary("faults-8%-all-kinds", **figures)
    assert {"throttle", "internal", "internal_after"} <= set(plan.injected)


def test_a_caller_whose_game_keeps_conflicting_gets_503_and_its_retry_lands_once(
    stack: LocalStack, client: Client
) -> None:
    # Every transaction cancelled: the service retries for its time budget (4 s of the Api's
    # 10), the caller is told to retry later, and nothing of the game is stored until the
    # retry succeeds.
    game = {
        "game_id": "rl-0000",
        "players": [{"id": "rl-a"}, {"id": "rl-b"}],
        "winner": "rl-a",
    }
    plan = FaultPlan(rate=1.0, kinds=("conflict",))
    retries_before = stack.metrics()[CONFLICTS_RETRIED]
    stack.aws.faults = plan
    try:
        status, answer = client.call("POST", f"/v1/ladders/{LADDER}/games", game)
    finally:
        stack.aws.faults = None
    assert status == 503, answer
    assert answer["error"]["code"] == "retry_later", answer
    assert plan.injected["conflict"] == stack.metrics()[CONFLICTS_RETRIED] - retries_before > 8
    status, player = client.get(f"/v1/ladders/{LADDER}/players/rl-a")
    assert (status, player["rating"], player["ranked_games"]) == (200, STARTING_RATING, 0)
    assert client.call("GET", f"/v1/ladders/{LADDER}/games/rl-0000")[0] == 404

    first = client.submit(game)
    again = client.submit(game)
    assert (first[0], again[0]) == (201, 200)
    assert again[1] == first[1]
    status, player = client.get(f"/v1/ladders/{LADDER}/players/rl-a")
    assert (status, player["ranked_games"]) == (200, 1), player
    assert player["rating"] == first[1]["players"][0]["rating_after"] > STARTING_RATING


def test_heavy_conflicts_make_the_service_retry(
    stack: LocalStack, client: Client, sqs: Any
) -> None:
    # 70% of transactions cancelled: the service retries, its time budget runs out now and
    # then (the HTTP client then gets 503 and sends again; an SQS record is sent back to the
    # queue, delayed), and every game still lands exactly once. How often the budget runs out
    # depends on thread scheduling, so it is reported, not asserted (the test above pins that
    # path down).
    plan = FaultPlan(rate=0.7, kinds=("conflict",), seed=12)
    figures = run_phase(stack, client, sqs, plan, "hc", 80, 22, poison=False)
    summary("faults-70%-conflicts", **figures)
    assert figures["service_retries"] >= plan.injected["conflict"] > 0


def test_a_consumer_dying_after_commit_is_redelivered_and_applied_once(
    stack: LocalStack, client: Client, sqs: Any
) -> None:
    """Receive, invoke the games function, do not delete; the redelivery is applied once.

    A queue of its own (same function, same record format) so that the stack's poller cannot
    take the messages first: the test plays the crashing consumer and then the next one.
    """
    url = sqs.create_queue(QueueName="reliability-crash", Attributes={"VisibilityTimeout": "1"})[
        "QueueUrl"
    ]
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"][
        "QueueArn"
    ]
    names = players("cd", 4)
    games = make_games(random.Random(31), "cd", names, 10, datetime.now(UTC), old_share=0)
    sqs.send_message_batch(
        QueueUrl=url,
        Entries=[
            {"Id": str(n), "MessageBody": json.dumps({**game, "ladder": LADDER})}
            for n, game in enumerate(games)
        ],
    )
    function = stack.functions[GAMES_FUNCTION]
    region = stack.options.region

    def receive() -> list[dict[str, Any]]:
        messages: list[dict[str, Any]] = []
        while len(messages) < len(games):
            batch = sqs.receive_message(
                QueueUrl=url, MaxNumberOfMessages=10, VisibilityTimeout=1, AttributeNames=["All"]
            ).get("Messages", [])
            if not batch:
                break
            messages.extend(batch)
        return messages

    first = receive()
    assert len(first) == len(games)
    response = function.invoke({"Records": [sqs_record(m, arn, region) for m in first]})
    assert response["batchItemFailures"] == []
    for game in games:  # committed; then the consumer "dies": nothing is deleted
        assert client.get(f"/v1/ladders/{LADDER}/games/{game['game_id']}")[0] == 200
    time.sleep(1.2)
    again = wait_for(lambda: receive() or None, 10, "the messages come back")
    assert sorted(m["MessageId"] for m in again) == sorted(m["MessageId"] for m in first)
    assert {m["Attributes"]["ApproximateReceiveCount"] for m in again} == {"2"}
    response = function.invoke({"Records": [sqs_record(m, arn, region) for m in again]})
    assert response["batchItemFailures"] == []
    for message in again:
        sqs.delete_message(QueueUrl=url, ReceiptHandle=message["ReceiptHandle"])
    checked = verify(client, games, names)
    dlq = drain_bodies(sqs, stack.endpoints()["queues"]["games_dlq"])
    summary(
        "consumer-dies-after-commit",
        games=len(games),
        delivered=len(first) + len(again),
        stored=checked.games,
        dlq=len(dlq),
    )
    assert dlq == []


def test_one_poison_in_a_batch_of_ten_does_not_block_the_nine(
    stack: LocalStack, client: Client, sqs: Any
) -> None:
    queues = stack.endpoints()["queues"]
    names = players("pb", 4)
    games = make_games(random.Random(41), "pb", names, 9, datetime.now(UTC), old_share=0)
    bodies = [json.dumps({**game, "ladder": LADDER}) for game in games]
    poison = json.dumps({**games[0], "game_id": "pb-poison", "cube": 3, "ladder": LADDER})
    bodies.insert(4, poison)
    arn = stack.resources.queue_arns["GamesQueue"] if stack.resources else ""
    records = [
        sqs_record(
            {"MessageId": f"pb-m{n}", "ReceiptHandle": f"pb-r{n}", "Body": body},
            arn,
            stack.options.region,
        )
        for n, body in enumerate(bodies)
    ]
    response = stack.functions[GAMES_FUNCTION].invoke({"Records": records})
    # The poison is settled by dead-lettering it: no record is left for a retry.
    assert response["batchItemFailures"] == []
    checked = verify(client, games, names)
    dlq_messages = sqs.receive_message(
        QueueUrl=queues["games_dlq"],
        MaxNumberOfMessages=10,
        MessageAttributeNames=["All"],
        WaitTimeSeconds=1,
    ).get("Messages", [])
    assert [m["Body"] for m in dlq_messages] == [poison]
    attributes = dlq_messages[0]["MessageAttributes"]
    assert attributes["reason"]["StringValue"] == "invalid_request"
    assert attributes["source_message_id"]["StringValue"] == "pb-m4"
    for message in dlq_messages:
        sqs.delete_message(QueueUrl=queues["games_dlq"], ReceiptHandle=message["ReceiptHandle"])
    assert client.get(f"/v1/ladders/{LADDER}/games/pb-poison")[0] == 404
    summary(
        "poison-in-batch",
        records=len(records),
        stored=checked.games,
        batch_item_failures=len(response["batchItemFailures"]),
        dlq=[json.loads(m["Body"])["game_id"] for m in dlq_messages],
    )
