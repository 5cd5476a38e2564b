"""`ratings replay`: the service's arithmetic, replayed from scratch, deterministically."""

import csv
import json
import random
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from support.cli import (
    backgammon_bodies,
    classic_bodies,
    read_jsonl,
    run,
    sedma_bodies,
    stored_history,
    write_jsonl,
)
from support.games import FixedClock
from support.services import rating_service

from ratings.storage.memory import InMemoryStorage
from ratings_cli import progress

START = datetime(2026, 11, 20, 8, 0, tzinfo=UTC)


def service_history(ladder: str) -> list[dict]:  # type: ignore[type-arg]
    clock = FixedClock(START + timedelta(days=13))
    service = rating_service(InMemoryStorage(), clock)
    bodies = {
        "backgammon": lambda: list(backgammon_bodies(START, 160)),
        "sedma": lambda: list(sedma_bodies(START, 60)),
        "classic": lambda: list(classic_bodies(START, 80)),
    }[ladder]()
    return stored_history(service, ladder, bodies)


@pytest.mark.parametrize("ladder", ["backgammon", "sedma", "classic"])
def test_replay_under_the_ladders_rules_reproduces_what_the_service_stored(
    ladder: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stored = service_history(ladder)
    games = write_jsonl(tmp_path / "games.jsonl", stored)
    ran = run(capsys, "replay", games, "--ladder", ladder, "--output", tmp_path / "out.jsonl")
    assert ran.code == 0, ran.err
    assert read_jsonl(tmp_path / "out.jsonl") == stored


def test_the_backgammon_history_exercises_the_window_and_unranked_games() -> None:
    stored = service_history("backgammon")
    ks = {player["explain"]["k"] for game in stored if game["ranked"] for player in game["players"]}
    assert ks == {16, 32}
    reasons = {game["unranked_reason"] for game in stored}
    assert reasons == {None, "mode", "bot", "shared_network"}
    # Two games at one instant: the later one does not count the earlier as "recent".
    assert stored[9]["played_at"] == stored[10]["played_at"]


def test_replay_orders_by_played_at_then_game_id_whatever_the_file_order(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stored = service_history("backgammon")
    shuffled = stored[:]
    random.Random(1).shuffle(shuffled)
    write_jsonl(tmp_path / "a.jsonl", stored)
    write_jsonl(tmp_path / "b.jsonl", shuffled)
    for name in ("a", "b"):
        ran = run(
            capsys, "replay", tmp_path / f"{name}.jsonl", "--ladder", "backgammon",
            "--ruleset-version", "1.0.5", "--output", tmp_path / f"{name}.out",
        )  # fmt: skip
        assert ran.code == 0, ran.err
    first = (tmp_path / "a.out").read_bytes()
    assert first == (tmp_path / "b.out").read_bytes()
    assert [game["game_id"] for game in read_jsonl(tmp_path / "a.out")] == [
        game["game_id"] for game in stored
    ]


def test_other_versions_and_parameters_rate_the_same_games_differently(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    games = write_jsonl(tmp_path / "games.jsonl", service_history("backgammon"))
    outputs = {}
    for name, flags in {
        "1.0.5": ["--ruleset-version", "1.0.5"],
        "by-hand": ["--divisor", "400", "--heavy-volume-games", "none"],
        "1.2.0": ["--ruleset-version", "1.2.0"],
    }.items():
        ran = run(
            capsys, "replay", games, "--ladder", "backgammon", *flags,
            "--output", tmp_path / f"{name}.jsonl",
        )  # fmt: skip
        assert ran.code == 0, ran.err
        outputs[name] = read_jsonl(tmp_path / f"{name}.jsonl")

    def ratings(results: list[dict]) -> list[list[int]]:  # type: ignore[type-arg]
        return [[p["rating_after"] for p in game["players"]] for game in results]

    assert ratings(outputs["1.0.5"]) == ratings(outputs["by-hand"])
    assert ratings(outputs["1.0.5"]) != ratings(outputs["1.2.0"])
    assert outputs["1.0.5"][0]["ruleset_version"] == "1.0.5"
    assert outputs["by-hand"][0]["ruleset_version"] == "1.3.1+divisor=400,heavy_volume_games=none"
    # Under 1.0.5 nobody's K depends on the week, so the window is not even counted.
    assert {p["explain"]["k"] for g in outputs["1.0.5"] if g["ranked"] for p in g["players"]} == {
        32
    }


def test_the_final_table_is_printed_and_written_as_csv_and_json(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stored = service_history("backgammon")
    games = write_jsonl(tmp_path / "games.jsonl", stored)
    ran = run(capsys, "replay", games, "--ladder", "backgammon", "--table-out", tmp_path / "t.csv")
    assert ran.code == 0, ran.err
    assert "replayed 160 games (157 ranked) of ladder backgammon under gammon42 1.3.1" in ran.out
    assert "middle half within" in ran.out
    rows = list(csv.DictReader((tmp_path / "t.csv").open()))
    assert [row["rank"] for row in rows] == ["1", "2", "3", "4"]
    last = {}
    for game in stored:
        for player in game["players"]:
            last[player["id"]] = player["rating_after"]
    assert {row["player_id"]: int(row["rating"]) for row in rows} == last

    ran = run(capsys, "replay", games, "--ladder", "backgammon", "--json", "--table-out",
              tmp_path / "t.json")  # fmt: skip
    summary = ran.json()
    assert summary["ranked_games"] == 157
    assert summary["table"] == json.loads((tmp_path / "t.json").read_text())
    assert summary["parameters"]["divisor"] == 1200


def test_results_can_go_to_standard_output_with_the_summary_on_stderr(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    stored = service_history("classic")
    games = write_jsonl(tmp_path / "games.jsonl", stored)
    ran = run(capsys, "replay", games, "--ladder", "classic", "--output", "-")
    assert ran.code == 0
    assert [json.loads(line) for line in ran.out.splitlines()] == stored
    assert "replayed 80 games" in ran.err


def test_a_progress_bar_is_drawn_on_stderr_when_asked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    games = write_jsonl(tmp_path / "games.jsonl", service_history("classic"))
    ran = run(capsys, "replay", games, "--ladder", "classic", "--progress")
    assert "replay [" in ran.err
    assert "100%" in ran.err
    assert "80/80" in ran.err
    ran = run(capsys, "replay", games, "--ladder", "classic")
    assert "replay [" not in ran.err  # not a terminal: no bar unless asked


def test_the_bar_is_on_by_default_only_for_long_inputs_on_a_terminal() -> None:
    class Terminal:
        def isatty(self) -> bool:
            return True

    terminal = Terminal()
    assert progress.wanted(None, progress.LONG_INPUT, terminal)  # type: ignore[arg-type]
    assert not progress.wanted(None, progress.LONG_INPUT - 1, terminal)  # type: ignore[arg-type]
    assert not progress.wanted(False, 10**6, terminal)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("content", "flags", "message"),
    [
        ("{not json\n", [], "line 1: not valid JSON"),
        ('{"game_id": "g1", "played_at": "yesterday", "players": []}\n', [], "line 1: played_at"),
        (
            '{"game_id": "g1", "played_at": "2026-11-29T12:00:00", "players": []}\n',
            [],
            "must carry an offset",
        ),
        (
            '{"game_id": "g1", "played_at": "2026-11-29T12:00:00Z", '
            '"players": [{"id": "a"}, {"id": "b"}], "winner": "c"}\n',
            [],
            "line 1: winner must be one of the players' ids",
        ),
        (
            '{"game_id": "g1", "ladder": "sedma", "played_at": "2026-11-29T12:00:00Z", '
            '"players": [{"id": "a"}, {"id": "b"}], "winner": "a"}\n',
            [],
            "belongs to ladder 'sedma'",
        ),
        (
            '{"game_id": "g1", "played_at": "2026-11-29T12:00:00Z", '
            '"players": [{"id": "a"}, {"id": "b"}], "winner": "a", "cube": 3}\n',
            [],
            "line 1: cube: cube must be one of 1, 2, 4",
        ),
        (
            '{"game_id": "g1", "played_at": "2026-11-29T12:00:00Z", '
            '"players": [{"id": "a"}, {"id": "b"}], "winner": null}\n',
            [],
            "gammon42 has no draws",
        ),
        ("", ["--ruleset-version", "9.9"], "must be one of 1.0.5, 1.2.0, 1.3.1"),
        ("", ["--param", "gamma=2"], "gammon42 has no parameter 'gamma'"),
        ("", ["--k", "0", "--param", "divisor=-5"], "divisor must be a positive number"),
    ],
)
def test_bad_input_is_reported_with_its_line_and_exit_status_2(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    content: str,
    flags: list[str],
    message: str,
) -> None:
    games = tmp_path / "games.jsonl"
    games.write_text(content)
    ran = run(capsys, "replay", games, "--ladder", "backgammon", *flags)
    assert ran.code == 2
    assert message in ran.err, ran.err


def test_a_game_id_twice_and_an_unknown_ladder_are_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    line = (
        '{"game_id": "g1", "played_at": "2026-11-29T12:00:00Z", '
        '"players": [{"id": "a"}, {"id": "b"}], "winner": "a"}\n'
    )
    games = tmp_path / "games.jsonl"
    games.write_text(line + "\n" + line)
    ran = run(capsys, "replay", games, "--ladder", "backgammon")
    assert ran.code == 2
    assert "line 3: game_id 'g1' already appears on line 1" in ran.err
    ran = run(capsys, "replay", games, "--ladder", "chess")
    assert ran.code == 2
    assert "--ladder must be one of backgammon, sedma, classic" in ran.err
    ran = run(capsys, "replay", tmp_path / "missing.jsonl", "--ladder", "backgammon")
    assert ran.code == 2
    assert "cannot read" in ran.err


def test_the_ladders_are_those_of_the_ladders_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    parameters = {"provisional_k": 40, "starting_rating": 1500}
    chess = {"id": "chess", "ruleset": "classic", "version": "1.0", "parameters": parameters}
    ladders = tmp_path / "ladders.json"
    ladders.write_text(json.dumps({"ladders": [chess]}))
    games = tmp_path / "games.jsonl"
    games.write_text(
        '{"game_id": "g1", "played_at": "2026-11-29T12:00:00Z", '
        '"players": [{"id": "a"}, {"id": "b"}], "winner": "a"}\n'
    )
    monkeypatch.setenv("RATINGS_LADDERS_FILE", str(ladders))

    ran = run(capsys, "replay", games, "--ladder", "chess", "--output", tmp_path / "out.jsonl")
    refused = run(capsys, "replay", games, "--ladder", "backgammon")
    ladders.write_text(json.dumps({"ladders": [{**chess, "version": "2.0"}]}))
    broken = run(capsys, "replay", games, "--ladder", "chess")

    assert ran.code == 0, ran.err
    (result,) = read_jsonl(tmp_path / "out.jsonl")
    assert [(p["rating_before"], p["delta"]) for p in result["players"]] == [
        (1500, 20),
        (1500, -20),
    ]
    assert refused.code == 2
    assert "--ladder must be one of chess" in refused.err
    assert broken.code == 2
    assert f'{ladders}: ladder "chess" (ladders[0]): version must be one of 1.0' in broken.err
