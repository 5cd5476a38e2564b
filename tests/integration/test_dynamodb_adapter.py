"""The DynamoDB adapter (DynamoStorage) against moto's DynamoDB, alone and under the service.

What is checked: the recent-games window (a key range on the sparse LSI), duplicates and
version conflicts (conditions of one TransactWriteItems), identity links, podium awards, the
sharded leaderboard with ties, history pages, and a contract test that runs one scenario over
the in-memory fake and over DynamoDB and compares everything they answer.
"""

import functools
import itertools
import random
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from typing import Any

import pytest
from pynamodb.exceptions import PynamoDBException
from support.dynamodb import InterleavingDynamoStorage, raw_items
from support.faults import DynamoFaults
from support.games import (
    DAY,
    HOUR,
    MINUTE,
    MS,
    NOW,
    WEEK,
    FixedClock,
    game,
    minutes_before,
    play_series,
    podium,
    side,
)
from support.seeding import seed_states
from support.services import answers_alike, rating_service
from support.window import HERO, rate_hero

from ratings.rules import Gammon42, InvalidInput
from ratings.service.errors import (
    AlreadyLinked,
    GameConflict,
    NotFound,
    RetryLater,
    ServiceError,
    TournamentConflict,
)
from ratings.service.facade import RatingService
from ratings.service.game_result import Submitted
from ratings.service.player import Player
from ratings.service.ports import Storage
from ratings.service.stored import PlayerEvent, StoredGame
from ratings.service.unit_of_work import RetryPolicy
from ratings.storage.dynamodb import DynamoStorage, game_key, leaderboard_shard, player_key
from ratings.storage.memory import InMemoryStorage

LADDER = "backgammon"
RETENTION = timedelta(days=30)

_refs = itertools.count()


# Seeding through the port ------------------------------------------------------------------


def event(
    player_id: str,
    at: datetime,
    *,
    ladder: str = LADDER,
    ranked: bool = True,
    event_type: str = "game",
    expires_at: datetime | None = None,
) -> PlayerEvent:
    ref = f"seed-{next(_refs)}"
    return PlayerEvent(
        ladder=ladder,
        player_id=player_id,
        at=at,
        event_type=event_type,
        ref_id=ref,
        ranked=ranked,
        body={"type": event_type, "ref": ref},
        expires_at=expires_at or at + RETENTION,
    )


def seed(storage: Storage, events: Sequence[PlayerEvent]) -> None:
    """Store events through the port's commit (in chunks: a transaction holds 100 items)."""
    for start in range(0, len(events), 40):
        record = StoredGame(LADDER, f"seed-batch-{next(_refs)}", "seed", {}, NOW + RETENTION)
        storage.unit_of_work().commit_game(record, [], events[start : start + 40])


# The window at the port: count_ranked_games -------------------------------------------------


def test_count_window_is_half_open_to_the_millisecond(any_storage: Storage) -> None:
    t = NOW - HOUR
    seed(
        any_storage,
        [
            event(HERO, t - WEEK),  # the window's first millisecond: counted
            event(HERO, t - WEEK - MS),  # a millisecond before it: not
            event(HERO, t - MS),  # the last millisecond before t: counted
            event(HERO, t),  # at t (the game being rated is never counted): not
            event(HERO, t + MS),  # after t: not
            event(HERO, t + 30 * MINUTE),
            event(HERO, t - DAY, ranked=False),  # unranked game
            event(HERO, t - 2 * DAY, event_type="podium_bonus", ranked=False),
            event(HERO, t - DAY, ladder="sedma"),  # another ladder
            event("someone-else", t - DAY),  # another player
        ],
    )

    assert any_storage.unit_of_work().count_ranked_games(LADDER, HERO, t - WEEK, t, 50) == 2
    # Both ends moved out by a millisecond take in both edge games.
    assert (
        any_storage.unit_of_work().count_ranked_games(LADDER, HERO, t - WEEK - MS, t + MS, 50) == 4
    )
    assert any_storage.unit_of_work().count_ranked_games(LADDER, HERO, t - WEEK, t, 1) == 1
    assert any_storage.unit_of_work().count_ranked_games("sedma", HERO, t - WEEK, t, 50) == 1
    assert (
        any_storage.unit_of_work().count_ranked_games(LADDER, "someone-else", t - WEEK, t, 50) == 1
    )
    assert any_storage.unit_of_work().count_ranked_games(LADDER, "never-seen", t - WEEK, t, 50) == 0


def test_count_stops_at_the_limit(any_storage: Storage) -> None:
    t = NOW
    seed(any_storage, [event(HERO, t - HOUR - index * MINUTE) for index in range(63)])

    assert any_storage.unit_of_work().count_ranked_games(LADDER, HERO, t - WEEK, t, 50) == 50
    assert any_storage.unit_of_work().count_ranked_games(LADDER, HERO, t - WEEK, t, 1000) == 63
    assert any_storage.unit_of_work().count_ranked_games(LADDER, HERO, t - WEEK, t, 63) == 63


def test_count_matches_a_brute_force_count_on_random_windows(any_storage: Storage) -> None:
    rng = random.Random(4242)
    untils = [NOW - timedelta(milliseconds=rng.randrange(10 * 86_400_000)) for _ in range(12)]
    times: list[datetime] = []
    for until in untils:  # every window's edges, exactly and a millisecond off
        times += [until, until - MS, until - WEEK, until - WEEK - MS, until - WEEK + MS]
    times += [NOW - timedelta(milliseconds=rng.randrange(18 * 86_400_000)) for _ in range(40)]
    seed(any_storage, [event(HERO, at) for at in times])

    for until in untils:
        for limit in (1, 7, 50, 1000):
            expected = min(sum(1 for at in times if until - WEEK <= at < until), limit)
            counted = any_storage.unit_of_work().count_ranked_games(
                LADDER, HERO, until - WEEK, until, limit
            )
            assert counted == expected, (until, limit)


def test_expired_events_still_stored_are_outside_the_window(
    dynamo_storage: DynamoStorage,
) -> None:
    t = NOW
    old = [t - 31 * DAY - index * HOUR for index in range(6)]
    seed(dynamo_storage, [event(HERO, at, expires_at=at + RETENTION) for at in old])

    # moto, like DynamoDB before its TTL sweep, still holds them: expired but present.
    stored = raw_items(dynamo_storage, player_key(LADDER, HERO))
    assert len(stored) == 6
    assert all(int(item["expires_at"]["N"]) < t.timestamp() for item in stored)

    assert dynamo_storage.unit_of_work().count_ranked_games(LADDER, HERO, t - WEEK, t, 50) == 0
    # Still counted by a window that covers their played_at: only that keeps them out.
    assert dynamo_storage.unit_of_work().count_ranked_games(LADDER, HERO, t - 40 * DAY, t, 50) == 6


# The window's times kept on the state ---------------------------------------------------------


