"""End to end on the local stack: games rated over HTTP, the RefreshStandings function run as
its schedule would, then where players stand and the leaderboard around them, over HTTP."""

import uuid
from collections.abc import Iterator

import pytest
from support.http import Client
from support.stack import ENGINES, running_stack

from ratings_local.stack import LocalStack

pytestmark = pytest.mark.xdist_group("local_stack")

EXACT_RANK_LIMIT = 3


@pytest.fixture(scope="module", params=ENGINES)
def stack(request: pytest.FixtureRequest) -> Iterator[LocalStack]:
    """A stack of this module's own (a board no other test writes to), with a small limit."""
    with running_stack(exact_rank_limit=EXACT_RANK_LIMIT, dynamodb_local=request.param) as local:
        yield local


def test_rate_refresh_then_read_standing_and_around(client: Client) -> None:
    tag = uuid.uuid4().hex[:6]
    players = [f"s{index}-{tag}" for index in range(8)]
    # Four games, bigger cubes further down: eight players on eight distinct ratings.
    for number in range(4):
        winner, loser = players[2 * number], players[2 * number + 1]
        game = {
            "game_id": f"sg-{tag}-{number}",
            "players": [{"id": winner}, {"id": loser}],
            "winner": winner,
            "cube": 2**number,
        }
        assert client.call("POST", "/v1/ladders/backgammon/games", game)[0] == 201
    status, endpoints = client.call("GET", "/_local/endpoints")
    assert endpoints["functions"]["RefreshStandingsFunction"] == ["Schedule"]

    status, refreshed = client.call("POST", "/_local/invoke/RefreshStandingsFunction")

    assert status == 200
    backgammon = next(entry for entry in refreshed["ladders"] if entry["ladder"] == "backgammon")
    assert (backgammon["players"], backgammon["stored"]) == (8, True)
    status, board = client.call("GET", "/v1/ladders/backgammon/leaderboard")
    ranks = {entry["player_id"]: entry["rank"] for entry in board["entries"]}
    assert sorted(ranks.values()) == list(range(1, 9))
    for player_id, rank in ranks.items():
        status, player = client.call("GET", f"/v1/ladders/backgammon/players/{player_id}")
        standing = player["standing"]
        assert (status, standing["rank"], standing["of"]) == (200, rank, 8)
        assert standing["exact"] is (rank <= EXACT_RANK_LIMIT)
        if not standing["exact"]:
            assert standing["as_of"] == backgammon["refreshed_at"]

    by_rank = {rank: player_id for player_id, rank in ranks.items()}
    status, page = client.call(
        "GET", f"/v1/ladders/backgammon/leaderboard?around={by_rank[5]}&limit=3"
    )
    assert status == 200
    assert [(entry["rank"], entry["player_id"]) for entry in page["entries"]] == [
        (rank, by_rank[rank]) for rank in (4, 5, 6)
    ]
    assert (page["around"], page["exact"], page["next_cursor"]) == (by_rank[5], False, None)
    status, top = client.call(
        "GET", f"/v1/ladders/backgammon/leaderboard?around={by_rank[1]}&limit=3"
    )
    assert [entry["rank"] for entry in top["entries"]] == [1, 2, 3]
    assert top["exact"] is True


def test_around_refusals_over_http(client: Client) -> None:
    status, body = client.call("GET", "/v1/ladders/backgammon/leaderboard?around=nobody-here")
    assert status == 404
    assert body["error"]["code"] == "not_ranked"
    assert "nobody-here" in body["error"]["message"]

    status, body = client.call("GET", "/v1/ladders/backgammon/leaderboard?around=x&cursor=abc")
    assert (status, body["error"]["code"]) == (400, "invalid_request")
    assert body["error"]["message"].startswith("around")

    status, body = client.call("GET", "/v1/ladders/backgammon/leaderboard?around=bad%20id")
    assert (status, body["error"]["code"]) == (400, "invalid_request")
    assert "around" in body["error"]["message"]


def test_the_exact_rank_limit_flag() -> None:
    from ratings_local.__main__ import parse_args

    assert parse_args(["--exact-rank-limit", "5"]).exact_rank_limit == 5
    assert parse_args([]).exact_rank_limit is None  # the template's default
    with pytest.raises(SystemExit):
        parse_args(["--exact-rank-limit", "-1"])
