"""Seasons on the in-memory fake: the current season from the schedule and the operators'
starts, a player's reset and frozen standing when they next play (nothing written at the
boundary), season boards kept as they stood, the edges of issue "Seasons", and erased players
kept on the boards of ended seasons under their pseudonyms."""

import json
import random
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from support.erasure import crash_after_writes_with_standings, erase, mentions, work_jobs
from support.games import FixedClock, game, ts
from support.jobs import Countdown, RecordingJobQueue

from ratings.rules import Classic, Gammon42, InvalidInput, Ladder
from ratings.rules.model import round_half_away
from ratings.rules.seasons import Reset, SeasonPlan
from ratings.service.errors import NotFound, NotRanked, SeasonConflict
from ratings.service.facade import RatingService
from ratings.service.unit_of_work import Retrier
from ratings.storage.memory import InMemoryStorage

NOV = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
DEC_1 = datetime(2026, 12, 1, tzinfo=UTC)
JAN_1 = datetime(2027, 1, 1, tzinfo=UTC)

LADDERS = {
    # classic starts at 1200: a soft reset toward 1200 halves the distance.
    "monthly": Ladder(
        "monthly", Classic(), season=SeasonPlan("monthly", Reset("soft"), 1, "2026-11")
    ),
    "hard": Ladder("hard", Classic(), season=SeasonPlan("monthly", Reset("hard"), 1, "2026-11")),
    "picky": Ladder("picky", Classic(), season=SeasonPlan("weekly", Reset(), 2, "2026-W47")),
    "endless": Ladder("endless", Classic()),
    # gammon42 (never provisional, a 7-day window), starting at 1500.
    "bg-monthly": Ladder(
        "bg-monthly", Gammon42(), season=SeasonPlan("monthly", Reset("soft"), 1, "2026-11")
    ),
    "bg-weekly": Ladder(
        "bg-weekly", Gammon42(), season=SeasonPlan("weekly", Reset("hard"), 1, "2026-W47")
    ),
}


@pytest.fixture
def clock() -> FixedClock:
    return FixedClock(NOV)


@pytest.fixture
def service(
    storage: InMemoryStorage, clock: FixedClock, job_queue: RecordingJobQueue
) -> RatingService:
    return RatingService(
        storage,
        LADDERS,
        clock=clock,
        retrier=Retrier(sleep=lambda seconds: None, rng=random.Random(5)),
        job_queue=job_queue,
    )


def play(service: RatingService, ladder: str, a: str, b: str, **extra: Any) -> dict[str, Any]:
    return service.submit_game(ladder, game(None, a, b, **extra)).result


def board(service: RatingService, ladder: str, season_id: str | None = None) -> list[Any]:
    if season_id is None:
        page = service.get_leaderboard(ladder)
    else:
        page = service.get_season_leaderboard(ladder, season_id)
    return [(e["rank"], e["player_id"], e["rating"], e["ranked_games"]) for e in page["entries"]]


def rating(service: RatingService, ladder: str, player_id: str) -> int:
    value: int = service.get_player(ladder, player_id)["rating"]
    return value


def soft(old: int) -> int:
    """classic's soft reset: toward 1200 by half, halves away from zero."""
    return round_half_away(1200 + (old - 1200) * 0.5)


def november(service: RatingService) -> None:
    """alice beats bob twice, carol beats dave once, all in November."""
    play(service, "monthly", "alice", "bob")
    play(service, "monthly", "alice", "bob")
    play(service, "monthly", "carol", "dave")


