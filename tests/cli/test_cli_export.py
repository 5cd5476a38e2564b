"""`ratings export`: a ladder's stored games out of DynamoDB (moto and DynamoDB Local here), as
GET returns them."""

import json
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from support.cli import backgammon_bodies, classic_bodies, read_jsonl, run
from support.engines import ENGINES, ratings_table, running_engine, unique_table_name
from support.games import FixedClock
from support.services import rating_service

from ratings_cli.export import stored_results

REGION = "us-east-1"


@dataclass(frozen=True)
class Filled:
    table: str
    backgammon: list[dict]  # type: ignore[type-arg]
    classic: list[dict]  # type: ignore[type-arg]


@pytest.fixture(scope="module", params=ENGINES)
def filled(request: pytest.FixtureRequest) -> Iterator[Filled]:
    """A table of template.yaml's definition, on each DynamoDB engine in turn (moto's
    in-process mock or DynamoDB Local; fake credentials only), with games of two ladders,
    submitted out of played_at order; the stored results of each, as GET returns them. The
    tests only read it."""
    table = unique_table_name("ratings-cli")
    with running_engine(request.param, request) as engine, pytest.MonkeyPatch.context() as patch:
        patch.delenv("RATINGS_TABLE", raising=False)
        patch.setenv("AWS_REGION", REGION)
        with ratings_table(engine, table):
            storage = engine.storage(table)
            now = datetime.now(UTC).replace(microsecond=0)
            service = rating_service(storage, FixedClock(now))
            backgammon = list(backgammon_bodies(now - timedelta(days=5), 30))
            classic = list(classic_bodies(now - timedelta(days=1), 6))
            for body in reversed(backgammon):
                service.submit_game("backgammon", body)
            for body in classic:
                service.submit_game("classic", body)
            yield Filled(
                table,
                [service.get_game("backgammon", body["game_id"]) for body in backgammon],
                [service.get_game("classic", body["game_id"]) for body in classic],
            )


def test_export_writes_one_ladder_sorted_by_played_at_exactly_as_stored(
    filled: Filled, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "backgammon.jsonl"
    ran = run(capsys, "export", "--ladder", "backgammon", "--table", filled.table, "-o", out)
    assert ran.code == 0, ran.err
    assert f"exported 30 games of ladder backgammon to {out}" in ran.err
    # Submitted newest first; exported by played_at, and games 9 and 10, which share an
    # instant, by game_id: the order the replay rates them in.
    assert read_jsonl(out) == filled.backgammon


def test_the_table_comes_from_the_environment_by_default(
    filled: Filled, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("RATINGS_TABLE", filled.table)
    ran = run(capsys, "export", "--ladder", "classic")
    assert ran.code == 0, ran.err
    assert [json.loads(line) for line in ran.out.splitlines()] == filled.classic


def test_games_past_their_retention_are_left_out_as_the_api_leaves_them_out(
    filled: Filled,
) -> None:
    later = datetime.now(UTC) + timedelta(days=31)
    assert stored_results("backgammon", table=filled.table, now=lambda: later) == []
    assert stored_results("backgammon", table=filled.table) == filled.backgammon


def test_an_unknown_table_is_an_error_that_names_it(
    filled: Filled, capsys: pytest.CaptureFixture[str]
) -> None:
    ran = run(capsys, "export", "--ladder", "backgammon", "--table", "no-such-table")
    assert ran.code == 2
    assert "cannot read table 'no-such-table'" in ran.err
    assert ran.out == ""
