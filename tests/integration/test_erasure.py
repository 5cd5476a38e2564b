"""Erasing a player on each storage (the in-memory fake and DynamoDB): everything that named
the player or their linked anonymous id, on every ladder, carries a pseudonym or is gone, and
nobody else's ratings, deltas or histories change."""

from collections.abc import Iterator
from typing import Any

import pytest
from support.dynamodb import InterleavingDynamoStorage
from support.engines import ENGINES, ratings_table, running_engine
from support.erasure import erase, erasing_service, mentions, work_jobs
from support.games import DAY, HOUR, MINUTE, NOW, FixedClock, game, podium
from support.jobs import Countdown, RecordingJobQueue

from ratings.service.errors import PlayerErasing
from ratings.service.facade import RatingService
from ratings.service.ports import Storage
from ratings.storage.memory import InMemoryStorage

VICTIM = "victim-q7"
ANON = "shadow-k3"
OPPONENTS = [f"opp-{n}" for n in range(1, 7)]


@pytest.fixture
def erasing(any_storage: Storage, job_queue: RecordingJobQueue, clock: FixedClock) -> RatingService:
    return erasing_service(any_storage, clock, job_queue)


def at(hours: int) -> Any:
    return NOW - 3 * DAY + hours * HOUR


def play_everything(service: RatingService) -> dict[str, list[str]]:
    """The victim's life: as an anonymous id before linking, the link, games as the account
    and as the anonymous id on three ladders, games among the opponents, podiums. Returns
    the game and tournament ids by ladder."""
    games: dict[str, list[str]] = {"backgammon": [], "sedma": [], "classic": []}

    def play(ladder: str, game_id: str, a: str, b: str, **extra: Any) -> None:
        played = at(sum(len(ids) for ids in games.values()))
        body = game(game_id, a, b, played_at=played, **extra)
        service.submit_game(ladder, body)
        games[ladder].append(game_id)

    play("backgammon", "g-1", ANON, "opp-1")  # before the link, as the anonymous id
    unranked = game("g-2", "opp-2", ANON, played_at=at(1))
    unranked["players"][0]["bot"] = True
    service.submit_game("backgammon", unranked)
    games["backgammon"].append("g-2")
    service.link_identity({"anonymous_id": ANON, "account_id": VICTIM})
    play("backgammon", "g-3", VICTIM, "opp-3", winner="opp-3")
    play("backgammon", "g-4", ANON, "opp-4")  # after the link: resolved to the account
    play("sedma", "g-5", "opp-5", VICTIM)
    play("classic", "g-6", VICTIM, "opp-6", winner=None)
    play("backgammon", "g-7", "opp-1", "opp-3")  # the victim not in it
    play("backgammon", "g-8", ANON, "opp-1", cube=2)
    service.award_podium(podium("t-1", VICTIM, "opp-1", "opp-3", finished_at=NOW - HOUR))
    service.award_podium(podium("t-2", "opp-4", ANON, finished_at=NOW - HOUR))
    service.award_podium(podium("t-3", VICTIM, "opp-2", finished_at=NOW - HOUR, public=False))
    service.award_podium(podium("t-4", "opp-5", VICTIM, ladder="sedma", finished_at=NOW - HOUR))
    return {**games, "tournaments": ["t-1", "t-2", "t-3"]}


def snapshot(service: RatingService, ids: dict[str, list[str]]) -> dict[str, Any]:
    """What everybody else reads: each opponent's state and history on every ladder, every
    stored game and tournament. Not their standing: a player leaving the leaderboard moves
    the ranks behind them, as any rating change does."""
    seen: dict[str, Any] = {}
    for ladder in ("backgammon", "sedma", "classic"):
        for opponent in OPPONENTS:
            player = service.get_player(ladder, opponent)
            player.pop("standing")
            history = service.get_history(ladder, opponent, limit=100)
            seen[f"{ladder}/{opponent}"] = (player, history["events"])
        for game_id in ids[ladder]:
            seen[f"{ladder}/game/{game_id}"] = service.get_game(ladder, game_id)
    for tournament_id in ids["tournaments"]:
        seen[f"tournament/{tournament_id}"] = service.get_tournament("backgammon", tournament_id)
    seen["sedma/tournament/t-4"] = service.get_tournament("sedma", "t-4")
    return seen


