"""The sanctions port on every storage: one sanction scenario answered alike by the fake and
DynamoDB, the window's ends and pages, each commit's conditions (nothing stored when one
fails), a sanction's decisions a page at a time, what lands in the table, a victim's
concurrent game, and the requests a step and a page send."""

import random
from collections.abc import Iterator
from datetime import datetime, timedelta
from typing import Any

import pytest
from support.dynamodb import RequestCounter, raw_items
from support.engines import ratings_table, running_engine
from support.erasure import work_jobs
from support.games import DAY, HOUR, MINUTE, MS, NOW, FixedClock, game
from support.jobs import RecordingJobQueue
from support.sanctions import (
    decided_games,
    decision_pages,
    mallory_beats,
    refund_while_victims_play,
    sanction,
)
from support.services import answers_alike, rating_service

from ratings.declare.answers import format_utc_millis
from ratings.rules import Classic, Ladder, Sedma
from ratings.rules.ladders import Span
from ratings.rules.refunds import Window
from ratings.service.errors import AlreadyStored, ServiceError, WriteConflict
from ratings.service.facade import RatingService
from ratings.service.player import Player
from ratings.service.ports import Storage
from ratings.service.sanction_records import RefundDecision, RefundProgress, Sanction
from ratings.service.stored import PlayerEvent, StoredGame
from ratings.service.unit_of_work import Retrier
from ratings.storage.dynamodb import DynamoStorage
from ratings.storage.dynamodb.sanctions import DynamoSanctions

LADDER = "backgammon"
SECOND = timedelta(seconds=1)


def sanction_scenario(storage: Storage) -> dict[str, Any]:
    """Every answer of a sanction's life, on `storage`: the contract the adapters share."""
    clock = FixedClock()
    service = rating_service(storage, clock)
    service.pay_refunds.games_per_step = 2
    out: dict[str, Any] = {}

    def call(label: str, use_case: Any, *args: Any) -> None:
        try:
            answer = use_case(*args)
        except ServiceError as error:
            out[label] = {"error": error.code}
            return
        out[label] = answer.result if hasattr(answer, "result") else answer

    def submit(game_id: str, a: str, b: str, at: Any, **extra: Any) -> None:
        call(game_id, service.submit_game, LADDER, game(game_id, a, b, played_at=at, **extra))

    submit("g-old", "mallory", "alice", NOW - 9 * DAY)
    submit("g-1", "mallory", "alice", NOW - 3 * DAY)
    submit("g-2", "alice", "mallory", NOW - 2 * DAY)  # alice wins one
    submit("g-3", "mallory", "alice", NOW - DAY)
    submit("g-4", "mallory", "bob", NOW - DAY, mode="boosted")
    submit("g-5", "mallory", "anon-c", NOW - HOUR)
    call("link", service.link_identity, {"anonymous_id": "anon-c", "account_id": "carol"})
    submit("g-6", "mallory", "trudy", NOW - HOUR)
    call("trudy", service.sanction_player, LADDER, sanction("s-t", "trudy", refund_days=0))
    for number in range(5):
        submit(f"g-d{number}", "mallory", "dave", NOW - HOUR + number * MINUTE)
    call("board-before", service.get_leaderboard, LADDER)
    call("made", service.sanction_player, LADDER, sanction())
    call("again", service.sanction_player, LADDER, sanction())
    call("conflict", service.sanction_player, LADDER, sanction(refund_days=3))
    call("second", service.sanction_player, LADDER, sanction("s-2"))
    clock.advance(MINUTE)
    call("later", service.submit_game, LADDER, game("g-later", "alice", "mallory"))
    jobs = storage.jobs
    for step in range(8):
        job = jobs.get_job("sanction", "backgammon#s-1")
        assert job is not None
        if job.pending:
            job = service.pay_refunds.step(job)
            jobs.save_job(job)
        out[f"step-{step}"] = (job.status, job.progress, job.progress_version)
    call("answer", service.get_sanction, LADDER, "s-1")
    call("board-after", service.get_leaderboard, LADDER)
    for player_id in ("mallory", "alice", "carol", "dave", "trudy"):
        call(f"player-{player_id}", service.get_player, LADDER, player_id)
        call(f"history-{player_id}", service.get_history, LADDER, player_id)
    clock.advance(HOUR)
    call("lift", service.lift_sanction, LADDER, "s-1")
    call("lift-again", service.lift_sanction, LADDER, "s-1")
    call("board-lifted", service.get_leaderboard, LADDER)
    call("missing", service.get_sanction, LADDER, "s-nope")
    return out