def test_kept_times_read_back_as_written(any_storage: Storage) -> None:
    """`Player.recent` through the port: the same value back on every storage (and none kept
    stays none kept)."""
    kept = Player(LADDER, "kept", 1500, ranked_games=70, version=1)
    for minute in range(70):
        kept = kept.with_recent_game(NOW - minute * MINUTE, NOW, Gammon42())
    none = Player(LADDER, "none", 1480, ranked_games=3, version=1, recent=None)
    fresh = Player(LADDER, "fresh", 1500, version=1)
    record = StoredGame(LADDER, "states", "seed", {}, NOW + DAY)
    any_storage.unit_of_work().commit_game(record, [kept, none, fresh], [])

    read = any_storage.unit_of_work().read_states(LADDER, ["kept", "none", "fresh"])

    assert read == {"kept": kept, "none": none, "fresh": fresh}
    assert kept.recent is not None
    assert len(kept.recent.times) == 62


def window_scenario(storage: Storage) -> dict[str, Any]:
    """Games in order, a few places out of order and days late; a state that keeps no times
    (as stored before they were kept); a takeover by an account: each result and K."""
    clock = FixedClock(NOW)
    service = rating_service(storage, clock)
    out: dict[str, Any] = {}
    at = [NOW - 3 * HOUR + index * MINUTE for index in range(70)]
    for index, played_at in enumerate(at):
        service.submit_game(LADDER, game(f"w-{index}", HERO, f"o-{index}", played_at=played_at))
    for name, played_at in [
        ("in-order", NOW - MINUTE),
        ("out-of-order", at[65] + MS),
        ("late", NOW - 5 * DAY),
        ("late-some", at[20] - MS),
    ]:
        out[name] = service.submit_game(LADDER, game(name, HERO, "bob", played_at=played_at)).result
    (hero,) = storage.unit_of_work().read_states(LADDER, [HERO]).values()
    legacy = hero._replace(version=hero.version + 1, recent=None)
    storage.unit_of_work().commit_game(
        StoredGame(LADDER, "legacy", "seed", {}, NOW + DAY), [legacy], []
    )
    out["legacy"] = service.submit_game(LADDER, game("legacy-1", HERO, "bob")).result
    service.submit_game(LADDER, game("dev-game", "dev-7", "bob", played_at=NOW - HOUR))
    out["link"] = service.link_identity({"anonymous_id": "dev-7", "account_id": "acct-7"})
    out["account"] = service.submit_game(LADDER, game("acct", "acct-7", HERO)).result
    out["player"] = service.get_player(LADDER, HERO)
    return out


def test_the_window_from_the_state_answers_alike_on_every_storage(any_storage: Storage) -> None:
    answers = answers_alike(window_scenario, any_storage)

    def hero(name: str) -> tuple[int, int]:
        explain = side(answers[name], HERO)["explain"]
        return explain["recent_ranked_games"], explain["k"]

    assert hero("in-order") == (50, 16)
    assert hero("out-of-order") == (50, 16)
    assert hero("late") == (0, 32)
    assert hero("late-some") == (21, 32)  # the 20 before it, and the late one
    assert hero("legacy") == (50, 16)
    assert side(answers["account"], "acct-7")["explain"]["recent_ranked_games"] == 1


# The window through the service -------------------------------------------------------------


@pytest.mark.parametrize(
    ("games", "k", "delta"),
    [
        (49, 32, 16),  # 49 games (the hero lost the unpaired last): 1484 beats 1500 with K 32
        (50, 16, 8),  # 50 games: back at 1500; K 16 halves the 16 points of an even game
    ],
)
def test_k_switches_to_16_at_50_recent_ranked_games(
    service: RatingService, games: int, k: int, delta: int
) -> None:
    t = NOW - HOUR
    play_series(service, HERO, minutes_before(t, games), prefix="week")

    hero = rate_hero(service, t)

    assert hero["explain"]["recent_ranked_games"] == games
    assert hero["explain"]["k"] == k
    assert hero["delta"] == delta
    assert hero["rating_after"] == hero["rating_before"] + delta
    assert service.get_player(LADDER, HERO)["rating"] == hero["rating_after"]


@pytest.mark.parametrize(
    ("oldest", "recent", "k"),
    [
        (WEEK, 50, 16),  # a game exactly 7 days before t is inside the window
        (WEEK + MS, 49, 32),  # one millisecond earlier it is not
    ],
)
def test_window_start_through_the_service(
    service: RatingService, oldest: timedelta, recent: int, k: int
) -> None:
    t = NOW - HOUR
    play_series(service, HERO, [t - oldest, *minutes_before(t, 49)], prefix="week")

    hero = rate_hero(service, t)

    assert hero["explain"]["recent_ranked_games"] == recent
    assert hero["explain"]["k"] == k


def test_games_at_or_after_t_and_unranked_games_are_not_counted(service: RatingService) -> None:
    t = NOW - HOUR
    play_series(service, HERO, minutes_before(t, 10), prefix="week")
    # Played at t or later, but arriving before the game at t.
    play_series(service, HERO, [t, t + MS, t + 30 * MINUTE], prefix="later")
    unranked = {
        "mode": game("u-boosted", HERO, "u-1", played_at=t - 2 * MINUTE, mode="boosted"),
        "bot": {
            **game("u-bot", HERO, "u-2", played_at=t - 3 * MINUTE),
            "players": [{"id": HERO}, {"id": "u-2", "bot": True}],
        },
        "shared_network": {
            **game("u-net", HERO, "u-3", played_at=t - 4 * MINUTE),
            "players": [{"id": HERO, "network": "wifi-1"}, {"id": "u-3", "network": "wifi-1"}],
        },
    }
    tournament = game("u-tournament", HERO, "u-4", played_at=t - 5 * MINUTE, mode="tournament")
    for reason, body in [*unranked.items(), ("mode", tournament)]:
        result = service.submit_game(LADDER, body).result
        assert result["ranked"] is False
        assert result["unranked_reason"] == reason
        assert side(result, HERO)["delta"] == 0

    hero = rate_hero(service, t)

    assert hero["explain"]["recent_ranked_games"] == 10


def test_window_follows_played_at_not_arrival(service: RatingService) -> None:
    # Results arrive newest first: each window sees only games played before it.
    assert rate_hero(service, NOW - HOUR, "g-1")["explain"]["recent_ranked_games"] == 0
    assert rate_hero(service, NOW - 2 * HOUR, "g-2")["explain"]["recent_ranked_games"] == 0
    assert rate_hero(service, NOW - 8 * DAY, "g-3")["explain"]["recent_ranked_games"] == 0
    assert rate_hero(service, NOW - 90 * MINUTE, "g-4")["explain"]["recent_ranked_games"] == 1
    assert rate_hero(service, NOW, "g-5")["explain"]["recent_ranked_games"] == 3
    assert service.get_player(LADDER, HERO)["recent_ranked_games"] == 4