def test_the_reset_shows_from_the_first_instant_and_nothing_is_written_at_the_boundary(
    service: RatingService, storage: InMemoryStorage, clock: FixedClock
) -> None:
    november(service)
    before = {pid: rating(service, "monthly", pid) for pid in ("alice", "bob", "carol")}
    november_board = board(service, "monthly")
    commits = storage.commits

    clock.set(DEC_1)

    assert {pid: rating(service, "monthly", pid) for pid in before} == {
        pid: soft(old) for pid, old in before.items()
    }
    assert board(service, "monthly") == []  # the new season's board starts empty
    assert board(service, "monthly", "2026-11") == november_board  # the old one, as it stood
    assert service.get_player("monthly", "alice")["season"] == {
        "season_id": "2026-12",
        "ranked_games": 0,
        "eligible": False,
    }
    assert service.get_player("monthly", "alice")["ranked_games"] == 2  # counters carry on
    assert storage.commits == commits  # reads wrote nothing


def test_the_first_game_of_a_season_stores_the_reset_and_freezes_the_standing(
    service: RatingService, storage: InMemoryStorage, clock: FixedClock
) -> None:
    november(service)
    november_board = board(service, "monthly")
    alice_before = rating(service, "monthly", "alice")
    clock.set(DEC_1 + timedelta(hours=1))
    reset = rating(service, "monthly", "alice")

    result = play(service, "monthly", "alice", "carol")

    assert result["players"][0]["rating_before"] == reset
    assert ("monthly", "alice", "2026-11") in storage.frozen
    history = service.get_history("monthly", "alice")["events"]
    resets = [event for event in history if event["type"] == "season_reset"]
    assert resets == [
        {
            "type": "season_reset",
            "season_id": "2026-12",
            "at": ts(DEC_1),
            "delta": reset - alice_before,
            "rating_after": reset,
        }
    ]
    # The old board is frozen: later games change nothing in it.
    play(service, "monthly", "bob", "alice")
    assert board(service, "monthly", "2026-11") == november_board
    assert {row[1] for row in board(service, "monthly")} == {"alice", "bob", "carol"}
    seasons = service.get_player_seasons("monthly", "alice")["seasons"]
    assert [(s["season_id"], s["rank"], s["rating"], s["ranked_games"]) for s in seasons] == [
        ("2026-11", 1, alice_before, 2)
    ]


def test_a_game_played_before_the_season_began_is_season_ended_and_its_retry_the_same(
    service: RatingService, clock: FixedClock
) -> None:
    november(service)
    clock.set(DEC_1 + timedelta(hours=2))
    body = game("late-1", "alice", "bob", played_at=DEC_1 - timedelta(minutes=5))

    first = service.submit_game("monthly", body)
    again = service.submit_game("monthly", body)

    assert first.result["ranked"] is False
    assert first.result["unranked_reason"] == "season_ended"
    assert again.created is False
    assert again.result == first.result
    assert board(service, "monthly") == []


def test_seasons_missed_reset_once(service: RatingService, clock: FixedClock) -> None:
    play(service, "hard", "alice", "bob")
    play(service, "monthly", "alice", "bob")
    november_rating = rating(service, "monthly", "alice")
    clock.set(datetime(2027, 3, 10, tzinfo=UTC))  # December, January, February missed

    play(service, "monthly", "alice", "carol", played_at=datetime(2027, 3, 9, tzinfo=UTC))

    history = service.get_history("monthly", "alice")["events"]
    resets = [event for event in history if event["type"] == "season_reset"]
    assert len(resets) == 1
    assert resets[0]["season_id"] == "2027-03"
    assert resets[0]["rating_after"] - resets[0]["delta"] == november_rating
    standings = service.get_player_seasons("monthly", "alice")["seasons"]
    assert [s["season_id"] for s in standings] == ["2026-11"]
    # A hard reset: back to the starting rating.
    assert rating(service, "hard", "alice") == 1200


def test_min_games_keeps_a_player_off_the_season_board(
    service: RatingService, clock: FixedClock
) -> None:
    play(service, "picky", "alice", "bob")
    assert board(service, "picky") == []
    assert service.get_player("picky", "alice")["standing"] is None
    assert service.get_player("picky", "alice")["season"]["eligible"] is False
    with pytest.raises(NotRanked):
        service.get_leaderboard("picky", around="alice")

    play(service, "picky", "alice", "bob")

    assert [row[1] for row in board(service, "picky")] == ["alice", "bob"]
    assert service.get_player("picky", "alice")["season"] == {
        "season_id": "2026-W47",
        "ranked_games": 2,
        "eligible": True,
    }


