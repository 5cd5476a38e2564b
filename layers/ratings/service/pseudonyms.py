"""Putting pseudonyms in place of erased ids in the documents others keep: a game's result,
an opponent's history event, a tournament's awards. Plain functions over the JSON of the
answers `ratings.service.results` and `ratings.service.game_result` declare; each returns the
document unchanged (the same object) when it names none of the ids, so a rewrite already made
is not made again.
"""

from collections.abc import Mapping
from typing import Any

from ratings.declare.answers import JsonObject

#: erased id -> its pseudonym.
Names = Mapping[str, str]


def game_result(result: JsonObject, names: Names) -> JsonObject:
    """The result with each erased id replaced: the players' ids (as rated and as
    submitted), the winner, and the players of each side (a game sent as sides)."""
    players = [_player(entry, names) for entry in result.get("players", [])]
    winner = result.get("winner")
    unchanged = all(new is old for new, old in zip(players, result.get("players", []), strict=True))
    if isinstance(winner, str) and winner in names:
        winner, unchanged = names[winner], False
    changed: JsonObject = {"players": players, "winner": winner}
    if isinstance(result.get("sides"), list):
        sides = [_side(side, names) for side in result["sides"]]
        if any(new is not old for new, old in zip(sides, result["sides"], strict=True)):
            changed["sides"], unchanged = sides, False
    if unchanged:
        return result
    return {**result, **changed}


def opponent_event(body: JsonObject, names: Names) -> JsonObject:
    """Another player's history event of a game with an erased player: its opponent, or its
    teammates and opponents (a game sent as sides)."""
    changed: JsonObject = {}
    opponent = body.get("opponent")
    if isinstance(opponent, str) and opponent in names:
        changed["opponent"] = names[opponent]
    for field in ("teammates", "opponents"):
        ids = body.get(field)
        if isinstance(ids, list) and any(isinstance(i, str) and i in names for i in ids):
            changed[field] = _renamed(ids, names)
    return {**body, **changed} if changed else body


def _side(side: Any, names: Names) -> Any:
    ids = side.get("players") if isinstance(side, dict) else None
    if not isinstance(ids, list) or not any(isinstance(i, str) and i in names for i in ids):
        return side
    return {**side, "players": _renamed(ids, names)}


def _renamed(ids: list[Any], names: Names) -> list[Any]:
    return [names[i] if isinstance(i, str) and i in names else i for i in ids]


def tournament_result(result: JsonObject, names: Names) -> JsonObject:
    """A tournament's result with each erased id replaced in its awards."""
    awards = [_player(award, names, key="player_id") for award in result.get("awards", [])]
    if all(new is old for new, old in zip(awards, result.get("awards", []), strict=True)):
        return result
    return {**result, "awards": awards}


def _player(entry: Any, names: Names, key: str = "id") -> Any:
    if not isinstance(entry, dict):
        return entry
    changed = {
        field: names[entry[field]]
        for field in (key, "submitted_id")
        if isinstance(entry.get(field), str) and entry[field] in names
    }
    return {**entry, **changed} if changed else entry