def test_the_sanction_scenario_answers_alike_on_every_storage(any_storage: Storage) -> None:
    answers = answers_alike(sanction_scenario, any_storage)

    # A few absolute facts, so the comparison is not between two wrong answers.
    paid = {(r["player_id"], r["game_id"]): r["delta"] for r in answers["answer"]["refunds"]}
    assert set(paid) == {
        ("alice", "g-1"),
        ("alice", "g-3"),
        ("carol", "g-5"),
        *(("dave", f"g-d{n}") for n in range(5)),
    }
    assert answers["answer"]["withheld"] == [
        {"game_id": "g-6", "played_at": answers["g-6"]["played_at"], "reason": "victim_sanctioned"}
    ]
    assert answers["answer"]["status"] == "done"
    assert answers["again"] == answers["made"]
    assert answers["conflict"] == {"error": "sanction_conflict"}
    assert answers["second"] == {"error": "already_sanctioned"}
    assert answers["later"]["unranked_reason"] == "sanctioned"
    assert "mallory" in {e["player_id"] for e in answers["board-before"]["entries"]}
    assert "mallory" not in {e["player_id"] for e in answers["board-after"]["entries"]}
    assert "mallory" in {e["player_id"] for e in answers["board-lifted"]["entries"]}
    assert answers["player-mallory"]["sanctioned"] is True
    assert answers["lift-again"] == answers["lift"]
    assert answers["missing"] == {"error": "not_found"}
    # dave played mallory only: his five losses are all paid back.
    assert answers["player-dave"]["rating"] == 1500


# The window ---------------------------------------------------------------------------------


def ranked_event(
    storage: Storage, player_id: str, game_id: str, at: datetime, ranked: bool = True
) -> None:
    """A game of `player_id` stored as a game commits it (the record and their event)."""
    event = PlayerEvent(
        ladder=LADDER,
        player_id=player_id,
        at=at,
        event_type="game",
        ref_id=game_id,
        ranked=ranked,
        body={"type": "game", "game_id": game_id},
        expires_at=at + timedelta(days=30),
    )
    stored = StoredGame(LADDER, game_id, "f", {"players": []}, at + timedelta(days=30))
    storage.unit_of_work().commit_game(stored, [], [event])


def test_the_window_includes_both_ends_to_the_millisecond_and_ranked_games_only(
    any_storage: Storage,
) -> None:
    since, until = NOW - DAY, NOW
    for game_id, at in [
        ("a-before", since - MS),
        ("b-first", since),
        ("c-inside", NOW - HOUR),
        ("d-last", until),
        ("e-after", until + MS),
    ]:
        ranked_event(any_storage, "mallory", game_id, at)
    ranked_event(any_storage, "mallory", "f-unranked", NOW - HOUR, ranked=False)

    page = any_storage.sanctions.games_against(LADDER, "mallory", Window(since, until), None, 10)

    assert [game.game_id for game in page.games] == ["b-first", "c-inside", "d-last"]
    assert page.games[0].played_at == since
    assert page.more is False


def test_the_window_is_read_in_pages_that_resume_just_after_the_last_game(
    any_storage: Storage,
) -> None:
    window = Window(NOW - DAY, NOW)
    # Two games in the same millisecond: the position tells them apart by id.
    times = [NOW - HOUR, NOW - HOUR, NOW - 30 * MINUTE, NOW - 20 * MINUTE, NOW - 10 * MINUTE]
    for number, at in enumerate(times):
        ranked_event(any_storage, "mallory", f"g-{number}", at)
    sanctions = any_storage.sanctions

    pages, after, more = [], None, True
    while more:
        page = sanctions.games_against(LADDER, "mallory", window, after, 2)
        pages.append([game.game_id for game in page.games])
        more = page.more
        if page.games:
            after = (page.games[-1].played_at, page.games[-1].game_id)

    assert [gid for page in pages for gid in page] == [f"g-{n}" for n in range(5)]
    assert all(len(page) <= 2 for page in pages)


# The conditions of each commit -------------------------------------------------------------