def test_an_operator_starts_a_season_once(service: RatingService, clock: FixedClock) -> None:
    november(service)
    body = {"season_id": "launch-week", "reset": {"kind": "hard"}}

    started = service.start_season("monthly", body)
    again = service.start_season("monthly", body)

    assert started.created is True
    assert again.created is False
    assert again.result == started.result
    assert started.result["season_id"] == "launch-week"
    assert started.result["starts_at"] == ts(NOV + timedelta(seconds=2))
    assert started.result["ends_at"] == ts(DEC_1)  # the schedule's next boundary ends it
    with pytest.raises(SeasonConflict):
        service.start_season("monthly", {"season_id": "launch-week"})
    # Until it begins, the ladder's season says when the current one ends.
    ladders = {entry["id"]: entry for entry in service.ladders()["ladders"]}
    assert ladders["monthly"]["season"]["season_id"] == "2026-11"
    assert ladders["monthly"]["season"]["ends_at"] == ts(NOV + timedelta(seconds=2))

    clock.advance(timedelta(seconds=2))

    assert rating(service, "monthly", "alice") == 1200  # the operator's hard reset
    ladders = {entry["id"]: entry for entry in service.ladders()["ladders"]}
    assert ladders["monthly"]["season"]["season_id"] == "launch-week"
    listed = service.list_seasons("monthly")["seasons"]
    assert [(s["season_id"], s["status"]) for s in listed] == [
        ("launch-week", "active"),
        ("2026-11", "ended"),
        ("all-time", "ended"),
    ]
    # At the boundary the schedule takes over again.
    clock.set(DEC_1)
    assert service.ladders()["ladders"][0]["season"]["season_id"] == "2026-12"


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"season_id": "2026-12"}, "season_id"),
        ({"season_id": "all-time"}, "season_id"),
        ({"season_id": "Launch Week"}, "season_id"),
        ({}, "season_id"),
        ({"season_id": "x", "reset": {"kind": "soft", "squish": 1.5}}, "reset.squish"),
        ({"season_id": "x", "reset": {"kind": "soft", "target": 0}}, "reset.target"),
        ({"season_id": "x", "reset": {"kind": "hard", "squish": 0.5}}, "reset.squish"),
        ({"season_id": "x", "reset": {"kind": "gentle"}}, "reset.kind"),
        ({"season_id": "x", "when": "now"}, "when"),
        ([], "body"),
    ],
)
def test_a_bad_season_start_is_refused_and_changes_nothing(
    service: RatingService, storage: InMemoryStorage, body: Any, field: str
) -> None:
    with pytest.raises(InvalidInput) as refused:
        service.start_season("monthly", body)

    assert refused.value.field == field
    assert storage.season_starts == {}


def test_an_unknown_or_malformed_season_is_refused(service: RatingService) -> None:
    with pytest.raises(NotFound):
        service.get_season("monthly", "2027-05")  # not begun
    with pytest.raises(NotFound):
        service.get_season("monthly", "2026-10")  # before the first scheduled season
    with pytest.raises(NotFound):
        service.get_season_leaderboard("monthly", "nope")
    with pytest.raises(InvalidInput):
        service.get_season("monthly", "no way!")
    assert service.get_season("monthly", "2026-11")["status"] == "active"
    assert service.get_season("monthly", "all-time")["ends_at"] == ts(
        datetime(2026, 11, 1, tzinfo=UTC)
    )


