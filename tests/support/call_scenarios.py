"""The scenarios the IAM check drives each function through (tests/functions/test_iam_calls.py):
each calls the real handlers, recording what they ask of AWS, along the paths that make
different requests (new, duplicate and conflicting games, reads, links, podiums, the refresh,
sanctions and their refunds, erasures and their continuations, poison messages)."""

import json
import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

import boto3
import pytest

from ratings import wiring
from ratings.rules.seasons import ALL_TIME
from ratings.service.events import ERASURE_COMPLETED, GAME_RATED, TYPES
from ratings.service.stored import StoredGame
from ratings.service.unit_of_work import RetryPolicy
from ratings.storage.dynamodb.layout import RatingsItem, StandingItem, standing_sort_key
from ratings.storage.dynamodb.stream import envelopes_of
from support.aws_calls import RecordedFunction
from support.faults import mentions
from support.games import game, parse_ts, recent_game, recent_podium
from support.handlers import Api, LambdaContext, Stack
from support.lambda_events import scheduled_event, sqs_event
from support.queues import drain_bodies
from support.sanctions import sanction
from support.streams import (
    batches,
    enable_stream,
    let_through,
    stream_event,
    stream_records,
    streams_client,
)

GAMES = "/v1/ladders/backgammon/games"
SANCTIONS = "/v1/ladders/backgammon/sanctions"
SEASONS = "/v1/ladders/backgammon/seasons"
ERASURE = "/v1/players/{}/erasure"
SEASONS = "/v1/ladders/backgammon/seasons"


@dataclass
class Driven:
    """The functions as the scenarios call them, each recording what it asks of AWS."""

    stack: Stack
    monkeypatch: pytest.MonkeyPatch
    api: Api
    moderation: Api
    games_queue: RecordedFunction
    award_podiums: RecordedFunction
    refresh_standings: RecordedFunction
    moderation_worker: RecordedFunction
    publish_events: RecordedFunction

    def work_jobs(self, remaining_millis: int = 60_000, shrinking: bool = False) -> int:
        """Deliver every queued job message to the worker (continuations too) until none is
        left; the number of invocations."""
        invocations = 0
        bodies = drain_bodies(self.stack.sqs, self.stack.jobs_url)
        while bodies:
            for body in bodies:
                context = (ShrinkingContext if shrinking else LambdaContext)(
                    function_name="moderation-worker", remaining_millis=remaining_millis
                )
                answer = self.moderation_worker.lambda_handler(
                    sqs_event(self.stack.jobs_arn, [body]), context
                )
                assert answer == {"batchItemFailures": []}
                invocations += 1
            bodies = drain_bodies(self.stack.sqs, self.stack.jobs_url)
        return invocations


class ShrinkingContext(LambdaContext):
    """An invocation whose remaining time falls by a second each time it is asked."""

    def get_remaining_time_in_millis(self) -> int:
        self.remaining_millis -= 1000
        return self.remaining_millis


def short_retries() -> None:
    """This container gives up on contention at once: the requeue path, in milliseconds."""
    wiring.service().retrier.policy = RetryPolicy(budget_seconds=0.01)


def queued(body: dict[str, Any], ladder: str = "backgammon") -> str:
    return json.dumps({**body, "ladder": ladder})


# Scenarios ------------------------------------------------------------------------------------


def stored_before_times_were_kept(player_id: str) -> None:
    """Rewrite the player's backgammon state as one stored before states kept their recent
    games' times: their next game counts its window by a Query of the history (the
    fallback). Through the functions' own storage, outside any handler, so not recorded."""
    uow = wiring.storage().unit_of_work()
    state = uow.read_states("backgammon", [player_id])[player_id]
    legacy = state._replace(version=state.version + 1, recent=None)
    kept_until = datetime.now(UTC) + timedelta(days=30)
    record = StoredGame("backgammon", f"seed-{player_id}", "seed", {}, kept_until)
    assert uow.commit_game(record, [legacy], []) is None


