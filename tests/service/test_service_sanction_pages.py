"""A sanction's decisions a page at a time over the in-memory storage: every answer about a
sanction (POST, GET, DELETE) carries one page of them, by game id, and GET reads on with
`limit` and `cursor`; the totals on the sanction add up every decision without a page; a
wrong `limit` or `cursor` is refused naming the field. (The same pages on DynamoDB:
tests/integration/test_sanctions_storage.py; through the Moderation function, with the
largest answer's size: tests/functions/test_sanction_handlers.py.)"""

from datetime import timedelta
from typing import Any

import pytest
from support.games import HOUR, MINUTE, NOW, game
from support.sanctions import decided_games, decision_pages, mallory_beats, sanction

from ratings.rules import InvalidInput
from ratings.service import cursors
from ratings.service.errors import InvalidCursor, NotFound
from ratings.service.facade import RatingService

LADDER = "backgammon"
#: What differs between the pages of a sanction: the rest is the sanction itself.
PAGED = ("refunds", "withheld", "next_cursor")


def refunded_and_withheld(service: RatingService, losses: int) -> None:
    """mallory beats victims v0, v1, ... in `losses` games (g-0, g-1, ...), the last three
    of them against trudy, who is sanctioned herself (withheld); then mallory is sanctioned
    (s-1) and the refunds are paid to the end."""
    victims = [f"v{index % 40}" for index in range(losses - 3)] + ["trudy"] * 3
    mallory_beats(service, victims, apart=timedelta(seconds=10))
    service.submit_game(LADDER, game("w-1", "v0", "mallory", played_at=NOW - 2 * HOUR))  # a win
    service.sanction_player(LADDER, sanction("s-t", "trudy", refund_days=0))
    service.sanction_player(LADDER, sanction())
    service.pay_refunds.run(LADDER, "s-1")


def test_the_pages_list_every_decision_once_by_game_id_and_the_totals_add_them_up(
    service: RatingService,
) -> None:
    refunded_and_withheld(service, 23)

    pages = decision_pages(service, limit=5)
    whole = service.get_sanction(LADDER, "s-1", 1000)

    listed = decided_games(pages)
    assert [len(page["refunds"] + page["withheld"]) for page in pages] == [5, 5, 5, 5, 3]
    assert listed == sorted(f"g-{n}" for n in range(23))  # each once, in game id order
    assert whole["next_cursor"] is None
    assert decided_games([whole]) == listed
    refunds = [refund for page in pages for refund in page["refunds"]]
    withheld = [kept for page in pages for kept in page["withheld"]]
    assert refunds == whole["refunds"]
    assert withheld == whole["withheld"]
    assert [kept["game_id"] for kept in withheld] == ["g-20", "g-21", "g-22"]
    for page in pages:
        assert page["totals"] == {
            "refunds": 20,
            "points": sum(refund["delta"] for refund in refunds),
            "withheld": 3,
        }
        # Every page is the whole sanction besides its decisions.
        assert {k: v for k, v in page.items() if k not in PAGED} == {
            k: v for k, v in whole.items() if k not in PAGED
        }


def test_post_and_delete_answer_the_first_page_and_get_reads_on_with_their_cursor(
    service: RatingService,
) -> None:
    refunded_and_withheld(service, 104)  # four more than a page of the default size

    again = service.sanction_player(LADDER, sanction()).result
    lifted = service.lift_sanction(LADDER, "s-1")
    rest = service.get_sanction(LADDER, "s-1", None, lifted["next_cursor"])

    assert len(again["refunds"] + again["withheld"]) == 100
    assert again["next_cursor"] is not None
    assert (again["refunds"], again["withheld"]) == (lifted["refunds"], lifted["withheld"])
    assert decided_games([lifted, rest]) == sorted(f"g-{n}" for n in range(104))
    assert rest["next_cursor"] is None
    points = sum(refund["delta"] for refund in lifted["refunds"] + rest["refunds"])
    assert lifted["totals"] == {"refunds": 101, "points": points, "withheld": 3}
    # The cursor of POST's answer reads on the same way.
    from_post = service.get_sanction(LADDER, "s-1", None, again["next_cursor"])
    assert (from_post["refunds"], from_post["withheld"]) == (rest["refunds"], rest["withheld"])


def test_a_page_that_ends_with_the_last_decision_gives_no_cursor(service: RatingService) -> None:
    refunded_and_withheld(service, 6)

    pages = decision_pages(service, limit=3)

    assert [len(page["refunds"] + page["withheld"]) for page in pages] == [3, 3]
    assert pages[-1]["next_cursor"] is None


