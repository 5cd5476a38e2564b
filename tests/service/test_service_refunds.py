"""A sanction's refunds over the in-memory storage: who gets what back (docs/rules.md,
"Sanctions and refunds"), exactly once per sanction and game whatever repeats, crashes or
runs at the same time, for a cheater of any size."""

import json
import random
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import Any

import pytest
from support.games import DAY, HOUR, MINUTE, NOW, FixedClock, game, ts
from support.jobs import Countdown, RecordingJobQueue
from support.sanctions import (
    decided_games,
    decision_pages,
    mallory_beats,
    refund_while_victims_play,
    refunds_of,
    sanction,
    sanction_and_refund,
)

from ratings.rules import Classic, Ladder, Sedma
from ratings.rules.ladders import Span
from ratings.service.errors import RetryLater
from ratings.service.facade import RatingService
from ratings.service.jobs import JobRun
from ratings.service.player import Player
from ratings.service.unit_of_work import Retrier
from ratings.storage.memory import InMemoryStorage

LADDER = "backgammon"


def rating(service: RatingService, player_id: str, ladder: str = LADDER) -> int:
    value: int = service.get_player(ladder, player_id)["rating"]
    return value


def history_adds_up(service: RatingService, player_id: str, start: int = 1500) -> bool:
    """Whether the player's rating is the starting rating plus every delta in their history:
    each change recorded once, none lost."""
    total, cursor = start, None
    while True:
        page = service.get_history(LADDER, player_id, limit=100, cursor=cursor)
        total += sum(event["delta"] for event in page["events"])
        cursor = page["next_cursor"]
        if cursor is None:
            return bool(total == rating(service, player_id))


# Who gets what back -------------------------------------------------------------------------


def test_each_loss_in_the_window_is_refunded_to_the_current_rating_and_wins_are_not(
    service: RatingService,
) -> None:
    # alice: lost, won, lost against mallory, then beat dave (her own climb).
    service.submit_game(LADDER, game("g-1", "mallory", "alice", played_at=NOW - 3 * DAY))
    service.submit_game(LADDER, game("g-2", "alice", "mallory", played_at=NOW - 2 * DAY))
    service.submit_game(LADDER, game("g-3", "mallory", "alice", played_at=NOW - DAY))
    service.submit_game(LADDER, game("g-4", "alice", "dave", played_at=NOW - HOUR))
    losses = {
        gid: -next(
            p["delta"] for p in service.get_game(LADDER, gid)["players"] if p["id"] == "alice"
        )
        for gid in ("g-1", "g-3")
    }
    before = rating(service, "alice")

    answer = sanction_and_refund(service, sanction())

    assert answer["status"] == "done"
    assert refunds_of(answer) == {"alice": [("g-1", losses["g-1"]), ("g-3", losses["g-3"])]}
    assert rating(service, "alice") == before + losses["g-1"] + losses["g-3"]
    assert answer["withheld"] == []
    # Nothing recomputed: the games and mallory stay as they were rated.
    assert service.get_game(LADDER, "g-2")["players"][0]["delta"] > 0
    assert service.get_player(LADDER, "mallory")["ranked_games"] == 3


def test_each_refund_is_one_history_event_of_the_victim(
    service: RatingService, clock: FixedClock
) -> None:
    service.submit_game(LADDER, game("g-1", "mallory", "alice", played_at=NOW - DAY))
    clock.advance(MINUTE)

    answer = sanction_and_refund(service, sanction())

    (refund,) = answer["refunds"]
    events = service.get_history(LADDER, "alice")["events"]
    assert events[0] == {
        "type": "refund",
        "sanction_id": "s-1",
        "game_id": "g-1",
        "at": ts(clock.now),
        "delta": 16,
        "rating_after": 1500,
    }
    assert refund == {
        "player_id": "alice",
        "game_id": "g-1",
        "delta": 16,
        "played_at": ts(NOW - DAY),
        "at": ts(clock.now),
        "rating_after": 1500,
    }
    assert [event["type"] for event in events] == ["refund", "game"]
    assert history_adds_up(service, "alice")