def games(driven: Driven) -> None:
    """New games, a duplicate and a conflict over HTTP and from the games queue; a poison
    message to the DLQ; a throttled game sent back to its queue; a game of a state stored
    before the window's times were kept (the Query of the fallback), over HTTP and from the
    queue."""
    api, stack = driven.api, driven.stack
    assert api("POST", GAMES, body=recent_game("g-1", "alice", "bob")).status == 201
    assert api("POST", GAMES, body=recent_game("g-1", "alice", "bob")).status == 200
    assert api("POST", GAMES, body=recent_game("g-1", "alice", "bob", winner="bob")).status == 409
    preview = recent_game("ignored", "alice", "carol")
    del preview["game_id"]
    assert api("POST", "/v1/ladders/backgammon/preview", body=preview).status == 200
    short_retries()
    stack.dynamo_faults().fail(
        "TransactWriteItems", "ThrottlingException", when=mentions("g-flaky")
    )
    bodies = [
        queued(recent_game("g-2", "carol", "dave")),
        queued(recent_game("g-1", "alice", "bob")),
        queued(recent_game("g-1", "alice", "bob", winner="bob")),
        "{not json",
        queued(recent_game("g-flaky", "erin", "finn")),
    ]
    event = sqs_event(stack.games_arn, bodies)
    answer = driven.games_queue.lambda_handler(event, LambdaContext(function_name="games-queue"))
    assert answer == {"batchItemFailures": []}
    stored_before_times_were_kept("alice")
    assert api("POST", GAMES, body=recent_game("g-legacy-1", "alice", "bob")).status == 201
    stored_before_times_were_kept("carol")
    event = sqs_event(stack.games_arn, [queued(recent_game("g-legacy-2", "carol", "dave"))])
    answer = driven.games_queue.lambda_handler(event, LambdaContext(function_name="games-queue"))
    assert answer == {"batchItemFailures": []}


def reads(driven: Driven) -> None:
    """Every read route, and identity links (new, again, refused)."""
    api = driven.api
    for number in range(3):
        body = recent_game(f"g-r{number}", "alice", f"opp-{number}")
        assert api("POST", GAMES, body=body).status == 201
    assert api("POST", GAMES, body=recent_game("g-anon", "anon-1", "bob")).status == 201
    link = {"anonymous_id": "anon-1", "account_id": "acct-1"}
    assert api("POST", "/v1/identities/link", body=link).status == 200
    assert api("POST", "/v1/identities/link", body=link).status == 200
    other = {**link, "account_id": "acct-2"}
    assert api("POST", "/v1/identities/link", body=other).status == 409
    player = "/v1/ladders/backgammon/players/{}"
    for path in (
        "/v1/ladders",
        player.format("alice"),
        player.format("acct-1"),
        player.format("nobody"),
        "/v1/ladders/backgammon/games/g-r1",
        "/v1/ladders/backgammon/tournaments/t-none",
    ):
        assert api("GET", path).status in (200, 404), path
    history = api("GET", player.format("alice") + "/history", query={"limit": "2"})
    rest = {"limit": "2", "cursor": history.body["next_cursor"]}
    assert api("GET", player.format("alice") + "/history", query=rest).status == 200
    board = api("GET", "/v1/ladders/backgammon/leaderboard", query={"limit": "2"})
    rest = {"limit": "2", "cursor": board.body["next_cursor"]}
    assert api("GET", "/v1/ladders/backgammon/leaderboard", query=rest).status == 200


