"""DynamoDB requests per use case, counted at the botocore client (docs/table-layout.md,
"Reads on the common path"): every request the adapter sends passes its before-call hook.

The common path is a game between two players who both have a state already: every ruleset
reads the game, states and links in one BatchGetItem and writes with one TransactWriteItems.
gammon42 (ladder backgammon, 1.3.1) counts each player's window from the played_at times their
state keeps (`Player.recent`: the 62 newest); only a game whose window starts before them and
holds fewer than 50 of them (it arrives after more than 12 newer games of a player with 50 in
the week, or after 62), or a state stored before the times were kept, costs that player one
Query of the history.

Every count holds on both engines, except where DynamoDB cannot know what moto knows: it
returns a LastEvaluatedKey whenever a Query's Limit is used up, even by the last entry, so a
read that must go on past such a page pays one more Query there (and the tests say so).
"""

from collections.abc import Callable, Sequence
from datetime import datetime

import pytest
from support.dynamodb import RequestCounter
from support.engines import Engine
from support.games import DAY, HOUR, MINUTE, NOW, game, podium

from ratings.service.facade import RatingService
from ratings.service.game_result import Submitted
from ratings.service.player import Player
from ratings.service.stored import PlayerEvent, StoredGame
from ratings.storage.dynamodb import DynamoStorage, leaderboard_shard

COMMON_PATH = {
    "backgammon": ["BatchGetItem", "TransactWriteItems"],
    "sedma": ["BatchGetItem", "TransactWriteItems"],
    "classic": ["BatchGetItem", "TransactWriteItems"],
}
BUDGET = {"backgammon": 2, "sedma": 2, "classic": 2}


def warm_up(service: RatingService, ladder: str, *players: str) -> None:
    """Give each player a state: one game each against a sparring partner."""
    for index, player_id in enumerate(players):
        body = game(f"warm-{player_id}", player_id, f"spar-{index}", played_at=NOW - 3 * HOUR)
        assert service.submit_game(ladder, body).created


def alice_plays(service: RatingService, times: Sequence[datetime]) -> None:
    """Store alice's games played at `times` on backgammon, the i-th (week-i) against opp-i."""
    for index, at in enumerate(times):
        body = game(f"week-{index}", "alice", f"opp-{index}", played_at=at)
        assert service.submit_game("backgammon", body).created


def alices_window(submitted: Submitted) -> tuple[int, int]:
    """The recent ranked games alice's K was read from, and that K, as the answer explains."""
    explain = submitted.result["players"][0]["explain"]
    return explain["recent_ranked_games"], explain["k"]


