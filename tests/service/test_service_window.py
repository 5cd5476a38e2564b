"""gammon42's recent-games window through the service (ladder backgammon, ruleset 1.3.1).

K is 32, or 16 when the player's ranked games in this ladder with t - 7 days <= played_at < t
number 50 or more (t: the played_at of the game being rated). History is built by submitting
real games at earlier played_at times.
"""

from datetime import timedelta
from typing import Any

import pytest
from support.games import DAY, MS, NOW, WEEK, FixedClock, game, minutes_before, play_series
from support.window import HERO, rate_hero

from ratings.service.facade import RatingService
from ratings.storage.memory import InMemoryStorage


@pytest.mark.parametrize(
    ("games", "k", "delta"),
    [
        # 49 games, odd: the hero lost the last unpaired one and sits at 1484; K 32.
        (49, 32, 16),
        # 50 games: back at 1500; K 16 gives half of the 16 points of an even game.
        (50, 16, 8),
    ],
)
def test_k_switches_to_16_at_50_recent_ranked_games(
    service: RatingService, games: int, k: int, delta: int
) -> None:
    t = NOW - DAY
    play_series(service, HERO, minutes_before(t, games))

    hero = rate_hero(service, t)

    assert hero["explain"]["recent_ranked_games"] == games
    assert hero["explain"]["k"] == k
    assert hero["delta"] == delta
    assert hero["rating_after"] == hero["rating_before"] + delta


@pytest.mark.parametrize(
    ("oldest", "recent", "k"),
    [
        (WEEK, 50, 16),  # exactly t - 7 days is inside the window
        (WEEK + MS, 49, 32),  # one millisecond earlier is outside
    ],
)
def test_window_start_is_inclusive_to_the_millisecond(
    service: RatingService, oldest: timedelta, recent: int, k: int
) -> None:
    # A t with milliseconds, so the boundary is compared at the precision stored.
    t = NOW - DAY - timedelta(milliseconds=250)
    play_series(service, HERO, [t - oldest, *minutes_before(t, 49)])

    hero = rate_hero(service, t)

    assert hero["explain"]["recent_ranked_games"] == recent
    assert hero["explain"]["k"] == k
    assert hero["rating_before"] == 1500  # 50 alternating games either way
    assert hero["delta"] == (8 if k == 16 else 16)


def test_games_played_at_or_after_t_do_not_count_even_when_rated_first(
    service: RatingService,
) -> None:
    t = NOW - 2 * DAY
    # Rated first, played later: one at t itself, 49 in the hour after.
    play_series(service, HERO, [t + timedelta(minutes=index) for index in range(50)])

    hero = rate_hero(service, t)

    assert hero["explain"]["recent_ranked_games"] == 0
    assert hero["explain"]["k"] == 32
    assert hero["delta"] == 16  # 1500 after 50 alternating games, K 32

    # A game after all of them sees the 50 plus the one just rated.
    later = rate_hero(service, t + timedelta(hours=2), game_id="later")
    assert later["explain"]["recent_ranked_games"] == 50  # counted up to what the rule needs
    assert later["explain"]["k"] == 16


def test_window_counts_exactly_the_games_inside_it(
    service: RatingService, clock: FixedClock
) -> None:
    t0 = NOW - DAY
    times = minutes_before(t0, 50)  # t0 - 1h, t0 - 1h1m, ..., t0 - 1h49m
    play_series(service, HERO, times)
    # Move on so that a game 7 days after t0 - 1h20m is no more than 5 min in the future.
    target = t0 - timedelta(hours=1, minutes=20) + WEEK
    clock.set(target)

    hero = rate_hero(service, target)

    # Window [t0 - 1h20m, target): the games at t0 - 1h .. t0 - 1h20m, 21 of them.
    assert hero["explain"]["recent_ranked_games"] == 21
    assert hero["explain"]["k"] == 32


@pytest.mark.parametrize(
    ("reason", "players", "mode"),
    [
        ("mode", [{"id": HERO}, {"id": "other"}], "boosted"),
        ("mode", [{"id": HERO}, {"id": "other"}], "tournament"),
        ("bot", [{"id": HERO}, {"id": "other", "bot": True}], "ranked"),
        (
            "shared_network",
            [{"id": HERO, "network": "ab12"}, {"id": "other", "network": "ab12"}],
            "ranked",
        ),
    ],
)
def test_unranked_games_do_not_count(
    service: RatingService, reason: str, players: list[dict[str, Any]], mode: str
) -> None:
    t = NOW - DAY
    play_series(service, HERO, minutes_before(t, 49))
    for index in range(3):
        body = game(f"unranked-{index}", played_at=t - timedelta(minutes=5 + index), mode=mode)
        body["players"] = players
        body["winner"] = HERO
        recorded = service.submit_game("backgammon", body)
        assert recorded.result["ranked"] is False
        assert recorded.result["unranked_reason"] == reason

    hero = rate_hero(service, t)

    assert hero["explain"]["recent_ranked_games"] == 49
    assert hero["explain"]["k"] == 32


def test_games_in_other_ladders_do_not_count(service: RatingService) -> None:
    t = NOW - DAY
    play_series(service, HERO, minutes_before(t, 49))
    play_series(service, HERO, minutes_before(t, 10), prefix="sedma", ladder="sedma")

    hero = rate_hero(service, t)

    assert hero["explain"]["recent_ranked_games"] == 49
    assert hero["explain"]["k"] == 32


def test_expired_records_still_stored_do_not_change_the_count(
    service: RatingService, storage: InMemoryStorage, clock: FixedClock
) -> None:
    play_series(service, HERO, minutes_before(NOW, 50))
    assert service.get_player("backgammon", HERO)["recent_ranked_games"] == 50
    # 31 days on, every history record is past its 30-day retention but still stored.
    now = clock.advance(timedelta(days=31))
    assert len(storage.events[("backgammon", HERO)]) == 50
    assert all(event.expires_at <= now for event in storage.events[("backgammon", HERO)])

    before = service.get_player("backgammon", HERO)
    preview_before = service.preview_game(
        "backgammon", {"players": [{"id": HERO}, {"id": "rookie"}], "winner": HERO}
    )
    storage.expire(now)
    assert storage.events[("backgammon", HERO)] == []
    after = service.get_player("backgammon", HERO)
    preview_after = service.preview_game(
        "backgammon", {"players": [{"id": HERO}, {"id": "rookie"}], "winner": HERO}
    )

    assert before == after
    assert before["recent_ranked_games"] == 0
    assert before["k"] == 32
    assert before["ranked_games"] == 50  # the counter lives in the state, not in the records
    assert preview_before == preview_after
    assert preview_before["players"][0]["explain"]["k"] == 32

    hero = rate_hero(service, now)
    assert hero["explain"]["recent_ranked_games"] == 0
    assert hero["explain"]["k"] == 32


def test_get_player_reports_the_window_of_a_game_played_now(
    service: RatingService, clock: FixedClock
) -> None:
    play_series(service, HERO, minutes_before(NOW, 49))
    assert service.get_player("backgammon", HERO)["k"] == 32
    # A game stored at this very millisecond counts for the next game.
    service.submit_game("backgammon", game("now", HERO, "rookie"))
    player = service.get_player("backgammon", HERO)
    assert player["recent_ranked_games"] == 50
    assert player["k"] == 16
    assert player["provisional"] is False

    # Just under a week on, only the game played at NOW is still inside the window.
    clock.advance(WEEK - MS)
    player = service.get_player("backgammon", HERO)
    assert player["recent_ranked_games"] == 1
    assert player["k"] == 32
