"""The daily game limit that keeps a player's partition well under DynamoDB's 10 GB (the
arithmetic: docs/table-layout.md, "How big a player's partition gets"): each player's games,
ranked or not, are counted per UTC day of receipt in their state, and a game that would take
a player past the limit is refused, with nothing stored. On the in-memory fake and on each
DynamoDB engine."""

from datetime import timedelta

import pytest
from support.games import DAY, HOUR, NOW, FixedClock, game
from support.services import rating_service

from ratings.service.errors import NotFound, PlayerDailyLimit
from ratings.service.facade import RatingService, Settings, daily_game_limit
from ratings.service.ports import Storage

LADDER = "backgammon"
LIMIT = 3


def limited_service(storage: Storage, clock: FixedClock, games_per_day: int) -> RatingService:
    return rating_service(storage, clock, settings=Settings(games_per_day=games_per_day))


def test_a_game_past_a_players_daily_limit_is_refused(any_storage: Storage) -> None:
    clock = FixedClock(NOW)
    service = limited_service(any_storage, clock, LIMIT)
    # Ranked and unranked games count alike, whichever side the player is on.
    service.submit_game(LADDER, game("g-1", "alice", "bob", played_at=NOW - 3 * HOUR))
    service.submit_game(LADDER, game("g-2", "carol", "alice", played_at=NOW - 2 * HOUR))
    shared = [{"id": "alice", "network": "cafe"}, {"id": "dave", "network": "cafe"}]
    unranked = service.submit_game(LADDER, game("g-3", played_at=NOW - HOUR, players=shared))
    assert unranked.result["ranked"] is False
    erin_before = service.get_player(LADDER, "erin")

    with pytest.raises(PlayerDailyLimit) as refused:
        service.submit_game(LADDER, game("g-4", "erin", "alice", played_at=NOW - HOUR))

    assert refused.value.code == "player_daily_limit"
    assert "players[1]" in refused.value.message
    assert "alice" not in refused.value.message  # no id in the words the adapters log
    with pytest.raises(NotFound):
        service.get_game(LADDER, "g-4")
    assert service.get_player(LADDER, "erin") == erin_before
    assert service.get_player(LADDER, "alice")["ranked_games"] == 2
    # The other players' games go on; a repeat of a stored game is answered as ever.
    assert service.submit_game(LADDER, game("g-5", "erin", "bob", played_at=NOW - HOUR)).created
    again = service.submit_game(LADDER, game("g-1", "alice", "bob", played_at=NOW - 3 * HOUR))
    assert not again.created


def test_the_count_starts_again_each_utc_day(any_storage: Storage) -> None:
    day_end = NOW.replace(hour=23, minute=59)
    clock = FixedClock(day_end)
    service = limited_service(any_storage, clock, LIMIT)
    for number in range(LIMIT):
        opponent = f"o{number}"
        service.submit_game(LADDER, game(f"g-{number}", "alice", opponent, played_at=day_end))
    with pytest.raises(PlayerDailyLimit):
        service.submit_game(LADDER, game("g-late", "alice", "bob", played_at=day_end))

    clock.advance(timedelta(minutes=1))  # 00:00 UTC: a new day

    # The refused game, sent again, is rated now (it was played the day before: it counts on
    # the day it is received).
    assert service.submit_game(LADDER, game("g-late", "alice", "bob", played_at=day_end)).created
    for number in range(1, LIMIT):
        service.submit_game(LADDER, game(f"g-next-{number}", "alice", f"p{number}"))
    with pytest.raises(PlayerDailyLimit):
        service.submit_game(LADDER, game("g-next-more", "alice", "bob"))
    clock.advance(DAY)
    assert service.submit_game(LADDER, game("g-day-3", "alice", "bob")).created


def test_the_default_limit_follows_the_retention() -> None:
    for days in (30, 3650):
        retention = timedelta(days=days)
        settings = Settings(history_retention=retention, game_retention=retention)
        assert settings.daily_game_limit == daily_game_limit(retention)
    assert (
        Settings().daily_game_limit > Settings(history_retention=timedelta(3650)).daily_game_limit
    )