def test_expired_records_do_not_change_counts(
    dynamo_storage: DynamoStorage, service: RatingService, clock: FixedClock
) -> None:
    play_series(service, HERO, minutes_before(NOW, 5), prefix="old")  # L W L W L: 1484
    clock.advance(31 * DAY)

    # Events and game records are past their expiry but still in the table.
    now = clock.now.timestamp()
    events = [
        item
        for item in raw_items(dynamo_storage, player_key(LADDER, HERO))
        if item["sk"]["S"].startswith("E#")
    ]
    assert len(events) == 5
    assert all(int(item["expires_at"]["N"]) < now for item in events)
    (old_game,) = raw_items(dynamo_storage, game_key(LADDER, "old-0"))
    assert int(old_game["expires_at"]["N"]) < now

    hero = rate_hero(service, None)  # played now

    assert hero["explain"]["recent_ranked_games"] == 0
    assert hero["explain"]["k"] == 32
    assert hero["rating_before"] == 1484  # the state itself never expires
    player = service.get_player(LADDER, HERO)
    assert player["recent_ranked_games"] == 1  # the game just played, none of the old ones
    assert player["ranked_games"] == 6
    assert [e["game_id"] for e in service.get_history(LADDER, HERO)["events"]] == ["target"]
    with pytest.raises(NotFound):
        service.get_game(LADDER, "old-0")


# Duplicates -----------------------------------------------------------------------------------

DUPLICATE_BODIES = {
    "backgammon": game("dup-1", "alice", "bob", cube=4, ending="resign", points=2),
    "sedma": {
        **game("dup-1", "alice", "bob"),
        "players": [
            {"id": "alice", "stats": {"rounds_won_16": 1, "bad_moves": 2}},
            {"id": "bob", "stats": {"rounds_won_24": 1}},
        ],
    },
    "classic": game("dup-1", "alice", "bob", winner=None),
}


@pytest.mark.parametrize("ladder", list(DUPLICATE_BODIES))
def test_identical_duplicate_returns_the_stored_result(
    service: RatingService, clock: FixedClock, ladder: str
) -> None:
    body = DUPLICATE_BODIES[ladder]
    first = service.submit_game(ladder, body)
    clock.advance(10 * MINUTE)

    again = service.submit_game(ladder, body)

    assert first.created
    assert not again.created
    assert again.result == first.result
    assert service.get_game(ladder, "dup-1") == first.result
    for index, player_id in enumerate(("alice", "bob")):
        player = service.get_player(ladder, player_id)
        assert player["rating"] == first.result["players"][index]["rating_after"]
        assert player["ranked_games"] == 1
        assert len(service.get_history(ladder, player_id)["events"]) == 1


@pytest.mark.parametrize(
    "changed",
    [
        {"winner": "bob"},
        {"cube": 2},
        {"played_at": "2026-11-29T11:00:00.001Z"},
        {"mode": "boosted"},
        {"points": 3},
        {"players": [{"id": "alice"}, {"id": "carol"}]},
        {"players": [{"id": "alice", "network": "x"}, {"id": "bob"}]},
    ],
)
def test_same_game_id_with_other_content_conflicts(
    service: RatingService, changed: dict[str, Any]
) -> None:
    body = game("g-1", "alice", "bob", played_at=NOW - HOUR, points=1)
    first = service.submit_game(LADDER, body)

    with pytest.raises(GameConflict):
        service.submit_game(LADDER, {**body, **changed})

    assert service.get_game(LADDER, "g-1") == first.result
    assert service.get_player(LADDER, "alice")["ranked_games"] == 1
    assert service.get_player(LADDER, "carol")["ranked_games"] == 0


def test_retry_of_a_stored_game_is_answered_past_14_days(
    service: RatingService, clock: FixedClock
) -> None:
    body = game("g-1", "alice", "bob", played_at=NOW - HOUR)
    first = service.submit_game(LADDER, body)
    clock.advance(20 * DAY)  # played_at is now too old for a new game, the record is kept

    again = service.submit_game(LADDER, body)

    assert not again.created
    assert again.result == first.result
    with pytest.raises(GameConflict):
        service.submit_game(LADDER, {**body, "winner": "bob"})
    with pytest.raises(InvalidInput):
        service.submit_game(LADDER, {**body, "game_id": "g-2"})


def test_resubmission_after_retention_does_not_depend_on_the_ttl_sweep(
    dynamo_storage: DynamoStorage,
) -> None:
    body = game("g-old", "alice", "bob", played_at=NOW - HOUR)

    def outcome(storage: Storage, sweep: Callable[[datetime], None] | None) -> str:
        clock = FixedClock()
        service = rating_service(storage, clock)
        service.submit_game(LADDER, body)
        clock.advance(31 * DAY)
        if sweep is not None:
            sweep(clock.now)
        with pytest.raises(NotFound):
            service.get_game(LADDER, "g-old")
        try:
            return "duplicate" if not service.submit_game(LADDER, body).created else "created"
        except InvalidInput as error:
            return f"invalid {error.field}"

    swept = InMemoryStorage()
    # moto, like DynamoDB before its TTL sweep, still holds the expired game record.
    assert outcome(dynamo_storage, None) == outcome(swept, swept.expire) == "invalid played_at"


def test_game_ids_are_per_ladder(service: RatingService) -> None:
    in_backgammon = service.submit_game(LADDER, game("shared-id", "alice", "bob"))
    in_classic = service.submit_game("classic", game("shared-id", "alice", "bob"))

    assert in_backgammon.created
    assert in_classic.created
    assert in_classic.result["ruleset"] == "classic"
    assert service.get_game(LADDER, "shared-id")["ruleset"] == "gammon42"


def racing_pair(
    dynamo_storage: DynamoStorage, table_name: str, clock: FixedClock
) -> tuple[InterleavingDynamoStorage, RatingService, RatingService]:
    """(racing storage, the service over it, another service over the same table).

    The other service's writes, run from the racing storage's hook, land between the first
    service's reads and its commit.
    """
    racing = InterleavingDynamoStorage(
        table_name,
        endpoint_url=dynamo_storage.table.endpoint_url,
        leaderboard_shards=dynamo_storage.table.shards,
    )
    return racing, rating_service(racing, clock), rating_service(dynamo_storage, clock)


def test_duplicate_stored_between_read_and_commit_returns_it(
    dynamo_storage: DynamoStorage, table_name: str, clock: FixedClock
) -> None:
    racing, racer, other = racing_pair(dynamo_storage, table_name, clock)
    body = game("g-twice", "alice", "bob", played_at=NOW - HOUR)
    theirs: list[Submitted] = []
    racing.before_commit = lambda: theirs.append(other.submit_game(LADDER, body))

    mine = racer.submit_game(LADDER, body)

    assert racing.interleaved == 1
    (their,) = theirs
    assert their.created
    assert not mine.created
    assert mine.result == their.result
    alice = other.get_player(LADDER, "alice")
    assert alice["rating"] == 1516
    assert alice["ranked_games"] == 1