def test_seasons_are_listed_newest_first_page_by_page(
    service: RatingService, clock: FixedClock
) -> None:
    clock.set(datetime(2027, 2, 3, tzinfo=UTC))
    pages, cursor = [], None
    while True:
        page = service.list_seasons("picky", limit=2, cursor=cursor)
        pages.append([s["season_id"] for s in page["seasons"]])
        cursor = page["next_cursor"]
        if cursor is None:
            break

    listed = [season for page in pages for season in page]
    assert listed[:3] == ["2027-W05", "2027-W04", "2027-W03"]
    assert listed[-2:] == ["2026-W47", "all-time"]
    # From 2026-W47 to 2027-W05: 2026 has 53 ISO weeks.
    assert len(listed) == len(set(listed)) == 12 + 1
    assert "2026-W53" in listed
    assert all(len(page) == 2 for page in pages[:-1])
    assert len(pages[-1]) == 1


def test_a_ladder_without_a_schedule_stays_in_one_endless_season(
    service: RatingService, clock: FixedClock
) -> None:
    play(service, "endless", "alice", "bob")
    clock.set(datetime(2028, 1, 1, tzinfo=UTC))

    assert [row[1] for row in board(service, "endless")] == ["alice", "bob"]
    assert service.list_seasons("endless")["seasons"] == [
        {
            "season_id": "all-time",
            "starts_at": None,
            "ends_at": None,
            "reset": {"kind": "none", "target": None, "squish": None},
            "min_games": 1,
            "status": "active",
        }
    ]


def test_a_sanctioned_player_is_hidden_from_past_standings_while_sanctioned(
    service: RatingService, clock: FixedClock
) -> None:
    november(service)
    november_board = board(service, "monthly")
    clock.set(DEC_1 + timedelta(hours=1))
    play(service, "monthly", "alice", "bob")  # alice's November standing is frozen now

    service.sanction_player(
        "monthly", {"sanction_id": "s-1", "player_id": "alice", "reason": "cheating"}
    )
    service.sanction_player(
        "monthly", {"sanction_id": "s-2", "player_id": "carol", "reason": "cheating"}
    )

    # alice (frozen) and carol (still in November's state) are both left out; ranks close up.
    left = [row for row in november_board if row[1] not in ("alice", "carol")]
    assert [row[1] for row in left] == ["dave", "bob"]
    assert board(service, "monthly", "2026-11") == [
        (rank, *row[1:]) for rank, row in enumerate(left, start=1)
    ]
    assert service.get_player_seasons("monthly", "alice")["seasons"] == []

    service.lift_sanction("monthly", "s-1")

    assert [row[1] for row in board(service, "monthly", "2026-11")] == ["alice", "dave", "bob"]
    assert board(service, "monthly", "2026-11")[0] == november_board[0]


def test_a_podium_of_an_ended_season_pays_nothing(
    service: RatingService, clock: FixedClock
) -> None:
    clock.set(DEC_1 + timedelta(hours=1))
    body = {
        "tournament_id": "t-1",
        "ladder": "monthly",
        "finished_at": ts(DEC_1 - timedelta(hours=1)),
        "public": True,
        "podium": [{"place": 1, "player_id": "alice"}],
    }

    done = service.award_podium(body).result

    assert done["status"] == "season_ended"
    assert done["awards"][0]["delta"] == 0
    assert rating(service, "monthly", "alice") == 1200


def test_an_anonymous_id_linked_in_a_later_season_brings_its_reset_rating(
    service: RatingService, clock: FixedClock
) -> None:
    play(service, "monthly", "anon-1", "bob")
    november_rating = rating(service, "monthly", "anon-1")
    clock.set(DEC_1 + timedelta(hours=1))

    service.link_identity({"anonymous_id": "anon-1", "account_id": "acct-1"})

    reset = soft(november_rating)
    assert rating(service, "monthly", "acct-1") == reset
    assert rating(service, "monthly", "anon-1") == reset  # resolves to the account
    # anon-1's November standing stays under its own id.
    assert [row[1] for row in board(service, "monthly", "2026-11")] == ["anon-1", "bob"]