def test_games_before_the_window_and_unranked_games_are_not_refunded(
    service: RatingService,
) -> None:
    service.submit_game(LADDER, game("g-old", "mallory", "alice", played_at=NOW - 8 * DAY))
    service.submit_game(LADDER, game("g-edge", "mallory", "bob", played_at=NOW - 7 * DAY))
    service.submit_game(
        LADDER, game("g-boost", "mallory", "carol", played_at=NOW - DAY, mode="boosted")
    )
    service.submit_game(LADDER, game("g-in", "mallory", "dave", played_at=NOW - DAY))

    answer = sanction_and_refund(service, sanction(refund_days=7))

    assert sorted(refunds_of(answer)) == ["bob", "dave"]  # the window includes its first ms
    assert rating(service, "alice") == 1484
    assert rating(service, "carol") == 1500


def test_a_shorter_window_refunds_fewer_games(service: RatingService) -> None:
    service.submit_game(LADDER, game("g-1", "mallory", "alice", played_at=NOW - 3 * DAY))
    service.submit_game(LADDER, game("g-2", "mallory", "bob", played_at=NOW - HOUR))

    answer = sanction_and_refund(service, sanction(refund_days=1))

    assert refunds_of(answer) == {"bob": [("g-2", 16)]}
    assert answer["refund_window"] == {"from": ts(NOW - DAY), "to": ts(NOW + 5 * MINUTE)}


def test_refund_days_zero_takes_the_player_off_the_ladder_and_refunds_nothing(
    service: RatingService, storage: InMemoryStorage
) -> None:
    service.submit_game(LADDER, game("g-1", "mallory", "alice", played_at=NOW - HOUR))

    answer = sanction_and_refund(service, sanction(refund_days=0))

    assert (answer["status"], answer["refund_window"], answer["refunds"]) == ("done", None, [])
    assert rating(service, "alice") == 1484
    assert service.get_player(LADDER, "mallory")["sanctioned"] is True


def test_a_game_rated_before_the_sanction_but_stamped_just_after_it_is_refunded(
    service: RatingService,
) -> None:
    service.submit_game(LADDER, game("g-ahead", "mallory", "alice", played_at=NOW + 4 * MINUTE))

    answer = sanction_and_refund(service, sanction())

    assert refunds_of(answer) == {"alice": [("g-ahead", 16)]}


def test_a_later_game_with_the_cheater_is_unranked_so_nothing_to_refund(
    service: RatingService, clock: FixedClock
) -> None:
    service.submit_game(LADDER, game("g-1", "mallory", "alice", played_at=NOW - HOUR))
    service.sanction_player(LADDER, sanction())
    clock.advance(MINUTE)
    service.submit_game(LADDER, game("g-later", "mallory", "alice"))

    service.pay_refunds.run(LADDER, "s-1")
    answer = service.get_sanction(LADDER, "s-1")

    assert refunds_of(answer) == {"alice": [("g-1", 16)]}
    assert rating(service, "alice") == 1500
    assert history_adds_up(service, "alice")


def test_a_victim_who_is_sanctioned_too_or_provisional_gets_nothing_and_it_is_shown(
    service: RatingService,
) -> None:
    service.submit_game(LADDER, game("g-1", "mallory", "trudy", played_at=NOW - HOUR))
    service.sanction_player(LADDER, sanction("s-trudy", "trudy", refund_days=0))
    # classic: fewer than 30 ranked games is provisional.
    service.submit_game("classic", game("g-c", "mallory", "newbie", played_at=NOW - HOUR))

    backgammon = sanction_and_refund(service, sanction())
    classic = sanction_and_refund(service, sanction(), ladder="classic")

    assert backgammon["refunds"] == []
    assert backgammon["withheld"] == [
        {"game_id": "g-1", "played_at": ts(NOW - HOUR), "reason": "victim_sanctioned"}
    ]
    assert classic["withheld"] == [
        {"game_id": "g-c", "played_at": ts(NOW - HOUR), "reason": "provisional"}
    ]
    assert rating(service, "trudy") == 1484
    assert rating(service, "newbie", "classic") == 1184


