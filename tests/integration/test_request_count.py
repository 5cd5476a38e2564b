"""DynamoDB requests per use case, counted at the botocore client (docs/table-layout.md,
"Reads on the common path"): every request the adapter sends passes its before-call hook.

The common path is a game between two players who both have a state already: gammon42
(ladder backgammon, 1.3.1) reads the game, states and links in one BatchGetItem, counts each
player's window with one Query, and writes with one TransactWriteItems; sedma and classic need
no window, so two requests.
"""

from collections.abc import Callable

import pytest
from support.dynamodb import RequestCounter
from support.games import DAY, HOUR, MINUTE, NOW, game, podium

from ratings.service.ports import PlayerEvent, StoredGame
from ratings.service.usecases import RatingService
from ratings.storage.dynamodb import DynamoStorage

COMMON_PATH = {
    "backgammon": ["BatchGetItem", "Query", "Query", "TransactWriteItems"],
    "sedma": ["BatchGetItem", "TransactWriteItems"],
    "classic": ["BatchGetItem", "TransactWriteItems"],
}
BUDGET = {"backgammon": 4, "sedma": 2, "classic": 2}


def warm_up(service: RatingService, ladder: str, *players: str) -> None:
    """Give each player a state: one game each against a sparring partner."""
    for index, player_id in enumerate(players):
        body = game(f"warm-{player_id}", player_id, f"spar-{index}", played_at=NOW - 3 * HOUR)
        assert service.submit_game(ladder, body).created


@pytest.mark.parametrize("ladder", list(COMMON_PATH))
def test_rating_a_game_between_known_players(
    service: RatingService, count_requests: Callable[..., RequestCounter], ladder: str
) -> None:
    request_counter = count_requests(capacity=True)
    warm_up(service, ladder, "alice", "bob")
    for number in range(3):
        request_counter.reset()

        submitted = service.submit_game(
            ladder, game(f"g-{number}", "alice", "bob", played_at=NOW - HOUR + number * MINUTE)
        )

        assert submitted.created
        assert request_counter.operations == COMMON_PATH[ladder]
        assert len(request_counter.operations) <= BUDGET[ladder]
        # Every request answered, each with what moto reports as its consumed capacity.
        assert [name for name, _ in request_counter.capacity] == COMMON_PATH[ladder]
        reads = [units for name, units in request_counter.capacity if name != "TransactWriteItems"]
        assert all(units for units in reads)


@pytest.mark.parametrize("ladder", list(COMMON_PATH))
def test_a_duplicate_costs_one_request(
    service: RatingService, request_counter: RequestCounter, ladder: str
) -> None:
    warm_up(service, ladder, "alice", "bob")
    body = game("g-1", "alice", "bob", played_at=NOW - HOUR)
    first = service.submit_game(ladder, body)
    request_counter.reset()

    again = service.submit_game(ladder, body)

    assert not again.created
    assert again.result == first.result
    assert request_counter.operations == ["BatchGetItem"]


def test_a_full_week_is_still_one_query_per_player(
    dynamo_storage: DynamoStorage, service: RatingService, request_counter: RequestCounter
) -> None:
    """Beyond 50 recent games DynamoDB stops counting at the Limit: still one Query."""
    warm_up(service, "backgammon", "alice", "bob")
    events = [
        PlayerEvent(
            "backgammon",
            "alice",
            at,
            "game",
            f"old-{index}",
            True,
            {"type": "game"},
            at + 30 * DAY,
        )
        for index, at in enumerate(NOW - 2 * HOUR - index * MINUTE for index in range(80))
    ]
    for start in range(0, len(events), 40):
        record = StoredGame("backgammon", f"seed-{start}", "seed", {}, NOW + 30 * DAY)
        dynamo_storage.commit_game(record, [], events[start : start + 40])
    request_counter.reset()

    submitted = service.submit_game("backgammon", game("g-1", "alice", "bob"))

    explain = submitted.result["players"][0]["explain"]
    assert (explain["recent_ranked_games"], explain["k"]) == (50, 16)
    assert request_counter.operations == COMMON_PATH["backgammon"]