def test_a_season_start_during_a_game_rates_it_before_the_start(
    service: RatingService, storage: InMemoryStorage, clock: FixedClock
) -> None:
    november(service)
    alice = rating(service, "monthly", "alice")
    service.start_season("monthly", {"season_id": "special"})

    def start_meanwhile() -> None:
        clock.advance(timedelta(seconds=3))  # the season has begun when the game commits

    storage.before_commit = start_meanwhile
    result = play(service, "monthly", "alice", "bob")

    # The attempt read before the start: the game counts in November, and the reset comes
    # after it, at alice's next read.
    assert result["players"][0]["rating_before"] == alice
    after_game = result["players"][0]["rating_after"]
    assert rating(service, "monthly", "alice") == soft(after_game)
    november_board = board(service, "monthly", "2026-11")
    assert ("alice" in [row[1] for row in november_board]) is True
    assert next(row for row in november_board if row[1] == "alice")[2] == after_game


def test_an_ended_seasons_size_is_counted_once_after_it_settles(
    service: RatingService, clock: FixedClock
) -> None:
    november(service)
    service.refresh_standings("monthly")
    assert service.get_season("monthly", "2026-11")["players"] == 4
    clock.set(DEC_1 + timedelta(minutes=1))
    play(service, "monthly", "alice", "bob")  # both leave November (frozen there)
    service.refresh_standings("monthly")
    assert service.get_season("monthly", "2026-12")["players"] == 2

    clock.set(DEC_1 + timedelta(minutes=10))
    service.refresh_standings("monthly")

    ended = service.get_season("monthly", "2026-11")
    assert ended["status"] == "ended"
    assert ended["players"] == 4  # two frozen, two still in November's states
    standings = service.get_player_seasons("monthly", "carol")["seasons"]
    assert [(s["season_id"], s["of"]) for s in standings] == [("2026-11", 4)]


def november_then_december(service: RatingService, clock: FixedClock) -> list[Any]:
    """November (alice beats bob three times, carol beats dave), then December: alice plays
    again (her November standing frozen), bob does not (his state still in November). The
    November board as it stood."""
    november(service)
    service.submit_game("monthly", game("g-nov", "alice", "bob"))
    november_board = board(service, "monthly", "2026-11")
    assert [row[1] for row in november_board] == ["alice", "carol", "dave", "bob"]
    clock.set(DEC_1 + timedelta(hours=1))
    service.submit_game("monthly", game("g-dec", "alice", "erin"))
    return november_board


def pseudonyms(service: RatingService) -> dict[str, str]:
    """alice's and bob's pseudonyms, as their games name them once erased."""
    alice = service.get_game("monthly", "g-dec")["players"][0]["id"]
    bob = service.get_game("monthly", "g-nov")["players"][1]["id"]
    assert alice.startswith("erased-")
    assert bob.startswith("erased-")
    assert alice != bob
    return {"alice": alice, "bob": bob}


def test_erased_players_keep_their_final_standings_in_ended_seasons_under_pseudonyms(
    service: RatingService,
    storage: InMemoryStorage,
    clock: FixedClock,
    job_queue: RecordingJobQueue,
) -> None:
    november_board = november_then_december(service, clock)
    assert ("monthly", "alice", "2026-11") in storage.frozen
    assert ("monthly", "bob", "2026-11") not in storage.frozen

    for player_id in ("alice", "bob"):
        assert erase(service, job_queue, player_id)["status"] == "done"

    names = pseudonyms(service)
    # The same ranks, ratings and games, under the pseudonyms; nothing under the ids.
    assert board(service, "monthly", "2026-11") == [
        (rank, names.get(pid, pid), *rest) for rank, pid, *rest in november_board
    ]
    for player_id, pseudonym in names.items():
        assert service.get_player_seasons("monthly", player_id)["seasons"] == []
        (standing,) = service.get_player_seasons("monthly", pseudonym)["seasons"]
        rank, _, rating_then, games_then = next(r for r in november_board if r[1] == player_id)
        assert (standing["season_id"], standing["rank"], standing["rating"]) == (
            "2026-11",
            rank,
            rating_then,
        )
        assert standing["ranked_games"] == games_then
    # From the live board they are gone, under either name.
    assert [row[1] for row in board(service, "monthly")] == ["erin"]
    assert mentions(storage, "alice", "bob") == []


