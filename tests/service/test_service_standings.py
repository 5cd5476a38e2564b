"""Where a player stands, over the in-memory storage: the rank on the player summary (exact up to
the limit, estimated from the refreshed histogram beyond), the leaderboard around a player, and
the refresh that counts the histogram."""

import random
from collections.abc import Iterator
from datetime import timedelta

import pytest
from support.games import NOW, FixedClock, game
from support.services import rating_service

from ratings.declare.answers import format_utc_millis
from ratings.rules import InvalidInput
from ratings.rules.ranking import RatingHistogram
from ratings.service.errors import NotFound, NotRanked
from ratings.service.facade import RatingService, Settings
from ratings.service.player import Player
from ratings.service.stored import Standings
from ratings.storage.memory import InMemoryStorage
from ratings.storage.memory_views import InMemoryRanks

LADDER = "backgammon"


def make(storage: InMemoryStorage, clock: FixedClock, limit: int) -> RatingService:
    return rating_service(storage, clock, settings=Settings(exact_rank_limit=limit))


def seat(storage: InMemoryStorage, ratings: dict[str, int], ladder: str = LADDER) -> None:
    """Players on the leaderboard with these ratings (one ranked game each)."""
    for player_id, rating in ratings.items():
        storage.states[(ladder, player_id)] = Player(ladder, player_id, rating, 1, 1)


def board_ranks(service: RatingService) -> dict[str, int]:
    entries = service.get_leaderboard(LADDER)["entries"]
    return {entry["player_id"]: entry["rank"] for entry in entries}


def standing(service: RatingService, player_id: str) -> dict[str, object]:
    found: dict[str, object] = service.get_player(LADDER, player_id)["standing"]
    return found


# The histogram ------------------------------------------------------------------------------


def test_histogram_counts_each_rating_and_places_ties_in_the_middle() -> None:
    histogram = RatingHistogram.of([1500, 1600, 1500, 1400, 1500])

    assert histogram.counts == ((1600, 1), (1500, 3), (1400, 1))
    assert (histogram.players, histogram.above(1500), histogram.sharing(1500)) == (5, 1, 3)
    assert histogram.estimated_rank(1600) == 1
    assert histogram.estimated_rank(1500) == 3  # true rank 2, 3 or 4
    assert histogram.estimated_rank(1400) == 5
    assert histogram.estimated_rank(1550) == 2  # a rating nobody had: after those above
    assert RatingHistogram().estimated_rank(1500) == 1


# Standing on the player ---------------------------------------------------------------------


def test_standing_is_null_without_ranked_games(service: RatingService) -> None:
    service.submit_game(LADDER, game("g-1", "alice", "bob", mode="boosted"))

    assert standing(service, "alice") is None
    assert standing(service, "nobody") is None


def test_exact_ranks_up_to_the_limit_then_estimated_after_a_refresh(
    storage: InMemoryStorage, clock: FixedClock
) -> None:
    service = make(storage, clock, limit=3)
    seat(storage, {"a": 1700, "b": 1650, "c": 1650, "d": 1600, "e": 1550, "f": 1500})
    ranks = board_ranks(service)
    refreshed_at = clock.now

    assert standing(service, "a") == {
        "rank": 1,
        "of": None,  # no histogram yet
        "exact": True,
        "as_of": format_utc_millis(clock.now),
    }
    assert standing(service, "e") == {"rank": None, "of": None, "exact": False, "as_of": None}

    service.refresh_standings(LADDER)
    clock.advance(timedelta(minutes=3))

    for player_id, rank in ranks.items():
        found = standing(service, player_id)
        assert (found["rank"], found["of"], found["exact"]) == (rank, 6, rank <= 3)
        as_of = clock.now if rank <= 3 else refreshed_at
        assert found["as_of"] == format_utc_millis(as_of)


def test_exact_rank_orders_ties_by_player_id(storage: InMemoryStorage, clock: FixedClock) -> None:
    service = make(storage, clock, limit=10)
    seat(storage, {"z": 1600, "m": 1600, "b": 1600, "a": 1700, "y": 1500})

    assert {pid: standing(service, pid)["rank"] for pid in "abmzy"} == board_ranks(service)


@pytest.mark.parametrize(
    ("sharing", "player", "expected"),
    [
        # 10 entries at 1600 or more is past the bounded read (2 * 3 + 2): 1 above, 9 share,
        # the estimate is the middle of the tie.
        (9, "t0", (6, False)),
        # 5 entries are within the read: t0 is 2nd, exactly.
        (4, "t0", (2, True)),
        # t3 is 5th, past the limit of 3: estimated, as the middle of the 4 sharing 1600.
        (4, "t3", (3, False)),
    ],
)
def test_ties_are_ranked_exactly_within_the_bounded_read_else_estimated(
    storage: InMemoryStorage,
    clock: FixedClock,
    sharing: int,
    player: str,
    expected: tuple[int, bool],
) -> None:
    service = make(storage, clock, limit=3)
    seat(storage, {"a": 1700, **{f"t{n}": 1600 for n in range(sharing)}})
    service.refresh_standings(LADDER)

    found = standing(service, player)

    assert (found["rank"], found["exact"]) == expected