def a_sanction(**changes: Any) -> Sanction:
    base = Sanction(
        ladder=LADDER,
        sanction_id="s-1",
        player_id="mallory",
        submitted_id="mallory",
        reason=None,
        refund_days=7,
        fingerprint="f",
        sanctioned_at=NOW,
        window=Window(NOW - 7 * DAY, NOW),
        played_as=("mallory",),
    )
    return base._replace(**changes)


def test_a_sanction_is_created_once_with_the_players_state(any_storage: Storage) -> None:
    sanctions = any_storage.sanctions
    mallory = Player(LADDER, "mallory", 1500).sanctioned_by("s-1", NOW)
    sanctions.commit_sanction(a_sanction(), mallory)

    with pytest.raises(AlreadyStored):
        sanctions.commit_sanction(a_sanction(reason="other"), mallory._replace(version=2))
    with pytest.raises(WriteConflict):  # a stale state: nothing of this commit is stored
        sanctions.commit_sanction(a_sanction(sanction_id="s-2"), mallory)

    assert sanctions.read_sanction(LADDER, "s-1", None, 10) == (a_sanction(), [], False)
    assert sanctions.read_sanction(LADDER, "s-2", None, 10) == (None, (), False)
    assert any_storage.jobs.get_job("sanction", "backgammon#s-1") == a_sanction().job()
    stored = any_storage.unit_of_work().read_states(LADDER, ["mallory"])["mallory"]
    assert (stored.sanction_id, stored.refunded_until, stored.version) == ("s-1", NOW, 1)


def test_a_lift_is_recorded_once_and_neither_it_nor_a_progress_save_undoes_the_other(
    any_storage: Storage,
) -> None:
    sanctions, jobs = any_storage.sanctions, any_storage.jobs
    mallory = Player(LADDER, "mallory", 1500).sanctioned_by("s-1", NOW)
    sanctions.commit_sanction(a_sanction(), mallory)
    progressed = a_sanction().advanced(RefundProgress(0, (NOW - HOUR, "g-1")), finished_at=None)
    jobs.save_job(progressed.job())

    with pytest.raises(WriteConflict):
        jobs.save_job(progressed.job())  # the same save again: overtaken
    sanctions.commit_lift(progressed._replace(lifted_at=NOW + HOUR), [mallory.lifted()])
    with pytest.raises(AlreadyStored):
        sanctions.commit_lift(progressed._replace(lifted_at=NOW + DAY), [])
    done = progressed.advanced(RefundProgress(1), finished_at=NOW + 2 * HOUR)
    jobs.save_job(done.job())

    stored = sanctions.read_sanction(LADDER, "s-1", None, 10).sanction
    assert stored == done._replace(lifted_at=NOW + HOUR)
    assert sanctions.read_for_sanction(LADDER, "s-1", "mallory").sanction == stored
    state = any_storage.unit_of_work().read_states(LADDER, ["mallory"])["mallory"]
    assert (state.sanction_id, state.refunded_until, state.version) == (None, NOW, 2)


def test_a_refund_is_stored_once_and_only_over_the_victims_version(any_storage: Storage) -> None:
    sanctions = any_storage.sanctions
    alice = Player(LADDER, "alice", 1484, ranked_games=1, version=1)
    sanctions.commit_sanction(
        a_sanction(), Player(LADDER, "mallory", 1516).sanctioned_by("s-1", NOW)
    )
    decision = RefundDecision(LADDER, "s-1", "g-1", NOW - HOUR, "alice", 16, NOW, 1500)

    def event(game_id: str) -> PlayerEvent:
        return PlayerEvent(LADDER, "alice", NOW, "refund", game_id, False, {"delta": 16}, NOW + DAY)

    with pytest.raises(WriteConflict):  # alice is not stored at version 1
        sanctions.commit_refund(decision, alice._replace(version=2).refunded(16), event("g-1"))
    sanctions.commit_refund(decision, Player(LADDER, "alice", 1484).refunded(16), event("g-1"))
    with pytest.raises(AlreadyStored):
        sanctions.commit_refund(decision, alice.refunded(16), event("g-1"))
    withheld = decision._replace(
        game_id="g-2", player_id=None, points=0, rating_after=None, withheld="provisional"
    )
    sanctions.record_withheld(withheld)
    with pytest.raises(AlreadyStored):
        sanctions.record_withheld(withheld)
    with pytest.raises(AlreadyStored):
        sanctions.record_withheld(decision)

    assert list(sanctions.read_sanction(LADDER, "s-1", None, 10).decisions) == [decision, withheld]
    state = any_storage.unit_of_work().read_states(LADDER, ["alice"])["alice"]
    assert (state.rating, state.version) == (1500, 1)
    history = any_storage.history.history(LADDER, "alice", 10, None)
    assert [e.ref_id for e in history.events] == ["g-1"]