def test_an_established_classic_victim_is_refunded(
    service: RatingService, storage: InMemoryStorage
) -> None:
    storage.states[("classic", "vet")] = Player("classic", "vet", 1200, ranked_games=40, version=1)
    service.submit_game("classic", game("g-c", "mallory", "vet", played_at=NOW - HOUR))
    lost = 1200 - rating(service, "vet", "classic")

    answer = sanction_and_refund(service, sanction(), ladder="classic")

    assert refunds_of(answer) == {"vet": [("g-c", lost)]}
    assert rating(service, "vet", "classic") == 1200


def test_a_victim_who_linked_their_anonymous_id_is_refunded_on_the_account(
    service: RatingService,
) -> None:
    service.submit_game(LADDER, game("g-1", "mallory", "anon-7", played_at=NOW - HOUR))
    service.link_identity({"anonymous_id": "anon-7", "account_id": "acct-7"})

    answer = sanction_and_refund(service, sanction())

    assert refunds_of(answer) == {"acct-7": [("g-1", 16)]}
    assert rating(service, "acct-7") == 1500
    assert rating(service, "anon-7") == 1500  # the anonymous id reads as its account


def test_sanctioning_a_linked_id_sanctions_the_account_and_refunds_both_ids_games(
    service: RatingService,
) -> None:
    service.submit_game(LADDER, game("g-a", "anon-m", "alice", played_at=NOW - 2 * HOUR))
    service.link_identity({"anonymous_id": "anon-m", "account_id": "mallory"})
    service.submit_game(LADDER, game("g-b", "mallory", "bob", played_at=NOW - HOUR))

    answer = sanction_and_refund(service, sanction(player_id="anon-m"))

    assert (answer["player_id"], answer["submitted_id"]) == ("mallory", "anon-m")
    assert refunds_of(answer) == {"alice": [("g-a", 16)], "bob": [("g-b", 16)]}
    assert service.get_player(LADDER, "mallory")["sanctioned"] is True
    assert (
        service.submit_game(LADDER, game("g-c", "anon-m", "carol")).result["unranked_reason"]
        == "sanctioned"
    )


def test_a_new_sanction_after_a_lift_refunds_only_games_after_the_first_window(
    service: RatingService, clock: FixedClock
) -> None:
    service.submit_game(LADDER, game("g-1", "mallory", "alice", played_at=NOW - HOUR))
    first = sanction_and_refund(service, sanction("s-1"))
    service.lift_sanction(LADDER, "s-1")
    clock.advance(DAY)
    service.submit_game(LADDER, game("g-2", "mallory", "bob", played_at=clock.now - HOUR))

    second = sanction_and_refund(service, sanction("s-2"))

    assert refunds_of(first) == {"alice": [("g-1", 16)]}
    assert refunds_of(second) == {"bob": [("g-2", 16)]}
    assert second["refund_window"]["from"] == ts(NOW + 5 * MINUTE + timedelta(milliseconds=1))
    assert rating(service, "alice") == 1500


# Once, whatever repeats -------------------------------------------------------------------


def test_running_the_refunds_again_pays_nothing_more(
    service: RatingService, storage: InMemoryStorage
) -> None:
    service.submit_game(LADDER, game("g-1", "mallory", "alice", played_at=NOW - HOUR))
    answer = sanction_and_refund(service, sanction())
    commits = storage.commits

    service.pay_refunds.run(LADDER, "s-1")
    service.sanction_player(LADDER, sanction())

    assert service.get_sanction(LADDER, "s-1") == answer
    assert storage.commits == commits
    assert rating(service, "alice") == 1500