def test_an_estimate_is_off_by_at_most_the_players_sharing_the_rating(
    storage: InMemoryStorage, clock: FixedClock
) -> None:
    """The issue's bound, after a refresh with no new games: |estimate - rank| <= sharing."""
    rng = random.Random(14)
    ratings = {f"p{n:03d}": rng.choice(range(1480, 1530)) for n in range(300)}
    seat(storage, ratings)
    service = make(storage, clock, limit=0)  # every rank estimated
    service.refresh_standings(LADDER)
    ranks = board_ranks(service)
    histogram = RatingHistogram.of(ratings.values())

    worst = 0
    for player_id, rank in ranks.items():
        found = standing(service, player_id)
        assert found["exact"] is False
        assert isinstance(found["rank"], int)
        error = abs(found["rank"] - rank)
        assert error <= histogram.sharing(ratings[player_id])
        assert error <= histogram.sharing(ratings[player_id]) // 2
        worst = max(worst, error)
    assert worst > 0  # ties do exist here, so the estimate was tested, not only exact ranks


def test_of_is_never_below_the_rank_of_a_player_newer_than_the_histogram(
    storage: InMemoryStorage, clock: FixedClock
) -> None:
    service = make(storage, clock, limit=0)
    service.refresh_standings(LADDER)  # an empty board
    seat(storage, {"late": 1500})

    assert standing(service, "late") == {
        "rank": 1,
        "of": 1,
        "exact": False,
        "as_of": format_utc_millis(NOW),
    }


def test_a_linked_anonymous_id_stands_where_its_account_stands(service: RatingService) -> None:
    service.submit_game(LADDER, game("g-1", "acct", "bob"))
    service.submit_game(LADDER, game("g-2", "dev-1", "carol"))
    service.link_identity({"anonymous_id": "dev-1", "account_id": "acct"})

    assert standing(service, "dev-1") == standing(service, "acct")
    assert standing(service, "acct")["of"] is None
    assert [entry["player_id"] for entry in service.get_leaderboard(LADDER)["entries"]] == [
        "acct",
        "bob",
        "carol",
    ]


# Around a player ----------------------------------------------------------------------------


@pytest.fixture
def ten(storage: InMemoryStorage, clock: FixedClock) -> RatingService:
    """p0 (1900) to p9 (1000), 100 apart, exact ranks for everyone."""
    seat(storage, {f"p{n}": 1900 - 100 * n for n in range(10)})
    return make(storage, clock, limit=100)


def window(page: dict[str, object]) -> list[tuple[int, str]]:
    entries = page["entries"]
    assert isinstance(entries, list)
    return [(entry["rank"], entry["player_id"]) for entry in entries]


def test_around_puts_the_player_in_the_middle(ten: RatingService, clock: FixedClock) -> None:
    page = ten.get_leaderboard(LADDER, "5", around="p5")

    assert window(page) == [(4, "p3"), (5, "p4"), (6, "p5"), (7, "p6"), (8, "p7")]
    assert (page["around"], page["exact"]) == ("p5", True)
    assert page["as_of"] == format_utc_millis(clock.now)
    # An even limit leaves the extra entry below the player.
    assert window(ten.get_leaderboard(LADDER, "4", around="p5"))[0] == (5, "p4")


@pytest.mark.parametrize(
    ("around", "first"),
    [("p0", 1), ("p1", 1), ("p2", 1), ("p8", 6), ("p9", 6)],
)
def test_around_shifts_at_the_top_and_the_bottom(
    ten: RatingService, around: str, first: int
) -> None:
    page = ten.get_leaderboard(LADDER, 5, around=around)

    assert window(page) == [(rank, f"p{rank - 1}") for rank in range(first, first + 5)]


def test_around_holds_the_whole_board_when_it_is_smaller_than_the_limit(
    ten: RatingService,
) -> None:
    page = ten.get_leaderboard(LADDER, 100, around="p7")

    assert window(page) == [(n + 1, f"p{n}") for n in range(10)]
    assert page["next_cursor"] is None


def test_around_continues_with_the_next_page_when_exact(ten: RatingService) -> None:
    page = ten.get_leaderboard(LADDER, 3, around="p2")
    following = ten.get_leaderboard(LADDER, 3, page["next_cursor"])

    assert window(page) == [(2, "p1"), (3, "p2"), (4, "p3")]
    assert window(following) == [(5, "p4"), (6, "p5"), (7, "p6")]