def test_conflicting_game_stored_between_read_and_commit_conflicts(
    dynamo_storage: DynamoStorage, table_name: str, clock: FixedClock
) -> None:
    racing, racer, other = racing_pair(dynamo_storage, table_name, clock)
    body = game("g-twice", "alice", "bob", played_at=NOW - HOUR)

    def cut_in() -> None:
        other.submit_game(LADDER, {**body, "winner": "bob"})

    racing.before_commit = cut_in

    with pytest.raises(GameConflict):
        racer.submit_game(LADDER, body)

    assert other.get_game(LADDER, "g-twice")["winner"] == "bob"
    assert other.get_player(LADDER, "bob")["rating"] == 1516


# Version conflicts ---------------------------------------------------------------------------


@pytest.mark.parametrize("established", [False, True], ids=["new-players", "established"])
def test_version_conflict_between_read_and_commit_is_retried(
    dynamo_storage: DynamoStorage, table_name: str, clock: FixedClock, established: bool
) -> None:
    racing, racer, other = racing_pair(dynamo_storage, table_name, clock)
    if established:
        other.submit_game(LADDER, game("warm-1", "alice", "bob", played_at=NOW - 3 * HOUR))
        other.submit_game(LADDER, game("warm-2", "carol", "alice", played_at=NOW - 170 * MINUTE))
    alice_before = other.get_player(LADDER, "alice")
    bob_before = other.get_player(LADDER, "bob")
    theirs: list[Submitted] = []
    # Another game of alice is committed after this one's reads, before its commit.
    their_body = game("g-theirs", "alice", "carol", played_at=NOW - 2 * HOUR)
    racing.before_commit = lambda: theirs.append(other.submit_game(LADDER, their_body))

    mine = racer.submit_game(LADDER, game("g-mine", "bob", "alice", played_at=NOW - HOUR))

    (their,) = theirs
    assert racing.interleaved == 1
    assert racer.retries == 1
    assert other.retries == 0
    assert mine.created
    assert their.created
    alice_theirs, alice_mine = side(their.result, "alice"), side(mine.result, "alice")
    # The retry computed from the state the other game left, its window included.
    assert alice_mine["rating_before"] == alice_theirs["rating_after"]
    recent_before = alice_theirs["explain"]["recent_ranked_games"]
    assert alice_mine["explain"]["recent_ranked_games"] == recent_before + 1
    # Both games applied once.
    alice = other.get_player(LADDER, "alice")
    assert alice["rating"] == alice_before["rating"] + alice_theirs["delta"] + alice_mine["delta"]
    assert alice["ranked_games"] == alice_before["ranked_games"] + 2
    bob = other.get_player(LADDER, "bob")
    assert bob["rating"] == bob_before["rating"] + side(mine.result, "bob")["delta"]
    assert bob["ranked_games"] == bob_before["ranked_games"] + 1
    history = [e["game_id"] for e in other.get_history(LADDER, "alice")["events"]]
    assert history[:2] == ["g-mine", "g-theirs"]
    assert len(history) == len(set(history))
    assert other.get_game(LADDER, "g-mine") == mine.result
    assert other.get_game(LADDER, "g-theirs") == their.result


def test_conflicts_that_never_stop_end_in_retry_later(
    dynamo_storage: DynamoStorage, table_name: str, clock: FixedClock
) -> None:
    racing, racer, other = racing_pair(dynamo_storage, table_name, clock)
    numbers = itertools.count()
    racing.every_commit = True

    def cut_in() -> None:
        other.submit_game(LADDER, game(f"g-cut-in-{next(numbers)}", "alice", "carol"))

    racing.before_commit = cut_in

    with pytest.raises(RetryLater):
        racer.submit_game(LADDER, game("g-starved", "alice", "bob"))

    # Every attempt lost to the game that cut in (the count is what the time budget allowed).
    attempts = racer.retries
    assert 1 < attempts <= RetryPolicy().attempts
    assert racing.interleaved == attempts
    with pytest.raises(NotFound):
        other.get_game(LADDER, "g-starved")
    assert other.get_player(LADDER, "alice")["ranked_games"] == attempts
    assert other.get_player(LADDER, "bob")["ranked_games"] == 0


# Errors DynamoDB answers with -------------------------------------------------------------

#: The items of a ranked game's transaction, in the order the adapter sends them.
GAME_TRANSACTION = ("game", "state", "state", "event", "event")


@pytest.mark.parametrize(
    ("operation", "code", "reasons"),
    [
        ("TransactWriteItems", "ThrottlingException", None),
        ("TransactWriteItems", "ProvisionedThroughputExceededException", None),
        ("TransactWriteItems", "TransactionInProgressException", None),
        # Cancelled by a concurrent transaction on a state, or throttled inside it.
        (
            "TransactWriteItems",
            "TransactionCanceledException",
            ["None", "TransactionConflict", "None", "None", "None"],
        ),
        (
            "TransactWriteItems",
            "TransactionCanceledException",
            ["None", "None", "ThrottlingError", "None", "None"],
        ),
        ("BatchGetItem", "ProvisionedThroughputExceededException", None),
        ("Query", "ThrottlingException", None),
        ("Query", "InternalServerError", None),
    ],
)
def test_transient_errors_are_retried(
    dynamo_storage: DynamoStorage,
    service: RatingService,
    operation: str,
    code: str,
    reasons: list[str] | None,
) -> None:
    service.submit_game(LADDER, game("warm", "alice", "bob", played_at=NOW - 2 * HOUR))
    if operation == "Query":
        # Only a window the state cannot count is read with a Query: alice's state as stored
        # before states kept their games' times.
        alice = dynamo_storage.unit_of_work().read_states(LADDER, ["alice"])["alice"]
        legacy = alice._replace(version=alice.version + 1, recent=None)
        record = StoredGame(LADDER, "legacy", "seed", {}, NOW + 30 * DAY)
        dynamo_storage.unit_of_work().commit_game(record, [legacy], [])
    if reasons is not None:
        assert len(reasons) == len(GAME_TRANSACTION)
    faults = DynamoFaults(dynamo_storage.connection.client)
    faults.fail(operation, code, times=1, cancellation_reasons=reasons)

    submitted = service.submit_game(LADDER, game("g-1", "alice", "bob", played_at=NOW - HOUR))

    assert faults.injected == [operation]
    assert service.retries == 1
    assert submitted.created
    assert service.get_game(LADDER, "g-1") == submitted.result
    assert service.get_player(LADDER, "alice")["ranked_games"] == 2


def test_throttling_that_never_ends_is_retry_later(
    dynamo_storage: DynamoStorage, service: RatingService
) -> None:
    faults = DynamoFaults(dynamo_storage.connection.client)
    faults.fail("TransactWriteItems", "ThrottlingException", times=1000)
    # The attempts, not the time budget, end it (a loaded machine's clock would end it first).
    service.retrier.timer = lambda: 0.0

    with pytest.raises(RetryLater):
        service.submit_game(LADDER, game("g-1", "alice", "bob"))

    assert len(faults.injected) == RetryPolicy().attempts
    with pytest.raises(NotFound):
        service.get_game(LADDER, "g-1")