def test_a_worker_that_dies_midway_through_a_step_resumes_and_pays_nothing_twice(
    service: RatingService, storage: InMemoryStorage, job_queue: RecordingJobQueue
) -> None:
    mallory_beats(service, [f"v{index}" for index in range(7)], apart=timedelta(0))
    service.sanction_player(LADDER, sanction())
    service.pay_refunds.games_per_step = 5
    die_at_commit(storage, 4)  # the step pays 3 refunds, then its worker stops

    (message,) = job_queue.take()
    with pytest.raises(WorkerStopped):
        service.run_job(json.loads(message.body()), Countdown(600))
    stopped = service.get_sanction(LADDER, "s-1")
    service.run_job(json.loads(message.body()), Countdown(600))  # SQS delivers it again

    assert (stopped["status"], len(stopped["refunds"])) == ("pending", 3)
    assert stopped["totals"]["refunds"] == 0  # counted by the step's save, which never came
    answer = service.get_sanction(LADDER, "s-1")
    assert sorted(refunds_of(answer)) == [f"v{index}" for index in range(7)]
    points = sum(refund["delta"] for refund in answer["refunds"])
    assert answer["totals"] == {"refunds": 7, "points": points, "withheld": 0}  # each once
    assert all(rating(service, f"v{index}") == 1500 for index in range(7))
    assert all(history_adds_up(service, f"v{index}") for index in range(7))


def test_two_workers_on_the_same_job_pay_once_and_the_overtaken_one_stops(
    service: RatingService, storage: InMemoryStorage, job_queue: RecordingJobQueue
) -> None:
    mallory_beats(service, ["alice"] * 4)
    service.sanction_player(LADDER, sanction())
    (message,) = job_queue.take()
    body = json.loads(message.body())
    other_runs: list[JobRun] = []

    def another_worker_gets_the_same_message() -> None:  # after the first read its page
        other_runs.append(service.run_job(body, Countdown(600)))

    storage.before_commit = another_worker_gets_the_same_message
    first = service.run_job(body, Countdown(600))

    assert first.superseded is True
    assert [(run.job.status, run.superseded) for run in other_runs] == [("done", False)]
    answer = service.get_sanction(LADDER, "s-1")
    assert [refund["game_id"] for refund in answer["refunds"]] == [f"g-{i}" for i in range(4)]
    assert rating(service, "alice") == 1500
    assert history_adds_up(service, "alice")


def test_the_worker_runs_the_refunds_from_the_queued_message_and_goes_on_when_time_is_short(
    service: RatingService, job_queue: RecordingJobQueue
) -> None:
    for index in range(60):
        at = NOW - DAY + index * MINUTE
        service.submit_game(LADDER, game(f"g-{index:02d}", "mallory", f"v{index}", played_at=at))
    made = service.sanction_player(LADDER, sanction())
    (message,) = job_queue.take()
    # 20 s left at first, 3 s less at each look, 15 s kept in reserve: two steps, then a
    # continuation.
    run = service.run_job(json.loads(message.body()), Countdown(20, per_call=3))

    assert made.result["status"] == "pending"
    assert (run.steps, run.continued) == (2, True)
    assert job_queue.take() == [message]  # the continuation names the same job
    assert len(service.get_sanction(LADDER, "s-1")["refunds"]) == 50
    done = service.run_job(json.loads(message.body()), Countdown(600))
    assert done.job.status == "done"
    assert len(service.get_sanction(LADDER, "s-1")["refunds"]) == 60


def test_a_sanction_is_recorded_even_when_its_job_cannot_be_queued_and_a_retry_queues_it(
    service: RatingService, job_queue: RecordingJobQueue
) -> None:
    job_queue.failing = True

    with pytest.raises(RetryLater):
        service.sanction_player(LADDER, sanction())
    assert service.get_player(LADDER, "mallory")["sanctioned"] is True
    job_queue.failing = False
    again = service.sanction_player(LADDER, sanction())

    assert again.result["status"] == "pending"
    assert [m.job_id for m in job_queue.take()] == ["backgammon#s-1"]


