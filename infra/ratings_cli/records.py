"""The export format: one stored game result per line, as the service returns it.

Reading checks only what the commands use, and says which line and field is wrong, so files
converted from other sources can be fixed by hand. Writing is compact JSON, one object a line.
"""

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import IO, Any

Record = dict[str, Any]


class InputError(Exception):
    """A problem with what the operator gave us: a file, a line, a flag. Exit status 2."""


@dataclass(frozen=True)
class GameLine:
    """One game of an export file, with its place in the file and its parsed time."""

    line: int
    played_at: datetime
    record: Record

    @property
    def game_id(self) -> str:
        return str(self.record["game_id"])

    def sort_key(self) -> tuple[datetime, str]:
        return (self.played_at, self.game_id)

    def where(self, field: str = "") -> str:
        return f"line {self.line}" + (f": {field}" if field else "")


def parse_time(value: object, what: str) -> datetime:
    """An RFC 3339 timestamp with an offset (`Z` or `+01:00`), as an aware datetime."""
    if not isinstance(value, str):
        raise InputError(f"{what} must be an RFC 3339 timestamp string, got {value!r}")
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        raise InputError(
            f"{what} must be an RFC 3339 timestamp like 2026-11-29T12:00:00Z, got {value!r}"
        ) from None
    if parsed.tzinfo is None:
        raise InputError(f"{what} must carry an offset (Z or +hh:mm), got {value!r}")
    return parsed


def read_games(path: Path | str, ladder: str | None = None) -> list[GameLine]:
    """Every game of a JSON Lines file, sorted by played_at then game_id.

    Blank lines are skipped. A record whose `ladder` names another ladder is an error (a file
    of two ladders mixes two rating pools); a record without `ladder` is taken as given.
    """
    source = Path(path)
    try:
        handle = source.open(encoding="utf-8")
    except OSError as error:
        raise InputError(f"cannot read {source}: {error.strerror or error}") from None
    with handle:
        games = list(_parse_lines(handle, ladder))
    seen: dict[str, int] = {}
    for game in games:
        first = seen.setdefault(game.game_id, game.line)
        if first != game.line:
            raise InputError(
                f"{source}: line {game.line}: game_id {game.game_id!r} already appears on "
                f"line {first}; each game must appear once"
            )
    games.sort(key=GameLine.sort_key)
    return games


def _parse_lines(lines: Iterable[str], ladder: str | None) -> Iterator[GameLine]:
    for number, text in enumerate(lines, start=1):
        if not text.strip():
            continue
        try:
            record = json.loads(text)
        except ValueError as error:
            raise InputError(f"line {number}: not valid JSON ({error})") from None
        if not isinstance(record, dict):
            raise InputError(f"line {number}: must be a JSON object (one stored game result)")
        yield _check(number, record, ladder)


def _check(number: int, record: Record, ladder: str | None) -> GameLine:
    where = f"line {number}"
    game_id = record.get("game_id")
    if not isinstance(game_id, str) or not game_id:
        raise InputError(f"{where}: game_id must be a non-empty string")
    played_at = parse_time(record.get("played_at"), f"{where}: played_at")
    if ladder is not None and record.get("ladder", ladder) != ladder:
        raise InputError(
            f"{where}: game {game_id!r} belongs to ladder {record.get('ladder')!r}, "
            f"not {ladder!r}; export one ladder per file"
        )
    players = record.get("players")
    if not isinstance(players, list) or len(players) != 2:
        raise InputError(f"{where}: players must be a list of exactly two players")
    for index, player in enumerate(players):
        if not isinstance(player, dict):
            raise InputError(f"{where}: players[{index}] must be an object")
        player_id = player.get("id")
        if not isinstance(player_id, str) or not player_id:
            raise InputError(f"{where}: players[{index}].id must be a non-empty string")
    if players[0]["id"] == players[1]["id"]:
        raise InputError(f"{where}: players[0].id and players[1].id must differ")
    winner = record.get("winner")
    if winner is not None and winner not in (players[0]["id"], players[1]["id"]):
        raise InputError(
            f"{where}: winner must be one of the players' ids or null (a draw), got {winner!r}"
        )
    ranked = record.get("ranked", True)
    if not isinstance(ranked, bool):
        raise InputError(f"{where}: ranked must be true or false")
    return GameLine(number, played_at, record)


def rating_before(game: GameLine, index: int) -> int:
    """players[index].rating_before, which calibration needs, or a clear error."""
    value = game.record["players"][index].get("rating_before")
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InputError(
            f"{game.where(f'players[{index}].rating_before')} must be a number "
            "(the rating at the time of the game)"
        )
    return int(value)


def score_of(game: GameLine, index: int) -> float:
    """1 for the winner, 0 for the loser, 0.5 each for a draw (winner null)."""
    winner = game.record.get("winner")
    if winner is None:
        return 0.5
    return 1.0 if game.record["players"][index]["id"] == winner else 0.0


def is_ranked(game: GameLine) -> bool:
    return bool(game.record.get("ranked", True))


def dumps(record: Record) -> str:
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"))


def write_lines(records: Iterable[Record], out: IO[str]) -> int:
    count = 0
    for record in records:
        out.write(dumps(record))
        out.write("\n")
        count += 1
    return count
