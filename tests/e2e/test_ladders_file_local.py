"""The local stack on a title's own ladders file (`make run ARGS="--ladders FILE"`): every
function serves its ladders, over HTTP and from the games queue; a file that cannot work stops
the start with its message, before anything runs."""

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.games import recent_game, unique
from support.http import Client
from support.stack import running_stack, sqs_client, wait_for

from ratings.rules.ladder_config import LadderConfigError
from ratings_local.__main__ import banner, main, parse_args
from ratings_local.stack import LocalStack, Options

pytestmark = pytest.mark.xdist_group("local_stack")

LADDERS = {
    "ladders": [
        {
            "id": "chess",
            "ruleset": "classic",
            "version": "1.0",
            "parameters": {"provisional_k": 40, "established_k": 10, "starting_rating": 1500},
            "podium_bonuses": [30, 20, 10],
        },
        {"id": "cards", "ruleset": "sedma", "version": "1.0", "parameters": {"top_k": 12}},
    ]
}


@pytest.fixture(scope="module")
def ladders_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("title") / "ladders.json"
    path.write_text(json.dumps(LADDERS))
    return path


@pytest.fixture(scope="module")
def stack(ladders_file: Path) -> Iterator[LocalStack]:
    with running_stack(ladders_file=ladders_file) as local:
        yield local


@pytest.fixture(scope="module")
def client(stack: LocalStack) -> Client:
    return Client(stack.api_url)


def test_the_api_lists_the_files_ladders(stack: LocalStack, client: Client) -> None:
    status, body = client.call("GET", "/v1/ladders")

    assert status == 200
    assert [ladder["id"] for ladder in body["ladders"]] == ["chess", "cards"]
    chess = body["ladders"][0]
    assert (chess["starting_rating"], chess["podium_bonuses"]) == (1500, [30, 20, 10])
    assert chess["parameters"]["provisional_k"] == 40
    assert (chess["sides"], chess["players_per_side"]) == (
        {"min": 2, "max": 2},
        {"min": 1, "max": 1},
    )
    assert body["ladders"][1]["parameters"]["top_k"] == 12
    # The stack's own document describes the same ladders.
    _status, document = client.call("GET", "/openapi.json")
    assert "/v1/ladders/chess/games" in document["paths"]
    assert "/v1/ladders/backgammon/games" not in document["paths"]
    assert list(stack.ladders) == ["chess", "cards"]


def test_a_game_over_http_and_one_from_the_queue_rate_with_the_configured_k(
    stack: LocalStack, client: Client
) -> None:
    alice, bob, carol = unique("alice"), unique("bob"), unique("carol")
    status, result = client.call(
        "POST", "/v1/ladders/chess/games", recent_game(unique("g"), alice, bob)
    )
    queued = {"ladder": "chess", **recent_game(unique("g"), carol, bob)}
    sqs_client(stack).send_message(
        QueueUrl=stack.endpoints()["queues"]["games"], MessageBody=json.dumps(queued)
    )

    assert status == 201
    assert [(player["explain"]["k"], player["delta"]) for player in result["players"]] == [
        (40, 20),
        (40, -20),
    ]
    carols = wait_for(
        lambda: client.call("GET", f"/v1/ladders/chess/players/{carol}")[1].get("ranked_games"),
        what="the queued game rated",
    )
    assert carols == 1
    status, backgammon = client.call(
        "POST", "/v1/ladders/backgammon/games", recent_game("g", "a", "b")
    )
    assert (status, backgammon["error"]["code"]) == (404, "not_found")


def test_the_banner_names_the_file_and_its_ladders(stack: LocalStack, ladders_file: Path) -> None:
    text = banner(stack)

    assert f"chess, cards ({ladders_file})" in text
    assert "backgammon" not in text  # no example game on a ladder the stack does not serve
    assert parse_args(["--ladders", str(ladders_file)]).ladders_file == ladders_file
    assert parse_args([]).ladders_file is None


def test_a_file_that_cannot_work_stops_the_start(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "ladders.json"
    path.write_text(json.dumps({"ladders": [{"id": "chess", "ruleset": "chess", "version": "1"}]}))
    expected = (
        f'{path}: ladder "chess" (ladders[0]): ruleset must be one of gammon42, sedma, classic, '
        'got "chess"'
    )
    monkeypatch.setenv("RATINGS_LADDERS_FILE", "")  # put back as it was, after the test

    local = LocalStack(Options(port=0, ladders_file=path))
    with pytest.raises(LadderConfigError) as caught:
        local.start()
    assert str(caught.value) == expected
    assert (local.resources, local.functions) == (None, {})  # nothing started
    local.stop()

    assert main(["--port", "0", "--ladders", str(path)]) == 1
    assert capsys.readouterr().err == f"could not start the local stack: {expected}\n"