# Whatever runs at the same time ------------------------------------------------------------


def test_a_victim_playing_while_the_refund_is_paid_keeps_both_the_game_and_the_refund(
    service: RatingService, storage: InMemoryStorage
) -> None:
    service.submit_game(LADDER, game("g-1", "mallory", "alice", played_at=NOW - HOUR))
    service.sanction_player(LADDER, sanction())

    def alice_plays() -> None:  # between the refund's read of alice and its commit
        service.submit_game(LADDER, game("g-2", "alice", "bob", played_at=NOW - MINUTE))

    storage.before_commit = alice_plays
    service.pay_refunds.run(LADDER, "s-1")

    assert service.get_game(LADDER, "g-2")["players"][0]["rating_after"] == 1484 + 16
    assert rating(service, "alice") == 1484 + 16 + 16
    assert history_adds_up(service, "alice")
    assert service.retries >= 1


def test_victims_playing_on_other_threads_while_refunds_run_lose_nothing(
    service: RatingService, clock: FixedClock
) -> None:
    victims = [f"v{index}" for index in range(6)]

    errors = refund_while_victims_play(service, victims, rounds=3, games_per_step=4, games_each=10)

    assert errors == []
    answer = service.get_sanction(LADDER, "s-1")
    assert len(answer["refunds"]) == 18
    for victim in victims:
        assert history_adds_up(service, victim)


# Any size ---------------------------------------------------------------------------------


def test_a_cheater_with_a_thousand_games_in_the_window_is_handled_fully_in_bounded_steps(
    service: RatingService, storage: InMemoryStorage, job_queue: RecordingJobQueue
) -> None:
    for index in range(1000):
        victim = f"v{index % 250}"
        at = NOW - 6 * DAY + index * 8 * MINUTE
        winner = "mallory" if index % 5 else victim  # one game in five the victim wins
        service.submit_game(
            LADDER, game(f"g-{index:04d}", "mallory", victim, winner=winner, played_at=at)
        )
    service.sanction_player(LADDER, sanction())
    (message,) = job_queue.take()
    commits = storage.commits

    run = service.run_job(json.loads(message.body()), Countdown(600))

    pages = decision_pages(service, limit=1000)
    refunds = pages[0]["refunds"]
    assert (len(pages), len(refunds)) == (1, 800)  # one page of the largest size holds them
    assert pages[0]["totals"] == {
        "refunds": 800,
        "points": sum(refund["delta"] for refund in refunds),
        "withheld": 0,
    }
    assert run.steps == 1000 // 25  # the last page of 25 is the last: it finds no more
    assert storage.commits == commits + 800  # one commit per refund, nothing else
    assert all(history_adds_up(service, f"v{index}") for index in range(0, 250, 17))
    assert pages[0]["completed_at"] is not None
    # At the default size, eight pages list every refund once, in game id order.
    default_pages = decision_pages(service)
    assert [len(page["refunds"]) for page in default_pages] == [100] * 8
    assert decided_games(default_pages) == [refund["game_id"] for refund in refunds]
    assert decided_games(default_pages) == sorted(set(decided_games(default_pages)))


class WorkerStopped(Exception):
    """The worker's invocation ended here (a timeout, a crash)."""


def die_at_commit(storage: InMemoryStorage, number: int) -> None:
    """Make the `number`-th commit from now raise WorkerStopped before it stores anything."""
    count = 0

    def hook() -> None:
        nonlocal count
        count += 1
        if count == number:
            raise WorkerStopped
        storage.before_commit = hook

    storage.before_commit = hook


