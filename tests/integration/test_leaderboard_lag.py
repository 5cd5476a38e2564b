"""Leaderboard pages read while the index lags (`support.index_lag` puts the lagging view AWS
documents into the table): no page lists a player twice, a player is listed at the rating
their state has now, and walking the pages with cursors lists a player on one page only
unless their rating changed between the reads of two pages. An id absorbed by its account
is never listed beside it. On both engines.

The rule (api.md, "Pagination"): each entry the index returns is checked against the
player's state; the player is listed at the state's rating, and only where that rating places
them in the part of the board the page covers.
"""

import random
from collections import Counter
from typing import Any

import pytest
from support.games import NOW, FixedClock, game
from support.index_lag import lingering_entry, not_yet_indexed
from support.seeding import seed_states
from support.services import rating_service

from ratings.rules.ranking import board_order
from ratings.service.facade import RatingService
from ratings.storage.dynamodb import DynamoStorage

LADDER = "backgammon"


def board(count: int, top: int = 2000, step: int = 10) -> list[tuple[str, int, int]]:
    """`count` players rated top, top - step, ... (p00 the best), one ranked game each."""
    return [(f"p{index:02d}", top - step * index, 1) for index in range(count)]


def walk(service: RatingService, limit: int) -> list[list[dict[str, Any]]]:
    """Every page of the leaderboard, following next_cursor."""
    pages = []
    cursor = None
    while True:
        page = service.get_leaderboard(LADDER, limit, cursor)
        pages.append(page["entries"])
        cursor = page["next_cursor"]
        if cursor is None:
            return pages


def assert_ordered_once(pages: list[list[dict[str, Any]]]) -> Counter[str]:
    listed = [entry for page in pages for entry in page]
    seen = Counter(entry["player_id"] for entry in listed)
    assert all(count == 1 for count in seen.values()), seen
    keys = [board_order(entry["rating"], entry["player_id"]) for entry in listed]
    assert keys == sorted(keys)
    assert [entry["rank"] for entry in listed] == list(range(1, len(listed) + 1))
    return seen


@pytest.fixture
def lagging(dynamo_storage: DynamoStorage) -> tuple[DynamoStorage, RatingService]:
    return dynamo_storage, rating_service(dynamo_storage, FixedClock(NOW))


def test_a_player_shown_by_the_index_at_two_ratings_is_listed_once_at_the_current_one(
    lagging: tuple[DynamoStorage, RatingService],
) -> None:
    storage, service = lagging
    seed_states(storage, board(10))
    lingering_entry(storage, LADDER, "p05", 1995)  # its rating before it lost: near the top

    (page,) = walk(service, 20)

    assert_ordered_once([page])
    assert [entry["player_id"] for entry in page] == [f"p{n:02d}" for n in range(10)]
    assert page[5] == {"rank": 6, "player_id": "p05", "rating": 1950, "ranked_games": 1}


def test_a_lingering_entry_on_an_earlier_page_does_not_list_the_player_twice(
    lagging: tuple[DynamoStorage, RatingService],
) -> None:
    storage, service = lagging
    seed_states(storage, board(12))
    lingering_entry(storage, LADDER, "p10", 2005)  # on page 1 by its old rating, page 4 now

    pages = walk(service, 3)

    seen = assert_ordered_once(pages)
    assert sum(seen.values()) == 12
    assert [entry["player_id"] for entry in pages[0]] == ["p00", "p01", "p02"]
    assert "p10" in [entry["player_id"] for entry in pages[3]]


def test_a_player_whose_new_entry_is_not_indexed_yet_is_listed_where_the_state_puts_them(
    lagging: tuple[DynamoStorage, RatingService],
) -> None:
    storage, service = lagging
    seed_states(storage, board(12))
    not_yet_indexed(storage, LADDER, "p01")
    lingering_entry(storage, LADDER, "p01", 1975)  # where it was: page 1; still page 1 now

    pages = walk(service, 3)

    assert_ordered_once(pages)
    assert [entry["player_id"] for entry in pages[0]] == ["p00", "p01", "p02"]
    assert pages[0][1]["rating"] == 1990


