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
    submitted) and the winner."""
    players = [_player(entry, names) for entry in result.get("players", [])]
    winner = result.get("winner")
    unchanged = all(new is old for new, old in zip(players, result.get("players", []), strict=True))
    if isinstance(winner, str) and winner in names:
        winner, unchanged = names[winner], False
    if unchanged:
        return result
    return {**result, "players": players, "winner": winner}


def opponent_event(body: JsonObject, names: Names) -> JsonObject:
    """An opponent's history event of a game with an erased player."""
    opponent = body.get("opponent")
    if not isinstance(opponent, str) or opponent not in names:
        return body
    return {**body, "opponent": names[opponent]}


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