def test_errors_that_retrying_cannot_cure_are_not_retried(
    dynamo_storage: DynamoStorage, service: RatingService
) -> None:
    DynamoFaults(dynamo_storage.connection.client).fail(
        "TransactWriteItems", "ValidationException", times=1
    )

    with pytest.raises(PynamoDBException) as raised:
        service.submit_game(LADDER, game("g-1", "alice", "bob"))

    assert raised.value.cause_response_code == "ValidationException"
    assert service.retries == 0


# Podium awards ------------------------------------------------------------------------------


def test_podium_is_paid_once(service: RatingService) -> None:
    service.submit_game(LADDER, game("g-1", "alice", "bob", played_at=NOW - 2 * HOUR))
    message = podium("t-42", "alice", "bob", "carol")

    first = service.award_podium(message)
    again = service.award_podium(message)

    assert first.created
    assert [award["delta"] for award in first.result["awards"]] == [50, 25, 15]
    assert [award["rating_after"] for award in first.result["awards"]] == [1566, 1509, 1515]
    assert not again.created
    assert again.result == first.result
    assert service.get_tournament(LADDER, "t-42") == first.result
    with pytest.raises(TournamentConflict):
        service.award_podium(podium("t-42", "bob", "alice", "carol"))
    private = service.award_podium(podium("t-43", "alice", "bob", public=False))
    assert [award["delta"] for award in private.result["awards"]] == [0, 0]

    ratings = {pid: service.get_player(LADDER, pid) for pid in ("alice", "bob", "carol")}
    assert {pid: p["rating"] for pid, p in ratings.items()} == {
        "alice": 1566,
        "bob": 1509,
        "carol": 1515,
    }
    assert ratings["carol"]["ranked_games"] == 0  # a bonus is not a ranked game
    bonuses = [
        e["tournament_id"]
        for e in service.get_history(LADDER, "alice")["events"]
        if e["type"] == "podium_bonus"
    ]
    assert bonuses == ["t-42"]
    board = service.get_leaderboard(LADDER)["entries"]
    assert [(e["player_id"], e["rating"]) for e in board] == [("alice", 1566), ("bob", 1509)]


def test_podium_delivered_twice_at_once_is_paid_once(
    dynamo_storage: DynamoStorage, table_name: str, clock: FixedClock
) -> None:
    racing, racer, other = racing_pair(dynamo_storage, table_name, clock)
    message = podium("t-7", "alice", "bob")
    theirs: list[Submitted] = []
    racing.before_commit = lambda: theirs.append(other.award_podium(message))

    mine = racer.award_podium(message)

    (their,) = theirs
    assert their.created
    assert not mine.created
    assert mine.result == their.result
    assert other.get_player(LADDER, "alice")["rating"] == 1550
    assert other.get_player(LADDER, "bob")["rating"] == 1525


# Identity links ------------------------------------------------------------------------------

ANON = "dev-7f3a"
ACCOUNT = "acct-1"


def link(service: RatingService, anonymous_id: str, account_id: str) -> dict[str, Any]:
    return service.link_identity({"anonymous_id": anonymous_id, "account_id": account_id})


def without_standing(player: dict[str, Any]) -> dict[str, Any]:
    return {name: value for name, value in player.items() if name != "standing"}


def board_rank(service: RatingService, ladder: str, player_id: str) -> int:
    entries = service.get_leaderboard(ladder, limit=100)["entries"]
    rank: int = next(entry["rank"] for entry in entries if entry["player_id"] == player_id)
    return rank


def test_account_without_ranked_games_takes_the_anonymous_state(
    dynamo_storage: DynamoStorage, service: RatingService
) -> None:
    # backgammon: only the anonymous player has games; classic: both; sedma: neither.
    play_series(service, ANON, [NOW - 3 * HOUR, NOW - 2 * HOUR, NOW - HOUR], prefix="anon")
    service.submit_game("classic", game("c-1", ANON, "bob"))
    service.submit_game("classic", game("c-2", ACCOUNT, "bob"))
    anon_backgammon = service.get_player(LADDER, ANON)
    account_classic = service.get_player("classic", ACCOUNT)

    linked = link(service, ANON, ACCOUNT)

    assert linked == {
        "anonymous_id": ANON,
        "account_id": ACCOUNT,
        "ladders": [
            {"ladder": "backgammon", "kept": "anonymous"},
            {"ladder": "sedma", "kept": "account"},
            {"ladder": "classic", "kept": "account"},
            {"ladder": "sedma-pairs", "kept": "account"},
            {"ladder": "classic-ffa", "kept": "account"},
        ],
    }
    account = service.get_player(LADDER, ACCOUNT)
    assert account["rating"] == anon_backgammon["rating"]
    assert account["ranked_games"] == anon_backgammon["ranked_games"] == 3
    assert account["recent_ranked_games"] == 3  # the anonymous id's recent games moved along
    # Unchanged but for the standing: the anonymous id left the classic leaderboard.
    after_classic = service.get_player("classic", ACCOUNT)
    assert without_standing(after_classic) == without_standing(account_classic)
    assert after_classic["standing"]["rank"] == board_rank(service, "classic", ACCOUNT)
    # The anonymous state keeps its rating and games (it only leaves the leaderboard).
    anon_state = dynamo_storage.unit_of_work().read_states(LADDER, [ANON])[ANON]
    assert anon_state.rating == anon_backgammon["rating"]
    assert anon_state.ranked_games == 3
    # The account's next game counts the anonymous id's games in its window.
    mine = service.submit_game(LADDER, game("after", ACCOUNT, "bob"))
    assert side(mine.result, ACCOUNT)["explain"]["recent_ranked_games"] == 3
    assert side(mine.result, ACCOUNT)["rating_before"] == anon_backgammon["rating"]


def test_account_with_only_a_podium_bonus_takes_the_anonymous_state(
    service: RatingService,
) -> None:
    service.award_podium(podium("t-1", ACCOUNT))  # a state, but no ranked game
    service.submit_game(LADDER, game("g-1", ANON, "bob", played_at=NOW - HOUR))

    linked = link(service, ANON, ACCOUNT)

    assert linked["ladders"][0] == {"ladder": "backgammon", "kept": "anonymous"}
    account = service.get_player(LADDER, ACCOUNT)
    assert (account["rating"], account["ranked_games"]) == (1516, 1)


