"""The functions serve the ladders of the file RATINGS_LADDERS_FILE names: a title's own ladder
(chess on classic, with its own K) is listed, rates with its parameters, and pays its own
podium; the ladders of the default file are gone."""

import json
from pathlib import Path
from types import ModuleType

import pytest
from support.games import recent_game, recent_podium
from support.handlers import Api, LambdaContext, Stack
from support.lambda_events import scheduled_event

from ratings import wiring

pytestmark = pytest.mark.filterwarnings("ignore:No application metrics:UserWarning")

CHESS = {
    "id": "chess",
    "ruleset": "classic",
    "version": "1.0",
    "parameters": {
        "starting_rating": 1500,
        "provisional_k": 40,
        "established_k": 20,
        "provisional_games": 2,
    },
    "sides": {"min": 2, "max": 2},
    "players_per_side": {"min": 1, "max": 1},
    "podium_bonuses": [30],
    "season": {"schedule": "monthly", "first": "2099-01", "reset": {"kind": "soft"}},
}


@pytest.fixture
def chess(stack: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A container started on a file of one ladder (after `stack` set the environment)."""
    path = tmp_path / "ladders.json"
    path.write_text(json.dumps({"ladders": [CHESS]}))
    monkeypatch.setenv("RATINGS_LADDERS_FILE", str(path))
    wiring.reset()


@pytest.mark.usefixtures("chess")
def test_the_ladders_are_the_files(api: Api) -> None:
    reply = api("GET", "/v1/ladders")

    assert reply.status == 200
    assert reply.body == {
        "ladders": [
            {
                "id": "chess",
                "ruleset": "classic",
                "version": "1.0",
                "starting_rating": 1500,
                "podium_bonuses": [30],
                "parameters": {
                    "divisor": 400,
                    "provisional_k": 40,
                    "established_k": 20,
                    "provisional_games": 2,
                },
                "sides": {"min": 2, "max": 2},
                "players_per_side": {"min": 1, "max": 1},
                # Until its first scheduled season (January 2099), the ladder is in all-time.
                "season": {
                    "season_id": "all-time",
                    "starts_at": None,
                    "ends_at": "2099-01-01T00:00:00.000Z",
                    "reset": {"kind": "soft", "target": 1500, "squish": 0.5},
                    "min_games": 1,
                },
            }
        ]
    }
    assert (
        api("POST", "/v1/ladders/backgammon/games", body=recent_game("g", "a", "b")).status == 404
    )


@pytest.mark.usefixtures("chess")
def test_a_game_rates_with_the_configured_k(api: Api) -> None:
    # Two newcomers at 1500: each expects 0.5, so the change is K / 2 with K 40, then 20.
    deltas = []
    for number in range(3):
        reply = api("POST", "/v1/ladders/chess/games", body=recent_game(f"g-{number}", "a", "b"))
        assert reply.status == 201
        winner, loser = reply.body["players"]
        assert winner["explain"]["k"] == loser["explain"]["k"]
        deltas.append((winner["rating_before"], winner["explain"]["k"], winner["delta"]))

    assert deltas[0] == (1500, 40, 20)
    assert deltas[1] == (1520, 40, 18)  # 40 * (1 - 1 / (1 + 10^(-40 / 400)))
    assert deltas[2][1] == 20  # established after 2 ranked games
    player = api("GET", "/v1/ladders/chess/players/b").body
    assert (player["k"], player["provisional"], player["ranked_games"]) == (20, False, 3)


@pytest.mark.usefixtures("chess")
def test_a_preview_and_a_podium_use_the_ladders_configuration(
    api: Api, stack: Stack, award_podiums: ModuleType
) -> None:
    preview = api("POST", "/v1/ladders/chess/preview", body=recent_game("p", "c", "d"))
    podium = recent_podium("t-1", "c", "d", ladder="chess")
    stack.sqs.send_message(QueueUrl=stack.podium_url, MessageBody=json.dumps(podium))

    summary = award_podiums.lambda_handler(
        scheduled_event(), LambdaContext(function_name="award-podiums")
    )

    assert preview.status == 200
    assert [player["delta"] for player in preview.body["players"]] == [20, -20]
    assert summary["awarded"] == 1
    ratings = {
        player_id: api("GET", f"/v1/ladders/chess/players/{player_id}").body["rating"]
        for player_id in ("c", "d")
    }
    assert ratings == {"c": 1530, "d": 1500}  # place 1 is paid 30, place 2 nothing
