"""Erasing a player of team and free-for-all games, on the in-memory fake: the erased id gives
way to its pseudonym in every game it was part of and in every other player's event of it
(teammates' and opponents'), each page's write within DynamoDB's 100 items a transaction (the
fake refuses more), and a step done again after a crash ends the same."""

import json
from typing import Any

import pytest
from support.erasure import (
    crash_after_each_write,
    erase,
    mentions,
    play_sides,
    team_service,
    work_jobs,
    write_sizes,
)
from support.games import FixedClock
from support.jobs import RecordingJobQueue

from ratings.service.facade import RatingService
from ratings.storage.memory import InMemoryStorage

#: An 8-player free-for-all alice wins, and a game of two against two she and bob lose.
FFA = ["alice", *(f"ffa-{n}" for n in range(1, 8))]
TEAMS = (["alice", "bob"], ["carol", "dave"])


@pytest.fixture
def service(
    storage: InMemoryStorage, clock: FixedClock, job_queue: RecordingJobQueue
) -> RatingService:
    return team_service(storage, clock, job_queue)


def play_ffa_and_teams(service: RatingService) -> None:
    play_sides(service, "g-ffa", *([pid] for pid in FFA))
    play_sides(service, "g-teams", TEAMS[1], TEAMS[0])


def pseudonym_of_alice(service: RatingService) -> str:
    pseudonym: str = service.get_game("ffa", "g-ffa")["players"][0]["id"]
    assert pseudonym.startswith("erased-")
    return pseudonym


def events_of(service: RatingService, player_id: str) -> dict[str, dict[str, Any]]:
    events = service.get_history("ffa", player_id)["events"]
    return {event["game_id"]: event for event in events}


def test_every_record_and_every_other_players_event_get_the_pseudonym(
    service: RatingService, storage: InMemoryStorage, job_queue: RecordingJobQueue
) -> None:
    play_ffa_and_teams(service)

    assert erase(service, job_queue, "alice")["status"] == "done"

    pseudonym = pseudonym_of_alice(service)
    ffa = service.get_game("ffa", "g-ffa")
    assert [player["id"] for player in ffa["players"]] == [pseudonym, *FFA[1:]]
    assert ffa["sides"][0]["players"] == [pseudonym]
    teams = service.get_game("ffa", "g-teams")
    assert [player["id"] for player in teams["players"]] == ["carol", "dave", pseudonym, "bob"]
    assert teams["sides"][1]["players"] == [pseudonym, "bob"]
    for other in FFA[1:]:
        event = events_of(service, other)["g-ffa"]
        assert event["opponents"] == [pseudonym, *(pid for pid in FFA[1:] if pid != other)]
        assert event["opponent"] is None
    # Her teammate's event names her among teammates, the other side's among opponents.
    assert events_of(service, "bob")["g-teams"]["teammates"] == [pseudonym]
    for other in TEAMS[1]:
        assert events_of(service, other)["g-teams"]["opponents"] == [pseudonym, "bob"]
    assert service.get_history("ffa", "alice")["events"] == []
    assert mentions(storage, "alice") == []


def test_an_erasure_of_many_sixteen_player_games_keeps_each_write_within_100_items(
    service: RatingService, storage: InMemoryStorage, job_queue: RecordingJobQueue
) -> None:
    # 12 games of two sides of 8: each of alice's events rewrites the game, her 15 fellow
    # players' events, and is deleted: 17 items.
    mates, rivals = [f"mate-{n}" for n in range(7)], [f"rival-{n}" for n in range(8)]
    for number in range(12):
        play_sides(service, f"g-{number:02}", ["alice", *mates], rivals)
    sizes = write_sizes(storage)

    assert erase(service, job_queue, "alice")["status"] == "done"

    # 5 events a page (a sixth would take the write to 102 items), then the 2 left.
    assert sizes == [85, 85, 34]
    pseudonym = service.get_game("ffa", "g-00")["players"][0]["id"]
    assert pseudonym.startswith("erased-")
    for number in range(12):
        game_id = f"g-{number:02}"
        assert service.get_game("ffa", game_id)["sides"][0]["players"] == [pseudonym, *mates]
        assert events_of(service, "mate-0")[game_id]["teammates"] == [pseudonym, *mates[1:]]
        assert events_of(service, "rival-0")[game_id]["opponents"] == [pseudonym, *mates]
    assert mentions(storage, "alice") == []


def test_the_fake_refuses_a_write_of_more_than_100_items(storage: InMemoryStorage) -> None:
    from ratings.service.stored import PlayerItem, Pseudonymized

    items = [PlayerItem("ffa", "alice", "other", "", f"item-{n}") for n in range(101)]
    with pytest.raises(ValueError, match="101 items"):
        storage.erasures.pseudonymize("ffa", Pseudonymized([], [], [], items))


def outcome(service: RatingService, storage: InMemoryStorage) -> dict[str, Any]:
    """What an erasure of alice leaves, her pseudonym written as "erased": every game, its
    revision (each rewritten once), and every other player's history."""
    pseudonym = pseudonym_of_alice(service)

    def plain(document: Any) -> Any:
        return json.loads(json.dumps(document).replace(pseudonym, "erased"))

    players = {*FFA[1:], *TEAMS[0][1:], *TEAMS[1]}
    return {
        "games": {gid: plain(service.get_game("ffa", gid)) for gid in ("g-ffa", "g-teams")},
        "revisions": {key: game.revision for key, game in storage.games.items()},
        "histories": {pid: plain(events_of(service, pid)) for pid in sorted(players)},
        "mentions": mentions(storage, "alice"),
    }


def test_a_step_done_again_after_its_write_landed_ends_the_same(
    storage: InMemoryStorage, clock: FixedClock
) -> None:
    calm_storage, calm_queue = InMemoryStorage(), RecordingJobQueue()
    calm = team_service(calm_storage, clock, calm_queue)
    play_ffa_and_teams(calm)
    erase(calm, calm_queue, "alice")

    queue = RecordingJobQueue()
    service = team_service(storage, clock, queue)
    play_ffa_and_teams(service)
    crashed = crash_after_each_write(storage)
    service.request_erasure("alice")
    while queue.sent:
        try:
            work_jobs(service, queue)
        except RuntimeError:
            service.request_erasure("alice")  # the message comes back

    # One page (2 events: 2 games, 7 + 3 others' events, 2 deletes), its step done again.
    assert crashed == [14]
    assert service.get_erasure("alice")["status"] == "done"
    assert outcome(service, storage) == outcome(calm, calm_storage)
    assert set(outcome(service, storage)["revisions"].values()) == {1}


def test_a_game_event_naming_no_other_player_is_renamed_by_the_games_players(
    service: RatingService, storage: InMemoryStorage, job_queue: RecordingJobQueue
) -> None:
    # No stored game has one (a game of several opponents is sent as sides), but an event
    # naming nobody still has the game's record say who played.
    play_ffa_and_teams(service)
    events = storage.events[("ffa", "alice")]
    events[:] = [
        event._replace(
            body={k: v for k, v in event.body.items() if k not in ("teammates", "opponents")}
        )
        if event.ref_id == "g-ffa"
        else event
        for event in events
    ]

    assert erase(service, job_queue, "alice")["status"] == "done"

    pseudonym = pseudonym_of_alice(service)
    for other in FFA[1:]:
        assert events_of(service, other)["g-ffa"]["opponents"][0] == pseudonym
    assert mentions(storage, "alice") == []