@pytest.mark.parametrize("ladder", list(COMMON_PATH))
def test_rating_a_game_between_known_players(
    service: RatingService,
    count_requests: Callable[..., RequestCounter],
    engine: Engine,
    ladder: str,
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
        # Every request answered, each with the capacity it consumed: reads on both engines,
        # the transaction's writes on DynamoDB Local only (moto reports none for it).
        assert [name for name, _ in request_counter.capacity] == COMMON_PATH[ladder]
        reported = {name: bool(units) for name, units in request_counter.capacity}
        expected = {name: engine.is_local or name != "TransactWriteItems" for name in reported}
        assert reported == expected


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


def test_a_full_week_is_counted_from_the_state(
    service: RatingService, request_counter: RequestCounter
) -> None:
    """60 games of alice in the last hours: her state keeps the 50 newest, enough for K."""
    warm_up(service, "backgammon", "bob")
    alice_plays(service, [NOW - 2 * HOUR + index * MINUTE for index in range(60)])
    request_counter.reset()

    submitted = service.submit_game("backgammon", game("g-1", "alice", "bob"))

    assert alices_window(submitted) == (50, 16)
    assert request_counter.operations == COMMON_PATH["backgammon"]


def test_a_game_a_few_places_out_of_order_is_counted_from_the_state(
    service: RatingService, request_counter: RequestCounter
) -> None:
    """A queue delivers out of order: alice's game arrives after 10 later ones of hers, in a
    week of 80. Her state keeps the 62 newest, 52 of them before this game: K 16, no Query."""
    warm_up(service, "backgammon", "bob")
    alice_plays(service, [NOW - 2 * HOUR + index * MINUTE for index in range(80)])
    request_counter.reset()

    late = game("late", "alice", "bob", played_at=NOW - 2 * HOUR + 69 * MINUTE + MINUTE // 2)
    submitted = service.submit_game("backgammon", late)

    assert alices_window(submitted) == (50, 16)
    assert request_counter.operations == COMMON_PATH["backgammon"]


def test_a_late_game_behind_62_newer_ones_costs_one_query(
    service: RatingService, request_counter: RequestCounter
) -> None:
    """The fallback: a game played 5 days ago arrives after 70 newer games of alice (the state
    keeps the 62 newest, all after its window's start). Its window is counted on the history,
    with alice's 4 games played 6 days ago; bob's from his state."""
    warm_up(service, "backgammon", "bob")
    old = [NOW - 6 * DAY + index * MINUTE for index in range(4)]
    new = [NOW - 2 * HOUR + index * MINUTE for index in range(70)]
    alice_plays(service, [*old, *new])
    request_counter.reset()

    late = game("late", "alice", "bob", played_at=NOW - 5 * DAY)
    submitted = service.submit_game("backgammon", late)

    assert alices_window(submitted) == (4, 32)
    assert request_counter.operations == ["BatchGetItem", "Query", "TransactWriteItems"]


def test_a_state_stored_before_the_times_were_kept_counts_on_the_history(
    dynamo_storage: DynamoStorage, service: RatingService, request_counter: RequestCounter
) -> None:
    """A state that keeps no times (stored before they were) has its window counted by one
    Query, as before; beyond 50 recent games DynamoDB stops counting at the Limit."""
    warm_up(service, "backgammon", "alice", "bob")
    alice = dynamo_storage.unit_of_work().read_states("backgammon", ["alice"])["alice"]
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
    # The events stored with a state that keeps no times, as before this change.
    legacy = alice._replace(version=alice.version + 1, ranked_games=81, recent=None)
    for start in range(0, len(events), 40):
        record = StoredGame("backgammon", f"seed-{start}", "seed", {}, NOW + 30 * DAY)
        written = [legacy] if start == 0 else []
        dynamo_storage.unit_of_work().commit_game(record, written, events[start : start + 40])
    request_counter.reset()

    submitted = service.submit_game("backgammon", game("g-1", "alice", "bob"))

    assert alices_window(submitted) == (50, 16)
    assert request_counter.operations == ["BatchGetItem", "Query", "TransactWriteItems"]
    # From then on the state keeps times, complete only from a floor past this game: the
    # next game's window still starts before it, so it still reads the history.
    request_counter.reset()
    service.submit_game("backgammon", game("g-2", "alice", "bob"))
    assert request_counter.operations == ["BatchGetItem", "Query", "TransactWriteItems"]


@pytest.mark.parametrize(
    ("known", "expected"),
    [
        ((), ["BatchGetItem", "TransactWriteItems"]),  # never stored: nothing to count
        (("alice",), ["BatchGetItem", "TransactWriteItems"]),
    ],
    ids=["both-new", "one-new"],
)
def test_new_and_known_players_need_no_window_query(
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
        "TransactWriteItems",
    ]


def test_an_account_that_took_an_anonymous_state_counts_both_windows(
    service: RatingService, request_counter: RequestCounter
) -> None:
    """The account took over the anonymous id's kept times with its state: both ids' games
    count without a Query."""
    warm_up(service, "backgammon", "dev-1", "bob")
    service.link_identity({"anonymous_id": "dev-1", "account_id": "acct-1"})  # takeover
    request_counter.reset()

    service.submit_game("backgammon", game("g-1", "acct-1", "bob"))

    assert request_counter.operations == ["BatchGetItem", "TransactWriteItems"]


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
    shards = ["Query"] * dynamo_storage.table.shards

    assert costs == {
        "podium": ["BatchGetItem", "TransactWriteItems"],
        "podium again": ["BatchGetItem"],
        "link": ["BatchGetItem", "TransactWriteItems"],
        # The state (the window from its kept times), then the standing: per shard one count
        # of the players rated higher, per shard one of those tied with a smaller id, and
        # the histogram.
        "player": ["BatchGetItem", *shards, *shards, "GetItem"],
        "history": ["GetItem", "Query"],
        # A query a shard, then the listed players' states (the index lags behind them).
        "leaderboard": [*shards, "BatchGetItem"],
        "game": ["GetItem"],
    }


# Where a Query's Limit is used up exactly (DynamoDB returns a LastEvaluatedKey, moto not) --


def seed_board(storage: DynamoStorage, players: list[str], rating: int) -> None:
    writes = [Player("backgammon", player_id, rating, 1, version=1) for player_id in players]
    record = StoredGame("backgammon", f"seed-{players[0]}", "seed", {}, NOW + 30 * DAY)
    storage.unit_of_work().commit_game(record, writes, [])


def one_shard_players(storage: DynamoStorage, count: int, prefix: str) -> tuple[int, list[str]]:
    """`count` player ids that share a leaderboard shard, and that shard's number."""
    ids = (f"{prefix}{index:03d}" for index in range(10_000))
    shards: dict[str, list[str]] = {}
    for player_id in ids:
        shard = leaderboard_shard("backgammon", player_id, storage.table.shards)
        same = shards.setdefault(shard, [])
        same.append(player_id)
        if len(same) == count:
            return int(shard.rsplit("#", 1)[1]), same
    raise AssertionError("no shard got enough players")


def test_the_last_history_page_costs_one_query_on_every_engine(
    dynamo_storage: DynamoStorage, service: RatingService, request_counter: RequestCounter
) -> None:
    """The page asks for one event more than it returns: with the Limit alone, three events
    for a page of two (one past the retention, which the page skips) made DynamoDB answer a
    LastEvaluatedKey, and the service read an empty page after it."""
    ages = [HOUR, 2 * HOUR, 31 * DAY]  # the oldest is past the 30 days a history shows
    events = [
        PlayerEvent(
            "backgammon",
            "alice",
            NOW - age,
            "game",
            f"old-{index}",
            True,
            {"type": "game", "game_id": f"old-{index}"},
            NOW + 30 * DAY,  # kept by the store still (TTL deletes late)
        )
        for index, age in enumerate(ages)
    ]
    dynamo_storage.unit_of_work().commit_game(
        StoredGame("backgammon", "seed", "seed", {}, NOW + DAY), [], events
    )
    request_counter.reset()

    page = service.get_history("backgammon", "alice", limit=2)

    assert [event["game_id"] for event in page["events"]] == ["old-0", "old-1"]
    assert page["next_cursor"] is None
    assert request_counter.operations == ["GetItem", "Query"]


def test_a_shard_that_ends_on_a_tie_at_the_limit_costs_dynamodb_one_more_query(
    dynamo_storage: DynamoStorage, request_counter: RequestCounter, engine: Engine
) -> None:
    """A page of 2 reads Limit 3 a shard, to see past the last row's rating; a shard of
    exactly 3 tied players uses the Limit up. The tie could go on, and DynamoDB's
    LastEvaluatedKey cannot tell that it does not: one more Query, which moto saves."""
    _shard, players = one_shard_players(dynamo_storage, 3, "tie-")
    seed_board(dynamo_storage, players, 1500)
    request_counter.reset()

    rows = dynamo_storage.leaderboard.leaderboard("backgammon", 2, None)

    assert [row.player_id for row in rows] == sorted(players)[:2]
    extra = 1 if engine.is_local else 0
    # Then the listed players' states: the index may lag behind them.
    queries = ["Query"] * (dynamo_storage.table.shards + extra)
    assert request_counter.operations == [*queries, "BatchGetItem"]


def test_a_count_past_its_bound_stops_at_the_last_evaluated_key(
    dynamo_storage: DynamoStorage, request_counter: RequestCounter
) -> None:
    """Limit 1 allows 2 * 1 + 2 = 4 entries read; the Query asks for 5, one past the bound.
    Five tied players after the position use it up (DynamoDB then answers a
    LastEvaluatedKey), and the count gives up there instead of following it."""
    shard, players = one_shard_players(dynamo_storage, 5, "b-")
    seed_board(dynamo_storage, players, 1500)
    request_counter.reset()

    assert dynamo_storage.ranks.count_ahead("backgammon", 1500, "a", 1) is None
    # The higher ratings of every shard, then the ties shard by shard up to the crowded one.
    assert request_counter.operations == ["Query"] * (dynamo_storage.table.shards + shard + 1)
