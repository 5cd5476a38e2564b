"""Sanctions over the in-memory storage: the sanctioned player off every leaderboard page,
window and standing count, their own read, games with them unranked, lifting, and the
sanction's body refused when it is wrong."""

from datetime import timedelta
from typing import Any

import pytest
from support.games import DAY, HOUR, NOW, FixedClock, game, ts
from support.jobs import RecordingJobQueue
from support.sanctions import sanction, sanction_and_refund

from ratings.rules import DEFAULT_LADDERS, InvalidInput
from ratings.service.errors import (
    AlreadySanctioned,
    NotFound,
    NotRanked,
    SanctionConflict,
)
from ratings.service.facade import RatingService, Settings
from ratings.storage.memory import InMemoryStorage

LADDER = "backgammon"


def board(service: RatingService) -> list[tuple[int, str, int]]:
    page = service.get_leaderboard(LADDER, limit=100)
    return [(row["rank"], row["player_id"], row["rating"]) for row in page["entries"]]


def seed_board(service: RatingService) -> None:
    """mallory on top (1532), then bob 1516, alice 1484 and carol 1468."""
    service.submit_game(LADDER, game("g-1", "mallory", "carol", played_at=NOW - 2 * HOUR))
    service.submit_game(LADDER, game("g-2", "mallory", "carol", played_at=NOW - HOUR))
    service.submit_game(LADDER, game("g-3", "bob", "alice", played_at=NOW - HOUR))


# Off the ladder ------------------------------------------------------------------------------


def test_a_sanctioned_player_leaves_every_leaderboard_page_and_those_below_move_up(
    service: RatingService,
) -> None:
    seed_board(service)
    assert board(service)[0] == (1, "mallory", 1532)

    made = service.sanction_player(LADDER, sanction())

    assert made.created is True
    assert board(service) == [(1, "bob", 1516), (2, "alice", 1484), (3, "carol", 1468)]
    first = service.get_leaderboard(LADDER, limit=1)
    second = service.get_leaderboard(LADDER, limit=1, cursor=first["next_cursor"])
    assert [row["player_id"] for row in first["entries"] + second["entries"]] == ["bob", "alice"]


def test_the_sanctioned_players_own_read_keeps_their_rating_and_says_sanctioned(
    service: RatingService,
) -> None:
    seed_board(service)
    before = service.get_player(LADDER, "mallory")

    service.sanction_player(LADDER, sanction())
    after = service.get_player(LADDER, "mallory")

    assert before["sanctioned"] is False
    assert after["sanctioned"] is True
    assert (after["rating"], after["ranked_games"]) == (before["rating"], before["ranked_games"])
    assert after["standing"] is None
    with pytest.raises(NotRanked) as raised:
        service.get_leaderboard(LADDER, around="mallory")
    assert "sanction" in raised.value.message


def test_windows_around_others_and_exact_standings_skip_the_sanctioned_player(
    service: RatingService,
) -> None:
    seed_board(service)
    assert service.get_player(LADDER, "bob")["standing"]["rank"] == 2

    service.sanction_player(LADDER, sanction())

    window = service.get_leaderboard(LADDER, around="alice", limit=3)
    assert [(row["rank"], row["player_id"]) for row in window["entries"]] == [
        (1, "bob"),
        (2, "alice"),
        (3, "carol"),
    ]
    standing = service.get_player(LADDER, "bob")["standing"]
    assert (standing["rank"], standing["exact"]) == (1, True)


def test_estimated_standings_drop_the_sanctioned_player_at_the_next_refresh(
    storage: InMemoryStorage, clock: FixedClock
) -> None:
    # An exact limit of 0: every rank is the histogram's estimate.
    service = RatingService(
        storage,
        DEFAULT_LADDERS,
        settings=Settings(exact_rank_limit=0),
        clock=clock,
        job_queue=RecordingJobQueue(),
    )
    seed_board(service)
    service.refresh_standings(LADDER)
    assert service.get_player(LADDER, "carol")["standing"]["rank"] == 4
    assert service.get_player(LADDER, "carol")["standing"]["of"] == 4

    service.sanction_player(LADDER, sanction())
    clock.advance(timedelta(minutes=5))
    refreshed = service.refresh_standings(LADDER)

    standing = service.get_player(LADDER, "carol")["standing"]
    assert refreshed["players"] == 3
    assert (standing["rank"], standing["of"], standing["exact"]) == (3, 3, False)