def podiums(driven: Driven) -> None:
    """A drain that awards, finds a duplicate, dead-letters, sends one back after throttling;
    then one that runs out of budget and releases what it did not handle."""
    stack = driven.stack
    t1 = json.dumps(recent_podium("t-1", "alice", "bob", "carol"))
    flaky = json.dumps(recent_podium("t-flaky", "dave"))
    for body in (t1, t1, "{oops", flaky):
        stack.sqs.send_message(QueueUrl=stack.podium_url, MessageBody=body)
    short_retries()
    stack.dynamo_faults().fail(
        "TransactWriteItems", "ThrottlingException", when=mentions("t-flaky")
    )
    context = LambdaContext(function_name="award-podiums", remaining_millis=120_000)
    summary = driven.award_podiums.lambda_handler(scheduled_event(), context)
    assert (summary["awarded"], summary["duplicate"]) == (1, 1)
    assert (summary["dead_lettered"], summary["requeued"]) == (1, 1)
    assert driven.api("GET", "/v1/ladders/backgammon/tournaments/t-1").status == 200
    driven.monkeypatch.setenv("RATINGS_DRAIN_SECONDS", "0.3")
    wiring.reset()
    wiring.sqs_client()  # a warm container: the budget goes to the queue, not to the client
    stack.dynamo_faults().delay("TransactWriteItems", 0.4)  # a slow store
    for number in range(3):
        body = json.dumps(recent_podium(f"t-{number + 2}", f"p{number}"))
        stack.sqs.send_message(QueueUrl=stack.podium_url, MessageBody=body)
    summary = driven.award_podiums.lambda_handler(scheduled_event(), context)
    assert summary["released"] >= 1


def refresh(driven: Driven) -> None:
    """A standings refresh over a leaderboard, and the leaderboard read after it."""
    for number in range(3):
        body = recent_game(f"g-s{number}", f"p{number}", f"q{number}")
        assert driven.api("POST", GAMES, body=body).status == 201
    context = LambdaContext(function_name="refresh-standings", remaining_millis=900_000)
    assert driven.refresh_standings.lambda_handler(scheduled_event(), context)
    assert driven.api("GET", "/v1/ladders/backgammon/players/p1").status == 200


def sanctions(driven: Driven) -> None:
    """A sanction made, read, repeated and refused; its refunds paid by the worker; lifted."""
    api, moderation = driven.api, driven.moderation
    for number, victim in enumerate(("vic", "val")):
        body = recent_game(f"g-m{number}", "mallory", victim)
        assert api("POST", GAMES, body=body).status == 201
    # A team game too: its two opponents are refunded (a decision each), the teammate not.
    pairs = {
        "game_id": "g-mt",
        "sides": [
            {"players": [{"id": "mallory"}, {"id": "mate"}], "place": 1},
            {"players": [{"id": "vic"}, {"id": "van"}], "place": 2},
        ],
    }
    assert api("POST", "/v1/ladders/sedma-pairs/games", body=pairs).status == 201
    team_sanction = sanction("s-t")
    assert moderation("POST", "/v1/ladders/sedma-pairs/sanctions", body=team_sanction).status == 202
    assert moderation("POST", SANCTIONS, body=sanction()).status == 202
    assert moderation("GET", SANCTIONS + "/s-1").status == 200
    assert driven.work_jobs() == 2
    assert moderation("GET", SANCTIONS + "/s-1").body["status"] == "done"
    team = moderation("GET", "/v1/ladders/sedma-pairs/sanctions/s-t").body
    assert team["status"] == "done"
    assert sorted(refund["player_id"] for refund in team["refunds"]) == ["van", "vic"]
    # Its decisions a page at a time: the first page's cursor read on.
    first = moderation("GET", SANCTIONS + "/s-1?limit=1").body
    assert first["next_cursor"] is not None
    cursor = first["next_cursor"]
    assert moderation("GET", SANCTIONS + f"/s-1?limit=1&cursor={cursor}").status == 200
    assert moderation("POST", SANCTIONS, body=sanction()).status == 200
    assert moderation("POST", SANCTIONS, body=sanction(refund_days=3)).status == 409
    assert api("POST", GAMES, body=recent_game("g-m9", "mallory", "vic")).status == 201
    assert moderation("DELETE", SANCTIONS + "/s-1").status == 200
    assert moderation("GET", SANCTIONS + "/s-none").status == 404


