"""Seasons on every storage: one scenario across a season boundary (resets shown at once,
standings frozen at the next game, ended boards paged and read around, operators' starts,
sanctions, links, podiums and late games) answers alike on the in-memory fake, moto and
DynamoDB Local; and what DynamoDB holds for it (keys of the season boards, frozen items),
and what a season start sends, whatever the ladder's size."""

import random
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from support.dynamodb import RequestCounter, raw_items
from support.games import FixedClock, game, ts
from support.jobs import RecordingJobQueue
from support.services import answers_alike

from ratings.rules import Classic, Gammon42, InvalidInput, Ladder
from ratings.rules.seasons import Reset, SeasonPlan
from ratings.service.errors import NotFound, NotRanked, SeasonConflict
from ratings.service.facade import RatingService
from ratings.service.ports import Storage
from ratings.service.unit_of_work import Retrier
from ratings.storage.dynamodb import DynamoStorage

NOV = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
DEC_1 = datetime(2026, 12, 1, tzinfo=UTC)

LADDERS = {
    "monthly": Ladder(
        "monthly", Classic(), season=SeasonPlan("monthly", Reset("soft", 1250, 0.5), 1, "2026-11")
    ),
    "picky": Ladder("picky", Gammon42(), season=SeasonPlan("weekly", Reset("hard"), 2, "2026-W47")),
    "classic": Ladder("classic", Classic()),
}
PEOPLE = ["ann", "ben", "cat", "dan", "eve", "fay", "gus"]


def seasons_service(storage: Storage, clock: FixedClock) -> RatingService:
    return RatingService(
        storage,
        LADDERS,
        clock=clock,
        retrier=Retrier(sleep=lambda seconds: None, rng=random.Random(3)),
        job_queue=RecordingJobQueue(),
    )


def season_scenario(storage: Storage) -> dict[str, Any]:
    clock = FixedClock(NOV)
    service = seasons_service(storage, clock)
    out: dict[str, Any] = {}

    def call(label: str, method: Any, *args: Any, **kwargs: Any) -> None:
        try:
            out[label] = method(*args, **kwargs)
        except (InvalidInput, NotFound, SeasonConflict) as error:
            out[label] = (type(error).__name__, str(error))

    def play(label: str, ladder: str, a: str, b: str, **extra: Any) -> None:
        body = game(label, a, b, **extra)
        out[label] = service.submit_game(ladder, body).result

    # November: a board with ties (gus and fay draw no game; two equal results).
    for index, (a, b) in enumerate(
        [("ann", "ben"), ("cat", "dan"), ("ann", "cat"), ("eve", "fay"), ("gus", "ben")]
    ):
        clock.advance(timedelta(minutes=1))
        play(f"nov-{index}", "monthly", a, b)
        play(f"nov-picky-{index}", "picky", a, b)
        play(f"nov-classic-{index}", "classic", a, b)
    play("nov-picky-again", "picky", "ann", "ben")
    play("nov-anon", "monthly", "dev-9", "gus")
    service.refresh_standings("monthly")
    call("nov-board", service.get_leaderboard, "monthly")
    call("nov-picky-board", service.get_leaderboard, "picky")
    call("nov-season", service.get_season, "monthly", "2026-11")
    call("ladders-nov", service.ladders)

    # An operator start, repeated, and conflicts: the record and its answers.
    call("start", service.start_season, "classic", {"season_id": "launch"})
    call("start-again", service.start_season, "classic", {"season_id": "launch"})
    call(
        "start-other",
        service.start_season,
        "classic",
        {"season_id": "launch", "reset": {"kind": "hard"}},
    )
    call("start-bad", service.start_season, "classic", {"season_id": "2026-11"})
    clock.advance(timedelta(seconds=3))
    call("classic-board-launch", service.get_leaderboard, "classic")
    call("classic-all-time", service.get_season_leaderboard, "classic", "all-time")

    # December: every read shows the reset; nothing is written until a player plays.
    clock.set(DEC_1 + timedelta(hours=1))
    for pid in PEOPLE:
        call(f"dec-player-{pid}", service.get_player, "monthly", pid)
    call("dec-board-empty", service.get_leaderboard, "monthly")
    service.sanction_player(
        "monthly", {"sanction_id": "s-1", "player_id": "eve", "reason": "cheating"}
    )
    play("dec-1", "monthly", "ann", "ben")
    play("dec-2", "monthly", "cat", "ann")
    play("dec-late", "monthly", "dan", "fay", played_at=DEC_1 - timedelta(minutes=2))
    call(
        "dec-late-again",
        service.submit_game,
        "monthly",
        game("dec-late", "dan", "fay", played_at=DEC_1 - timedelta(minutes=2)),
    )
    out["dec-late-again"] = getattr(out["dec-late-again"], "result", out["dec-late-again"])
    call("link", service.link_identity, {"anonymous_id": "dev-9", "account_id": "acct-9"})
    call(
        "podium-ended",
        service.award_podium,
        {
            "tournament_id": "t-nov",
            "ladder": "monthly",
            "finished_at": ts(DEC_1 - timedelta(hours=2)),
            "public": True,
            "podium": [{"place": 1, "player_id": "gus"}],
        },
    )
    out["podium-ended"] = getattr(out["podium-ended"], "result", out["podium-ended"])
    clock.advance(timedelta(minutes=10))
    service.refresh_standings("monthly")

    # The ended board, as it stood: pages, around, ranks and sizes; the new one; the lists.
    pages = []
    cursor = None
    while True:
        page = service.get_season_leaderboard("monthly", "2026-11", limit=2, cursor=cursor)
        pages.append(page)
        cursor = page["next_cursor"]
        if cursor is None:
            break
    out["nov-pages"] = pages
    call(
        "nov-around-cat",
        service.get_season_leaderboard,
        "monthly",
        "2026-11",
        limit=3,
        around="cat",
    )
    call(
        "nov-around-ben",
        service.get_season_leaderboard,
        "monthly",
        "2026-11",
        limit=3,
        around="ben",
    )
    call("nov-around-eve", service.get_season_leaderboard, "monthly", "2026-11", around="eve")
    call("nov-season-ended", service.get_season, "monthly", "2026-11")
    call("dec-board", service.get_leaderboard, "monthly")
    call("dec-season", service.get_season, "monthly", "2026-12")
    for pid in [*PEOPLE, "dev-9", "acct-9"]:
        call(f"seasons-{pid}", service.get_player_seasons, "monthly", pid)
        call(f"history-{pid}", service.get_history, "monthly", pid)
    call("list-monthly", service.list_seasons, "monthly")
    call("list-classic", service.list_seasons, "classic")
    call("unknown-season", service.get_season, "monthly", "2025-01")
    call("malformed-season", service.get_season_leaderboard, "monthly", "no!")
    call("picky-dec", service.get_leaderboard, "picky")
    call("picky-w47", service.get_season_leaderboard, "picky", "2026-W47")
    service.lift_sanction("monthly", "s-1")
    call("nov-board-lifted", service.get_season_leaderboard, "monthly", "2026-11")
    call("ladders-dec", service.ladders)
    return out