# A sanction's decisions, a page at a time ----------------------------------------------------


def test_a_sanctions_decisions_are_read_a_page_at_a_time_by_game_id(any_storage: Storage) -> None:
    sanctions = any_storage.sanctions
    sanctions.commit_sanction(
        a_sanction(), Player(LADDER, "mallory", 1516).sanctioned_by("s-1", NOW)
    )
    paid = RefundDecision(LADDER, "s-1", "g-07", NOW - HOUR, "alice", 16, NOW, 1500)
    sanctions.commit_refund(
        paid,
        Player(LADDER, "alice", 1484).refunded(16),
        PlayerEvent(LADDER, "alice", NOW, "refund", "g-07", False, {"delta": 16}, NOW + DAY),
    )
    # Stored in no particular order: the pages are by game id all the same.
    for number in (11, 3, 0, 9, 4, 1, 10, 6, 2, 8, 5):
        sanctions.record_withheld(
            paid._replace(
                game_id=f"g-{number:02d}",
                player_id=None,
                points=0,
                rating_after=None,
                withheld="victim_gone",
            )
        )
    every = [f"g-{number:02d}" for number in range(12)]

    pages, after, more = [], None, True
    while more:
        view = sanctions.read_sanction(LADDER, "s-1", after, 5)
        assert view.sanction == a_sanction()
        pages.append([decision.game_id for decision in view.decisions])
        more, after = view.more, pages[-1][-1]
    whole = sanctions.read_sanction(LADDER, "s-1", None, 12)
    between = sanctions.read_sanction(LADDER, "s-1", "g-05x", 3)  # not a stored game id
    past_the_last = sanctions.read_sanction(LADDER, "s-1", "g-11", 5)

    assert pages == [every[:5], every[5:10], every[10:]]
    assert [decision.game_id for decision in whole.decisions] == every
    assert whole.more is False  # exactly a page: nothing follows
    assert whole.decisions[7] == paid
    assert ([d.game_id for d in between.decisions], between.more) == (every[6:9], True)
    assert (list(past_the_last.decisions), past_the_last.more) == ([], False)
    assert sanctions.read_sanction(LADDER, "s-2", None, 5) == (None, (), False)


def paged_sanction_scenario(storage: Storage) -> dict[str, Any]:
    """A sanction of 23 decisions (three withheld), more than a page of 5: its answers, and
    every page at two sizes. (The default size of 100 is paged the same way: the fake's
    tests/service/test_service_sanction_pages.py read 104 decisions at it.)"""
    service = rating_service(storage, FixedClock())
    victims = [f"v{index % 8}" for index in range(20)] + ["trudy"] * 3
    mallory_beats(service, victims, apart=10 * SECOND)
    service.sanction_player(LADDER, sanction("s-t", "trudy", refund_days=0))
    out: dict[str, Any] = {"made": service.sanction_player(LADDER, sanction()).result}
    service.pay_refunds.run(LADDER, "s-1")
    out["pages-of-5"] = decision_pages(service, limit=5)
    out["largest"] = decision_pages(service, limit=1000)
    out["again"] = service.sanction_player(LADDER, sanction()).result
    out["lifted"] = service.lift_sanction(LADDER, "s-1")
    return out


def test_a_sanction_with_more_decisions_than_a_page_is_paged_alike_on_every_storage(
    any_storage: Storage,
) -> None:
    answers = answers_alike(paged_sanction_scenario, any_storage)

    every = sorted(f"g-{number}" for number in range(23))
    pages, (largest,) = answers["pages-of-5"], answers["largest"]
    assert decided_games(pages) == decided_games([largest]) == every  # each once, in order
    assert [len(page["refunds"] + page["withheld"]) for page in pages] == [5, 5, 5, 5, 3]
    assert [kept["game_id"] for kept in largest["withheld"]] == ["g-20", "g-21", "g-22"]
    points = sum(refund["delta"] for refund in largest["refunds"])
    assert largest["totals"] == {"refunds": 20, "points": points, "withheld": 3}
    assert all(page["totals"] == largest["totals"] for page in pages)
    assert answers["made"]["totals"] == {"refunds": 0, "points": 0, "withheld": 0}
    for first in (answers["again"], answers["lifted"]):  # the default page holds them all
        assert (first["refunds"], first["next_cursor"]) == (largest["refunds"], None)