def test_an_erasure_leaves_nothing_that_names_the_player_or_their_linked_id(
    any_storage: Storage, erasing: RatingService, job_queue: RecordingJobQueue
) -> None:
    play_everything(erasing)
    assert mentions(any_storage, VICTIM)
    assert mentions(any_storage, ANON)

    requested = erasing.request_erasure(VICTIM)
    assert requested["status"] == "pending"
    work_jobs(erasing, job_queue)
    status = erasing.get_erasure(VICTIM)

    assert status["status"] == "done"
    assert status["completed_at"] >= status["requested_at"]
    assert mentions(any_storage, VICTIM, ANON) == []
    assert job_queue.sent == []


def test_nobody_else_changes_but_for_the_pseudonyms(
    erasing: RatingService, job_queue: RecordingJobQueue
) -> None:
    ids = play_everything(erasing)
    before = snapshot(erasing, ids)

    erase(erasing, job_queue, VICTIM)
    after = snapshot(erasing, ids)

    game_3 = after["backgammon/game/g-3"]
    game_1 = after["backgammon/game/g-1"]
    pseudonym = game_3["players"][0]["id"]
    anon_pseudonym = game_1["players"][0]["id"]
    assert pseudonym.startswith("erased-")
    assert anon_pseudonym.startswith("erased-")
    assert pseudonym != anon_pseudonym
    names = {VICTIM: pseudonym, ANON: anon_pseudonym}
    assert after == replaced(before, names)
    # The game played as the anonymous id after the link: as rated and as submitted.
    (as_anon,) = [p for p in after["backgammon/game/g-4"]["players"] if "submitted_id" in p]
    assert (as_anon["id"], as_anon["submitted_id"]) == (pseudonym, anon_pseudonym)
    assert after["backgammon/game/g-3"]["winner"] == "opp-3"
    assert after["tournament/t-1"]["awards"][0]["player_id"] == pseudonym


