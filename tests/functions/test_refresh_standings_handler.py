"""The RefreshStandings function: a scheduled run counts every ladder's leaderboard into its
histogram, and the Api then answers ranks beyond the exact limit from it."""

from types import ModuleType

import pytest
from support.games import recent_game
from support.handlers import Api, LambdaContext
from support.lambda_events import scheduled_event

from ratings import wiring

pytestmark = pytest.mark.filterwarnings("ignore:No application metrics:UserWarning")


def run(refresh_standings: ModuleType) -> dict[str, object]:
    context = LambdaContext(function_name="refresh-standings")
    summary: dict[str, object] = refresh_standings.lambda_handler(scheduled_event(), context)
    return summary


def test_a_run_counts_every_ladder_and_estimates_ranks_beyond_the_limit(
    api: Api, refresh_standings: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RATINGS_EXACT_RANK_LIMIT", "2")
    wiring.reset()
    # Six players of distinct ratings: the winners of three games above their losers.
    for number, (winner, loser) in enumerate([("a", "b"), ("c", "d"), ("e", "f")]):
        body = recent_game(f"g-{number}", winner, loser, cube=2 ** (number + 1))
        assert api("POST", "/v1/ladders/backgammon/games", body=body).status == 201
    before = api("GET", "/v1/ladders/backgammon/players/f").body["standing"]

    summary = run(refresh_standings)

    by_ladder = {entry["ladder"]: entry for entry in summary["ladders"]}  # type: ignore[attr-defined]
    assert set(by_ladder) == set(wiring.ladders())
    assert (by_ladder["backgammon"]["players"], by_ladder["backgammon"]["stored"]) == (6, True)
    assert by_ladder["sedma"]["players"] == 0
    board = api("GET", "/v1/ladders/backgammon/leaderboard").body["entries"]
    ranks = {entry["player_id"]: entry["rank"] for entry in board}
    # Before any refresh a rank beyond the limit is unknown; after it, estimated exactly
    # (distinct ratings: the histogram knows everyone above).
    assert before == {"rank": None, "of": None, "exact": False, "as_of": None}
    for player_id, rank in ranks.items():
        standing = api("GET", f"/v1/ladders/backgammon/players/{player_id}").body["standing"]
        assert (standing["rank"], standing["of"]) == (rank, 6)
        assert standing["exact"] is (rank <= 2)
        assert standing["as_of"].endswith("Z")