def test_a_sanctioned_players_standings_stay_hidden_under_the_pseudonyms_until_lifted(
    service: RatingService,
    storage: InMemoryStorage,
    clock: FixedClock,
    job_queue: RecordingJobQueue,
) -> None:
    november_board = november_then_december(service, clock)
    for number, player_id in enumerate(("alice", "bob")):
        sanction = {"sanction_id": f"s-{number}", "player_id": player_id, "reason": "cheating"}
        service.sanction_player("monthly", sanction)
    work_jobs(service, job_queue)  # the refunds

    for player_id in ("alice", "bob"):
        erase(service, job_queue, player_id)

    names = pseudonyms(service)
    assert [row[1] for row in board(service, "monthly", "2026-11")] == ["carol", "dave"]
    hidden = {standing.player_id for standing in storage.frozen.values() if standing.hidden}
    assert hidden == set(names.values())
    assert mentions(storage, "alice", "bob") == []

    # The sanctions name the pseudonyms now: lifted, they show the standings again.
    for number in range(2):
        service.lift_sanction("monthly", f"s-{number}")

    assert board(service, "monthly", "2026-11") == [
        (rank, names.get(pid, pid), *rest) for rank, pid, *rest in november_board
    ]


def test_an_erasure_redone_after_a_crash_keeps_each_standing_once(
    service: RatingService,
    storage: InMemoryStorage,
    clock: FixedClock,
    job_queue: RecordingJobQueue,
) -> None:
    november_board = november_then_december(service, clock)
    crashed = crash_after_writes_with_standings(storage)
    for player_id in ("alice", "bob"):
        service.request_erasure(player_id)
        while job_queue.sent:
            try:
                work_jobs(service, job_queue)
            except RuntimeError:
                service.request_erasure(player_id)  # the message comes back

    # alice's frozen standing moved by a page, bob's state's left by the last step: each
    # write was made, its step redone, and each standing is there once.
    assert crashed == [["2026-11"], ["2026-11"]]
    names = pseudonyms(service)
    assert board(service, "monthly", "2026-11") == [
        (rank, names.get(pid, pid), *rest) for rank, pid, *rest in november_board
    ]
    erased = [key for key in storage.frozen if key[1].startswith("erased-")]
    assert sorted(erased) == sorted(("monthly", pid, "2026-11") for pid in names.values())
    assert mentions(storage, "alice", "bob") == []


def test_a_refund_after_the_season_ended_goes_into_the_current_rating(
    service: RatingService, clock: FixedClock, job_queue: RecordingJobQueue
) -> None:
    # mallory beats bob in November; bob does not play again.
    play(service, "bg-monthly", "mallory", "bob")
    play(service, "bg-monthly", "carol", "dave")
    november_board = board(service, "bg-monthly")
    bob_lost = 1500 - rating(service, "bg-monthly", "bob")
    clock.set(DEC_1 + timedelta(hours=1))
    reset = rating(service, "bg-monthly", "bob")

    service.sanction_player(
        "bg-monthly",
        {"sanction_id": "s-1", "player_id": "mallory", "reason": "cheating", "refund_days": 30},
    )
    for message in job_queue.take():
        service.run_job(json.loads(message.body()), Countdown(600))

    assert service.get_sanction("bg-monthly", "s-1")["status"] == "done"
    assert rating(service, "bg-monthly", "bob") == reset + bob_lost  # the current rating
    # November's standings are as they stood: bob at his November rating, mallory left out.
    assert board(service, "bg-monthly", "2026-11") == [
        (rank, *row[1:])
        for rank, row in enumerate((row for row in november_board if row[1] != "mallory"), start=1)
    ]