def erasure(driven: Driven) -> None:
    """Erasures requested (pending, done at once, refused) and read: of a sanction's victim
    and of the sanctioned player, after a season an operator started: the sanctioned player
    played again (their standing of the season before frozen, hidden), the victim did not
    (their state still in it). The worker's job steps, over invocations that run out of time
    and queue their continuation, store both standings under pseudonyms."""
    api, moderation = driven.api, driven.moderation
    for number in range(3):
        body = recent_game(f"g-e{number}", "mallory", "erin" if number else "eve")
        assert api("POST", GAMES, body=body).status == 201
    assert api("POST", GAMES, body=recent_game("g-anon", "anon-7", "erin")).status == 201
    link = {"anonymous_id": "anon-7", "account_id": "erin"}
    assert api("POST", "/v1/identities/link", body=link).status == 200
    assert moderation("POST", SANCTIONS, body=sanction("s-e")).status == 202
    assert driven.work_jobs() == 1  # erin's and eve's refunds
    started = moderation("POST", SEASONS, body={"season_id": "after-iam"})
    assert started.status == 201
    wait = parse_ts(started.body["starts_at"]) - datetime.now(UTC)
    time.sleep(max(wait.total_seconds(), 0) + 0.05)  # it begins a moment after the request
    # Played at receipt, in the new season: mallory's state leaves all-time, frozen there.
    assert api("POST", GAMES, body=game("g-e-next", "mallory", "eve")).status == 201
    assert moderation("POST", ERASURE.format("anon-7")).status == 409
    assert moderation("POST", ERASURE.format("nobody")).status == 200
    for player in ("erin", "mallory"):
        assert moderation("POST", ERASURE.format(player)).status == 202
        assert moderation("GET", ERASURE.format(player)).status == 200
    # 18 s left, a second less each time asked: two steps an invocation, then a continuation.
    assert driven.work_jobs(remaining_millis=18_000, shrinking=True) > 2
    for player in ("erin", "mallory"):
        assert moderation("GET", ERASURE.format(player)).body["status"] == "done"
    # Read outside any handler: mallory's frozen standing moved (hidden), and erin's from her
    # state, both under pseudonyms; eve's own beside them.
    frozen = wiring.storage().table.scan(RatingsItem.sk == standing_sort_key(ALL_TIME))
    standings = sorted(
        (item.player_id.startswith("erased-"), item.player_id == "eve", item.hidden is True)
        for item in frozen
        if isinstance(item, StandingItem)
    )
    assert standings == [(False, True, False), (True, False, False), (True, False, True)]


def seasons(driven: Driven) -> None:
    """An operator starts a season (again, and a conflict); every season read; a game that
    brings its players into the new season (their standings frozen, their resets in their
    histories); the past standings read; a sanction that hides them, and its lift."""
    api, moderation = driven.api, driven.moderation
    for number, (a, b) in enumerate([("alice", "bob"), ("carol", "dave"), ("alice", "carol")]):
        assert api("POST", GAMES, body=recent_game(f"g-z{number}", a, b)).status == 201
    start = {"season_id": "iam-season", "reset": {"kind": "soft", "squish": 0.5}}
    assert moderation("POST", SEASONS, body=start).status == 201
    assert moderation("POST", SEASONS, body=start).status == 200
    assert moderation("POST", SEASONS, body={"season_id": "iam-season"}).status == 409
    time.sleep(2.2)  # it begins two seconds after the request
    assert api("GET", "/v1/ladders").status == 200
    assert api("GET", SEASONS).body["seasons"][0]["season_id"] == "iam-season"
    assert api("GET", SEASONS + "/all-time").status == 200
    assert api("GET", SEASONS + "/nope").status == 404
    board = SEASONS + "/all-time/leaderboard"
    assert api("GET", board, query={"limit": "2"}).status == 200
    assert api("GET", "/v1/ladders/backgammon/players/alice").status == 200
    # The first game of the season: each state reset, its standing frozen, in one write.
    assert api("POST", GAMES, body=recent_game("g-z9", "alice", "bob")).status == 201
    assert api("GET", board, query={"around": "alice", "limit": "3"}).status == 200
    assert api("GET", "/v1/ladders/backgammon/players/alice/seasons").status == 200
    assert api("GET", SEASONS + "/iam-season/leaderboard").status == 200
    assert moderation("POST", SANCTIONS, body=sanction("s-z", "alice")).status == 202
    assert moderation("DELETE", SANCTIONS + "/s-z").status == 200


