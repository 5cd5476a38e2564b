"""Bad input writes nothing: every refusal names the field, and storage sees no commit."""

from datetime import datetime, timedelta
from typing import Any

import pytest
from support.games import MS, NOW, game, ts

from ratings.rules import InvalidInput
from ratings.service.errors import NotFound
from ratings.service.facade import RatingService
from ratings.storage.memory import InMemoryStorage


def without(body: dict[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in body.items() if k != key}


BASE = game("g-1", "alice", "bob")
SEDMA = game("s-1", "alice", "bob")
CLASSIC = game("c-1", "alice", "bob")

INVALID: list[tuple[str, str, object, str]] = [
    # (case, ladder, body, field)
    ("missing game_id", "backgammon", without(BASE, "game_id"), "game_id"),
    ("game_id with a space", "backgammon", {**BASE, "game_id": "g 1"}, "game_id"),
    ("game_id with a slash", "backgammon", {**BASE, "game_id": "g/1"}, "game_id"),
    ("game_id with non-ascii", "backgammon", {**BASE, "game_id": "caf\u00e9"}, "game_id"),
    ("game_id empty", "backgammon", {**BASE, "game_id": ""}, "game_id"),
    ("game_id too long", "backgammon", {**BASE, "game_id": "g" * 129}, "game_id"),
    ("game_id a number", "backgammon", {**BASE, "game_id": 123}, "game_id"),
    (
        "player id alphabet",
        "backgammon",
        {**BASE, "players": [{"id": "al ice"}, {"id": "bob"}], "winner": "bob"},
        "players[0].id",
    ),
    (
        "player id missing",
        "backgammon",
        {**BASE, "players": [{"id": "alice"}, {}]},
        "players[1].id",
    ),
    (
        "player not an object",
        "backgammon",
        {**BASE, "players": [{"id": "alice"}, "bob"]},
        "players[1]",
    ),
    (
        "three players",
        "backgammon",
        {**BASE, "players": [{"id": "alice"}, {"id": "bob"}, {"id": "carol"}]},
        "players",
    ),
    ("one player", "backgammon", {**BASE, "players": [{"id": "alice"}]}, "players"),
    ("players missing", "backgammon", without(BASE, "players"), "players"),
    (
        "same player twice",
        "backgammon",
        {**BASE, "players": [{"id": "alice"}, {"id": "alice"}]},
        "players[1].id",
    ),
    ("winner not a player", "backgammon", {**BASE, "winner": "carol"}, "winner"),
    ("winner missing", "backgammon", without(BASE, "winner"), "winner"),
    ("draw in backgammon", "backgammon", {**BASE, "winner": None}, "winner"),
    ("draw in sedma", "sedma", {**SEDMA, "winner": None}, "winner"),
    ("cube 3", "backgammon", {**BASE, "cube": 3}, "cube"),
    ("cube 128", "backgammon", {**BASE, "cube": 128}, "cube"),
    ("cube true", "backgammon", {**BASE, "cube": True}, "cube"),
    ("cube as text", "backgammon", {**BASE, "cube": "2"}, "cube"),
    ("ending unknown", "backgammon", {**BASE, "ending": "forfeit"}, "ending"),
    ("points 4", "backgammon", {**BASE, "points": 4}, "points"),
    (
        "stats in backgammon",
        "backgammon",
        {**BASE, "players": [{"id": "alice", "stats": {"bad_moves": 1}}, {"id": "bob"}]},
        "players[0].stats",
    ),
    (
        "stats in classic",
        "classic",
        {**CLASSIC, "players": [{"id": "alice"}, {"id": "bob", "stats": {}}]},
        "players[1].stats",
    ),
    ("cube in sedma", "sedma", {**SEDMA, "cube": 1}, "cube"),
    ("ending in sedma", "sedma", {**SEDMA, "ending": "normal"}, "ending"),
    ("points in classic", "classic", {**CLASSIC, "points": 1}, "points"),
    (
        "negative stats",
        "sedma",
        {**SEDMA, "players": [{"id": "alice", "stats": {"bad_moves": -1}}, {"id": "bob"}]},
        "players[0].stats.bad_moves",
    ),
    (
        "fractional stats",
        "sedma",
        {**SEDMA, "players": [{"id": "alice"}, {"id": "bob", "stats": {"rounds_won_16": 1.5}}]},
        "players[1].stats.rounds_won_16",
    ),
    (
        "boolean stats",
        "sedma",
        {**SEDMA, "players": [{"id": "alice"}, {"id": "bob", "stats": {"rounds_won_24": True}}]},
        "players[1].stats.rounds_won_24",
    ),
    (
        "unknown stat",
        "sedma",
        {**SEDMA, "players": [{"id": "alice", "stats": {"aces": 2}}, {"id": "bob"}]},
        "players[0].stats.aces",
    ),
    ("unknown field", "backgammon", {**BASE, "colour": "white"}, "colour"),
    (
        "unknown player field",
        "backgammon",
        {**BASE, "players": [{"id": "alice", "elo": 1}, {"id": "bob"}]},
        "players[0].elo",
    ),
    (
        "bot not a boolean",
        "backgammon",
        {**BASE, "players": [{"id": "alice", "bot": "no"}, {"id": "bob"}]},
        "players[0].bot",
    ),
    (
        "network not text",
        "backgammon",
        {**BASE, "players": [{"id": "alice", "network": 12}, {"id": "bob"}]},
        "players[0].network",
    ),
    (
        "played_at 15 days old",
        "backgammon",
        {**BASE, "played_at": ts(NOW - timedelta(days=15))},
        "played_at",
    ),
    (
        "played_at 14 days + 1 ms old",
        "backgammon",
        {**BASE, "played_at": ts(NOW - timedelta(days=14) - MS)},
        "played_at",
    ),
    (
        "played_at 10 min in the future",
        "backgammon",
        {**BASE, "played_at": ts(NOW + timedelta(minutes=10))},
        "played_at",
    ),
    (
        "played_at 5 min + 1 ms in the future",
        "backgammon",
        {**BASE, "played_at": ts(NOW + timedelta(minutes=5) + MS)},
        "played_at",
    ),
    (
        "played_at without offset",
        "backgammon",
        {**BASE, "played_at": "2026-11-29T11:00:00"},
        "played_at",
    ),
    ("played_at a date only", "backgammon", {**BASE, "played_at": "2026-11-29"}, "played_at"),
    ("played_at garbage", "backgammon", {**BASE, "played_at": "yesterday"}, "played_at"),
    ("played_at a number", "backgammon", {**BASE, "played_at": 1795000000}, "played_at"),
    ("mode casual", "backgammon", {**BASE, "mode": "casual"}, "mode"),
    ("body not an object", "backgammon", [BASE], "body"),
    ("body null", "backgammon", None, "body"),
]


@pytest.mark.parametrize(
    ("ladder", "body", "field"),
    [pytest.param(ladder, body, field, id=case) for case, ladder, body, field in INVALID],
)
def test_invalid_game_is_refused_naming_the_field_and_writes_nothing(
    service: RatingService, storage: InMemoryStorage, ladder: str, body: object, field: str
) -> None:
    with pytest.raises(InvalidInput) as raised:
        service.submit_game(ladder, body)

    assert raised.value.field == field
    assert raised.value.message
    assert storage.commits == 0
    assert storage.states == {}
    assert storage.events == {}
    assert storage.games == {}


@pytest.mark.parametrize(
    "played_at",
    [
        NOW - timedelta(days=14),  # exactly 14 days old
        NOW + timedelta(minutes=5),  # exactly 5 minutes ahead
    ],
)
def test_played_at_limits_are_inclusive(service: RatingService, played_at: datetime) -> None:
    done = service.submit_game("backgammon", game("g-1", played_at=played_at))
    assert done.created is True
    assert done.result["played_at"] == ts(played_at)


def test_played_at_with_an_offset_is_stored_in_utc(service: RatingService) -> None:
    body = {**game("g-1"), "played_at": "2026-11-29T09:30:00.250-02:00"}
    assert service.submit_game("backgammon", body).result["played_at"] == (
        "2026-11-29T11:30:00.250Z"
    )


def test_empty_network_fingerprints_are_not_shared(service: RatingService) -> None:
    body = {
        **game("g-1"),
        "players": [{"id": "alice", "network": ""}, {"id": "bob", "network": ""}],
    }
    assert service.submit_game("backgammon", body).result["ranked"] is True


def test_unknown_ladder_is_not_found_and_writes_nothing(
    service: RatingService, storage: InMemoryStorage
) -> None:
    for body in (BASE, {"not": "a game"}):
        with pytest.raises(NotFound) as raised:
            service.submit_game("chess", body)
        assert "chess" in raised.value.message
        assert "backgammon" in raised.value.message  # says which ladders exist
    assert storage.commits == 0


@pytest.mark.parametrize("played_at", ["9999-12-31T23:59:59-23:59", "0001-01-01T00:00:00+14:00"])
def test_a_timestamp_shifted_out_of_range_is_invalid_input(
    service: RatingService, storage: InMemoryStorage, played_at: str
) -> None:
    body = {**game("g-range"), "played_at": played_at}
    with pytest.raises(InvalidInput) as caught:
        service.submit_game("backgammon", body)
    assert caught.value.field == "played_at"
    assert storage.commits == 0
