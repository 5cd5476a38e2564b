"""Reads: leaderboard, history, players, stored games and the ladder list."""

import base64
import json
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from support.games import DAY, NOW, FixedClock, game, ts

from ratings.rules import InvalidInput
from ratings.service.errors import InvalidCursor, NotFound
from ratings.service.facade import RatingService
from ratings.storage.memory import InMemoryStorage

# Leaderboard ---------------------------------------------------------------------------------


def build_board(service: RatingService) -> list[tuple[str, int]]:
    """Classic games with ties; returns the expected order (player, rating)."""
    service.submit_game("classic", game("c-1", "dora", "bea"))  # dora 1216, bea 1184
    service.submit_game("classic", game("c-2", "abe", "cid"))  # abe 1216, cid 1184
    service.submit_game("classic", game("c-3", "eve", "fay", winner=None))  # draw: 1200 each
    service.submit_game("classic", game("c-4", "gus", "hal", winner=None))  # 1200 each
    service.submit_game("classic", game("c-5", "ivy", "abe"))  # ivy 1217, abe 1199
    # Not on the board: unranked games only, and a podium without any ranked game.
    service.submit_game("classic", game("c-6", "kim", "lou", mode="boosted"))
    service.award_podium(
        {
            "tournament_id": "t-1",
            "ladder": "classic",
            "finished_at": ts(NOW),
            "public": True,
            "podium": [{"place": 1, "player_id": "max"}],
        }
    )
    return [
        ("ivy", 1217),
        ("dora", 1216),
        ("eve", 1200),
        ("fay", 1200),
        ("gus", 1200),
        ("hal", 1200),
        ("abe", 1199),
        ("bea", 1184),
        ("cid", 1184),
    ]


def test_leaderboard_orders_by_rating_then_id_with_ranked_players_only(
    service: RatingService,
) -> None:
    expected = build_board(service)

    board = service.get_leaderboard("classic")

    assert board["ladder"] == "classic"
    assert board["next_cursor"] is None
    assert [(e["player_id"], e["rating"]) for e in board["entries"]] == expected
    assert [e["rank"] for e in board["entries"]] == list(range(1, len(expected) + 1))
    assert board["entries"][0] == {"rank": 1, "player_id": "ivy", "rating": 1217, "ranked_games": 1}
    assert board["entries"][6]["ranked_games"] == 2  # abe played twice
    assert service.get_player("classic", "max")["rating"] == 1250  # above everyone, not listed


