"""The games queue's mapping consumes as Lambda's does: a backlog is worked on by several
invocations at once, never more than the mapping's ScalingConfig.MaximumConcurrency (read
from the template; here a copy of it with a smaller figure, so that the cap is reached)."""

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.games import unique
from support.queues import queue_depth
from support.stack import running_stack, wait_for

from ratings_local.stack import LocalStack
from ratings_local.template import DEFAULT_TEMPLATE

pytestmark = pytest.mark.xdist_group("local_stack")

MAXIMUM_CONCURRENCY = 3


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LocalStack]:
    text = DEFAULT_TEMPLATE.read_text()
    assert text.count("MaximumConcurrency: 10") == 1, "the games mapping's figure moved"
    template: Path = tmp_path_factory.mktemp("template") / "template.yaml"
    smaller = f"MaximumConcurrency: {MAXIMUM_CONCURRENCY}"
    template.write_text(text.replace("MaximumConcurrency: 10", smaller))
    with running_stack(template=template) as local:
        yield local


def test_a_backlog_is_consumed_by_up_to_maximum_concurrency_invocations(
    stack: LocalStack, sqs: Any
) -> None:
    (poller,) = [p for p in stack.pollers if p.name == "GamesQueueFunction"]
    assert poller.mapping.maximum_concurrency == MAXIMUM_CONCURRENCY
    url = stack.endpoints()["queues"]["games"]
    pairs = [(unique("a"), unique("b")) for _ in range(120)]
    games = [
        {
            "ladder": "backgammon",
            "game_id": unique("bq"),
            "players": [{"id": a}, {"id": b}],
            "winner": a,
        }
        for a, b in pairs
    ]
    for start in range(0, len(games), 10):
        sqs.send_message_batch(
            QueueUrl=url,
            Entries=[
                {"Id": str(n), "MessageBody": json.dumps(game)}
                for n, game in enumerate(games[start : start + 10])
            ],
        )

    wait_for(lambda: queue_depth(sqs, url) == 0, 120, "the backlog consumed")

    assert poller.most_in_flight == MAXIMUM_CONCURRENCY
    assert stack.functions["GamesQueueFunction"].environments <= MAXIMUM_CONCURRENCY
    assert stack.metrics()["GamesRated"] == len(games)
