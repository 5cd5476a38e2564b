"""Turning what callers send (JSON-like mappings) into checked values, with errors that name
the field and say what is allowed. The HTTP API and the queues share these parsers, so a game
is the same game whichever way it arrives.
"""

import hashlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from ratings.rules import MODES, InvalidInput, Ruleset, SedmaStats, cube_coefficient
from ratings.rules.model import SEDMA_STAT_FIELDS

#: Game, player, tournament and ladder ids: 1-128 characters of this alphabet.
ID_PATTERN = re.compile(r"[A-Za-z0-9._:-]{1,128}")
ID_RULE = "1-128 characters of A-Z a-z 0-9 . _ : -"
#: How far in the future a played_at may be (clock skew between game servers and us).
MAX_FUTURE = timedelta(minutes=5)
#: How old a played_at may be; the game record outlives this, so duplicates are always seen.
MAX_AGE = timedelta(days=14)
#: Bounds for numbers callers send (ratings overrides, counters, statistics).
MAX_COUNT = 1_000_000
MAX_RATING = 100_000
ENDINGS = ("normal", "resign", "disconnect", "timeout")
POINTS = (1, 2, 3)

_GAMMON42_ONLY = ("cube", "ending", "points")
_GAME_FIELDS = ("game_id", "played_at", "players", "winner", "mode", *_GAMMON42_ONLY)
_PLAYER_FIELDS = ("id", "network", "bot", "stats")
_OVERRIDES = {"rating": None, "recent_ranked_games": "gammon42", "ranked_games": "classic"}


@dataclass(frozen=True)
class PlayerInput:
    player_id: str
    network: str | None = None
    bot: bool = False
    stats: SedmaStats | None = None
    #: Preview only: values used instead of the stored state.
    rating: int | None = None
    recent_ranked_games: int | None = None
    ranked_games: int | None = None


@dataclass(frozen=True)
class GameInput:
    """A submitted game, checked against its ladder's ruleset. `played_at` is UTC."""

    game_id: str | None
    played_at: datetime
    players: tuple[PlayerInput, PlayerInput]
    winner: str | None
    mode: str
    cube: int | None
    ending: str | None
    points: int | None
    ruleset_version: str | None
    #: sha256 of the canonical submitted content: equal for a retry, different otherwise.
    fingerprint: str


@dataclass(frozen=True)
class PodiumInput:
    tournament_id: str
    ladder: str
    finished_at: datetime
    public: bool
    podium: tuple[tuple[int, str], ...]  # (place, player id), by place
    fingerprint: str


def fingerprint(content: Mapping[str, Any]) -> str:
    canonical = json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(canonical.encode()).hexdigest()


