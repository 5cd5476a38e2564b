"""`ratings export` and `ratings replay` after an erasure, on each DynamoDB engine: the export
holds the pseudonym where the player was, never their id, and a replay of it from scratch
reproduces every stored result, pseudonym and all (the pseudonym plays as a player would)."""

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from support.cli import backgammon_bodies, read_jsonl, run
from support.engines import ENGINES, ratings_table, running_engine, unique_table_name
from support.erasure import erase, erasing_service
from support.games import FixedClock
from support.jobs import RecordingJobQueue

REGION = "us-east-1"


@pytest.mark.parametrize("engine_name", ENGINES)
def test_an_erased_player_is_exported_and_replayed_as_a_pseudonym(
    engine_name: str,
    request: pytest.FixtureRequest,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    table = unique_table_name("ratings-cli-erased")
    with (
        running_engine(engine_name, request) as engine,
        pytest.MonkeyPatch.context() as patch,
        ratings_table(engine, table),
    ):
        patch.delenv("RATINGS_TABLE", raising=False)
        patch.setenv("AWS_REGION", REGION)
        storage = engine.storage(table)
        now = datetime.now(UTC).replace(microsecond=0)
        queue = RecordingJobQueue()
        service = erasing_service(storage, FixedClock(now), queue)
        bodies = list(backgammon_bodies(now - timedelta(days=5), 40))
        for body in bodies:
            service.submit_game("backgammon", body)
        assert erase(service, queue, "alice")["status"] == "done"

        exported = tmp_path / "backgammon.jsonl"
        ran = run(capsys, "export", "--ladder", "backgammon", "--table", table, "-o", exported)
        assert ran.code == 0, ran.err

    games = read_jsonl(exported)
    assert len(games) == len(bodies)
    assert "alice" not in json.dumps(games)
    pseudonyms = {
        player["id"]
        for game in games
        for player in game["players"]
        if player["id"][:7] == "erased-"
    }
    assert len(pseudonyms) == 1  # one player, one pseudonym, in every game they played
    replayed = tmp_path / "replayed.jsonl"
    ran = run(capsys, "replay", exported, "--ladder", "backgammon", "--output", replayed)
    assert ran.code == 0, ran.err
    assert read_jsonl(replayed) == games