def test_seasons_answer_alike_on_every_storage(any_storage: Storage) -> None:
    answers = answers_alike(season_scenario, any_storage)

    november = [entry["player_id"] for entry in answers["nov-board"]["entries"]]
    frozen = [e["player_id"] for page in answers["nov-pages"] for e in page["entries"]]
    # eve is hidden while sanctioned, the ranks below close up; the rest stand as they stood.
    assert frozen == [pid for pid in november if pid != "eve"]
    assert [e["rank"] for page in answers["nov-pages"] for e in page["entries"]] == list(
        range(1, len(frozen) + 1)
    )
    lifted = answers["nov-board-lifted"]["entries"]
    assert [(e["player_id"], e["rating"]) for e in lifted] == [
        (e["player_id"], e["rating"]) for e in answers["nov-board"]["entries"]
    ]
    assert answers["dec-board-empty"]["entries"] == []
    assert answers["dec-late"]["unranked_reason"] == "season_ended"
    assert answers["dec-late-again"] == answers["dec-late"]
    assert answers["podium-ended"]["status"] == "season_ended"
    assert answers["start"].created is True
    assert answers["start-again"].result == answers["start"].result
    assert answers["start-other"][0] == "SeasonConflict"
    assert answers["start-bad"][0] == "InvalidInput"
    assert answers["unknown-season"][0] == "NotFound"
    assert answers["malformed-season"][0] == "InvalidInput"
    assert answers["nov-season-ended"]["players"] == len(november) - 1  # eve, sanctioned
    # soft toward 1250 by half: ann's reset before her December games.
    ann_nov = next(e["rating"] for e in answers["nov-board"]["entries"] if e["player_id"] == "ann")
    assert answers["dec-player-ann"]["rating"] == round(1250 + (ann_nov - 1250) / 2 + 1e-9)
    assert answers["picky-dec"]["entries"] == []  # hard reset, and two games needed
    # Two ranked games within the week, at least: ann, ben and cat; the others played one.
    assert {e["player_id"] for e in answers["picky-w47"]["entries"]} == {"ann", "ben", "cat"}


