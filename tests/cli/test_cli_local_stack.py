"""End to end on the local stack: games in over HTTP, `ratings export` out of its emulated
DynamoDB (the installed console script, in its own process), then replay and calibrate."""

import json
import os
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from support.cli import backgammon_bodies, read_jsonl, run
from support.stack import running_stack

from ratings_local.stack import LocalStack

RATINGS = Path(sys.executable).with_name("ratings")
GAMES = 40

pytestmark = pytest.mark.xdist_group("local_stack")


def call(url: str, body: object | None = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(
        url, data=data, method="GET" if body is None else "POST",
        headers={"content-type": "application/json"},
    )  # fmt: skip
    with urllib.request.urlopen(request, timeout=30) as response:
        assert response.status in (200, 201)
        return json.loads(response.read())


@pytest.fixture(scope="module")
def stack() -> Iterator[LocalStack]:
    with running_stack() as local:
        yield local


@pytest.fixture(scope="module")
def stored(stack: LocalStack) -> list[dict[str, Any]]:
    """GAMES backgammon games posted over HTTP, read back one by one. Posted in played_at
    order: the service rates games as they arrive, a replay in played_at order."""
    start = datetime.now(UTC).replace(microsecond=0) - timedelta(days=3)
    bodies = list(backgammon_bodies(start, GAMES))
    games = f"{stack.api_url}/v1/ladders/backgammon/games"
    for body in bodies:
        call(games, body)
    return [call(f"{games}/{body['game_id']}") for body in bodies]


def export(env: dict[str, str], *flags: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(RATINGS), "export", "--ladder", "backgammon", *flags],
        env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


def clean_env() -> dict[str, str]:
    """This process's environment without the AWS settings the stack put there, and with
    credentials the emulator accepts (it checks none)."""
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("AWS_", "RATINGS_"))
    }
    env.update(AWS_ACCESS_KEY_ID="local", AWS_SECRET_ACCESS_KEY="local")
    return env


def test_export_reads_the_stacks_games_by_flags_and_by_environment(
    stack: LocalStack, stored: list[dict[str, Any]], tmp_path: Path
) -> None:
    endpoints = stack.endpoints()
    assert RATINGS.exists(), "the console script: pip install -e '.[dev]'"
    out = tmp_path / "by-flags.jsonl"
    done = export(
        clean_env(),
        "--endpoint-url", endpoints["aws_endpoint_url"],
        "--table", endpoints["table"],
        "--region", endpoints["region"],
        "--output", str(out),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert f"exported {GAMES} games of ladder backgammon" in done.stderr
    assert read_jsonl(out) == stored

    env = clean_env()
    env.update(
        AWS_ENDPOINT_URL=endpoints["aws_endpoint_url"],
        AWS_REGION=endpoints["region"],
        RATINGS_TABLE=endpoints["table"],
    )
    done = export(env)
    assert done.returncode == 0, done.stderr
    assert [json.loads(line) for line in done.stdout.splitlines()] == stored


def test_the_export_replays_to_what_the_stack_stored_and_calibrates(
    stack: LocalStack,
    stored: list[dict[str, Any]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    endpoints = stack.endpoints()
    exported = tmp_path / "backgammon.jsonl"
    done = export(
        clean_env(),
        "--endpoint-url", endpoints["aws_endpoint_url"],
        "--table", endpoints["table"],
        "--output", str(exported),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr

    ran = run(capsys, "replay", exported, "--ladder", "backgammon",
              "--output", tmp_path / "same.jsonl")  # fmt: skip
    assert ran.code == 0, ran.err
    assert read_jsonl(tmp_path / "same.jsonl") == stored  # the service's arithmetic, exactly

    ran = run(capsys, "replay", exported, "--ladder", "backgammon", "--ruleset-version", "1.0.5",
              "--output", tmp_path / "old.jsonl")  # fmt: skip
    assert ran.code == 0, ran.err
    old = read_jsonl(tmp_path / "old.jsonl")
    assert {game["ruleset_version"] for game in old} == {"1.0.5"}
    assert [g["players"][0]["rating_after"] for g in old] != [
        g["players"][0]["rating_after"] for g in stored
    ]

    plot = tmp_path / "calibration.png"
    ran = run(capsys, "calibrate", exported, "--ladder", "backgammon", "--json", "--plot", plot)
    assert ran.code == 0, ran.err
    figures = ran.json()
    assert figures["games_in_file"] == GAMES
    assert figures["games_fitted"] == GAMES - 3  # three are unranked
    assert figures["current_divisor"] == 1200
    assert {"fitted_divisor", "divisor_ci", "buckets", "spread"} <= set(figures)
    assert plot.stat().st_size > 10_000
