"""Fixtures of the command-line tests: simulated histories shared by the tests of a worker."""

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import pytest

from ratings_cli.__main__ import main


def _simulate(directory: Path, *args: str) -> Path:
    games = directory / "games.jsonl"
    code = main(["simulate", *args, "--output", str(games), "--no-progress"])
    assert code == 0
    return games


@pytest.fixture(scope="session")
def backgammon_history(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Backgammon-like games with a true divisor of 1200: 100 players with strengths of sd
    300 points, 40,000 games over 8 weeks (800 games a player, most in heavy weeks, K 16),
    rated as they happen under gammon42 1.3.1. Seed 1."""
    directory = tmp_path_factory.mktemp("backgammon")
    return _simulate(
        directory,
        "--players", "100",
        "--games", "40000",
        "--true-divisor", "1200",
        "--spread", "300",
        "--seed", "1",
        "--strengths-out", str(directory / "strengths.json"),
    )  # fmt: skip


@pytest.fixture(scope="session")
def settled_figures(backgammon_history: Path) -> dict[str, Any]:
    """`ratings calibrate --json` of that history after a burn-in of 200 games a player,
    with its plot next to the games (`figures["plot"]`)."""
    plot = backgammon_history.parent / "calibration.png"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(
            [
                "calibrate", str(backgammon_history), "--ladder", "backgammon",
                "--min-games", "200", "--json", "--plot", str(plot),
            ]
        )  # fmt: skip
    assert code == 0
    figures: dict[str, Any] = json.loads(out.getvalue())
    return figures