# Games with a sanctioned player ------------------------------------------------------------


def test_a_game_with_a_sanctioned_player_is_stored_and_answered_but_unranked_for_both(
    service: RatingService, storage: InMemoryStorage
) -> None:
    seed_board(service)
    service.sanction_player(LADDER, sanction())
    alice = service.get_player(LADDER, "alice")

    body = game("g-later", "alice", "mallory", winner="mallory")
    played = service.submit_game(LADDER, body)

    assert played.created is True
    result = played.result
    assert (result["ranked"], result["unranked_reason"]) == (False, "sanctioned")
    assert [(p["id"], p["delta"]) for p in result["players"]] == [("alice", 0), ("mallory", 0)]
    assert service.get_player(LADDER, "alice")["rating"] == alice["rating"]
    assert service.get_player(LADDER, "alice")["ranked_games"] == alice["ranked_games"]
    assert service.get_game(LADDER, "g-later") == result
    again = service.submit_game(LADDER, dict(body))
    assert (again.created, again.result) == (False, result)
    (event, *_older) = service.get_history(LADDER, "alice")["events"]
    assert (event["game_id"], event["unranked_reason"]) == ("g-later", "sanctioned")


def test_a_preview_with_a_sanctioned_player_shows_the_game_unranked(
    service: RatingService,
) -> None:
    service.sanction_player(LADDER, sanction())

    preview = service.preview_game(
        LADDER, {"players": [{"id": "alice"}, {"id": "mallory"}], "winner": "alice"}
    )

    assert (preview["ranked"], preview["unranked_reason"]) == (False, "sanctioned")


def test_a_player_never_seen_can_be_sanctioned_and_their_first_game_does_not_rate(
    service: RatingService,
) -> None:
    made = service.sanction_player(LADDER, sanction(player_id="newcomer"))
    played = service.submit_game(LADDER, game("g-new", "newcomer", "alice"))

    assert made.result["player_id"] == "newcomer"
    assert played.result["unranked_reason"] == "sanctioned"
    assert service.get_player(LADDER, "newcomer")["sanctioned"] is True
    assert service.get_player(LADDER, "newcomer")["rating"] == 1500


def test_a_sanction_holds_in_its_own_ladder_only(service: RatingService) -> None:
    service.submit_game("classic", game("g-c", "mallory", "alice"))
    service.sanction_player(LADDER, sanction())

    played = service.submit_game("classic", game("g-c2", "mallory", "alice"))

    assert played.result["ranked"] is True
    assert service.get_player("classic", "mallory")["sanctioned"] is False


# Retries and conflicts ---------------------------------------------------------------------


def test_the_same_sanction_again_answers_its_current_status_and_changes_nothing(
    service: RatingService, storage: InMemoryStorage
) -> None:
    seed_board(service)
    first = service.sanction_player(LADDER, sanction(refund_days=7))
    commits = storage.commits

    again = service.sanction_player(LADDER, sanction())  # 7 is the default: the same content
    service.pay_refunds.run(LADDER, "s-1")
    done = service.sanction_player(LADDER, sanction())

    assert (again.created, again.result) == (False, first.result)
    assert again.result["status"] == "pending"
    assert done.created is False
    assert done.result["status"] == "done"
    assert done.result == service.get_sanction(LADDER, "s-1")
    assert storage.commits == commits + 2  # the two refunds to carol, nothing else


@pytest.mark.parametrize(
    "change",
    [
        {"player_id": "bob"},
        {"reason": "boosting"},
        {"reason": None},
        {"refund_days": 3},
    ],
)
def test_the_same_sanction_id_with_other_content_is_a_conflict(
    service: RatingService, storage: InMemoryStorage, change: dict[str, Any]
) -> None:
    service.sanction_player(LADDER, sanction())
    commits = storage.commits

    with pytest.raises(SanctionConflict) as raised:
        service.sanction_player(LADDER, {**sanction(), **change})

    assert raised.value.code == "sanction_conflict"
    assert "s-1" in raised.value.message
    assert storage.commits == commits
    assert service.get_player(LADDER, "bob")["sanctioned"] is False


