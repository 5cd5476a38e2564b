"""The JSON documents the service answers with and stores: game results, history events,
ladder descriptions, and the opaque page cursors. One home, so the stored format, the answer
and the CLI's files (which are stored results) stay one format."""

import base64
import binascii
import json
from collections.abc import Mapping, Sequence
from typing import Any

from ratings.rules import GameInput, InvalidInput, Ladder, PlayerState, Rating, Ruleset
from ratings.service.ports import JsonObject
from ratings.timestamps import format_utc_millis

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

CURSOR_PROBLEM = "cursor must be a next_cursor from a previous page"


def encode_cursor(position: Mapping[str, Any]) -> str:
    raw = json.dumps(position, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: object) -> Any:
    """The position a cursor of `encode_cursor` holds, or InvalidInput when it is not one."""
    if not isinstance(cursor, str) or len(cursor) > 1024:
        raise InvalidInput("cursor", CURSOR_PROBLEM)
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        return json.loads(base64.urlsafe_b64decode(padded.encode()))
    except (ValueError, binascii.Error):
        raise InvalidInput("cursor", CURSOR_PROBLEM) from None


def decode_leaderboard_cursor(cursor: object) -> tuple[int, tuple[int, str] | None]:
    if cursor is None:
        return 0, None
    position = decode_cursor(cursor)
    try:
        rank, rating, player_id = position["n"], position["r"], position["p"]
    except (KeyError, TypeError):
        raise InvalidInput("cursor", CURSOR_PROBLEM) from None
    if not (
        isinstance(rank, int)
        and isinstance(rating, int)
        and not isinstance(rating, bool)
        and isinstance(player_id, str)
        and rank >= 0
    ):
        raise InvalidInput("cursor", CURSOR_PROBLEM)
    return rank, (rating, player_id)