@pytest.mark.parametrize(
    ("known", "expected"),
    [
        ((), ["BatchGetItem", "TransactWriteItems"]),  # never stored: nothing to count
        (("alice",), ["BatchGetItem", "Query", "TransactWriteItems"]),
    ],
    ids=["both-new", "one-new"],
)
def test_new_players_need_no_window_query(
    service: RatingService,
    request_counter: RequestCounter,
    known: tuple[str, ...],
    expected: list[str],
) -> None:
    warm_up(service, "backgammon", *known)
    request_counter.reset()

    service.submit_game("backgammon", game("g-1", "alice", "bob"))

    assert request_counter.operations == expected


def test_an_unranked_game_needs_no_window_query(
    service: RatingService, request_counter: RequestCounter
) -> None:
    warm_up(service, "backgammon", "alice", "bob")
    request_counter.reset()

    result = service.submit_game("backgammon", game("g-1", "alice", "bob", mode="boosted"))

    assert result.result["unranked_reason"] == "mode"
    assert request_counter.operations == ["BatchGetItem", "TransactWriteItems"]


def test_a_linked_anonymous_id_costs_one_more_batch_get(
    service: RatingService, request_counter: RequestCounter
) -> None:
    warm_up(service, "backgammon", "dev-1", "acct-1", "bob")  # the account keeps its state
    service.link_identity({"anonymous_id": "dev-1", "account_id": "acct-1"})
    request_counter.reset()

    service.submit_game("backgammon", game("g-1", "dev-1", "bob"))

    assert request_counter.operations == [
        "BatchGetItem",
        "BatchGetItem",  # the account's state (the first read only knew the anonymous id)
        "Query",
        "Query",
        "TransactWriteItems",
    ]


def test_an_account_that_took_an_anonymous_state_counts_both_windows(
    service: RatingService, request_counter: RequestCounter
) -> None:
    """Not in docs/table-layout.md: the absorbed id's window costs one more Query per game of
    the account (while the account's own count is below 50)."""
    warm_up(service, "backgammon", "dev-1", "bob")
    service.link_identity({"anonymous_id": "dev-1", "account_id": "acct-1"})  # takeover
    request_counter.reset()

    service.submit_game("backgammon", game("g-1", "acct-1", "bob"))

    assert request_counter.operations == [
        "BatchGetItem",
        "Query",  # the account's own window
        "Query",  # the absorbed anonymous id's window
        "Query",  # bob's
        "TransactWriteItems",
    ]


def test_requests_of_the_other_use_cases(
    service: RatingService, request_counter: RequestCounter, dynamo_storage: DynamoStorage
) -> None:
    warm_up(service, "backgammon", "alice", "bob")
    costs: dict[str, list[str]] = {}

    def cost(name: str, action: Callable[[], object]) -> None:
        request_counter.reset()
        action()
        costs[name] = list(request_counter.operations)

    message = podium("t-1", "alice", "bob", finished_at=NOW - HOUR)
    cost("podium", lambda: service.award_podium(message))
    cost("podium again", lambda: service.award_podium(message))
    cost("link", lambda: service.link_identity({"anonymous_id": "dev-9", "account_id": "a-9"}))
    cost("player", lambda: service.get_player("backgammon", "alice"))
    cost("history", lambda: service.get_history("backgammon", "alice"))
    cost("leaderboard", lambda: service.get_leaderboard("backgammon"))
    cost("game", lambda: service.get_game("backgammon", "warm-alice"))
    shards = ["Query"] * dynamo_storage.shards

    assert costs == {
        "podium": ["BatchGetItem", "TransactWriteItems"],
        "podium again": ["BatchGetItem"],
        "link": ["BatchGetItem", "TransactWriteItems"],
        # The state and the window, then the standing: per shard one count of the players
        # ahead, and the histogram.
        "player": ["BatchGetItem", "Query", *shards, "GetItem"],
        "history": ["GetItem", "Query"],
        # A query a shard, then the listed players' states (the index lags behind them).
        "leaderboard": [*shards, "BatchGetItem"],
        "game": ["GetItem"],
    }
