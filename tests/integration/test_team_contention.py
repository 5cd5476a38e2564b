"""No lost update when the players of one 8-player game are each playing elsewhere at the same
moment, on DynamoDB Local: an 8-player classic-ffa game and eight other classic-ffa games, one
of each of its players with two players of their own, written at once (the others slipped in
between the big game's reads and its commit, then as threads). Afterwards each player's rating
is the starting rating plus the sum of their deltas, each game's rating_before the rating_after
of the game before it, and every game counted once."""

import threading
from collections.abc import Iterator
from typing import Any

import pytest
from support.dynamodb import InterleavingDynamoStorage
from support.engines import Engine, ratings_table, running_engine, unique_table_name
from support.games import NOW, FixedClock
from support.services import rating_service

from ratings.rules import DEFAULT_LADDERS
from ratings.service.errors import RetryLater
from ratings.service.facade import RatingService
from ratings.service.unit_of_work import Retrier

LADDER = "classic-ffa"
START = 1200
EIGHT = [f"p{n}" for n in range(1, 9)]


def ffa(game_id: str, players: list[str]) -> dict[str, Any]:
    """Each player a side, placed in the order given."""
    return {
        "game_id": game_id,
        "sides": [
            {"players": [{"id": pid}], "place": place} for place, pid in enumerate(players, start=1)
        ],
    }


def elsewhere(number: int, player: str) -> dict[str, Any]:
    """The other game of `player`: with two players of its own, `player` placed second."""
    return ffa(f"other-{number}", [f"x{number}a", player, f"x{number}b"])


@pytest.fixture
def local(request: pytest.FixtureRequest) -> Iterator[tuple[Engine, str]]:
    table_name = unique_table_name("ratings-teams")
    with running_engine("dynamodb_local", request) as engine, ratings_table(engine, table_name):
        yield engine, table_name


def assert_no_lost_update(service: RatingService, games: int) -> None:
    """Every player of the big game: rating = start + the sum of their deltas, each game rated
    from the rating the one before left (its rating_after less its delta), with the count of
    ranked games before it; `games` ranked games, each game once."""
    for pid in EIGHT:
        player = service.get_player(LADDER, pid)
        events = service.get_history(LADDER, pid)["events"]
        # In the order they were rated: by the ranked games each saw before it.
        chain = sorted(events, key=lambda event: event["explain"]["ranked_games"])
        assert [event["explain"]["ranked_games"] for event in chain] == list(range(games))
        assert len({event["game_id"] for event in events}) == games
        assert player["ranked_games"] == games
        rating = START
        for event in chain:
            assert event["rating_after"] - event["delta"] == rating, (pid, chain)
            rating = event["rating_after"]
        assert player["rating"] == rating == START + sum(event["delta"] for event in events)
        assert {event["game_id"] for event in events} == {"big", f"other-{EIGHT.index(pid)}"}


def test_eight_games_committed_between_the_big_games_reads_and_its_commit(
    local: tuple[Engine, str],
) -> None:
    engine, table_name = local
    clock = FixedClock(NOW)
    other = rating_service(engine.storage(table_name), clock)
    racing = InterleavingDynamoStorage(table_name, endpoint_url=engine.endpoint_url)
    # Its first attempt holds the eight others' requests: on a loaded machine they may take
    # longer than the retry budget, so the racer's timer stands still (attempts still count).
    racer = RatingService(
        racing,
        DEFAULT_LADDERS,
        clock=clock,
        retrier=Retrier(sleep=lambda _: None, timer=lambda: 0.0),
    )

    def cut_in() -> None:
        for number, pid in enumerate(EIGHT):
            assert other.submit_game(LADDER, elsewhere(number, pid)).created

    racing.before_commit = cut_in
    big = racer.submit_game(LADDER, ffa("big", EIGHT))

    assert racing.interleaved == 1
    assert racer.retries >= 1  # its first commit found every state changed
    assert big.created
    # The retry rated the big game from the states the other games left.
    for entry in big.result["players"]:
        events = other.get_history(LADDER, entry["id"])["events"]
        (theirs,) = [event for event in events if event["game_id"] != "big"]
        assert entry["rating_before"] == theirs["rating_after"]
        assert entry["explain"]["ranked_games"] == 1
    assert_no_lost_update(other, games=2)


def test_nine_games_of_the_same_players_at_once(local: tuple[Engine, str]) -> None:
    engine, table_name = local
    clock = FixedClock(NOW)
    bodies = [ffa("big", EIGHT)] + [elsewhere(number, pid) for number, pid in enumerate(EIGHT)]
    # One service, and one storage (its own client), per caller, as separate Lambdas would be.
    services = [rating_service(engine.storage(table_name), clock) for _ in bodies]
    gate = threading.Barrier(len(bodies))
    answers: dict[str, dict[str, Any]] = {}
    failures: list[BaseException] = []

    def play(service: RatingService, body: dict[str, Any]) -> None:
        try:
            gate.wait()
            for _ in range(20):  # a caller retries a 503 retry-later with the same body
                try:
                    answers[body["game_id"]] = service.submit_game(LADDER, body).result
                    return
                except RetryLater:
                    continue
            raise AssertionError(f"{body['game_id']} never got through")
        except BaseException as error:  # reported below, in the test's thread
            failures.append(error)

    threads = [
        threading.Thread(target=play, args=(service, body))
        for service, body in zip(services, bodies, strict=True)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)

    assert failures == []
    print(f"\nretries after a conflict: {sum(service.retries for service in services)}")
    assert set(answers) == {body["game_id"] for body in bodies}
    reader = rating_service(engine.storage(table_name), clock)
    assert_no_lost_update(reader, games=2)
    # The others' own players: one game each, rated once.
    for number in range(len(EIGHT)):
        for pid in (f"x{number}a", f"x{number}b"):
            assert reader.get_player(LADDER, pid)["ranked_games"] == 1
    # A retry of each game after the race answers the stored result.
    for body in bodies:
        assert reader.submit_game(LADDER, body).result == answers[body["game_id"]]