def test_account_with_ranked_games_keeps_its_own_state(service: RatingService) -> None:
    play_series(service, ANON, [NOW - 2 * HOUR, NOW - HOUR], prefix="anon")
    service.submit_game(LADDER, game("own", ACCOUNT, "bob", winner="bob", played_at=NOW - HOUR))
    account_before = service.get_player(LADDER, ACCOUNT)
    anon_before = service.get_player(LADDER, ANON)

    linked = link(service, ANON, ACCOUNT)

    assert linked["ladders"][0] == {"ladder": "backgammon", "kept": "account"}
    account_after = service.get_player(LADDER, ACCOUNT)
    assert without_standing(account_after) == without_standing(account_before)
    # The anonymous id (two wins, ahead of the account) left the leaderboard.
    assert account_after["standing"]["rank"] == account_before["standing"]["rank"] - 1
    assert account_after["standing"]["rank"] == board_rank(service, LADDER, ACCOUNT)
    assert account_before["recent_ranked_games"] == 1  # its own only
    mine = service.submit_game(LADDER, game("after", ACCOUNT, "carol"))
    assert side(mine.result, ACCOUNT)["explain"]["recent_ranked_games"] == 1
    assert anon_before["ranked_games"] == 2


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ((ANON, ACCOUNT), (ANON, "acct-2")),  # an anonymous id links once
        ((ANON, ACCOUNT), ("dev-other", ACCOUNT)),  # an account absorbs one anonymous id
        ((ANON, ACCOUNT), (ACCOUNT, "acct-2")),  # an account is not an anonymous id
        ((ANON, ACCOUNT), ("dev-other", ANON)),  # a linked anonymous id is not an account
    ],
)
def test_link_once_per_anonymous_id_and_per_account(
    service: RatingService, first: tuple[str, str], second: tuple[str, str]
) -> None:
    service.submit_game(LADDER, game("g-1", ANON, "bob", played_at=NOW - HOUR))
    service.submit_game(LADDER, game("g-2", "dev-other", "bob", played_at=NOW - HOUR))
    link(service, *first)
    states_before = {
        pid: service.get_player(LADDER, pid) for pid in (ACCOUNT, "acct-2", "dev-other")
    }

    with pytest.raises(AlreadyLinked):
        link(service, *second)

    assert {pid: service.get_player(LADDER, pid) for pid in states_before} == states_before
    assert service.get_player(LADDER, ANON)["player_id"] == ACCOUNT


@pytest.mark.parametrize(
    "theirs",
    [(ANON, "acct-2"), ("dev-other", ACCOUNT), (ACCOUNT, "acct-2")],
    ids=["anonymous-taken", "account-taken", "account-linked-as-anonymous"],
)
def test_link_committed_between_read_and_commit_wins(
    dynamo_storage: DynamoStorage,
    table_name: str,
    clock: FixedClock,
    theirs: tuple[str, str],
) -> None:
    racing, racer, other = racing_pair(dynamo_storage, table_name, clock)

    def cut_in() -> None:
        link(other, *theirs)

    racing.before_commit = cut_in

    with pytest.raises(AlreadyLinked):
        link(racer, ANON, ACCOUNT)

    assert dynamo_storage.unit_of_work().resolve(theirs[0]) == theirs[1]
    assert (
        dynamo_storage.unit_of_work().resolve(ANON) != ACCOUNT
    )  # nothing of the refused link was stored


def test_anonymous_id_resolves_to_the_account_after_linking(
    dynamo_storage: DynamoStorage, service: RatingService
) -> None:
    service.submit_game(LADDER, game("g-anon", ANON, "bob", played_at=NOW - 2 * HOUR))
    link(service, ANON, ACCOUNT)
    anon_state = dynamo_storage.unit_of_work().read_states(LADDER, [ANON])[ANON]

    later = service.submit_game(LADDER, game("g-later", "bob", ANON, winner=ANON))

    entry = side(later.result, ACCOUNT)
    assert entry["submitted_id"] == ANON
    assert later.result["winner"] == ACCOUNT
    assert entry["rating_before"] == 1516
    assert (
        dynamo_storage.unit_of_work().read_states(LADDER, [ANON])[ANON] == anon_state
    )  # untouched
    player = service.get_player(LADDER, ANON)
    assert player["player_id"] == ACCOUNT
    assert player["rating"] == entry["rating_after"]
    assert player["ranked_games"] == 2
    history = service.get_history(LADDER, ANON)
    assert history["player_id"] == ACCOUNT
    assert [e["game_id"] for e in history["events"]] == ["g-later"]
    assert service.get_history(LADDER, "bob")["events"][0]["opponent"] == ACCOUNT
    awarded = service.award_podium(podium("t-1", ANON, finished_at=NOW))
    assert awarded.result["awards"][0]["player_id"] == ACCOUNT
    assert awarded.result["awards"][0]["submitted_id"] == ANON
    assert service.get_player(LADDER, ACCOUNT)["rating"] == entry["rating_after"] + 50
    with pytest.raises(InvalidInput):  # the same person on both sides, after linking
        service.submit_game(LADDER, game("g-self", ANON, ACCOUNT))


def test_linked_anonymous_id_is_not_listed_next_to_its_account(
    dynamo_storage: DynamoStorage, service: RatingService
) -> None:
    play_series(service, ANON, [NOW - 2 * HOUR, NOW - HOUR], prefix="anon")
    link(service, ANON, ACCOUNT)

    listed = [e["player_id"] for e in service.get_leaderboard(LADDER)["entries"]]

    assert listed.count(ACCOUNT) == 1
    assert ANON not in listed
    # Out of the sparse index: the anonymous state item carries no leaderboard keys.
    (state,) = [
        item
        for item in raw_items(dynamo_storage, player_key(LADDER, ANON))
        if item["sk"]["S"] == "STATE"
    ]
    assert "lb_shard" not in state
    assert "lb_rating" not in state


def test_game_of_the_anonymous_id_committed_during_linking_moves_to_the_account(
    dynamo_storage: DynamoStorage, table_name: str, clock: FixedClock
) -> None:
    racing, linker, other = racing_pair(dynamo_storage, table_name, clock)
    other.submit_game(LADDER, game("g-1", ANON, "bob", played_at=NOW - 2 * HOUR))
    body = game("g-during", ANON, "bob", played_at=NOW - HOUR)

    def cut_in() -> None:
        other.submit_game(LADDER, body)

    racing.before_commit = cut_in

    linked = link(linker, ANON, ACCOUNT)

    assert linker.retries == 1  # the link re-read the anonymous state the game left
    assert linked["ladders"][0] == {"ladder": "backgammon", "kept": "anonymous"}
    anon_now = dynamo_storage.unit_of_work().read_states(LADDER, [ANON])[ANON]
    assert anon_now.ranked_games == 2
    account = other.get_player(LADDER, ACCOUNT)
    assert (account["rating"], account["ranked_games"]) == (anon_now.rating, 2)


def test_game_read_before_linking_and_committed_after_rates_the_account(
    dynamo_storage: DynamoStorage, table_name: str, clock: FixedClock
) -> None:
    racing, racer, other = racing_pair(dynamo_storage, table_name, clock)
    other.submit_game(LADDER, game("g-1", ANON, "bob", played_at=NOW - 2 * HOUR))

    def cut_in() -> None:
        link(other, ANON, ACCOUNT)

    racing.before_commit = cut_in

    racing_game = racer.submit_game(LADDER, game("g-racing", ANON, "carol", played_at=NOW - HOUR))

    assert racer.retries == 1  # the link moved the anonymous state's version
    entry = side(racing_game.result, ACCOUNT)
    assert entry["submitted_id"] == ANON
    assert entry["rating_before"] == 1516  # the state the account took over
    account = other.get_player(LADDER, ACCOUNT)
    assert (account["rating"], account["ranked_games"]) == (entry["rating_after"], 2)
    assert dynamo_storage.unit_of_work().read_states(LADDER, [ANON])[ANON].ranked_games == 1