def test_while_pending_the_totals_count_the_steps_saved_and_the_pages_what_is_stored(
    service: RatingService, storage: Any
) -> None:
    mallory_beats(service, [f"v{index}" for index in range(7)], apart=MINUTE)
    service.sanction_player(LADDER, sanction())
    service.pay_refunds.games_per_step = 3
    job = storage.jobs.get_job("sanction", "backgammon#s-1")

    seen = []
    while job.pending:
        job = service.pay_refunds.step(job)
        storage.jobs.save_job(job)
        answer = service.get_sanction(LADDER, "s-1", 2)
        listed = decided_games(decision_pages(service, limit=2))
        seen.append((answer["status"], answer["totals"]["refunds"], len(listed)))

    assert seen == [("pending", 3, 3), ("pending", 6, 6), ("done", 7, 7)]


def test_a_step_whose_games_another_run_decided_first_counts_them_as_stored(
    service: RatingService, storage: Any
) -> None:
    mallory_beats(service, ["alice", "bob", "trudy", "carol"])
    service.sanction_player(LADDER, sanction("s-t", "trudy", refund_days=0))
    service.sanction_player(LADDER, sanction())
    job = storage.jobs.get_job("sanction", "backgammon#s-1")
    others = []

    def another_run_decides_the_page_first() -> None:  # before this run's first commit
        others.append(service.pay_refunds.step(job))

    storage.before_commit = another_run_decides_the_page_first
    saved = service.pay_refunds.step(job)  # every commit of it finds the decision stored
    storage.jobs.save_job(saved)

    answer = service.get_sanction(LADDER, "s-1")
    points = sum(refund["delta"] for refund in answer["refunds"])
    assert (len(answer["refunds"]), len(answer["withheld"])) == (3, 1)
    assert answer["totals"] == {"refunds": 3, "points": points, "withheld": 1}
    assert others[0].progress.position == saved.progress.position  # both counted alike


@pytest.mark.parametrize("limit", ["0", "1001", "-1", "ten", "1.5", "", " 5", 0, 1001, True])
def test_a_wrong_limit_is_refused_naming_the_field_and_what_is_allowed(
    service: RatingService, limit: object
) -> None:
    refunded_and_withheld(service, 4)
    before = service.get_sanction(LADDER, "s-1")

    with pytest.raises(InvalidInput) as refused:
        service.get_sanction(LADDER, "s-1", limit)

    assert refused.value.field == "limit"
    assert refused.value.message == "limit must be an integer from 1 to 1000"
    assert service.get_sanction(LADDER, "s-1") == before


def test_the_largest_and_smallest_limits_are_taken(service: RatingService) -> None:
    refunded_and_withheld(service, 4)

    largest = service.get_sanction(LADDER, "s-1", "1000")
    smallest = service.get_sanction(LADDER, "s-1", "1")

    assert decided_games([largest]) == ["g-0", "g-1", "g-2", "g-3"]
    assert largest["next_cursor"] is None
    assert decided_games([smallest]) == ["g-0"]
    assert smallest["next_cursor"] is not None


def other_cursors(service: RatingService) -> dict[str, str]:
    """Cursors that are not a next_cursor of sanction s-1 in backgammon."""
    history = service.get_history(LADDER, "v0", limit=1)["next_cursor"]
    assert history is not None
    return {
        "malformed": "not-a-cursor!",
        "a history's": history,
        "another sanction's": cursors.sanction_cursor(LADDER, "s-t", "g-0"),
        "another ladder's": cursors.sanction_cursor("classic", "s-1", "g-0"),
        "an edited game id": cursors.sanction_cursor(LADDER, "s-1", "g 0"),
        "a game id not a string": cursors.encode_cursor(["n", LADDER, "s-1", 7]),
        "too long": "A" * 1025,
    }


def test_a_cursor_that_is_not_a_next_cursor_of_this_sanction_is_refused(
    service: RatingService,
) -> None:
    refunded_and_withheld(service, 4)
    before = service.get_sanction(LADDER, "s-1")

    for what, cursor in other_cursors(service).items():
        with pytest.raises(InvalidCursor) as refused:
            service.get_sanction(LADDER, "s-1", None, cursor)
        assert refused.value.field == "cursor", what
        assert refused.value.code == "invalid_cursor", what
    assert service.get_sanction(LADDER, "s-1") == before


def test_an_unknown_sanction_is_not_found_with_any_valid_page(service: RatingService) -> None:
    refunded_and_withheld(service, 4)
    cursor = service.get_sanction(LADDER, "s-1", 1)["next_cursor"]

    with pytest.raises(NotFound):
        service.get_sanction(LADDER, "s-2", 10)
    with pytest.raises(InvalidCursor):  # s-1's cursor is not one of s-2's
        service.get_sanction(LADDER, "s-2", None, cursor)