@pytest.mark.parametrize("limit", [1, 2, 3, 4, 8, 9, 10])
def test_leaderboard_pages_give_the_same_order_without_gaps_or_repeats(
    service: RatingService, limit: int
) -> None:
    expected = build_board(service)
    whole = service.get_leaderboard("classic")["entries"]

    pages: list[list[dict[str, Any]]] = []
    cursor = None
    while True:
        page = service.get_leaderboard("classic", limit=limit, cursor=cursor)
        pages.append(page["entries"])
        cursor = page["next_cursor"]
        if cursor is None:
            break
        assert len(page["entries"]) == limit
        assert len(pages) <= len(expected)

    assert [entry for page in pages for entry in page] == whole
    assert len(pages) == -(-len(expected) // limit)  # no trailing empty page


def test_leaderboard_limit_may_arrive_as_text(service: RatingService) -> None:
    build_board(service)
    assert len(service.get_leaderboard("classic", limit="3")["entries"]) == 3


def test_empty_leaderboard(service: RatingService) -> None:
    assert service.get_leaderboard("sedma") == {
        "ladder": "sedma",
        "entries": [],
        "next_cursor": None,
        "season_id": "all-time",  # the default ladders have one endless season
    }


def b64(value: object) -> str:
    return base64.urlsafe_b64encode(json.dumps(value).encode()).decode().rstrip("=")


@pytest.mark.parametrize(
    "cursor",
    [
        "not a cursor!",
        "%%%",
        b64("just text"),
        b64({"n": 1, "r": 1200, "p": "abe"}),
        b64(["b", "classic", 1, 1200]),
        b64(["b", "classic", -1, 1200, "abe"]),
        b64(["b", "classic", 1, "1200", "abe"]),
        b64(["b", "classic", 1, True, "abe"]),
        b64(["b", "classic", 1, 1200, 7]),
        b64(["b", "sedma", 1, 1200, "abe"]),  # another ladder's
        b64(["h", "classic", "abe", "2026-11-29T12:00:00.000Z", "game", "g-1"]),  # a history's
        123,
        "x" * 2000,
    ],
)
def test_invalid_leaderboard_cursor(service: RatingService, cursor: object) -> None:
    build_board(service)
    assert service.get_leaderboard("classic", limit=2, cursor=b64(["b", "classic", 1, 1200, "abe"]))
    with pytest.raises(InvalidCursor) as raised:
        service.get_leaderboard("classic", limit=2, cursor=cursor)
    assert (raised.value.field, raised.value.code) == ("cursor", "invalid_cursor")


@pytest.mark.parametrize("limit", [0, 101, -1, "abc", "0", 2.5, True])
def test_invalid_page_limit(service: RatingService, limit: object) -> None:
    reads: list[Callable[[], object]] = [
        lambda: service.get_leaderboard("classic", limit=limit),
        lambda: service.get_history("classic", "abe", limit=limit),
    ]
    for read in reads:
        with pytest.raises(InvalidInput) as raised:
            read()
        assert raised.value.field == "limit"


# History -------------------------------------------------------------------------------------


def test_history_is_newest_first_by_played_at_with_event_shapes(
    service: RatingService,
) -> None:
    # Arrival order differs from played order.
    service.submit_game("backgammon", game("g-b", "alice", "bob", played_at=NOW - 2 * DAY))
    service.submit_game(
        "backgammon", game("g-a", "carol", "alice", played_at=NOW - 3 * DAY, cube=2)
    )
    service.submit_game(
        "backgammon", game("g-c", "alice", "dave", played_at=NOW - DAY, mode="boosted")
    )

    history = service.get_history("backgammon", "alice")

    assert history["player_id"] == "alice"
    assert history["ladder"] == "backgammon"
    assert history["next_cursor"] is None
    assert history["events"] == [
        {
            "type": "game",
            "game_id": "g-c",
            "at": ts(NOW - DAY),
            "opponent": "dave",
            "ranked": False,
            "unranked_reason": "mode",
            "delta": 0,
            "rating_after": 1497,
            "explain": None,
        },
        {
            "type": "game",
            "game_id": "g-b",
            "at": ts(NOW - 2 * DAY),
            "opponent": "bob",
            "ranked": True,
            "unranked_reason": None,
            "delta": 16,
            "rating_after": 1516,
            "explain": {
                "expected": 0.5,
                "k": 32,
                "recent_ranked_games": 0,  # g-a was played earlier but arrived later
                "coefficient": 1.0,
            },
        },
        {
            "type": "game",
            "game_id": "g-a",
            "at": ts(NOW - 3 * DAY),
            "opponent": "carol",
            "ranked": True,
            "unranked_reason": None,
            "delta": -19,
            "rating_after": 1497,
            "explain": {
                "expected": 0.5077,
                "k": 32,
                "recent_ranked_games": 0,
                "coefficient": 1.1667,
            },
        },
    ]


def test_history_pages_without_gaps_or_repeats(service: RatingService) -> None:
    for index in range(7):
        service.submit_game(
            "backgammon",
            game(f"g-{index}", "alice", f"opp-{index}", played_at=NOW - index * timedelta(hours=1)),
        )
    # Two games at the same instant still page cleanly.
    service.submit_game("backgammon", game("g-same", "alice", "zed", played_at=NOW))
    whole = service.get_history("backgammon", "alice")["events"]
    assert len(whole) == 8
    assert [e["at"] for e in whole] == sorted((e["at"] for e in whole), reverse=True)

    for limit in (1, 2, 3, 8):
        seen: list[dict[str, Any]] = []
        cursor = None
        while True:
            page = service.get_history("backgammon", "alice", limit=limit, cursor=cursor)
            assert len(page["events"]) <= limit
            seen.extend(page["events"])
            cursor = page["next_cursor"]
            if cursor is None:
                break
        assert seen == whole


def test_next_cursor_only_when_the_next_page_has_events(
    service: RatingService, clock: FixedClock
) -> None:
    for index in range(4):
        service.submit_game("backgammon", game(f"g-{index}", played_at=NOW - index * DAY))

    full = service.get_history("backgammon", "alice", limit=4)
    assert len(full["events"]) == 4
    assert full["next_cursor"] is None  # exactly a page: no empty page after it

    clock.advance(timedelta(days=28, hours=1))  # g-2 and g-3 are now past retention
    first = service.get_history("backgammon", "alice", limit=2)
    assert [e["game_id"] for e in first["events"]] == ["g-0", "g-1"]
    # Only expired (not yet deleted) events follow: no cursor to an empty page.
    assert first["next_cursor"] is None


def test_history_of_an_unknown_player_is_empty(service: RatingService) -> None:
    assert service.get_history("sedma", "nobody") == {
        "player_id": "nobody",
        "ladder": "sedma",
        "events": [],
        "next_cursor": None,
    }


def test_history_drops_events_past_retention(service: RatingService, clock: FixedClock) -> None:
    service.submit_game("backgammon", game("g-old", played_at=NOW - 10 * DAY))
    service.submit_game("backgammon", game("g-new", played_at=NOW))
    clock.advance(timedelta(days=25))  # g-old is 35 days old, g-new 25
    assert [e["game_id"] for e in service.get_history("backgammon", "alice")["events"]] == ["g-new"]


@pytest.mark.parametrize(
    "cursor",
    [
        42,
        "x" * 2000,
        "2026-11-29T12:00:00.000Z#game#g-1",  # a raw sort key, as cursors once were
        b64(["h", "backgammon", "bob", "2026-11-29T12:00:00.000Z", "game", "g-1"]),
        b64(["h", "backgammon", "alice", "yesterday", "game", "g-1"]),
        b64(["h", "backgammon", "alice", "2026-11-29T12:00:00.000Z", "game"]),
    ],
)
def test_invalid_history_cursor(service: RatingService, cursor: object) -> None:
    with pytest.raises(InvalidCursor) as raised:
        service.get_history("backgammon", "alice", cursor=cursor)
    assert (raised.value.field, raised.value.code) == ("cursor", "invalid_cursor")


# Players -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ladder", "rating", "k", "provisional"),
    [
        ("backgammon", 1500, 32, False),
        ("sedma", 1000, 40, False),
        ("classic", 1200, 32, True),
    ],
)
def test_a_player_never_seen_has_the_starting_state(
    service: RatingService,
    storage: InMemoryStorage,
    ladder: str,
    rating: int,
    k: int,
    provisional: bool,
) -> None:
    assert service.get_player(ladder, "nobody") == {
        "player_id": "nobody",
        "ladder": ladder,
        "rating": rating,
        "ranked_games": 0,
        "recent_ranked_games": 0,
        "k": k,
        "provisional": provisional,
        "sanctioned": False,
        "standing": None,
        "season": {"season_id": "all-time", "ranked_games": 0, "eligible": False},
    }
    assert storage.commits == 0