# Leaderboard ---------------------------------------------------------------------------------

PAIRS = [(f"p-{2 * index:02d}", f"p-{2 * index + 1:02d}") for index in range(12)]


def leaderboard_pages(service: RatingService, limit: int) -> list[list[dict[str, Any]]]:
    pages: list[list[dict[str, Any]]] = []
    cursor = None
    while True:
        page = service.get_leaderboard(LADDER, limit=limit, cursor=cursor)
        pages.append(page["entries"])
        cursor = page["next_cursor"]
        if cursor is None:
            return pages
        assert len(pages) < 200, "the cursor never ends"


def test_leaderboard_orders_ties_across_shards_and_pages_without_gaps(
    service: RatingService,
) -> None:
    # Twelve even games between newcomers: twelve players at 1516 and twelve at 1484.
    for index, (winner, loser) in enumerate(PAIRS):
        service.submit_game(LADDER, game(f"lb-{index}", winner, loser, played_at=NOW - HOUR))
    # p-22 also takes a podium third place: 1531 on top. A podium-only player (no ranked
    # game), players of unranked games only and of another ladder are not listed.
    service.award_podium(podium("t-1", "fan-1", "fan-2", "p-22"))
    service.submit_game(LADDER, game("lb-boosted", "u-a", "u-b", mode="boosted"))
    service.submit_game("sedma", game("lb-sedma", "s-a", "s-b"))
    for group in ([w for w, _ in PAIRS[:-1]], [loser for _, loser in PAIRS]):
        assert {leaderboard_shard(LADDER, pid, 4) for pid in group} == {
            "backgammon#0",
            "backgammon#1",
            "backgammon#2",
            "backgammon#3",
        }  # ties spread over every shard
    ranked = [pid for pair in PAIRS for pid in pair]
    players = [service.get_player(LADDER, pid) for pid in ranked]
    expected = [
        {"rank": rank, "player_id": p["player_id"], "rating": p["rating"], "ranked_games": 1}
        for rank, p in enumerate(sorted(players, key=lambda p: (-p["rating"], p["player_id"])), 1)
    ]
    assert expected[0]["player_id"] == "p-22"
    assert [e["rating"] for e in expected] == [1531] + [1516] * 11 + [1484] * 12

    full = service.get_leaderboard(LADDER, limit=100)
    assert full["entries"] == expected
    assert full["next_cursor"] is None
    for limit in (1, 2, 3, 5, 11, 12, 13, 23, 24, 25):
        pages = leaderboard_pages(service, limit)
        assert [entry for page in pages for entry in page] == expected, limit
        assert all(len(page) == limit for page in pages[:-1])
        assert 1 <= len(pages[-1]) <= limit


def test_leaderboard_with_many_ties_matches_the_in_memory_storage(
    dynamo_storage: DynamoStorage, clock: FixedClock
) -> None:
    rng = random.Random(99)
    states = [
        (
            f"t-{index:03d}",
            rng.choice([1600, 1500, 1500, 1500, 1400, 0, -35]),
            rng.choice([0, 1, 3]),
        )
        for index in range(90)
    ]
    memory = InMemoryStorage()
    seed_states(memory, states)
    seed_states(dynamo_storage, states)
    in_memory, in_dynamo = rating_service(memory, clock), rating_service(dynamo_storage, clock)

    listed = in_dynamo.get_leaderboard(LADDER, limit=100)["entries"]
    assert len(listed) == sum(1 for _pid, _rating, games in states if games > 0)
    for limit in (1, 4, 9, 100):
        assert leaderboard_pages(in_dynamo, limit) == leaderboard_pages(in_memory, limit)


# History -------------------------------------------------------------------------------------


def history_pages(service: RatingService, player_id: str, limit: int) -> list[list[dict[str, Any]]]:
    pages: list[list[dict[str, Any]]] = []
    cursor = None
    while True:
        page = service.get_history(LADDER, player_id, limit=limit, cursor=cursor)
        pages.append(page["events"])
        cursor = page["next_cursor"]
        if cursor is None:
            return pages
        assert len(pages) < 100, "the cursor never ends"


def test_history_is_newest_first_and_pages_without_gaps(service: RatingService) -> None:
    played = {f"h-{index}": NOW - (index + 1) * HOUR for index in range(7)}
    for game_id in ["h-3", "h-0", "h-6", "h-1", "h-5", "h-2", "h-4"]:  # out of order
        service.submit_game(LADDER, game(game_id, HERO, f"o-{game_id}", played_at=played[game_id]))
    service.submit_game(
        LADDER, game("h-boost", HERO, "o-b", played_at=NOW - 90 * MINUTE, mode="boosted")
    )
    service.award_podium(podium("t-h", HERO, finished_at=played["h-1"]))  # same instant

    full = service.get_history(LADDER, HERO, limit=100)

    assert full["next_cursor"] is None
    events = full["events"]
    refs = [e.get("game_id") or e.get("tournament_id") for e in events]
    assert refs == ["h-0", "h-boost", "t-h", "h-1", "h-2", "h-3", "h-4", "h-5", "h-6"]
    assert [e["at"] for e in events] == sorted((e["at"] for e in events), reverse=True)
    newest = service.get_game(LADDER, "h-0")
    assert events[0]["delta"] == side(newest, HERO)["delta"]
    assert events[0]["rating_after"] == side(newest, HERO)["rating_after"]
    assert events[0]["opponent"] == "o-h-0"
    for limit in (1, 2, 3, 4, 8, 9, 10):
        pages = history_pages(service, HERO, limit)
        # DynamoDB may end with an empty page when the last page was exactly full.
        if len(pages) > 1 and not pages[-1]:
            pages.pop()
        assert [e for page in pages for e in page] == events, limit
        assert all(len(page) == limit for page in pages[:-1])
    assert service.get_history(LADDER, "never-seen") == {
        "player_id": "never-seen",
        "ladder": LADDER,
        "events": [],
        "next_cursor": None,
    }


# Contract: the in-memory fake and DynamoDB answer the same ----------------------------------


