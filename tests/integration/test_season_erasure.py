"""Erasure across seasons on each storage (the in-memory fake, DynamoDB on moto and on
DynamoDB Local): an erased player keeps their final standing in every season that ended,
under their pseudonym (the standing frozen when they played again, and the one their state
still holds when they had not), at the same rank and rating, and nothing under their id;
each standing once, however often a step was redone after a crash."""

import random
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from support.erasure import crash_after_writes_with_standings, mentions, work_jobs
from support.games import FixedClock, game
from support.jobs import RecordingJobQueue
from support.services import answers_alike

from ratings.rules import Classic, Ladder
from ratings.rules.seasons import Reset, SeasonPlan
from ratings.service.facade import RatingService
from ratings.service.ports import Storage
from ratings.service.stored import FROZEN_STANDING, PlayerItem
from ratings.service.unit_of_work import Retrier

LADDERS = {
    "monthly": Ladder(
        "monthly", Classic(), season=SeasonPlan("monthly", Reset("soft"), 1, "2026-11")
    ),
}
NOVEMBER = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)
DECEMBER = datetime(2026, 12, 1, 1, 0, tzinfo=UTC)
#: Erased: `FROZEN` plays again in December (their November standing frozen), `STAYED` does
#: not (their state is still in November when erased).
FROZEN, STAYED = "frozen-k4", "stayed-m8"


def monthly_service(storage: Storage, clock: FixedClock, queue: RecordingJobQueue) -> RatingService:
    return RatingService(
        storage,
        LADDERS,
        clock=clock,
        retrier=Retrier(sleep=lambda seconds: None, rng=random.Random(11)),
        job_queue=queue,
    )


def season_erasure_scenario(storage: Storage) -> dict[str, Any]:
    """Two seasons' games, two erasures interrupted after their writes of standings, and
    every answer that shows a standing, with the pseudonyms (random) named by whose they are."""
    clock = FixedClock(NOVEMBER)
    queue = RecordingJobQueue()
    service = monthly_service(storage, clock, queue)
    out: dict[str, Any] = {}

    def submit(game_id: str, a: str, b: str) -> None:
        out[game_id] = service.submit_game("monthly", game(game_id, a, b)).result

    submit("g-1", FROZEN, STAYED)
    submit("g-2", "carol", "dave")
    submit("g-3", FROZEN, STAYED)
    submit("g-4", STAYED, "dave")
    out["november"] = service.get_season_leaderboard("monthly", "2026-11")
    clock.set(DECEMBER)
    submit("g-5", FROZEN, "erin")
    out["frozen-seasons-before"] = service.get_player_seasons("monthly", FROZEN)

    crashed = crash_after_writes_with_standings(storage)
    for player_id in (FROZEN, STAYED):
        service.request_erasure(player_id)
        while queue.sent:
            try:
                work_jobs(service, queue)
            except RuntimeError:
                service.request_erasure(player_id)  # the message comes back
        out[f"erasure-{player_id}"] = service.get_erasure(player_id)
    out["crashed"] = crashed

    out["november-after"] = service.get_season_leaderboard("monthly", "2026-11")
    out["december-after"] = service.get_leaderboard("monthly")
    games = {game_id: service.get_game("monthly", game_id) for game_id in ("g-4", "g-5")}
    names = {
        games["g-5"]["players"][0]["id"]: f"<{FROZEN}>",
        games["g-4"]["players"][0]["id"]: f"<{STAYED}>",
    }
    out["games"] = games
    for player_id in (FROZEN, STAYED):
        out[f"seasons-{player_id}"] = service.get_player_seasons("monthly", player_id)
    for pseudonym, whose in names.items():
        out[f"seasons-{whose}"] = service.get_player_seasons("monthly", pseudonym)
    assert len(names) == 2
    assert all(pseudonym.startswith("erased-") for pseudonym in names)
    answers: dict[str, Any] = renamed(out, names)
    return answers


def renamed(value: Any, names: dict[str, str]) -> Any:
    """`value` with each pseudonym named by whose it is."""
    if isinstance(value, dict):
        return {key: renamed(item, names) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(renamed(item, names) for item in value)
    if isinstance(value, str):
        return names.get(value, value)
    return value


def test_erased_players_keep_their_ended_seasons_standings_alike_on_every_storage(
    any_storage: Storage,
) -> None:
    answers = answers_alike(season_erasure_scenario, any_storage)

    # A few absolute facts, so the comparison is not between two wrong answers.
    names = {FROZEN: f"<{FROZEN}>", STAYED: f"<{STAYED}>"}
    before = [
        (entry["rank"], names.get(entry["player_id"], entry["player_id"]), entry["rating"])
        for entry in answers["november"]["entries"]
    ]
    after = [
        (entry["rank"], entry["player_id"], entry["rating"])
        for entry in answers["november-after"]["entries"]
    ]
    assert after == before
    assert {row[1] for row in after} == {f"<{FROZEN}>", f"<{STAYED}>", "carol", "dave"}
    # The moved standing (a page) and the state's (the last step), each written, its step
    # redone, and found once.
    assert answers["crashed"] == [["2026-11"], ["2026-11"]]
    for player_id in (FROZEN, STAYED):
        assert answers[f"erasure-{player_id}"]["status"] == "done"
        assert answers[f"seasons-{player_id}"]["seasons"] == []
        (standing,) = answers[f"seasons-<{player_id}>"]["seasons"]
        rank, _, rating = next(row for row in after if row[1] == f"<{player_id}>")
        assert (standing["season_id"], standing["rank"], standing["rating"]) == (
            "2026-11",
            rank,
            rating,
        )
    assert answers["frozen-seasons-before"]["seasons"][0]["rank"] == 1
    assert [entry["player_id"] for entry in answers["december-after"]["entries"]] == ["erin"]
    assert mentions(any_storage, FROZEN, STAYED) == []


def test_a_standing_shown_again_while_its_page_is_written_moves_as_shown(
    any_storage: Storage,
) -> None:
    clock = FixedClock(NOVEMBER)
    queue = RecordingJobQueue()
    service = monthly_service(any_storage, clock, queue)
    service.submit_game("monthly", game("g-1", FROZEN, "carol"))
    clock.set(DECEMBER)
    service.submit_game("monthly", game("g-2", FROZEN, "carol"))  # the standing frozen
    seasons = any_storage.seasons
    assert seasons.hide_standings("monthly", FROZEN, True) == 1  # as a sanction hides it
    erasures = any_storage.erasures
    player_items = erasures.player_items
    shown: list[str] = []

    def shown_meanwhile(ladder: str, player_id: str, limit: int) -> Sequence[PlayerItem]:
        items = player_items(ladder, player_id, limit)
        if not shown and any(item.kind == FROZEN_STANDING for item in items):
            # A lift shows it between the page's read and its write.
            shown.append(player_id)
            assert seasons.hide_standings(ladder, player_id, False) == 1
        return items

    erasures.player_items = shown_meanwhile  # type: ignore[method-assign]
    service.request_erasure(FROZEN)
    work_jobs(service, queue)

    assert service.get_erasure(FROZEN)["status"] == "done"
    assert shown == [FROZEN]
    pseudonym = service.get_game("monthly", "g-2")["players"][0]["id"]
    november = service.get_season_leaderboard("monthly", "2026-11")["entries"]
    assert [entry["player_id"] for entry in november] == [pseudonym, "carol"]
    (standing,) = seasons.standings_of("monthly", pseudonym)
    assert standing.hidden is False
    assert mentions(any_storage, FROZEN) == []