def test_the_season_boards_are_keyed_apart_and_the_frozen_standing_is_stored(
    dynamo_storage: DynamoStorage,
) -> None:
    clock = FixedClock(NOV)
    service = seasons_service(dynamo_storage, clock)
    service.submit_game("monthly", game("g-1", "ann", "ben"))
    service.submit_game("classic", game("g-2", "ann", "ben"))
    clock.set(DEC_1 + timedelta(minutes=1))
    service.submit_game("monthly", game("g-3", "ann", "cat"))

    ann = {item["sk"]["S"]: item for item in raw_items(dynamo_storage, "P#monthly#ann")}
    classic = {item["sk"]["S"]: item for item in raw_items(dynamo_storage, "P#classic#ann")}

    # A ladder without seasons keeps the index keys it always had.
    assert classic["STATE"]["lb_shard"]["S"].startswith("classic#")
    assert ann["STATE"]["lb_shard"]["S"].startswith("monthly@2026-12#")
    assert ann["STATE"]["season_id"]["S"] == "2026-12"
    standing = ann["SEASON#2026-11"]
    assert standing["lb_shard"]["S"].startswith("monthly@2026-11#")
    assert standing["rating"] == standing["lb_rating"]
    assert standing["ranked_games"]["N"] == "1"
    assert [sk for sk in ann if sk.startswith("E#")] != []
    # ben has not played since: no standing of his is written, his state is in November.
    ben = {item["sk"]["S"]: item for item in raw_items(dynamo_storage, "P#monthly#ben")}
    assert "SEASON#2026-11" not in ben
    assert ben["STATE"]["lb_shard"]["S"].startswith("monthly@2026-11#")


@pytest.mark.parametrize("players", [10, 300])
def test_a_season_start_sends_the_same_requests_whatever_the_ladders_size(
    dynamo_storage: DynamoStorage, request_counter: RequestCounter, players: int
) -> None:
    clock = FixedClock(NOV)
    service = seasons_service(dynamo_storage, clock)
    for index in range(players // 2):
        service.submit_game("monthly", game(f"g-{index}", f"p-{index}", f"q-{index}"))
    request_counter.reset()

    service.start_season("monthly", {"season_id": "spring"})
    clock.advance(timedelta(seconds=3))

    assert request_counter.operations == ["GetItem", "PutItem"]
    assert service.get_leaderboard("monthly")["entries"] == []


def test_reads_show_the_reset_without_writing(
    dynamo_storage: DynamoStorage, request_counter: RequestCounter
) -> None:
    clock = FixedClock(NOV)
    service = seasons_service(dynamo_storage, clock)
    service.submit_game("monthly", game("g-1", "ann", "ben"))
    clock.set(DEC_1)
    request_counter.reset()

    service.get_player("monthly", "ann")
    service.get_player_seasons("monthly", "ann")
    service.get_season_leaderboard("monthly", "2026-11", around="ann")

    assert "TransactWriteItems" not in request_counter.operations
    assert "PutItem" not in request_counter.operations
    with pytest.raises(NotRanked):
        service.get_leaderboard("monthly", around="ann")


def test_the_ladders_read_every_ladders_seasons_in_one_request(
    dynamo_storage: DynamoStorage, request_counter: RequestCounter
) -> None:
    service = seasons_service(dynamo_storage, FixedClock(NOV))
    service.start_season("classic", {"season_id": "launch"})
    request_counter.reset()
    later = seasons_service(dynamo_storage, FixedClock(NOV + timedelta(seconds=5)))

    ladders = later.ladders()["ladders"]
    again = later.ladders()["ladders"]  # within the second: nothing read

    assert request_counter.operations == ["BatchGetItem"]
    assert [ladder["season"]["season_id"] for ladder in ladders] == [
        "2026-11",
        "2026-W47",
        "launch",
    ]
    assert again == ladders


def test_the_all_time_board_keeps_those_who_moved_on_once_a_season_started(
    any_storage: Storage,
) -> None:
    clock = FixedClock(NOV)
    service = seasons_service(any_storage, clock)
    service.submit_game("classic", game("g-1", "ann", "ben"))
    service.submit_game("classic", game("g-2", "cat", "dan"))
    before = service.get_leaderboard("classic")["entries"]
    service.start_season("classic", {"season_id": "launch"})
    clock.advance(timedelta(seconds=3))

    service.submit_game("classic", game("g-3", "ann", "cat"))  # both leave all-time

    ended = service.get_season_leaderboard("classic", "all-time")["entries"]
    assert ended == before
    around = service.get_season_leaderboard("classic", "all-time", around="ann", limit=3)
    assert "ann" in [entry["player_id"] for entry in around["entries"]]