def contract_scenario(storage: Storage) -> dict[str, Any]:
    """One run of many use cases; every answer (or error code) by a label."""
    clock = FixedClock()
    service = rating_service(storage, clock)
    out: dict[str, Any] = {}

    def call(label: str, action: Callable[..., Any], *args: Any) -> None:
        assert label not in out
        try:
            value = action(*args)
        except (ServiceError, InvalidInput) as error:
            value = {"error": error.code}
        if isinstance(value, Submitted):
            value = {"created": value.created, "result": value.result}
        out[label] = value

    def pages(label: str, read: Callable[[str | None], dict[str, Any]]) -> None:
        """Every page of a paged read; cursors are opaque, so only whether one came."""
        got, cursor = [], None
        for _ in range(50):
            page = read(cursor)
            cursor = page.pop("next_cursor")
            got.append({**page, "more": cursor is not None})
            if cursor is None:
                break
        out[label] = got

    bg = LADDER
    times = [NOW - DAY - index * 37 * MINUTE for index in range(8)]
    roster = ["alice", "bob", "carol", "dave"]
    for index, at in enumerate(reversed(times)):
        a, b = roster[index % 4], roster[(index + 1 + index // 4) % 4]
        call(
            f"bg-{index}",
            service.submit_game,
            bg,
            game(f"bg-{index}", a, b, played_at=at, cube=[1, 2, 4, 64][index % 4]),
        )
    call(
        "bg-late",
        service.submit_game,
        bg,
        game("bg-late", "bob", "alice", played_at=times[-1] - HOUR),
    )
    call(
        "bg-bot",
        service.submit_game,
        bg,
        {
            **game("bg-bot", "alice", "bot-1"),
            "players": [{"id": "alice"}, {"id": "bot-1", "bot": True}],
        },
    )
    call(
        "bg-dup",
        service.submit_game,
        bg,
        game("bg-3", roster[3], roster[0], played_at=times[4], cube=64),
    )
    call("bg-conflict", service.submit_game, bg, game("bg-0", "carol", "dave"))
    for index in range(3):
        call(
            f"sedma-{index}",
            service.submit_game,
            "sedma",
            {
                **game(f"s-{index}", "alice", "bob", winner="bob" if index == 1 else "alice"),
                "players": [
                    {"id": "alice", "stats": {"rounds_won_16": index, "bad_moves": 1}},
                    {"id": "bob", "stats": {"rounds_won_24": 1}},
                ],
            },
        )
    for index, winner in enumerate(["carol", None, "dave"]):
        call(
            f"classic-{index}",
            service.submit_game,
            "classic",
            game(f"c-{index}", "carol", "dave", winner=winner, played_at=NOW - index * HOUR),
        )
    call("podium", service.award_podium, podium("t-1", "carol", "erin", "alice"))
    call("podium-again", service.award_podium, podium("t-1", "carol", "erin", "alice"))
    call("podium-conflict", service.award_podium, podium("t-1", "erin", "carol"))
    call("podium-private", service.award_podium, podium("t-2", "bob", public=False))
    # Linking: a takeover in backgammon, an account that keeps its own state in sedma.
    call("anon-1", service.submit_game, bg, game("a-1", "dev-1", "erin", played_at=NOW - HOUR))
    call("anon-2", service.submit_game, "sedma", game("a-2", "dev-2", "carol"))
    call("link-1", service.link_identity, {"anonymous_id": "dev-1", "account_id": "acct-1"})
    call("link-2", service.link_identity, {"anonymous_id": "dev-2", "account_id": "alice"})
    call("link-again", service.link_identity, {"anonymous_id": "dev-1", "account_id": "acct-9"})
    call("link-retry", service.link_identity, {"anonymous_id": "dev-1", "account_id": "acct-1"})
    call("link-same", service.link_identity, {"anonymous_id": "dev-3", "account_id": "dev-3"})
    call("anon-after", service.submit_game, bg, game("a-3", "bob", "dev-1", played_at=NOW - MINUTE))
    call(
        "preview",
        service.preview_game,
        bg,
        {"players": [{"id": "dev-1"}, {"id": "carol"}], "winner": "carol", "cube": 8},
    )
    call(
        "preview-override",
        service.preview_game,
        bg,
        {
            "players": [{"id": "alice", "rating": 1800, "recent_ranked_games": 60}, {"id": "bob"}],
            "winner": "bob",
            "ruleset_version": "1.2.0",
        },
    )
    people = ["alice", "bob", "carol", "dave", "erin", "dev-1", "dev-2", "acct-1", "nobody"]

    def reads(stage: str) -> None:
        for ladder in ("backgammon", "sedma", "classic"):
            for pid in people:
                call(f"{stage}-player-{ladder}-{pid}", service.get_player, ladder, pid)
                history = functools.partial(service.get_history, ladder, pid, 2)
                pages(f"{stage}-history-{ladder}-{pid}", history)
            pages(f"{stage}-board-{ladder}", functools.partial(service.get_leaderboard, ladder, 2))
        for game_id in ("bg-0", "bg-bot", "a-3", "missing"):
            call(f"{stage}-game-{game_id}", service.get_game, bg, game_id)
        call(f"{stage}-tournament", service.get_tournament, bg, "t-1")

    reads("now")
    clock.advance(31 * DAY)  # every record past its expiry, still stored by both
    call("month-later", service.submit_game, bg, game("m-1", "alice", "carol"))
    reads("later")
    return out


def test_contract_same_scenario_same_answers(any_storage: Storage) -> None:
    answers = answers_alike(contract_scenario, any_storage)

    # A few absolute facts, so the comparison is not between two wrong answers.
    assert answers["bg-dup"]["created"] is False
    assert answers["bg-dup"]["result"] == answers["bg-3"]["result"]
    assert answers["bg-conflict"] == {"error": "game_conflict"}
    assert answers["podium-again"]["created"] is False
    assert answers["podium-conflict"] == {"error": "tournament_conflict"}
    assert answers["link-1"]["ladders"][0] == {"ladder": "backgammon", "kept": "anonymous"}
    assert answers["link-2"]["ladders"][1] == {"ladder": "sedma", "kept": "account"}
    assert answers["link-again"] == {"error": "already_linked"}
    assert answers["link-retry"] == answers["link-1"]
    assert answers["link-same"] == {"error": "invalid_request"}
    assert side(answers["anon-after"]["result"], "acct-1")["submitted_id"] == "dev-1"
    assert answers["later-game-bg-0"] == {"error": "not_found"}
    assert answers["now-game-bg-0"]["game_id"] == "bg-0"
    month_later = answers["month-later"]["result"]
    assert [p["explain"]["recent_ranked_games"] for p in month_later["players"]] == [0, 0]
    later_history = answers["later-history-backgammon-alice"]
    assert [e["game_id"] for page in later_history for e in page["events"]] == ["m-1"]
    board = [e for page in answers["now-board-backgammon"] for e in page["entries"]]
    assert [e["rank"] for e in board] == list(range(1, len(board) + 1))
    assert "nobody" not in {e["player_id"] for e in board}


def test_contract_games_without_played_at_count_alike(dynamo_storage: DynamoStorage) -> None:
    def second_game(storage: Storage) -> dict[str, Any]:
        clock = FixedClock(NOW + timedelta(microseconds=300))
        service = rating_service(storage, clock)
        service.submit_game(LADDER, game("g-1", "alice", "bob"))
        clock.now = NOW + timedelta(microseconds=800)  # the same millisecond
        return service.submit_game(LADDER, game("g-2", "alice", "bob")).result

    in_dynamo, in_memory = second_game(dynamo_storage), second_game(InMemoryStorage())

    def recent(result: dict[str, Any]) -> list[int]:
        return [player["explain"]["recent_ranked_games"] for player in result["players"]]

    assert recent(in_dynamo) == recent(in_memory)  # today: DynamoDB 0 and 0, the fake 1 and 1
    assert in_dynamo == in_memory