def test_sanction_ids_are_per_ladder(service: RatingService) -> None:
    service.sanction_player(LADDER, sanction())

    other = service.sanction_player("sedma", sanction(player_id="bob"))

    assert other.created is True
    assert service.get_player("sedma", "bob")["sanctioned"] is True
    assert service.get_player("sedma", "mallory")["sanctioned"] is False


def test_a_second_sanction_of_a_sanctioned_player_is_refused_until_the_first_is_lifted(
    service: RatingService,
) -> None:
    service.sanction_player(LADDER, sanction())

    with pytest.raises(AlreadySanctioned) as raised:
        service.sanction_player(LADDER, sanction("s-2"))
    service.lift_sanction(LADDER, "s-1")
    second = service.sanction_player(LADDER, sanction("s-2"))

    assert raised.value.code == "already_sanctioned"
    assert "s-1" in raised.value.message
    assert second.created is True
    with pytest.raises(NotFound):
        service.get_sanction(LADDER, "s-3")


# Lifting --------------------------------------------------------------------------------------


def test_lifting_puts_the_player_back_on_the_board_and_the_refunds_stay(
    service: RatingService, clock: FixedClock
) -> None:
    seed_board(service)
    refunded = sanction_and_refund(service, sanction())
    carol = service.get_player(LADDER, "carol")["rating"]
    clock.advance(HOUR)

    lifted = service.lift_sanction(LADDER, "s-1")

    assert lifted["lifted_at"] == ts(clock.now)
    assert lifted["refunds"] == refunded["refunds"]
    assert board(service)[0] == (1, "mallory", 1532)
    assert service.get_player(LADDER, "mallory")["sanctioned"] is False
    assert service.get_player(LADDER, "carol")["rating"] == carol
    assert service.get_sanction(LADDER, "s-1") == lifted
    played = service.submit_game(LADDER, game("g-after", "mallory", "alice"))
    assert played.result["ranked"] is True


def test_lifting_twice_answers_like_lifting_once(
    service: RatingService, storage: InMemoryStorage, clock: FixedClock
) -> None:
    service.sanction_player(LADDER, sanction())
    first = service.lift_sanction(LADDER, "s-1")
    commits = storage.commits
    clock.advance(HOUR)

    again = service.lift_sanction(LADDER, "s-1")

    assert again == first
    assert storage.commits == commits


def test_lifting_before_the_refunds_are_paid_keeps_paying_them(service: RatingService) -> None:
    seed_board(service)
    service.sanction_player(LADDER, sanction())

    service.lift_sanction(LADDER, "s-1")
    service.pay_refunds.run(LADDER, "s-1")

    answer = service.get_sanction(LADDER, "s-1")
    assert answer["status"] == "done"
    assert [(r["player_id"], r["delta"]) for r in answer["refunds"]] == [
        ("carol", 16),
        ("carol", 16),
    ]
    assert answer["lifted_at"] is not None


def test_lifting_an_unknown_sanction_is_not_found(service: RatingService) -> None:
    with pytest.raises(NotFound):
        service.lift_sanction(LADDER, "s-nope")


# Refused bodies ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"player_id": "mallory"}, "sanction_id"),
        ({"sanction_id": "s 1", "player_id": "mallory"}, "sanction_id"),
        ({"sanction_id": "s#1", "player_id": "mallory"}, "sanction_id"),
        ({"sanction_id": "x" * 129, "player_id": "mallory"}, "sanction_id"),
        ({"sanction_id": "s-1"}, "player_id"),
        ({"sanction_id": "s-1", "player_id": ""}, "player_id"),
        ({"sanction_id": "s-1", "player_id": "a/b"}, "player_id"),
        ({"sanction_id": "s-1", "player_id": 7}, "player_id"),
        ({"sanction_id": "s-1", "player_id": "m", "refund_days": -1}, "refund_days"),
        ({"sanction_id": "s-1", "player_id": "m", "refund_days": 31}, "refund_days"),
        ({"sanction_id": "s-1", "player_id": "m", "refund_days": "7"}, "refund_days"),
        ({"sanction_id": "s-1", "player_id": "m", "refund_days": 7.5}, "refund_days"),
        ({"sanction_id": "s-1", "player_id": "m", "refund_days": True}, "refund_days"),
        ({"sanction_id": "s-1", "player_id": "m", "refund_days": None}, "refund_days"),
        ({"sanction_id": "s-1", "player_id": "m", "reason": 3}, "reason"),
        ({"sanction_id": "s-1", "player_id": "m", "reason": "x" * 501}, "reason"),
        ({"sanction_id": "s-1", "player_id": "m", "days": 3}, "days"),
    ],
)
def test_a_wrong_sanction_body_is_refused_naming_the_field_and_changes_nothing(
    service: RatingService, storage: InMemoryStorage, body: dict[str, Any], field: str
) -> None:
    with pytest.raises(InvalidInput) as raised:
        service.sanction_player(LADDER, body)

    assert raised.value.field == field
    assert field in raised.value.message
    assert storage.commits == 0
    assert storage.job_records == {}