def replaced(value: Any, names: dict[str, str]) -> Any:
    """`value` with every string equal to an erased id replaced by its pseudonym."""
    if isinstance(value, dict):
        return {key: replaced(item, names) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(replaced(item, names) for item in value)
    if isinstance(value, str):
        return names.get(value, value)
    return value


def test_the_erased_player_reads_as_never_seen_on_every_ladder(
    erasing: RatingService, job_queue: RecordingJobQueue
) -> None:
    play_everything(erasing)

    erase(erasing, job_queue, VICTIM)

    for ladder in ("backgammon", "sedma", "classic"):
        for erased in (VICTIM, ANON):
            player = erasing.get_player(ladder, erased)
            fresh = erasing.get_player(ladder, "never-seen-9")
            assert {**player, "player_id": "never-seen-9"} == fresh
            assert erasing.get_history(ladder, erased)["events"] == []
        board = erasing.get_leaderboard(ladder, 100)["entries"]
        assert board  # the opponents are still on it
        assert {entry["player_id"] for entry in board}.isdisjoint({VICTIM, ANON})


def test_a_retry_of_an_old_game_is_answered_from_the_stored_game_and_never_rates_again(
    any_storage: Storage, erasing: RatingService, job_queue: RecordingJobQueue
) -> None:
    body = game("g-old", VICTIM, "opp-1", played_at=NOW - 10 * DAY)
    first = erasing.submit_game("backgammon", body)

    erasing.request_erasure(VICTIM)
    pending_retry = erasing.submit_game("backgammon", body)  # while the erasure is pending
    work_jobs(erasing, job_queue)
    retried = erasing.submit_game("backgammon", body)

    assert (pending_retry.created, pending_retry.result) == (False, first.result)
    assert retried.created is False
    assert retried.result == erasing.get_game("backgammon", "g-old")
    assert retried.result["players"][0]["id"].startswith("erased-")
    assert retried.result["players"][0]["delta"] == first.result["players"][0]["delta"]
    assert mentions(any_storage, VICTIM) == []
    assert erasing.get_player("backgammon", VICTIM)["ranked_games"] == 0


def test_a_new_game_with_the_player_waits_while_the_erasure_runs(
    any_storage: Storage, erasing: RatingService, job_queue: RecordingJobQueue
) -> None:
    erasing.submit_game("backgammon", game("g-1", VICTIM, "opp-1", played_at=NOW - HOUR))
    erasing.request_erasure(VICTIM)
    (message,) = job_queue.take()
    # One step (the mark), then the invocation runs out of time.
    erasing.run_job({"job": message.kind, "job_id": message.job_id}, Countdown(16, per_call=1))

    for ladder, other in (("backgammon", "opp-1"), ("sedma", "opp-5")):  # a ladder never played
        with pytest.raises(PlayerErasing):
            erasing.submit_game(ladder, game(f"g-new-{ladder}", other, VICTIM, played_at=NOW))
    with pytest.raises(PlayerErasing):
        erasing.link_identity({"anonymous_id": "anon-late", "account_id": VICTIM})
    with pytest.raises(PlayerErasing):
        erasing.award_podium(podium("t-late", "opp-1", VICTIM, finished_at=NOW - MINUTE))
    work_jobs(erasing, job_queue)

    assert mentions(any_storage, VICTIM) == []
    after = erasing.submit_game("backgammon", game("g-new", "opp-1", VICTIM, played_at=NOW))
    assert after.created
    fresh = erasing.get_player("backgammon", VICTIM)
    assert (fresh["ranked_games"], fresh["rating"] - after.result["players"][1]["delta"]) == (
        1,
        1500,
    )


def test_a_link_requested_before_the_work_starts_is_refused_until_done(
    erasing: RatingService, job_queue: RecordingJobQueue
) -> None:
    erasing.submit_game("backgammon", game("g-1", VICTIM, "opp-1", played_at=NOW - HOUR))
    erasing.request_erasure(VICTIM)  # queued, nothing marked yet

    with pytest.raises(PlayerErasing):
        erasing.link_identity({"anonymous_id": VICTIM, "account_id": "acct-9"})
    with pytest.raises(PlayerErasing):
        erasing.link_identity({"anonymous_id": "anon-9", "account_id": VICTIM})
    work_jobs(erasing, job_queue)
    linked = erasing.link_identity({"anonymous_id": "anon-9", "account_id": VICTIM})
    assert linked["ladders"][0]["kept"] == "account"


def test_an_interrupted_erasure_of_300_games_resumes_and_rewrites_each_game_once(
    any_storage: Storage,
    erasing: RatingService,
    job_queue: RecordingJobQueue,
    request: pytest.FixtureRequest,
) -> None:
    # moto copies the whole table for every transaction: 300 games there take minutes, so
    # it plays fewer (DynamoDB Local and the fake take the 300).
    count = 60 if request.node.callspec.params["any_storage"] == "moto" else 300
    for index in range(count):
        played = NOW - 12 * DAY + index * MINUTE
        erasing.submit_game(
            "backgammon", game(f"g-{index:03}", VICTIM, f"opp-{index % 7}", played_at=played)
        )
    original = any_storage.erasures.pseudonymize
    calls = {"count": 0}

    def crashing(ladder: str, rewrite: Any) -> None:
        calls["count"] += 1
        if calls["count"] % 2 == 0:  # every second page: the invocation dies midway
            raise RuntimeError("the worker stopped midway")
        original(ladder, rewrite)

    any_storage.erasures.pseudonymize = crashing  # type: ignore[method-assign]
    erasing.request_erasure(VICTIM)
    crashes = 0
    while job_queue.sent:
        try:
            # 20 s left, falling a second a step: four or five steps an invocation.
            work_jobs(erasing, job_queue, seconds=lambda: Countdown(20, per_call=1))
        except RuntimeError:
            crashes += 1
            erasing.request_erasure(VICTIM)  # SQS would deliver the message again
    status = erasing.get_erasure(VICTIM)

    assert status["status"] == "done"
    assert crashes >= 2
    assert mentions(any_storage, VICTIM) == []
    for index in range(count):
        stored = any_storage.results.get_game("backgammon", f"g-{index:03}")
        assert stored is not None
        assert stored.revision == 1  # rewritten once, however often the work was interrupted
    opponent = erasing.get_history("backgammon", "opp-0", limit=100)["events"]
    assert len(opponent) == len(range(0, count, 7))
    pseudonym = erasing.get_game("backgammon", "g-000")["players"][0]["id"]
    assert {event["opponent"] for event in opponent} == {pseudonym}


def test_two_players_of_the_same_games_erased_at_once_both_get_pseudonyms(
    any_storage: Storage, erasing: RatingService, job_queue: RecordingJobQueue
) -> None:
    for index in range(30):
        played = NOW - DAY + index * MINUTE
        erasing.submit_game("backgammon", game(f"g-{index}", VICTIM, "rival-z2", played_at=played))
    erasing.request_erasure(VICTIM)
    erasing.request_erasure("rival-z2")
    # The two jobs step in turns: each page of one rewrites records the other reads.
    work_jobs(erasing, job_queue, seconds=lambda: Countdown(16, per_call=1))

    assert mentions(any_storage, VICTIM, "rival-z2") == []
    for index in range(30):
        result = erasing.get_game("backgammon", f"g-{index}")
        ids = [player["id"] for player in result["players"]]
        assert all(pid.startswith("erased-") for pid in ids)
        assert ids[0] != ids[1]


def test_an_id_with_nothing_stored_is_done_at_once(
    any_storage: Storage, erasing: RatingService, job_queue: RecordingJobQueue
) -> None:
    status = erasing.request_erasure("ghost-p1")

    assert status["status"] == "done"
    assert erasing.request_erasure("ghost-p1") == status  # asked again: the same answer
    assert job_queue.sent == []
    assert mentions(any_storage, "ghost-p1") == []


def test_an_id_that_started_afresh_is_erased_again(
    any_storage: Storage, erasing: RatingService, job_queue: RecordingJobQueue, clock: FixedClock
) -> None:
    erasing.submit_game("backgammon", game("g-1", VICTIM, "opp-1", played_at=NOW - HOUR))
    first = erase(erasing, job_queue, VICTIM)
    assert erasing.request_erasure(VICTIM) == first  # a retry: nothing new stored, done

    erasing.submit_game("backgammon", game("g-2", VICTIM, "opp-1", played_at=NOW - MINUTE))
    again = erasing.request_erasure(VICTIM)
    assert again["status"] == "pending"
    work_jobs(erasing, job_queue)

    assert erasing.get_erasure(VICTIM)["status"] == "done"
    assert mentions(any_storage, VICTIM) == []


@pytest.fixture(params=["memory", *ENGINES])
def interleaving(request: pytest.FixtureRequest, table_name: str) -> Iterator[Storage]:
    """Each storage, with a hook that runs between a use case's reads and its commit."""
    if request.param == "memory":
        yield InMemoryStorage()
        return
    with running_engine(request.param, request) as running, ratings_table(running, table_name):
        yield InterleavingDynamoStorage(table_name, endpoint_url=running.endpoint_url)


@pytest.mark.parametrize("kind", ["ranked", "unranked", "unpaid podium"])
def test_a_write_that_read_before_the_mark_cannot_land_after_it(
    interleaving: Storage, job_queue: RecordingJobQueue, clock: FixedClock, kind: str
) -> None:
    service = erasing_service(interleaving, clock, job_queue)
    service.submit_game("backgammon", game("g-1", VICTIM, "opp-1", played_at=NOW - HOUR))
    service.request_erasure(VICTIM)
    (message,) = job_queue.take()

    def mark_meanwhile() -> None:  # the worker's first step, between the reads and the commit
        body = {"job": message.kind, "job_id": message.job_id}
        service.run_job(body, Countdown(16, per_call=1))

    late = game("g-late", "opp-2", VICTIM, played_at=NOW - MINUTE)
    late["players"][0]["bot"] = kind == "unranked"
    unpaid = podium("t-9", "opp-2", VICTIM, public=False)

    def write() -> object:
        if kind == "unpaid podium":
            return service.award_podium(unpaid)
        return service.submit_game("backgammon", late)

    interleaving.before_commit = mark_meanwhile  # type: ignore[attr-defined]
    with pytest.raises(PlayerErasing):
        write()
    work_jobs(service, job_queue)

    assert mentions(interleaving, VICTIM) == []