def poison(driven: Driven) -> None:
    """Job messages that can never succeed go to the jobs DLQ."""
    stack = driven.stack
    for body in ("not json", json.dumps({"job": "erasure", "job_id": "0" * 64})):
        event = sqs_event(stack.jobs_arn, [body])
        context = LambdaContext(function_name="moderation-worker", remaining_millis=60_000)
        assert driven.moderation_worker.lambda_handler(event, context) == {"batchItemFailures": []}


def events(driven: Driven) -> None:
    """Changes of every kind an event reports, stored by the other functions with the table's
    stream on (template.yaml's): a game (retried and refused too), a podium, a sanction with
    its refunds and its lift, a season begun and its standings' first refresh, an erasure.
    Lambda's mapping then hands PublishEvents the records its filter lets through, in its
    batches: the function reads what the events need (the lifted sanction, the season) and
    puts them on the bus, every record done."""
    api, moderation, stack = driven.api, driven.moderation, driven.stack
    tables = boto3.client("dynamodb", region_name="us-east-1")
    stream = enable_stream(tables, stack.table)
    assert api("POST", GAMES, body=recent_game("g-v1", "alice", "bob")).status == 201
    assert api("POST", GAMES, body=recent_game("g-v1", "alice", "bob")).status == 200
    assert api("POST", GAMES, body=recent_game("g-v1", "alice", "bob", winner="bob")).status == 409
    podium = json.dumps(recent_podium("t-v1", "alice", "bob", "carol"))
    stack.sqs.send_message(QueueUrl=stack.podium_url, MessageBody=podium)
    context = LambdaContext(function_name="award-podiums", remaining_millis=120_000)
    assert driven.award_podiums.lambda_handler(scheduled_event(), context)["awarded"] == 1
    assert api("POST", GAMES, body=recent_game("g-v2", "mallory", "vic")).status == 201
    assert moderation("POST", SANCTIONS, body=sanction("s-v")).status == 202
    assert driven.work_jobs() == 1
    assert moderation("DELETE", SANCTIONS + "/s-v").status == 200
    started = moderation("POST", SEASONS, body={"season_id": "events-season"})
    assert started.status == 201
    wait = parse_ts(started.body["starts_at"]) - datetime.now(UTC)
    time.sleep(max(wait.total_seconds(), 0) + 0.05)  # it begins a moment after the request
    assert api("POST", GAMES, body=game("g-v3", "carol", "dave")).status == 201
    context = LambdaContext(function_name="refresh-standings", remaining_millis=900_000)
    assert driven.refresh_standings.lambda_handler(scheduled_event(), context)
    assert moderation("POST", ERASURE.format("dave")).status == 202
    assert driven.work_jobs() >= 1
    assert moderation("GET", ERASURE.format("dave")).body["status"] == "done"

    # The table's engine: moto in process, or DynamoDB Local (its endpoint in the environment).
    local = os.environ.get("AWS_ENDPOINT_URL_DYNAMODB")
    records = let_through(stream_records(streams_client(local), stream))
    made = [
        envelope
        for record in records
        for envelope in envelopes_of(record, driven.publish_events.LOOKUPS)
    ]  # outside the handler: not recorded
    assert {envelope.type for envelope in made} == set(TYPES)
    (erased,) = [e for e in made if e.type == ERASURE_COMPLETED]
    assert erased.fields == {"player_id": "dave"}  # from the record as it was before done
    assert [e.fields["game"]["game_id"] for e in made if e.type == GAME_RATED].count("g-v1") == 1
    for batch in batches(records):
        context = LambdaContext(function_name="publish-events", remaining_millis=30_000)
        answer = driven.publish_events.lambda_handler(stream_event(batch), context)
        assert answer == {"batchItemFailures": []}