def require_object(value: object, field: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise InvalidInput(field, f"{field} must be a JSON object")
    return value


def require_id(value: object, field: str) -> str:
    if not isinstance(value, str) or not ID_PATTERN.fullmatch(value):
        raise InvalidInput(field, f"{field} must be a string of {ID_RULE}")
    return value


def _require_int(value: object, field: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidInput(field, f"{field} must be an integer from {low} to {high}")
    return value


def _require_bool(value: object, field: str) -> bool:
    if not isinstance(value, bool):
        raise InvalidInput(field, f"{field} must be true or false")
    return value


def _reject_unknown(body: Mapping[str, Any], allowed: tuple[str, ...], where: str) -> None:
    for key in body:
        if key not in allowed:
            prefix = f"{where}." if where else ""
            raise InvalidInput(
                f"{prefix}{key}",
                f"{prefix}{key} is not a known field; allowed: {', '.join(allowed)}",
            )


def parse_timestamp(value: object, field: str) -> datetime:
    """An RFC 3339 timestamp with an offset, as an aware UTC datetime."""
    if not isinstance(value, str) or len(value) > 64:
        raise InvalidInput(field, f"{field} must be an RFC 3339 timestamp with an offset")
    text = value.strip()
    try:
        parsed = datetime.fromisoformat(text[:-1] + "+00:00" if text[-1:] in "Zz" else text)
    except (ValueError, IndexError):
        parsed = None
    if parsed is None or parsed.tzinfo is None or "T" not in text.upper():
        raise InvalidInput(
            field,
            f"{field} must be an RFC 3339 timestamp with an offset, like 2026-11-29T12:00:00Z",
        )
    try:
        utc = parsed.astimezone(UTC)
    except OverflowError:  # e.g. 9999-12-31T23:59:59-23:59 is past the last representable UTC
        raise InvalidInput(
            field, f"{field} must be a timestamp between the years 0001 and 9999 in UTC"
        ) from None
    # Stored times are kept to the millisecond, so windows compare exactly what is stored.
    return utc.replace(microsecond=parsed.microsecond // 1000 * 1000)


def check_future(at: datetime, now: datetime, field: str) -> None:
    if at > now + MAX_FUTURE:
        raise InvalidInput(field, f"{field} must be at most 5 minutes in the future")


def check_age(at: datetime, now: datetime, field: str) -> None:
    """Refuse games older than 14 days: their game record may be gone, so a duplicate of
    one could no longer be recognised."""
    if at < now - MAX_AGE:
        raise InvalidInput(field, f"{field} must be at most 14 days old")


def parse_game(
    body: object,
    ruleset: Ruleset,
    now: datetime,
    *,
    preview: bool = False,
    enforce_age: bool = True,
) -> GameInput:
    """Check a submitted game (or preview) against `ruleset`; InvalidInput names the field.

    With `enforce_age` False the caller checks the 14-day limit itself (after looking for a
    stored game of the same id, which is answered whatever its age).
    """
    game = require_object(body, "body")
    allowed = _GAME_FIELDS + (("ruleset_version",) if preview else ())
    _reject_unknown(game, allowed, "")
    gammon42 = ruleset.name == "gammon42"
    if not gammon42:
        for key in _GAMMON42_ONLY:
            if key in game:
                raise InvalidInput(key, f"{key} is only for ruleset gammon42, not {ruleset.name}")

    if "game_id" in game or not preview:
        if "game_id" not in game:
            raise InvalidInput("game_id", f"game_id is required: {ID_RULE}")
        game_id: str | None = require_id(game["game_id"], "game_id")
    else:
        game_id = None

    submitted_at = game.get("played_at")
    if submitted_at is None:  # the time of receipt, kept to the millisecond like any other
        played_at = now.replace(microsecond=now.microsecond // 1000 * 1000)
    else:
        played_at = parse_timestamp(submitted_at, "played_at")
    check_future(played_at, now, "played_at")
    if enforce_age:
        check_age(played_at, now, "played_at")

    raw_players = game.get("players")
    if not isinstance(raw_players, list) or len(raw_players) != 2:
        raise InvalidInput("players", "players must be a list of exactly two players")
    players = (
        _parse_player(raw_players[0], 0, ruleset, preview),
        _parse_player(raw_players[1], 1, ruleset, preview),
    )
    if players[0].player_id == players[1].player_id:
        raise InvalidInput("players[1].id", "players[1].id must differ from players[0].id")

    if "winner" not in game:
        draw = " or null for a draw" if ruleset.draws_allowed else ""
        raise InvalidInput("winner", f"winner is required: one of the players' ids{draw}")
    winner = game["winner"]
    ids = (players[0].player_id, players[1].player_id)
    if winner is None and not ruleset.draws_allowed:
        raise InvalidInput(
            "winner", f"winner must be one of the players' ids: ruleset {ruleset.name} has no draws"
        )
    if winner is not None and winner not in ids:
        draw = " or null for a draw" if ruleset.draws_allowed else ""
        raise InvalidInput("winner", f"winner must be one of the players' ids{draw}")

    mode = game.get("mode", "ranked")
    if mode not in MODES:
        raise InvalidInput("mode", f"mode must be one of {', '.join(MODES)}")

    cube = ending = points = None
    if gammon42:
        cube = game.get("cube", 1)
        cube_coefficient(cube)  # the rules' own check and message
        ending = game.get("ending")
        if ending is not None and ending not in ENDINGS:
            raise InvalidInput("ending", f"ending must be one of {', '.join(ENDINGS)}")
        points = game.get("points")
        if points is not None and (isinstance(points, bool) or points not in POINTS):
            raise InvalidInput("points", "points must be 1, 2 or 3")

    ruleset_version = None
    if preview and "ruleset_version" in game:
        version = game["ruleset_version"]
        if not isinstance(version, str):
            raise InvalidInput("ruleset_version", "ruleset_version must be a string")
        ruleset_version = version

    content = {
        "game_id": game_id,
        "played_at": None if submitted_at is None else played_at.isoformat(),
        "players": [_player_content(player) for player in players],
        "winner": winner,
        "mode": mode,
        "cube": cube,
        "ending": ending,
        "points": points,
    }
    return GameInput(
        game_id=game_id,
        played_at=played_at,
        players=players,
        winner=winner,
        mode=mode,
        cube=cube,
        ending=ending,
        points=points,
        ruleset_version=ruleset_version,
        fingerprint=fingerprint(content),
    )


def _parse_player(raw: object, index: int, ruleset: Ruleset, preview: bool) -> PlayerInput:
    where = f"players[{index}]"
    player = require_object(raw, where)
    overrides = tuple(_OVERRIDES) if preview else ()
    _reject_unknown(player, _PLAYER_FIELDS + overrides, where)
    if "id" not in player:
        raise InvalidInput(f"{where}.id", f"{where}.id is required: {ID_RULE}")
    player_id = require_id(player["id"], f"{where}.id")
    network = player.get("network")
    if network is not None and (not isinstance(network, str) or len(network) > 256):
        raise InvalidInput(f"{where}.network", f"{where}.network must be a string of 0-256 chars")
    bot = _require_bool(player.get("bot", False), f"{where}.bot")

    stats = None
    if "stats" in player:
        if ruleset.name != "sedma":
            raise InvalidInput(
                f"{where}.stats", f"{where}.stats is only for ruleset sedma, not {ruleset.name}"
            )
        raw_stats = require_object(player["stats"], f"{where}.stats")
        _reject_unknown(raw_stats, SEDMA_STAT_FIELDS, f"{where}.stats")
        counts = {
            name: _require_int(raw_stats.get(name, 0), f"{where}.stats.{name}", 0, MAX_COUNT)
            for name in SEDMA_STAT_FIELDS
        }
        stats = SedmaStats(**counts)

    values: dict[str, int | None] = {}
    for name, only_for in _OVERRIDES.items():
        if name not in player:
            values[name] = None
            continue
        if only_for is not None and ruleset.name != only_for:
            raise InvalidInput(f"{where}.{name}", f"{where}.{name} is only for ruleset {only_for}")
        low, high = (-MAX_RATING, MAX_RATING) if name == "rating" else (0, MAX_COUNT)
        values[name] = _require_int(player[name], f"{where}.{name}", low, high)
    return PlayerInput(player_id, network, bot, stats, **values)


def _player_content(player: PlayerInput) -> dict[str, Any]:
    stats = None
    if player.stats is not None:
        stats = {name: getattr(player.stats, name) for name in SEDMA_STAT_FIELDS}
    return {"id": player.player_id, "network": player.network, "bot": player.bot, "stats": stats}


def parse_podium(body: object, now: datetime) -> PodiumInput:
    """Check a podium message; InvalidInput names the field."""
    podium = require_object(body, "body")
    _reject_unknown(podium, ("tournament_id", "ladder", "finished_at", "public", "podium"), "")
    for key in ("tournament_id", "ladder", "finished_at", "public", "podium"):
        if key not in podium:
            raise InvalidInput(key, f"{key} is required")
    tournament_id = require_id(podium["tournament_id"], "tournament_id")
    ladder = require_id(podium["ladder"], "ladder")
    finished_at = parse_timestamp(podium["finished_at"], "finished_at")
    check_future(finished_at, now, "finished_at")
    public = _require_bool(podium["public"], "public")
    entries = podium["podium"]
    if not isinstance(entries, list) or not 1 <= len(entries) <= 3:
        raise InvalidInput("podium", "podium must be a list of 1 to 3 places")
    places: dict[int, str] = {}
    for index, raw in enumerate(entries):
        where = f"podium[{index}]"
        entry = require_object(raw, where)
        _reject_unknown(entry, ("place", "player_id"), where)
        place = _require_int(entry.get("place"), f"{where}.place", 1, 3)
        player_id = require_id(entry.get("player_id"), f"{where}.player_id")
        if place in places:
            raise InvalidInput(f"{where}.place", f"{where}.place {place} appears twice")
        if player_id in places.values():
            raise InvalidInput(f"{where}.player_id", f"{where}.player_id appears twice")
        places[place] = player_id
    ordered = tuple(sorted(places.items()))
    content = {
        "tournament_id": tournament_id,
        "ladder": ladder,
        "finished_at": finished_at.isoformat(),
        "public": public,
        "podium": [list(entry) for entry in ordered],
    }
    return PodiumInput(tournament_id, ladder, finished_at, public, ordered, fingerprint(content))


def parse_link(body: object) -> tuple[str, str]:
    link = require_object(body, "body")
    _reject_unknown(link, ("anonymous_id", "account_id"), "")
    anonymous_id = require_id(link.get("anonymous_id"), "anonymous_id")
    account_id = require_id(link.get("account_id"), "account_id")
    if anonymous_id == account_id:
        raise InvalidInput("account_id", "account_id must differ from anonymous_id")
    return anonymous_id, account_id


def utc_now() -> datetime:
    return datetime.now(UTC)