# Teams and free-for-all ---------------------------------------------------------------------

TEAM_LADDERS = {
    "pairs": Ladder("pairs", Sedma(), sides=Span(2, 2), players_per_side=Span(2, 2)),
    "ffa": Ladder(
        "ffa", Classic(provisional_games=0), sides=Span(2, 8), players_per_side=Span(1, 8)
    ),
}


def sides_game(game_id: str, *places: list[str], played_at: datetime) -> dict[str, Any]:
    """A game sent as sides: each of `places` a side's players, placed 1, 2, ... in turn."""
    return {
        "game_id": game_id,
        "played_at": format_utc_millis(played_at),
        "sides": [
            {"players": [{"id": pid} for pid in side], "place": place}
            for place, side in enumerate(places, start=1)
        ],
    }


def team_sanction_scenario(storage: Storage) -> dict[str, Any]:
    """A sanction of a player of team games: 2v2 games won (each opponent refunded, the
    teammate not; one opponent sanctioned too), a game of two sent as sides, a step budget
    smaller than a page, pages of one decision, and an erasure of a victim of a team game."""
    queue = RecordingJobQueue()
    service = RatingService(
        storage,
        TEAM_LADDERS,
        clock=FixedClock(),
        retrier=Retrier(sleep=lambda seconds: None, rng=random.Random(11)),
        job_queue=queue,
    )
    service.pay_refunds.decisions_per_step = 3
    out: dict[str, Any] = {}
    played = [
        ("p-1", ["mallory", "tom"], ["alice", "bob"]),
        ("p-2", ["mallory", "tom"], ["alice", "trudy"]),
        ("p-3", ["alice", "bob"], ["mallory", "tom"]),  # lost: nothing to refund
        ("p-4", ["mallory", "alice"], ["tom", "bob"]),  # alice a teammate this time
        ("p-5", ["mallory"], ["bob"]),  # refused: the ladder plays two a side
    ]
    for number, (game_id, *places) in enumerate(played):
        at = NOW - HOUR + number * MINUTE
        try:
            body = sides_game(game_id, *places, played_at=at)
            out[game_id] = service.submit_game("pairs", body).result
        except ServiceError as error:
            out[game_id] = {"error": error.code}
    out["f-1"] = service.submit_game(
        "ffa", sides_game("f-1", ["mallory"], ["carol"], played_at=NOW - HOUR)
    ).result
    out["trudy"] = service.sanction_player("pairs", sanction("s-t", "trudy", refund_days=0))
    out["made"] = service.sanction_player("pairs", sanction()).result
    out["made-ffa"] = service.sanction_player("ffa", sanction()).result
    out["runs"] = [(run.job.status, run.steps) for run in work_jobs(service, queue)]
    out["answer"] = service.get_sanction("pairs", "s-1")
    out["answer-ffa"] = service.get_sanction("ffa", "s-1")
    out["pages-of-1"] = decision_pages(service, limit=1, ladder="pairs")
    for player_id in ("alice", "bob", "tom", "trudy"):
        out[f"player-{player_id}"] = service.get_player("pairs", player_id)
        out[f"history-{player_id}"] = service.get_history("pairs", player_id)
    service.request_erasure("bob")
    out["erasure"] = [(run.job.status, run.steps) for run in work_jobs(service, queue)]
    # A pseudonym is random: each shown as one, to compare storages.
    after = service.get_sanction("pairs", "s-1")
    for refund in after["refunds"]:
        if refund["player_id"].startswith("erased-"):
            refund["player_id"] = "erased-"
    out["after-erasure"] = after
    return out


