"""The command line in tests: `ratings` run in this process, JSON lines files, and game
histories to feed it (seeded, so every run makes the same games)."""

import json
import random
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from ratings.service.facade import RatingService
from ratings_cli.__main__ import main
from support.games import ts

Record = dict[str, Any]


@dataclass(frozen=True)
class Ran:
    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)


def run(capsys: pytest.CaptureFixture[str], *args: object) -> Ran:
    """`ratings ARGS...` in this process; its exit status and what it printed."""
    capsys.readouterr()  # drop anything printed before
    code = main([str(arg) for arg in args])
    captured = capsys.readouterr()
    return Ran(code, captured.out, captured.err)


def read_jsonl(path: Path) -> list[Record]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def write_jsonl(path: Path, records: Sequence[Record]) -> Path:
    path.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    return path


def backgammon_bodies(start: datetime, count: int, seed: int = 3) -> Iterator[Record]:
    """Submit bodies of a busy backgammon week: one player passes 50 recent games (K 16),
    two games share an instant, a few are unranked, cubes vary. In played_at order."""
    rng = random.Random(seed)
    players = ["alice", "bob", "carol", "dave"]
    at = start
    for number in range(count):
        if number != 10:  # game 10 is played at the same instant as game 9
            at += timedelta(minutes=rng.randint(1, 90))
        first = "alice" if number % 3 else rng.choice(players[1:])
        second = rng.choice([p for p in players if p != first])
        body: Record = {
            "game_id": f"bg-{number:04d}",
            "played_at": ts(at),
            "players": [{"id": first}, {"id": second}],
            "winner": rng.choice([first, second]),
            "cube": rng.choice([1, 1, 1, 2, 2, 4, 8, 64]),
        }
        if number == 20:
            body["mode"] = "boosted"
        if number == 21:
            body["players"][1]["bot"] = True
        if number == 22:
            body["players"][0]["network"] = body["players"][1]["network"] = "n1"
        yield body


def _pairings(
    rng: random.Random,
    players: Sequence[str],
    prefix: str,
    start: datetime,
    every: timedelta,
    count: int,
) -> Iterator[tuple[str, str, Record]]:
    """Two of `players` drawn for each game, one game every `every` after `start`; the body
    so far (its id and time), for the caller to complete with what its ruleset needs."""
    for number in range(count):
        first, second = rng.sample(players, 2)
        yield (
            first,
            second,
            {"game_id": f"{prefix}-{number:04d}", "played_at": ts(start + every * (number + 1))},
        )


def sedma_bodies(start: datetime, count: int, seed: int = 5) -> Iterator[Record]:
    rng = random.Random(seed)
    for first, second, body in _pairings(
        rng, ["ema", "filip", "gita"], "se", start, timedelta(minutes=7), count
    ):
        body["players"] = [
            {
                "id": first,
                "stats": {"bad_moves": rng.randint(0, 6), "rounds_won_16": rng.randint(0, 3)},
            },
            {"id": second, "stats": {"rounds_won_24": rng.randint(0, 2)}},
        ]
        body["winner"] = rng.choice([first, second])
        yield body


def classic_bodies(start: datetime, count: int, seed: int = 11) -> Iterator[Record]:
    rng = random.Random(seed)
    for first, second, body in _pairings(
        rng, ["hana", "ivan", "jana"], "cl", start, timedelta(minutes=5), count
    ):
        body["players"] = [{"id": first}, {"id": second}]
        body["winner"] = rng.choice([first, second, None])
        yield body


def stored_history(service: RatingService, ladder: str, bodies: Sequence[Record]) -> list[Record]:
    """Submit the bodies in order and return the stored results, as GET returns them."""
    for body in bodies:
        service.submit_game(ladder, body)
    return [service.get_game(ladder, body["game_id"]) for body in bodies]
