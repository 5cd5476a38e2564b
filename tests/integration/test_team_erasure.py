"""Erasing a player of team and free-for-all games on each storage (the in-memory fake, moto,
DynamoDB Local): every game record and every other player's event of it get the pseudonym, and
each page's write stays within a transaction's 100 items (DynamoDB Local refuses more), its
step done again after the write landed."""

from typing import Any

from support.erasure import crash_after_each_write, mentions, play_sides, team_service, work_jobs
from support.games import FixedClock
from support.jobs import RecordingJobQueue
from support.services import answers_alike

from ratings.service.ports import Storage

ERASED = "victim-t5"
FFA = [ERASED, *(f"ffa-{n}" for n in range(1, 8))]
TEAMS = ([ERASED, "bob"], ["carol", "dave"])
#: Sixteen-player games: the erased player and 7 mates against 8 rivals.
MATES, RIVALS = [f"mate-{n}" for n in range(7)], [f"rival-{n}" for n in range(8)]
BIG_GAMES = [f"g-big-{n}" for n in range(6)]
OTHERS = sorted({*FFA[1:], *TEAMS[0][1:], *TEAMS[1], *MATES, *RIVALS})


def team_erasure_scenario(storage: Storage) -> dict[str, Any]:
    """An 8-player free-for-all, a 2v2 and six 16-player games, the erasure of a player of
    all of them (each write's step crashed once, after the write), and what everybody else
    reads, the pseudonym (random) written as "<erased>"."""
    queue = RecordingJobQueue()
    service = team_service(storage, FixedClock(), queue)
    play_sides(service, "g-ffa", *([pid] for pid in FFA))
    play_sides(service, "g-teams", TEAMS[1], TEAMS[0])
    for game_id in BIG_GAMES:
        play_sides(service, game_id, [ERASED, *MATES], RIVALS)

    writes = crash_after_each_write(storage)
    service.request_erasure(ERASED)
    while queue.sent:
        try:
            work_jobs(service, queue)
        except RuntimeError:
            service.request_erasure(ERASED)  # the message comes back

    out: dict[str, Any] = {"erasure": service.get_erasure(ERASED), "writes": writes}
    games = ["g-ffa", "g-teams", *BIG_GAMES]
    out["games"] = {game_id: service.get_game("ffa", game_id) for game_id in games}
    pseudonym = out["games"]["g-ffa"]["players"][0]["id"]
    assert pseudonym.startswith("erased-")
    out["histories"] = {pid: service.get_history("ffa", pid, limit=100) for pid in OTHERS}
    out["erased-history"] = service.get_history("ffa", ERASED)
    out["mentions"] = mentions(storage, ERASED)
    answers: dict[str, Any] = _renamed(out, pseudonym)
    return answers


def _renamed(value: Any, pseudonym: str) -> Any:
    if isinstance(value, dict):
        return {key: _renamed(item, pseudonym) for key, item in value.items()}
    if isinstance(value, list):
        return [_renamed(item, pseudonym) for item in value]
    return "<erased>" if value == pseudonym else value


def test_an_erased_player_of_team_games_is_renamed_alike_on_every_storage(
    any_storage: Storage,
) -> None:
    answers = answers_alike(team_erasure_scenario, any_storage)

    assert answers["erasure"]["status"] == "done"
    assert answers["erased-history"]["events"] == []
    assert answers["mentions"] == []
    # Own events (by game id): g-big-0..5 17 items each, g-ffa 9, g-teams 5: a page ends
    # before its write passes 100 items, and each write landed, then its step was redone.
    assert answers["writes"] == [5 * 17, 17 + 9 + 5]
    games = answers["games"]
    assert games["g-ffa"]["sides"][0]["players"] == ["<erased>"]
    assert games["g-teams"]["sides"][1]["players"] == ["<erased>", "bob"]
    for game_id in BIG_GAMES:
        assert games[game_id]["sides"][0]["players"] == ["<erased>", *MATES]
    events = {
        (pid, event["game_id"]): event
        for pid, history in answers["histories"].items()
        for event in history["events"]
    }
    assert events[("ffa-3", "g-ffa")]["opponents"][0] == "<erased>"
    assert events[("bob", "g-teams")]["teammates"] == ["<erased>"]
    assert events[("carol", "g-teams")]["opponents"] == ["<erased>", "bob"]
    assert events[("mate-6", "g-big-5")]["teammates"] == ["<erased>", *MATES[:6]]
    assert events[("rival-0", "g-big-0")]["opponents"] == ["<erased>", *MATES]