def test_classic_player_is_provisional_for_30_ranked_games(service: RatingService) -> None:
    for index in range(30):
        player = service.get_player("classic", "hero")
        assert player["ranked_games"] == index
        assert (player["k"], player["provisional"]) == (32, True)
        side = service.submit_game("classic", game(f"c-{index}", "hero", f"opp-{index}"))
        assert side.result["players"][0]["explain"]["k"] == 32
        assert side.result["players"][0]["explain"]["ranked_games"] == index

    player = service.get_player("classic", "hero")
    assert (player["ranked_games"], player["k"], player["provisional"]) == (30, 16, False)
    established = service.submit_game("classic", game("c-30", "hero", "opp-30"))
    assert established.result["players"][0]["explain"]["k"] == 16
    assert established.result["players"][0]["explain"]["ranked_games"] == 30
    assert established.result["players"][1]["explain"]["k"] == 32


def test_sedma_k_follows_the_rating_band(service: RatingService) -> None:
    # A 1000 player needs 200 points for the next band; a podium is quicker.
    for index in range(4):
        service.award_podium(
            {
                "tournament_id": f"t-{index}",
                "ladder": "sedma",
                "finished_at": ts(NOW),
                "public": True,
                "podium": [{"place": 1, "player_id": "hero"}],
            }
        )
    player = service.get_player("sedma", "hero")
    assert (player["rating"], player["k"]) == (1200, 32)
    side = service.submit_game("sedma", game("s-1", "hero", "rookie")).result["players"]
    assert side[0]["explain"]["k"] == 32
    assert side[1]["explain"]["k"] == 40