def test_the_seven_day_window_and_ranked_games_carry_across_seasons(
    service: RatingService, clock: FixedClock
) -> None:
    clock.set(datetime(2026, 11, 22, 12, tzinfo=UTC))  # Sunday of 2026-W47
    for _ in range(3):
        play(service, "bg-weekly", "alice", "bob")
    before = service.get_player("bg-weekly", "alice")
    clock.set(datetime(2026, 11, 23, 1, tzinfo=UTC))  # Monday: 2026-W48, a hard reset

    after = service.get_player("bg-weekly", "alice")

    assert after["rating"] == 1500  # gammon42's starting rating
    assert before["rating"] != 1500
    assert after["recent_ranked_games"] == before["recent_ranked_games"] == 3
    assert after["k"] == before["k"] == 32
    assert after["ranked_games"] == before["ranked_games"] == 3
    assert after["season"] == {"season_id": "2026-W48", "ranked_games": 0, "eligible": False}


def test_an_operator_start_racing_the_schedule_and_another_start(
    service: RatingService, storage: InMemoryStorage, clock: FixedClock
) -> None:
    clock.set(DEC_1 - timedelta(seconds=1))  # the schedule's boundary is 1 s away
    store = storage.seasons
    save = store.save_starts
    raced: list[str] = []

    def another_start_first(ladder: str, starts: Any) -> None:
        if not raced:  # another operator's start lands between this one's read and save
            raced.append("other")
            service.start_season("monthly", {"season_id": "other"})
        save(ladder, starts)

    store.save_starts = another_start_first  # type: ignore[method-assign]
    started = service.start_season("monthly", {"season_id": "mine"})
    store.save_starts = save  # type: ignore[method-assign]

    other = next(s for s in storage.season_starts["monthly"].starts if s.season_id == "other")
    assert started.created is True
    assert [s.season_id for s in storage.season_starts["monthly"].starts] == ["other", "mine"]
    assert started.result["starts_at"] == ts(other.starts_at + timedelta(milliseconds=1))
    clock.set(DEC_1 + timedelta(seconds=5))
    listed = [(s["season_id"], s["starts_at"]) for s in service.list_seasons("monthly")["seasons"]]
    # The schedule's December began first, the operators' seasons a second later, in order.
    assert listed[:4] == [
        ("mine", ts(DEC_1 + timedelta(seconds=1, milliseconds=1))),
        ("other", ts(DEC_1 + timedelta(seconds=1))),
        ("2026-12", ts(DEC_1)),
        ("2026-11", ts(datetime(2026, 11, 1, tzinfo=UTC))),
    ]


def test_a_players_past_standings_come_a_page_at_a_time(
    service: RatingService, clock: FixedClock
) -> None:
    months = [datetime(2026, month, 15, tzinfo=UTC) for month in (11, 12)]
    months += [datetime(2027, month, 15, tzinfo=UTC) for month in (1, 2, 3)]
    for at in months:
        clock.set(at)
        play(service, "monthly", "alice", "bob")

    pages, cursor = [], None
    while True:
        page = service.get_player_seasons("monthly", "alice", limit=2, cursor=cursor)
        pages.append([(s["season_id"], s["rank"]) for s in page["seasons"]])
        cursor = page["next_cursor"]
        if cursor is None:
            break

    # March is running: the four months before it ended, alice first in each.
    assert pages == [[("2027-02", 1), ("2027-01", 1)], [("2026-12", 1), ("2026-11", 1)]]
    with pytest.raises(InvalidInput):
        service.get_player_seasons("monthly", "bob", cursor=page_cursor(service))


def page_cursor(service: RatingService) -> str:
    """A cursor of alice's past standings (another player's listing refuses it)."""
    cursor: str = service.get_player_seasons("monthly", "alice", limit=1)["next_cursor"]
    return cursor