def test_the_worked_example_of_rules_md(service: RatingService) -> None:
    played = {
        "g-1": ("mallory", "bob", NOW - 10 * DAY),
        "g-2": ("mallory", "alice", NOW - 3 * DAY),
        "g-3": ("alice", "mallory", NOW - 2 * DAY),
        "g-4": ("mallory", "alice", NOW - DAY),
        "g-5": ("alice", "dave", NOW - 12 * HOUR),
        "g-6": ("mallory", "trudy", NOW - 6 * HOUR),
    }
    deltas = {}
    for game_id, (winner, loser, at) in played.items():
        result = service.submit_game(LADDER, game(game_id, winner, loser, played_at=at)).result
        deltas[game_id] = [(p["id"], p["rating_after"], p["delta"]) for p in result["players"]]
    service.sanction_player(LADDER, sanction("s-trudy", "trudy", refund_days=0))

    answer = sanction_and_refund(service, sanction(reason="engine use"))

    assert deltas["g-3"] == [("alice", 1501, 17), ("mallory", 1515, -17)]
    assert deltas["g-5"][0] == ("alice", 1501, 16)
    assert answer["refund_window"] == {
        "from": "2026-11-22T12:00:00.000Z",
        "to": "2026-11-29T12:05:00.000Z",
    }
    assert [(r["game_id"], r["delta"], r["rating_after"]) for r in answer["refunds"]] == [
        ("g-2", 16, 1517),
        ("g-4", 16, 1533),
    ]
    assert answer["withheld"] == [
        {"game_id": "g-6", "played_at": "2026-11-29T06:00:00.000Z", "reason": "victim_sanctioned"}
    ]
    assert [rating(service, p) for p in ("alice", "bob", "trudy", "mallory")] == [
        1533,
        1484,
        1484,
        1547,
    ]


# Teams and free-for-all ---------------------------------------------------------------------

TEAM_LADDERS = {
    # sedma: two sides of two, nobody provisional; classic free-for-all, nobody provisional
    # either (so every loss is paid), 2 to 8 sides of 1 to 8.
    "pairs": Ladder("pairs", Sedma(), sides=Span(2, 2), players_per_side=Span(2, 2)),
    "ffa": Ladder(
        "ffa", Classic(provisional_games=0), sides=Span(2, 8), players_per_side=Span(1, 8)
    ),
}


@pytest.fixture
def teams(
    storage: InMemoryStorage, clock: FixedClock, job_queue: RecordingJobQueue
) -> RatingService:
    return RatingService(
        storage,
        TEAM_LADDERS,
        clock=clock,
        retrier=Retrier(sleep=lambda seconds: None, rng=random.Random(7)),
        job_queue=job_queue,
    )


def sides_game(game_id: str, *places: Sequence[str], played_at: datetime = NOW - HOUR) -> Any:
    """A game sent as sides: each of `places` a side's players, placed 1, 2, ... in turn."""
    return {
        "game_id": game_id,
        "played_at": ts(played_at),
        "sides": [
            {"players": [{"id": pid} for pid in side], "place": place}
            for place, side in enumerate(places, start=1)
        ],
    }


def deltas(service: RatingService, ladder: str, game_id: str) -> dict[str, int]:
    return {p["id"]: p["delta"] for p in service.get_game(ladder, game_id)["players"]}


def adds_up(service: RatingService, ladder: str, player_id: str, start: int) -> bool:
    """Whether the player's rating is `start` plus every delta of their history."""
    events = service.get_history(ladder, player_id, limit=100)["events"]
    total = start + sum(event["delta"] for event in events)
    return bool(total == service.get_player(ladder, player_id)["rating"])