def test_around_ranks_are_estimated_beyond_the_limit(
    storage: InMemoryStorage, clock: FixedClock
) -> None:
    seat(storage, {f"p{n}": 1900 - 100 * n for n in range(10)})
    service = make(storage, clock, limit=2)
    service.refresh_standings(LADDER)
    refreshed_at = clock.now
    clock.advance(timedelta(minutes=1))

    page = service.get_leaderboard(LADDER, 3, around="p6")

    assert window(page) == [(6, "p5"), (7, "p6"), (8, "p7")]
    assert (page["exact"], page["as_of"]) == (False, format_utc_millis(refreshed_at))
    assert page["next_cursor"] is None


def test_around_a_player_without_ranked_games_is_not_ranked(ten: RatingService) -> None:
    with pytest.raises(NotRanked) as raised:
        ten.get_leaderboard(LADDER, 5, around="stranger")

    assert isinstance(raised.value, NotFound)
    assert raised.value.code == "not_ranked"
    assert "stranger" in raised.value.message


def test_around_a_linked_anonymous_id_is_around_its_account(service: RatingService) -> None:
    service.submit_game(LADDER, game("g-1", "acct", "bob"))
    service.submit_game(LADDER, game("g-2", "dev-1", "carol"))
    service.link_identity({"anonymous_id": "dev-1", "account_id": "acct"})

    page = service.get_leaderboard(LADDER, 3, around="dev-1")

    assert page["around"] == "acct"
    assert [entry["player_id"] for entry in page["entries"]] == ["acct", "bob", "carol"]


@pytest.mark.parametrize(
    ("options", "field", "words"),
    [
        ({"around": "p1", "cursor": "abc"}, "around", "around and cursor"),
        ({"around": "bad id!"}, "around", "around"),
        ({"around": "p1", "limit": "0"}, "limit", "limit must be an integer from 1 to 100"),
        ({"around": ""}, "around", "around"),
    ],
)
def test_around_refuses_bad_input_naming_the_field(
    ten: RatingService, options: dict[str, str], field: str, words: str
) -> None:
    with pytest.raises(InvalidInput) as raised:
        ten.get_leaderboard(LADDER, **options)

    assert raised.value.field == field
    assert words in str(raised.value)


def test_around_an_unknown_ladder_is_not_found(ten: RatingService) -> None:
    with pytest.raises(NotFound):
        ten.get_leaderboard("chess", 5, around="p1")


# The refresh --------------------------------------------------------------------------------


class MovingStorage(InMemoryStorage):
    """Rates a game halfway through the refresh's read of the index, as a writer running
    alongside would: the read goes on over the board as it is then."""

    def __init__(self, during_read: "list[RatingService]") -> None:
        super().__init__()
        self.ranks = MovingRanks(self, during_read)


class MovingRanks(InMemoryRanks):
    def __init__(self, tables: InMemoryStorage, during_read: "list[RatingService]") -> None:
        super().__init__(tables)
        self.during_read = during_read

    def leaderboard_entries(self, ladder: str) -> Iterator[tuple[str, int]]:
        entries = list(super().leaderboard_entries(ladder))
        half = len(entries) // 2
        yield from entries[:half]
        for service in self.during_read:
            service.submit_game(LADDER, game("g-during", "p9", "new"))
        yield from super().leaderboard_entries(ladder)  # p9 again, higher now


def test_a_player_read_twice_during_a_refresh_counts_once_and_the_next_refresh_is_exact(
    clock: FixedClock,
) -> None:
    runners: list[RatingService] = []
    storage = MovingStorage(runners)
    seat(storage, {f"p{n}": 1900 - 100 * n for n in range(10)})
    service = make(storage, clock, limit=0)
    runners.append(service)

    summary = service.refresh_standings(LADDER)

    assert summary["entries_read"] > summary["players"]
    assert summary["players"] <= 11
    assert storage.standings[LADDER].histogram.players == summary["players"]
    runners.clear()
    assert service.refresh_standings(LADDER)["players"] == 11 == len(board_ranks(service))


def test_an_older_refresh_never_replaces_a_newer_one(
    storage: InMemoryStorage, clock: FixedClock
) -> None:
    newer = Standings(LADDER, RatingHistogram(((1500, 2),)), NOW)
    older = Standings(LADDER, RatingHistogram(((1500, 1),)), NOW - timedelta(seconds=1))

    assert storage.unit_of_work().put_standings(newer) is True
    assert storage.unit_of_work().put_standings(older) is False
    assert storage.ranks.read_standings(LADDER) == newer


def test_a_refresh_counts_each_ladder_apart(storage: InMemoryStorage, clock: FixedClock) -> None:
    seat(storage, {"a": 1500, "b": 1510})
    seat(storage, {"c": 1000}, ladder="sedma")
    service = make(storage, clock, limit=10)

    assert service.refresh_standings(LADDER)["players"] == 2
    assert service.refresh_standings("sedma")["players"] == 1
    assert service.refresh_standings("classic")["players"] == 0
    with pytest.raises(NotFound):
        service.refresh_standings("chess")
