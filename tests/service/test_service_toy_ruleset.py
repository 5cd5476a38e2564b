"""A fourth ruleset, defined here and nowhere else, goes through every use case and the CLI.

Proof that the service, the storage and the CLI (replay, simulate) know no ruleset by name:
everything particular to a ruleset is what it declares (its fields, explanation, parameters,
expected score), so registering it in a ladder is all a new one takes.
"""

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

import pytest
from support.games import NOW, FixedClock

from ratings.declare.answers import parse_utc_millis
from ratings.declare.kinds import NUMBER, Choice, Field, Integer, Object
from ratings.rules import Game, InvalidInput, Ladder, PlayerChange, PlayerState, Rating
from ratings.rules.model import expected_score, round_half_away
from ratings.service.facade import RatingService
from ratings.storage.memory import InMemoryStorage
from ratings_cli.records import GameLine
from ratings_cli.replay import Replayer
from ratings_cli.simulate import Simulation, Simulator

HANDICAP = Object((Field("stones", Integer(0, 9), "Stones given", default=0),), "a handicap")


@dataclass(frozen=True)
class Margin:
    """Elo whose change is multiplied by the game's margin; a player's handicap (stones
    given) lowers their rating for the expected score only. Draws allowed."""

    version: str = "0.1"
    divisor: float = 400
    k: int = 20
    starting_rating: int = 1000

    name = "margin"
    draws_allowed = True
    recent_games_needed = None
    recent_window_days = 0
    game_fields = (
        Field("margin", Choice((1, 2, 3)), "How clear the win was", 1, typical=((1, 3), (3, 1))),
    )
    player_fields = (Field("handicap", HANDICAP, "What the player gave", {"stones": 0}),)
    state_overrides = ()
    explain_fields = (Field("expected", NUMBER, "E"), Field("margin", NUMBER, "The multiplier"))

    def k_for(self, state: PlayerState) -> int:
        return self.k

    def provisional(self, state: PlayerState) -> bool:
        return False

    def parameters(self) -> Mapping[str, object]:
        return {"divisor": self.divisor, "k": self.k}

    def expected_score(self, rating: int, opponent_rating: int) -> float:
        return expected_score(rating, opponent_rating, self.divisor)

    def rate(self, game: Game) -> Rating:
        margin = game.options["margin"]
        changes = []
        for index, player in enumerate(game.players):
            opponent = game.players[1 - index]
            stones = game.player_options[index]["handicap"]["stones"]
            other = game.player_options[1 - index]["handicap"]["stones"]
            expected = self.expected_score(
                player.rating - 10 * stones, opponent.rating - 10 * other
            )
            delta = round_half_away(self.k * margin * (game.score_of(index) - expected))
            changes.append(
                PlayerChange(
                    player.player_id,
                    player.rating,
                    player.rating + delta,
                    {"expected": expected, "margin": margin},
                )
            )
        return Rating(self.name, self.version, (changes[0], changes[1]))


@pytest.fixture
def toy_service() -> RatingService:
    return RatingService(InMemoryStorage(), {"toy": Ladder("toy", Margin())}, clock=FixedClock())


def body(game_id: str | None, **fields: Any) -> dict[str, Any]:
    sent: dict[str, Any] = {
        "players": [{"id": "ann", "handicap": {"stones": 2}}, {"id": "ben"}],
        "winner": "ann",
        "margin": 2,
        **fields,
    }
    if game_id is not None:
        sent["game_id"] = game_id
    return sent


def test_preview_submit_and_history_carry_the_rulesets_own_fields(
    toy_service: RatingService,
) -> None:
    preview = toy_service.preview_game("toy", body(None))
    submitted = toy_service.submit_game("toy", body("t-1"))
    retried = toy_service.submit_game("toy", body("t-1"))
    history = toy_service.get_history("toy", "ann")

    # ann gives 2 stones: E = 1 / (1 + 10^((1000 - 980) / 400)); +20 * 2 * (1 - E).
    expected = 1 / (1 + 10 ** (20 / 400))
    gain = round_half_away(40 * (1 - expected))
    result = submitted.result
    assert (submitted.created, retried.created, retried.result) == (True, False, result)
    assert result["ruleset"] == "margin"
    assert result["margin"] == 2
    assert [p["handicap"] for p in result["players"]] == [{"stones": 2}, {"stones": 0}]
    assert [p["delta"] for p in result["players"]] == [gain, -round_half_away(40 * (1 - expected))]
    assert result["players"][0]["explain"] == {"expected": round(expected, 4), "margin": 2}
    assert preview["preview"] is True
    assert preview["players"] == result["players"]
    assert [event["delta"] for event in history["events"]] == [gain]
    assert toy_service.get_player("toy", "ann")["rating"] == 1000 + gain


@pytest.mark.parametrize(
    ("fields", "field"),
    [
        ({"margin": 4}, "margin"),
        ({"cube": 2}, "cube"),
        ({"players": [{"id": "ann", "handicap": {"stones": 10}}, {"id": "ben"}]}, "players[0]"),
    ],
)
def test_the_rulesets_declarations_are_what_is_checked(
    toy_service: RatingService, fields: dict[str, Any], field: str
) -> None:
    with pytest.raises(InvalidInput) as refused:
        toy_service.submit_game("toy", body("t-bad", **fields))
    assert refused.value.field.startswith(field)


def test_replay_and_simulate_rate_the_toy_ruleset_as_the_service_does(
    toy_service: RatingService,
) -> None:
    stored = [
        toy_service.submit_game(
            "toy", body(f"t-{n}", played_at=(NOW - timedelta(hours=n)).isoformat())
        )
        for n in (3, 2, 1)
    ]
    replayer = Replayer("toy", Margin())
    replayed = [
        replayer.rate(GameLine(number, parse_utc_millis(s.result["played_at"]), s.result))
        for number, s in enumerate(stored, start=1)
    ]
    assert [r["players"] for r in replayed] == [s.result["players"] for s in stored]

    simulated = list(Simulator(Simulation(players=4, games=40), "toy", Margin()).games())
    assert len(simulated) == 40
    assert {record["margin"] for record in simulated} == {1, 3}  # its typical values
    assert all(record["ruleset"] == "margin" for record in simulated)
    assert all(p["handicap"] == {"stones": 0} for r in simulated for p in r["players"])