API, GAMES_QUEUE, PODIUMS = "ApiFunction", "GamesQueueFunction", "AwardPodiumsFunction"
REFRESH, MODERATION, WORKER, PUBLISH = (
    "RefreshStandingsFunction",
    "ModerationFunction",
    "ModerationWorkerFunction",
    "PublishEventsFunction",
)
TABLE = "RatingsTable"
#: Each scenario; the functions it drives; requests it must make, (function, action, resource:
#: a logical id, or one with the index), so that it is known to reach its paths.
SCENARIOS: dict[str, tuple[Callable[[Driven], None], set[str], set[tuple[str, str, str]]]] = {
    "games": (
        games,
        {API, GAMES_QUEUE},
        {
            (API, "dynamodb:PutItem", TABLE),
            (GAMES_QUEUE, "dynamodb:PutItem", TABLE),
            (GAMES_QUEUE, "sqs:SendMessage", "GamesQueue"),
            (GAMES_QUEUE, "sqs:SendMessage", "GamesDeadLetterQueue"),
            # gammon42's window counted on the history, for a state that keeps no times.
            (API, "dynamodb:Query", TABLE + "/index/ranked_by_time"),
            (GAMES_QUEUE, "dynamodb:Query", TABLE + "/index/ranked_by_time"),
        },
    ),
    "reads": (
        reads,
        {API},
        {
            (API, "dynamodb:Query", TABLE + "/index/leaderboard"),
            (API, "dynamodb:Query", TABLE),
            # A link checks that neither id is linked the other way round.
            (API, "dynamodb:ConditionCheckItem", TABLE),
        },
    ),
    "podiums": (
        podiums,
        {PODIUMS, API},
        {
            (PODIUMS, "sqs:ReceiveMessage", "PodiumQueue"),
            (PODIUMS, "sqs:DeleteMessage", "PodiumQueue"),
            (PODIUMS, "sqs:ChangeMessageVisibility", "PodiumQueue"),
            (PODIUMS, "sqs:SendMessage", "PodiumQueue"),
            (PODIUMS, "sqs:SendMessage", "PodiumDeadLetterQueue"),
        },
    ),
    "refresh": (
        refresh,
        {REFRESH, API},
        {(REFRESH, "dynamodb:Query", TABLE + "/index/leaderboard")},
    ),
    "sanctions": (
        sanctions,
        {API, MODERATION, WORKER},
        {
            # The sanctioned player's unranked game stores both states (the day's count).
            (API, "dynamodb:PutItem", TABLE),
            (MODERATION, "dynamodb:PutItem", TABLE),
            (MODERATION, "dynamodb:Query", TABLE),  # a page of the sanction's decisions
            (MODERATION, "sqs:SendMessage", "ModerationJobsQueue"),
            (WORKER, "dynamodb:Query", TABLE + "/index/ranked_by_time"),
        },
    ),
    "erasure": (
        erasure,
        {API, MODERATION, WORKER},
        {
            (WORKER, "dynamodb:DeleteItem", TABLE),
            (WORKER, "sqs:SendMessage", "ModerationJobsQueue"),
        },
    ),
    "seasons": (
        seasons,
        {API, MODERATION},
        {
            # The record of operator-started seasons, and a sanction's hidden standings.
            (MODERATION, "dynamodb:PutItem", TABLE),
            (MODERATION, "dynamodb:GetItem", TABLE),
            # A player's frozen standings, read from their partition.
            (API, "dynamodb:Query", TABLE),
            (API, "dynamodb:PutItem", TABLE),
        },
    ),
    "poison": (poison, {WORKER}, {(WORKER, "sqs:SendMessage", "ModerationJobsDeadLetterQueue")}),
    "events": (
        events,
        {API, PODIUMS, MODERATION, WORKER, REFRESH, PUBLISH},
        {
            (PUBLISH, "events:PutEvents", "EventBus"),
            # The lifted sanction's player: its record and its lift, then its decisions.
            (PUBLISH, "dynamodb:BatchGetItem", TABLE),
            (PUBLISH, "dynamodb:Query", TABLE),
            # The season begun, as its route answers it (the standings' first refresh).
            (PUBLISH, "dynamodb:GetItem", TABLE),
        },
    ),
}