def test_a_team_game_refunds_each_opponent_who_lost_and_not_the_teammate(
    teams: RatingService,
) -> None:
    teams.submit_game("pairs", sides_game("p-1", ["mallory", "tom"], ["alice", "bob"]))
    lost = deltas(teams, "pairs", "p-1")

    answer = sanction_and_refund(teams, sanction(), "pairs")

    assert lost == {"mallory": 20, "tom": 20, "alice": -20, "bob": -20}
    assert refunds_of(answer) == {"alice": [("p-1", 20)], "bob": [("p-1", 20)]}
    assert answer["totals"] == {"refunds": 2, "points": 40, "withheld": 0}
    assert answer["withheld"] == []
    # The teammate keeps what the game gave them, and gets no event.
    assert rating(teams, "tom", "pairs") == 1020
    assert [e["type"] for e in teams.get_history("pairs", "tom")["events"]] == ["game"]
    for victim in ("alice", "bob"):
        assert rating(teams, victim, "pairs") == 1000
        assert adds_up(teams, "pairs", victim, 1000)


def test_each_victim_of_a_team_game_is_decided_apart_and_pages_list_them_one_by_one(
    teams: RatingService,
) -> None:
    # bob is sanctioned too: his loss stays lost, alice's is paid.
    teams.submit_game("pairs", sides_game("p-1", ["mallory", "tom"], ["alice", "bob"]))
    teams.sanction_player("pairs", sanction("s-b", "bob", refund_days=0))

    answer = sanction_and_refund(teams, sanction(), "pairs")
    pages = decision_pages(teams, limit=1, ladder="pairs")

    assert refunds_of(answer) == {"alice": [("p-1", 20)]}
    assert answer["withheld"] == [
        {"game_id": "p-1", "played_at": ts(NOW - HOUR), "reason": "victim_sanctioned"}
    ]
    assert answer["totals"] == {"refunds": 1, "points": 20, "withheld": 1}
    # One decision a page, by game then seat: alice's (seat 2), then bob's (seat 3).
    assert [(len(page["refunds"]), len(page["withheld"])) for page in pages] == [(1, 0), (0, 1)]


def test_a_free_for_all_refunds_every_player_below_who_lost_and_not_one_who_gained(
    teams: RatingService,
) -> None:
    teams.submit_game("ffa", sides_game("f-1", ["mallory"], ["carol"], ["alice"], ["bob"]))
    lost = deltas(teams, "ffa", "f-1")

    answer = sanction_and_refund(teams, sanction(), "ffa")

    # carol placed above two players: she gained, so nothing to refund or record.
    assert lost["carol"] > 0 > lost["alice"] > lost["bob"]
    assert refunds_of(answer) == {
        "alice": [("f-1", -lost["alice"])],
        "bob": [("f-1", -lost["bob"])],
    }
    assert answer["withheld"] == []
    assert rating(teams, "carol", "ffa") == 1200 + lost["carol"]
    assert [rating(teams, pid, "ffa") for pid in ("alice", "bob")] == [1200, 1200]


def test_a_one_against_one_game_sent_as_sides_is_refunded_as_before(
    teams: RatingService, storage: InMemoryStorage
) -> None:
    teams.submit_game("ffa", sides_game("f-1", ["mallory"], ["alice"]))

    answer = sanction_and_refund(teams, sanction(), "ffa")

    assert refunds_of(answer) == {"alice": [("f-1", 8)]}
    # Its decision is the game's alone, as every decision of a game of two has always been.
    assert list(storage.sanction_tables.decisions[("ffa", "s-1")]) == ["f-1"]


def test_a_step_decides_only_the_games_whose_victims_fit_its_budget(
    teams: RatingService, storage: InMemoryStorage, job_queue: RecordingJobQueue
) -> None:
    for number in range(5):
        at = NOW - HOUR + number * MINUTE
        body = sides_game(
            f"p-{number}", ["mallory", "tom"], [f"a{number}", f"b{number}"], played_at=at
        )
        teams.submit_game("pairs", body)
    teams.sanction_player("pairs", sanction())
    teams.pay_refunds.decisions_per_step = 5  # two games of two victims a step, not three
    (message,) = job_queue.take()
    commits = storage.commits

    run = teams.run_job(json.loads(message.body()), Countdown(600))

    assert run.steps == 3  # 2 games, 2 games, then the last one
    assert storage.commits == commits + 10  # one commit per refund
    answer = teams.get_sanction("pairs", "s-1")
    points = sum(refund["delta"] for refund in answer["refunds"])
    assert answer["totals"] == {"refunds": 10, "points": points, "withheld": 0}
    assert sorted(refunds_of(answer)) == sorted(
        [f"a{n}" for n in range(5)] + [f"b{n}" for n in range(5)]
    )


