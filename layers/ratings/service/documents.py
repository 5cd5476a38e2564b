"""The JSON documents the service answers with and stores: game results, history events,
ladder descriptions, and the opaque page cursors. One home, so the stored format, the answer
and the CLI's files (which are stored results) stay one format."""

import base64
import binascii
import json
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from ratings.rules import GameInput, Ladder, PlayerState, Rating, Ruleset
from ratings.rules.fields import ID_PATTERN
from ratings.service.errors import InvalidCursor
from ratings.service.stored import JsonObject
from ratings.timestamps import format_utc_millis, parse_utc_millis

#: Digits kept of the formula's fractional inputs in answers (expected score, coefficient...).
EXPLAIN_DIGITS = 4


def describe_ladders(ladders: Mapping[str, Ladder]) -> JsonObject:
    """The ladders, their rulesets and parameters (GET /v1/ladders): configuration only, so
    it needs no storage."""
    return {
        "ladders": [
            {
                "id": ladder.ladder_id,
                "ruleset": ladder.ruleset.name,
                "version": ladder.ruleset.version,
                "starting_rating": ladder.starting_rating,
                "podium_bonuses": list(ladder.podium_bonuses),
                "parameters": dict(ladder.ruleset.parameters()),
            }
            for ladder in ladders.values()
        ]
    }


def game_result(
    ladder_id: str,
    ruleset: Ruleset,
    game: GameInput,
    states: Sequence[PlayerState],
    winner: str | None,
    unranked_reason: str | None,
    rating: Rating | None,
) -> JsonObject:
    """A game's result: both players before and after, what produced each change, and the
    ruleset's own fields as they were rated."""
    players = []
    for index, (player, state) in enumerate(zip(game.players, states, strict=True)):
        entry: JsonObject = {
            "id": state.player_id,
            "rating_before": state.rating,
            "rating_after": state.rating,
            "delta": 0,
            "explain": None,
            "bot": player.bot,
        }
        if state.player_id != player.player_id:
            entry["submitted_id"] = player.player_id
        entry.update(player.options)
        if rating is not None:
            change = rating.players[index]
            entry["rating_after"] = change.rating_after
            entry["delta"] = change.delta
            entry["explain"] = explain(change.explain)
        players.append(entry)
    result: JsonObject = {
        "game_id": game.game_id,
        "ladder": ladder_id,
        "played_at": format_utc_millis(game.played_at),
        "ruleset": ruleset.name,
        "ruleset_version": ruleset.version,
        "ranked": unranked_reason is None,
        "unranked_reason": unranked_reason,
        "winner": winner,
        "mode": game.mode,
        "players": players,
    }
    result.update(game.options)
    return result


def game_event(result: JsonObject, index: int, opponent: str) -> JsonObject:
    """The history event of one player of a stored game."""
    player = result["players"][index]
    return {
        "type": "game",
        "game_id": result["game_id"],
        "at": result["played_at"],
        "opponent": opponent,
        "ranked": result["ranked"],
        "unranked_reason": result["unranked_reason"],
        "delta": player["delta"],
        "rating_after": player["rating_after"],
        "explain": player["explain"],
    }


def podium_event(tournament_id: str, place: int, at: str, bonus: int, rating: int) -> JsonObject:
    """The history event of a podium bonus."""
    return {
        "type": "podium_bonus",
        "tournament_id": tournament_id,
        "place": place,
        "at": at,
        "delta": bonus,
        "rating_after": rating,
    }


def explain(values: Mapping[str, Any]) -> JsonObject:
    return {
        name: round(value, EXPLAIN_DIGITS) if isinstance(value, float) else value
        for name, value in values.items()
    }


# Cursors ---------------------------------------------------------------------------------
# A cursor is opaque to callers: URL-safe base64 of a small JSON array that names its listing
# (ladder, and player for a history), so a cursor of another listing, or anything else, is
# refused with 400 invalid_cursor rather than read as some other position.

MAX_CURSOR = 1024
#: Ratings and ranks in a cursor are integers of smaller magnitude than this: far beyond any
#: rating the rules reach or rank a board has, exact in a JSON client's double, and well
#: inside the 38 significant digits DynamoDB accepts in a key condition (a forged cursor with
#: more would otherwise reach the engine, which refuses it: a 500, not the caller's 400).
CURSOR_NUMBER_LIMIT = 10**15


def encode_cursor(position: list[Any]) -> str:
    raw = json.dumps(position, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _decode(cursor: object, kind: str, length: int) -> list[Any]:
    if not isinstance(cursor, str) or len(cursor) > MAX_CURSOR:
        raise InvalidCursor
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        position = json.loads(base64.urlsafe_b64decode(padded.encode()))
    except (ValueError, binascii.Error):
        raise InvalidCursor from None
    if not isinstance(position, list) or len(position) != length or position[0] != kind:
        raise InvalidCursor
    return position


def history_cursor(ladder: str, player_id: str, at: datetime, kind: str, ref_id: str) -> str:
    return encode_cursor(["h", ladder, player_id, format_utc_millis(at), kind, ref_id])


def decode_history_cursor(
    cursor: object, ladder: str, player_id: str
) -> tuple[datetime, str, str] | None:
    """The (at, kind, ref_id) a history page continues after, or InvalidCursor."""
    if cursor is None:
        return None
    _kind, of_ladder, of_player, at, kind, ref_id = _decode(cursor, "h", 6)
    # The event's kind and id become part of the key the read starts after: ids only.
    if (
        (of_ladder, of_player) != (ladder, player_id)
        or not isinstance(at, str)
        or not all(
            isinstance(value, str) and ID_PATTERN.fullmatch(value) for value in (kind, ref_id)
        )
    ):
        raise InvalidCursor
    try:
        return parse_utc_millis(at), kind, ref_id
    except ValueError:
        raise InvalidCursor from None


def leaderboard_cursor(ladder: str, rank: int, rating: int, player_id: str) -> str:
    return encode_cursor(["b", ladder, rank, rating, player_id])


def decode_leaderboard_cursor(cursor: object, ladder: str) -> tuple[int, tuple[int, str] | None]:
    """(entries before the page, the (rating, player_id) it continues after), or
    InvalidCursor."""
    if cursor is None:
        return 0, None
    _kind, of_ladder, rank, rating, player_id = _decode(cursor, "b", 5)
    if not (
        of_ladder == ladder
        and type(rank) is int
        and type(rating) is int
        and isinstance(player_id, str)
        and 0 <= rank < CURSOR_NUMBER_LIMIT
        and abs(rating) < CURSOR_NUMBER_LIMIT
    ):
        raise InvalidCursor
    return rank, (rating, player_id)