def test_the_team_sanction_scenario_answers_alike_on_every_storage(any_storage: Storage) -> None:
    answers = answers_alike(team_sanction_scenario, any_storage)

    paid = {(r["game_id"], r["player_id"]) for r in answers["answer"]["refunds"]}
    assert paid == {
        ("p-1", "alice"),
        ("p-1", "bob"),
        ("p-2", "alice"),
        ("p-4", "tom"),
        ("p-4", "bob"),
    }
    assert [(w["game_id"], w["reason"]) for w in answers["answer"]["withheld"]] == [
        ("p-2", "victim_sanctioned")
    ]
    assert answers["answer"]["totals"]["refunds"] == 5
    assert answers["answer"]["totals"]["withheld"] == 1
    assert "error" in answers["p-5"]
    assert [(r["game_id"], r["player_id"]) for r in answers["answer-ffa"]["refunds"]] == [
        ("f-1", "carol")
    ]
    # p-1: alice then bob; p-2: alice then trudy (withheld); p-4: tom then bob. One a page.
    assert len(answers["pages-of-1"]) == 6
    # tom keeps what he won beside mallory and what he lost to others; p-4 is paid back.
    tom = [answers[gid]["players"][1] for gid in ("p-1", "p-2")]
    lost = [p for p in answers["p-3"]["players"] if p["id"] == "tom"]
    assert answers["player-tom"]["rating"] == 1000 + sum(p["delta"] for p in tom + lost)
    assert all(p["id"] == "tom" for p in tom)
    # bob's two refunds (a seat of p-1, a seat of p-4) found and renamed by the erasure.
    renamed = [(r["game_id"], r["player_id"]) for r in answers["after-erasure"]["refunds"]]
    assert sorted(renamed) == sorted((gid, "erased-" if pid == "bob" else pid) for gid, pid in paid)
    assert all(status == "done" for status, _steps in answers["erasure"])


# What lands in the table -------------------------------------------------------------------


def test_the_sanctioned_state_leaves_the_leaderboard_index_and_a_pointer_stays(
    dynamo_storage: DynamoStorage, service: RatingService
) -> None:
    service.submit_game(LADDER, game("g-1", "mallory", "alice", played_at=NOW - HOUR))
    state_before = _state_item(dynamo_storage, "mallory")
    assert "lb_shard" in state_before

    service.sanction_player(LADDER, sanction())
    service.pay_refunds.run(LADDER, "s-1")

    items = {item["sk"]["S"]: item for item in raw_items(dynamo_storage, "P#backgammon#mallory")}
    state = items["STATE"]
    assert ("lb_shard" in state, "lb_rating" in state) == (False, False)
    assert state["sanction_id"] == {"S": "s-1"}
    assert items["SANCTION#s-1"]["sanction_id"] == {"S": "s-1"}
    assert "expires_at" not in items["SANCTION#s-1"]
    sanction_items = {i["sk"]["S"] for i in raw_items(dynamo_storage, "N#backgammon#s-1")}
    assert sanction_items == {"SANCTION", "R#g-1"}
    service.lift_sanction(LADDER, "s-1")
    assert "lb_shard" in _state_item(dynamo_storage, "mallory")


def test_a_team_games_decisions_are_keyed_by_seat_and_a_game_of_twos_by_its_id(
    dynamo_storage: DynamoStorage, clock: FixedClock
) -> None:
    service = RatingService(
        dynamo_storage,
        TEAM_LADDERS,
        clock=clock,
        retrier=Retrier(sleep=lambda seconds: None, rng=random.Random(3)),
        job_queue=RecordingJobQueue(),
    )
    at = NOW - HOUR
    service.submit_game(
        "pairs", sides_game("p-1", ["mallory", "tom"], ["alice", "bob"], played_at=at)
    )
    service.submit_game("ffa", sides_game("f-1", ["mallory"], ["carol"], played_at=at))
    for ladder in ("pairs", "ffa"):
        service.sanction_player(ladder, sanction())
        service.pay_refunds.run(ladder, "s-1")

    pairs = {i["sk"]["S"]: i for i in raw_items(dynamo_storage, "N#pairs#s-1")}
    ffa = {i["sk"]["S"] for i in raw_items(dynamo_storage, "N#ffa#s-1")}

    assert set(pairs) == {"SANCTION", "R#p-1#02", "R#p-1#03"}  # alice, bob: not tom (seat 1)
    assert pairs["R#p-1#03"]["seat"] == {"N": "3"}
    assert ffa == {"SANCTION", "R#f-1"}  # a game of two sent as sides: as before sides


def _state_item(storage: DynamoStorage, player_id: str) -> dict[str, Any]:
    (item,) = [
        i for i in raw_items(storage, f"P#backgammon#{player_id}") if i["sk"]["S"] == "STATE"
    ]
    return item