def test_refund_days_may_reach_the_retention_period_and_the_message_says_so(
    storage: InMemoryStorage, clock: FixedClock
) -> None:
    settings = Settings(history_retention=timedelta(days=60), game_retention=timedelta(days=60))
    service = RatingService(
        storage, DEFAULT_LADDERS, settings=settings, clock=clock, job_queue=RecordingJobQueue()
    )

    with pytest.raises(InvalidInput) as raised:
        service.sanction_player(LADDER, sanction(refund_days=61))
    made = service.sanction_player(LADDER, sanction(refund_days=60))

    assert "refund_days must be an integer from 0 to 60" in raised.value.message
    assert made.result["refund_days"] == 60
    window = made.result["refund_window"]
    assert window["from"] == ts(NOW - 60 * DAY)


def test_a_body_that_is_not_an_object_is_refused(service: RatingService) -> None:
    with pytest.raises(InvalidInput):
        service.sanction_player(LADDER, ["s-1", "mallory"])


def test_an_unknown_ladder_is_not_found_for_every_sanction_route(service: RatingService) -> None:
    with pytest.raises(NotFound):
        service.sanction_player("chess", sanction())
    with pytest.raises(NotFound):
        service.get_sanction("chess", "s-1")
    with pytest.raises(NotFound):
        service.lift_sanction("chess", "s-1")


@pytest.mark.parametrize("sanction_id", ["s 1", "", "x" * 129, "s/1"])
def test_a_malformed_sanction_id_in_a_read_or_lift_is_refused(
    service: RatingService, sanction_id: str
) -> None:
    with pytest.raises(InvalidInput):
        service.get_sanction(LADDER, sanction_id)
    with pytest.raises(InvalidInput):
        service.lift_sanction(LADDER, sanction_id)


# A sanction follows the person across a link ------------------------------------------------


@pytest.mark.parametrize("account_has_games", [False, True])
def test_linking_a_sanctioned_anonymous_id_puts_the_account_under_its_sanction(
    service: RatingService, account_has_games: bool
) -> None:
    service.submit_game(LADDER, game("g-a", "anon-m", "alice", played_at=NOW - HOUR))
    if account_has_games:
        service.submit_game(LADDER, game("g-b", "mallory", "bob", played_at=NOW - HOUR))
    service.sanction_player(LADDER, sanction(player_id="anon-m"))

    linked = service.link_identity({"anonymous_id": "anon-m", "account_id": "mallory"})
    played = service.submit_game(LADDER, game("g-c", "anon-m", "carol"))

    kept = "account" if account_has_games else "anonymous"
    assert linked["ladders"][0] == {"ladder": LADDER, "kept": kept}
    assert service.get_player(LADDER, "mallory")["sanctioned"] is True
    assert played.result["unranked_reason"] == "sanctioned"
    assert "mallory" not in [row[1] for row in board(service)]
    service.lift_sanction(LADDER, "s-1")
    assert service.get_player(LADDER, "mallory")["sanctioned"] is False
    assert "mallory" in [row[1] for row in board(service)]


def test_linking_an_anonymous_id_to_a_sanctioned_account_keeps_the_account_sanctioned(
    service: RatingService,
) -> None:
    service.sanction_player(LADDER, sanction(player_id="mallory"))
    service.submit_game(LADDER, game("g-a", "anon-m", "alice", played_at=NOW - HOUR))

    service.link_identity({"anonymous_id": "anon-m", "account_id": "mallory"})

    player = service.get_player(LADDER, "anon-m")  # reads as the account
    assert (player["player_id"], player["sanctioned"]) == ("mallory", True)