def test_a_player_met_only_at_a_stale_place_is_left_out_until_the_index_catches_up(
    lagging: tuple[DynamoStorage, RatingService],
) -> None:
    storage, service = lagging
    seed_states(storage, board(12))
    not_yet_indexed(storage, LADDER, "p09")  # now 1910, on page 4 by its state...
    lingering_entry(storage, LADDER, "p09", 1995)  # ...but the index only has page 1's entry

    pages = walk(service, 3)

    seen = assert_ordered_once(pages)
    assert "p09" not in seen  # listed nowhere rather than twice or at a rating it lost
    assert sum(seen.values()) == 11


def test_an_anonymous_id_linked_a_moment_ago_is_not_listed_beside_its_account(
    lagging: tuple[DynamoStorage, RatingService],
) -> None:
    storage, service = lagging
    seed_states(storage, board(6))
    service.submit_game(LADDER, game("g-anon", "anon-7", "p05", played_at=NOW))
    anonymous = service.get_leaderboard(LADDER)["entries"]
    (before,) = [entry for entry in anonymous if entry["player_id"] == "anon-7"]
    service.link_identity({"anonymous_id": "anon-7", "account_id": "acct-7"})
    # The index still has the anonymous id's entry (its state is now unlisted), and not yet
    # the account's.
    lingering_entry(storage, LADDER, "anon-7", before["rating"])
    listed = [entry["player_id"] for entry in service.get_leaderboard(LADDER)["entries"]]

    assert "anon-7" not in listed
    assert len(listed) == len(set(listed))


def test_a_page_full_of_stale_entries_is_still_a_full_page(
    lagging: tuple[DynamoStorage, RatingService],
) -> None:
    storage, service = lagging
    seed_states(storage, board(20))
    for index in range(10, 20):  # ten entries above everyone, of players far below
        lingering_entry(storage, LADDER, f"p{index:02d}", 2100 + index)

    page = service.get_leaderboard(LADDER, 5)

    assert [entry["player_id"] for entry in page["entries"]] == [f"p{n:02d}" for n in range(5)]
    assert page["next_cursor"] is not None


def test_random_lag_never_lists_a_player_twice_and_lists_each_indexed_player_once(
    lagging: tuple[DynamoStorage, RatingService],
) -> None:
    storage, service = lagging
    rng = random.Random(1729)
    states = [(f"r{index:02d}", rng.choice(range(1400, 1700, 5)), 1) for index in range(30)]
    seed_states(storage, states)
    unindexed = set(rng.sample([pid for pid, _, _ in states], 5))
    for player_id in unindexed:
        not_yet_indexed(storage, LADDER, player_id)
    for player_id, _rating, _games in rng.sample(states, 12):
        lingering_entry(storage, LADDER, player_id, rng.choice(range(1400, 1700, 5)))
    ratings = {player_id: rating for player_id, rating, _ in states}

    for limit in (1, 2, 4, 7, 30):
        pages = walk(service, limit)
        seen = assert_ordered_once(pages)
        for entry in (entry for page in pages for entry in page):
            assert entry["rating"] == ratings[entry["player_id"]]
        # Every player whose current entry is indexed is listed (exactly once).
        assert set(ratings) - unindexed <= set(seen), limit


def test_the_leaderboard_around_a_player_lists_no_one_twice_while_the_index_lags(
    lagging: tuple[DynamoStorage, RatingService],
) -> None:
    storage, service = lagging
    seed_states(storage, board(15))
    lingering_entry(storage, LADDER, "p03", 1935)  # just above p07, below its rating now
    lingering_entry(storage, LADDER, "p11", 1925)  # just below p07, above its rating now
    not_yet_indexed(storage, LADDER, "p06")
    lingering_entry(storage, LADDER, "p06", 1905)  # below p07, though above it now

    window = service.get_leaderboard(LADDER, 7, around="p07")

    entries = window["entries"]
    # p03 and p11 once each, where their states put them; p06, met only at a place it has
    # left, waits for the index (listed nowhere rather than twice).
    assert [entry["player_id"] for entry in entries] == [
        "p03",
        "p04",
        "p05",
        "p07",
        "p08",
        "p09",
        "p10",
    ]
    assert [entry["rating"] for entry in entries] == [1970, 1960, 1950, 1930, 1920, 1910, 1900]