# Concurrency ------------------------------------------------------------------------------


class InterleavingSanctions(DynamoSanctions):
    """The DynamoDB sanctions port, running `before_refund` once before a refund commit."""

    before_refund: Any = None

    def commit_refund(self, decision: RefundDecision, victim: Player, event: PlayerEvent) -> None:
        hook, self.before_refund = self.before_refund, None
        if hook is not None:
            hook()
        super().commit_refund(decision, victim, event)


def test_a_victims_game_committed_between_the_refunds_read_and_commit_is_kept(
    dynamo_storage: DynamoStorage, clock: FixedClock
) -> None:
    sanctions = InterleavingSanctions(dynamo_storage.table)
    dynamo_storage.sanctions = sanctions
    service = rating_service(dynamo_storage, clock)
    service.submit_game(LADDER, game("g-1", "mallory", "alice", played_at=NOW - HOUR))
    service.sanction_player(LADDER, sanction())
    sanctions.before_refund = lambda: service.submit_game(
        LADDER, game("g-2", "alice", "bob", played_at=NOW - MINUTE)
    )

    service.pay_refunds.run(LADDER, "s-1")

    assert service.get_game(LADDER, "g-2")["players"][0]["rating_after"] == 1500
    assert service.get_player(LADDER, "alice")["rating"] == 1516
    assert service.retries >= 1


@pytest.fixture
def amazon_engine(request: pytest.FixtureRequest, table_name: str) -> Iterator[DynamoStorage]:
    """The adapter on a fresh template table of DynamoDB Local."""
    with running_engine("dynamodb_local", request) as engine, ratings_table(engine, table_name):
        yield engine.storage(table_name)


def test_victims_playing_on_other_threads_while_refunds_run_lose_nothing(
    amazon_engine: DynamoStorage, clock: FixedClock
) -> None:
    # On Amazon's engine only: moto's in-process backend is not safe for concurrent clients
    # (it loses writes and breaks iterating its dicts), DynamoDB Local serializes them as
    # DynamoDB does.
    service = rating_service(amazon_engine, clock)
    victims = [f"v{index}" for index in range(4)]

    errors = refund_while_victims_play(service, victims, rounds=2, games_per_step=3, games_each=5)

    assert errors == []
    assert len(service.get_sanction(LADDER, "s-1")["refunds"]) == 8
    for victim in victims:
        events = service.get_history(LADDER, victim)["events"]
        assert len(events) == 2 + 2 + 5
        rating = service.get_player(LADDER, victim)["rating"]
        assert 1500 + sum(event["delta"] for event in events) == rating


# Requests -----------------------------------------------------------------------------------


def test_a_page_of_a_sanction_reads_its_record_then_at_most_limit_plus_one_decisions(
    service: RatingService, storage: DynamoStorage, request_counter: RequestCounter
) -> None:
    mallory_beats(service, [f"v{index}" for index in range(30)], apart=10 * SECOND)
    service.sanction_player(LADDER, sanction())
    service.pay_refunds.run(LADDER, "s-1")
    queries: list[dict[str, Any]] = []
    client = storage.connection.client
    client.meta.events.register(
        "provide-client-params.dynamodb.Query", lambda params, **_: queries.append(params)
    )
    request_counter.reset()

    page = service.get_sanction(LADDER, "s-1", 5)
    after = service.get_sanction(LADDER, "s-1", 5, page["next_cursor"])

    assert len(page["refunds"]) == len(after["refunds"]) == 5
    assert request_counter.counts() == {"BatchGetItem": 2, "Query": 2}
    assert [query["Limit"] for query in queries] == [6, 6]


def test_a_step_sends_one_query_two_batch_reads_and_one_transaction_a_refund(
    service: RatingService, storage: DynamoStorage, request_counter: RequestCounter
) -> None:
    mallory_beats(service, [f"v{index}" for index in range(3)], apart=timedelta(0))
    service.submit_game(LADDER, game("g-won", "v0", "mallory", played_at=NOW - HOUR))
    service.sanction_player(LADDER, sanction())
    job = storage.jobs.get_job("sanction", "backgammon#s-1")
    assert job is not None
    request_counter.reset()
    done = service.pay_refunds.step(job)

    assert done.status == "done"
    assert request_counter.counts() == {
        "Query": 1,
        "BatchGetItem": 2,
        "TransactWriteItems": 3,
    }
