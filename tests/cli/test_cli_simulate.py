"""`ratings simulate`: hidden strengths, dice, and games in the export format."""

import json
import math
from pathlib import Path

import pytest
from support.cli import read_jsonl, run

from ratings_cli.records import read_games
from ratings_cli.simulate import win_probability


def simulate(capsys: pytest.CaptureFixture[str], path: Path, *flags: object) -> list[dict]:  # type: ignore[type-arg]
    ran = run(capsys, "simulate", "--players", 12, "--games", 600, "--output", path, *flags)
    assert ran.code == 0, ran.err
    return read_jsonl(path)


def test_a_seed_makes_the_same_games_and_another_seed_other_games(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    simulate(capsys, tmp_path / "a.jsonl", "--seed", 4)
    simulate(capsys, tmp_path / "b.jsonl", "--seed", 4)
    simulate(capsys, tmp_path / "c.jsonl", "--seed", 5)
    assert (tmp_path / "a.jsonl").read_bytes() == (tmp_path / "b.jsonl").read_bytes()
    assert (tmp_path / "a.jsonl").read_bytes() != (tmp_path / "c.jsonl").read_bytes()


def test_simulated_games_are_stored_results_that_replay_to_themselves(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    games = simulate(capsys, tmp_path / "sim.jsonl", "--days", 3)
    first = games[0]
    assert list(first) == [
        "game_id", "ladder", "played_at", "ruleset", "ruleset_version", "ranked",
        "unranked_reason", "winner", "mode", "players", "cube", "ending", "points",
    ]  # fmt: skip
    assert list(first["players"][0]) == [
        "id", "rating_before", "rating_after", "delta", "explain", "bot",
    ]  # fmt: skip
    assert first["players"][0]["explain"] == {
        "expected": 0.5, "k": 32, "recent_ranked_games": 0, "coefficient": first["players"][0][
            "explain"]["coefficient"],
    }  # fmt: skip
    assert {game["cube"] for game in games} <= {1, 2, 4, 8, 16}
    assert len(read_games(tmp_path / "sim.jsonl", "backgammon")) == 600
    # 600 games of 12 players in 3 days: many players pass 50 recent games and play at K 16.
    assert {p["explain"]["k"] for game in games for p in game["players"]} == {16, 32}
    ran = run(capsys, "replay", tmp_path / "sim.jsonl", "--ladder", "backgammon",
              "--output", tmp_path / "again.jsonl")  # fmt: skip
    assert ran.code == 0
    assert read_jsonl(tmp_path / "again.jsonl") == games


def test_the_other_ladders_can_be_simulated_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    for ladder in ("sedma", "classic"):
        games = simulate(capsys, tmp_path / f"{ladder}.jsonl", "--ladder", ladder)
        assert {game["ruleset"] for game in games} == {ladder}
        assert "cube" not in games[0]
        ran = run(capsys, "replay", tmp_path / f"{ladder}.jsonl", "--ladder", ladder,
                  "--output", tmp_path / f"{ladder}.again")  # fmt: skip
        assert ran.code == 0
        assert read_jsonl(tmp_path / f"{ladder}.again") == games


def test_simulated_games_can_be_rated_under_any_version_or_parameters(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    games = simulate(capsys, tmp_path / "sim.jsonl", "--ruleset-version", "1.0.5", "--k", 24)
    assert {game["ruleset_version"] for game in games} == {"1.0.5+k=24"}
    assert {p["explain"]["k"] for game in games for p in game["players"]} == {24}


def test_the_hidden_strengths_can_be_written_for_checking(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    games = simulate(capsys, tmp_path / "sim.jsonl", "--strengths-out", tmp_path / "truth.json")
    truth = json.loads((tmp_path / "truth.json").read_text())
    assert truth["true_divisor"] == 1200
    assert truth["luck"] == 0
    assert set(truth["strengths"]) == {p["id"] for game in games for p in game["players"]}


def test_the_stronger_player_wins_by_the_true_curve_and_luck_flattens_it() -> None:
    assert win_probability(0, 1200, 0) == 0.5
    assert win_probability(300, 1200, 0) == pytest.approx(0.640, abs=5e-4)  # rules.md: 64.0%
    assert win_probability(300, 1200, 1) == 0.5
    assert win_probability(300, 1200, 0.5) == pytest.approx(0.25 + 0.5 * 0.6401, abs=1e-4)
    assert win_probability(-(10**6), 1200, 0) == 0.0
    # Near gap 0, luck L on divisor D has the slope of divisor D / (1 - L).
    slope = (win_probability(1, 400, 2 / 3) - win_probability(-1, 400, 2 / 3)) / 2
    assert slope == pytest.approx(math.log(10) / 4 / 1200, rel=1e-3)


@pytest.mark.parametrize(
    ("flags", "message"),
    [
        (["--luck", "1.5"], "--luck must be between 0 and 1"),
        (["--players", "1"], "--players must be at least 2"),
        (["--true-divisor", "0"], "--true-divisor must be positive"),
        (["--start", "soon"], "--start must be an RFC 3339 timestamp"),
    ],
)
def test_impossible_simulations_are_refused(
    capsys: pytest.CaptureFixture[str], flags: list[str], message: str
) -> None:
    ran = run(capsys, "simulate", "--games", 10, *flags)
    assert ran.code == 2
    assert message in ran.err