def test_a_worker_that_dies_midway_through_a_team_game_resumes_and_pays_nothing_twice(
    teams: RatingService, storage: InMemoryStorage, job_queue: RecordingJobQueue
) -> None:
    teams.submit_game("ffa", sides_game("f-1", ["mallory"], ["v1"], ["v2"], ["v3"], ["v4"]))
    teams.submit_game(
        "ffa", sides_game("f-2", ["mallory"], ["v1", "v2"], ["v3"], played_at=NOW - HOUR / 2)
    )
    lost = {gid: deltas(teams, "ffa", gid) for gid in ("f-1", "f-2")}
    before = {pid: rating(teams, pid, "ffa") for pid in ("v1", "v2", "v3", "v4")}
    teams.sanction_player("ffa", sanction())
    die_at_commit(storage, 3)  # two of f-1's four refunds paid, then the worker stops

    (message,) = job_queue.take()
    with pytest.raises(WorkerStopped):
        teams.run_job(json.loads(message.body()), Countdown(600))
    stopped = teams.get_sanction("ffa", "s-1")
    teams.run_job(json.loads(message.body()), Countdown(600))  # SQS delivers it again

    assert (stopped["status"], len(stopped["refunds"])) == ("pending", 2)
    answer = teams.get_sanction("ffa", "s-1")
    expected = sorted(
        (pid, gid, -delta)
        for gid, game_deltas in lost.items()
        for pid, delta in game_deltas.items()
        if pid != "mallory" and delta < 0
    )
    assert sorted((r["player_id"], r["game_id"], r["delta"]) for r in answer["refunds"]) == expected
    points = sum(points for _pid, _gid, points in expected)
    assert answer["totals"] == {"refunds": len(expected), "points": points, "withheld": 0}
    for pid, rating_before in before.items():
        paid = sum(points for victim, _gid, points in expected if victim == pid)
        assert rating(teams, pid, "ffa") == rating_before + paid
        assert adds_up(teams, "ffa", pid, 1200)


def test_two_workers_on_a_team_games_job_pay_each_victim_once(
    teams: RatingService, storage: InMemoryStorage, job_queue: RecordingJobQueue
) -> None:
    teams.submit_game("pairs", sides_game("p-1", ["mallory", "tom"], ["alice", "bob"]))
    teams.submit_game(
        "pairs", sides_game("p-2", ["mallory", "tom"], ["alice", "bob"], played_at=NOW - HOUR / 2)
    )
    teams.sanction_player("pairs", sanction())
    (message,) = job_queue.take()
    body = json.loads(message.body())
    other_runs: list[JobRun] = []

    def another_worker_gets_the_same_message() -> None:  # after the first read its page
        other_runs.append(teams.run_job(body, Countdown(600)))

    storage.before_commit = another_worker_gets_the_same_message
    first = teams.run_job(body, Countdown(600))

    assert first.superseded is True
    assert [(run.job.status, run.superseded) for run in other_runs] == [("done", False)]
    answer = teams.get_sanction("pairs", "s-1")
    paid = sorted((r["game_id"], r["player_id"]) for r in answer["refunds"])
    assert paid == [("p-1", "alice"), ("p-1", "bob"), ("p-2", "alice"), ("p-2", "bob")]
    assert answer["totals"]["refunds"] == 4
    assert [rating(teams, pid, "pairs") for pid in ("alice", "bob")] == [1000, 1000]
    assert all(adds_up(teams, "pairs", pid, 1000) for pid in ("alice", "bob"))