def test_player_ids_are_checked(service: RatingService) -> None:
    reads: list[Callable[[], object]] = [
        lambda: service.get_player("backgammon", "bad id"),
        lambda: service.get_history("backgammon", ""),
    ]
    for read in reads:
        with pytest.raises(InvalidInput) as raised:
            read()
        assert raised.value.field == "player_id"


# Stored games and ladders --------------------------------------------------------------------


def test_stored_game_is_the_submit_response_while_retained(
    service: RatingService, storage: InMemoryStorage, clock: FixedClock
) -> None:
    done = service.submit_game("backgammon", game("g-1"))
    assert service.get_game("backgammon", "g-1") == done.result

    clock.advance(timedelta(days=30))  # game records live 30 days from receipt
    with pytest.raises(NotFound):
        service.get_game("backgammon", "g-1")
    assert ("backgammon", "g-1") in storage.games  # still stored, but no longer served


def test_unknown_games_and_ladders_are_not_found(service: RatingService) -> None:
    service.submit_game("backgammon", game("g-1"))
    with pytest.raises(NotFound):
        service.get_game("backgammon", "g-2")
    with pytest.raises(NotFound):
        service.get_game("sedma", "g-1")
    with pytest.raises(InvalidInput) as raised:
        service.get_game("backgammon", "g 1")
    assert raised.value.field == "game_id"
    reads: list[Callable[[], object]] = [
        lambda: service.get_game("chess", "g-1"),
        lambda: service.get_player("chess", "alice"),
        lambda: service.get_history("chess", "alice"),
        lambda: service.get_leaderboard("chess"),
        lambda: service.get_tournament("chess", "t-1"),
    ]
    for read in reads:
        with pytest.raises(NotFound) as not_found:
            read()
        assert not_found.value.code == "not_found"
        assert "chess" in not_found.value.message


def test_ladders_lists_the_default_deployment(service: RatingService) -> None:
    ladders = {entry["id"]: entry for entry in service.ladders()["ladders"]}
    assert list(ladders) == ["backgammon", "sedma", "classic", "sedma-pairs", "classic-ffa"]
    assert (ladders["backgammon"]["ruleset"], ladders["backgammon"]["version"]) == (
        "gammon42",
        "1.3.1",
    )
    assert ladders["sedma"]["ruleset"] == "sedma"
    assert ladders["classic"]["ruleset"] == "classic"
    assert {lid: entry["starting_rating"] for lid, entry in ladders.items()} == {
        "backgammon": 1500,
        "sedma": 1000,
        "classic": 1200,
        "sedma-pairs": 1000,
        "classic-ffa": 1200,
    }
    # Teams and free-for-all: each ladder says the shape of its games.
    assert (ladders["sedma-pairs"]["sides"], ladders["sedma-pairs"]["players_per_side"]) == (
        {"min": 2, "max": 2},
        {"min": 2, "max": 2},
    )
    assert (ladders["classic-ffa"]["sides"], ladders["classic-ffa"]["players_per_side"]) == (
        {"min": 3, "max": 8},
        {"min": 1, "max": 1},
    )
    assert ladders["backgammon"]["parameters"]["heavy_volume_games"] == 50
    assert all(isinstance(entry["parameters"], dict) for entry in ladders.values())
