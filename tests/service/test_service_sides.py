"""Games sent as sides, on the in-memory fake. The default ladders rate one against one, so a
game there may come as two sides of one player: it rates exactly as the same game sent as
players and winner, and its answer and history name the sides. A body outside the ladder's
shape is refused, naming the field."""

from typing import Any

import pytest
from support.games import game

from ratings.rules import InvalidInput
from ratings.service.facade import RatingService
from ratings.storage.memory import InMemoryStorage


def as_sides(body: dict[str, Any], **extra: Any) -> dict[str, Any]:
    """`body` (players and winner) sent as two sides of one player."""
    first, second = body["players"]
    winner = body["winner"]
    places = (1, 1) if winner is None else (1, 2) if winner == first["id"] else (2, 1)
    sides_body = {key: value for key, value in body.items() if key not in ("players", "winner")}
    sides_body["sides"] = [
        {"players": [first], "place": places[0]},
        {"players": [second], "place": places[1]},
    ]
    return {**sides_body, **extra}


@pytest.mark.parametrize(
    ("ladder", "winner"),
    [("backgammon", "alice"), ("sedma", "bob"), ("classic", None), ("classic", "alice")],
)
def test_two_sides_of_one_player_rate_as_players_and_winner(
    service: RatingService, ladder: str, winner: str | None
) -> None:
    body = game("g-1", "alice", "bob", winner=winner)
    if ladder == "sedma":
        body["players"][0]["stats"] = {"bad_moves": 3, "rounds_won_16": 2}
    twin = {**as_sides(body), "game_id": "g-2"}

    plain = service.submit_game(ladder, body).result
    preview = {key: value for key, value in as_sides(body).items() if key != "game_id"}
    service_again = service.preview_game(ladder, preview)
    sided = (
        RatingService(InMemoryStorage(), service.context.ladders, clock=service.context.clock)
        .submit_game(ladder, twin)
        .result
    )

    assert [p["rating_after"] for p in sided["players"]] == [
        p["rating_after"] for p in plain["players"]
    ]
    assert [p["explain"] for p in sided["players"]] == [p["explain"] for p in plain["players"]]
    assert sided["winner"] == plain["winner"]
    assert sided["sides"] == [
        {"place": twin["sides"][0]["place"], "players": ["alice"]},
        {"place": twin["sides"][1]["place"], "players": ["bob"]},
    ]
    assert [p["side"] for p in sided["players"]] == [0, 1]
    assert "sides" not in plain
    assert "side" not in plain["players"][0]
    assert service_again["preview"] is True


def test_the_history_of_a_game_sent_as_sides_names_teammates_and_opponents(
    service: RatingService,
) -> None:
    service.submit_game("classic", as_sides(game("g-1", "alice", "bob")))

    (event,) = service.get_history("classic", "alice")["events"]
    (plain,) = (
        service.submit_game("classic", game("g-2", "carol", "dave"))
        and service.get_history("classic", "carol")["events"]
    )

    assert (event["opponent"], event["teammates"], event["opponents"]) == ("bob", [], ["bob"])
    assert plain["opponent"] == "dave"
    assert "teammates" not in plain


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        (
            lambda b: b["sides"].append({"players": [{"id": "carol"}], "place": 3}),
            "sides",
            "sides must be exactly 2 sides in this ladder",
        ),
        (
            lambda b: b["sides"][0]["players"].append({"id": "carol"}),
            "sides[0].players",
            "sides[0].players must be exactly 1 player a side",
        ),
        (
            lambda b: b["sides"][1]["players"][0].update(id="alice"),
            "sides[1].players[0].id",
            "sides[1].players[0].id 'alice' is already sides[0].players[0].id",
        ),
        (lambda b: b["sides"][1].update(place=3), "sides[1].place", "sides[1].place must be"),
        (lambda b: b["sides"][0].update(place=2), "sides", "sides must have a side at place 1"),
        (lambda b: b["sides"][1].update(players=[]), "sides[1].players", "sides[1].players"),
        (lambda b: b.update(winner="alice"), "winner", "winner is not a field of a game sent"),
    ],
)
def test_a_body_outside_the_ladders_shape_is_refused_naming_the_field(
    service: RatingService, storage: InMemoryStorage, change: Any, field: str, message: str
) -> None:
    body = as_sides(game("g-1", "alice", "bob"))
    change(body)

    with pytest.raises(InvalidInput) as refused:
        service.submit_game("classic", body)

    assert refused.value.field == field
    assert str(refused.value).startswith(message), str(refused.value)
    assert storage.commits == 0


def test_a_tie_where_the_ruleset_has_no_draws_is_refused(service: RatingService) -> None:
    body = as_sides(game("g-1", "alice", "bob"))
    body["sides"][1]["place"] = 1

    with pytest.raises(InvalidInput) as refused:
        service.submit_game("backgammon", body)

    assert refused.value.field == "sides[1].place"
    assert "gammon42 has no draws" in str(refused.value)
    assert service.submit_game("classic", body).result["winner"] is None  # classic: a draw


def test_erasure_renames_the_erased_id_in_the_sides_of_a_game(
    service: RatingService, storage: InMemoryStorage, job_queue: Any
) -> None:
    from support.erasure import erase, mentions

    service.submit_game("classic", as_sides(game("g-1", "alice", "bob")))

    assert erase(service, job_queue, "alice")["status"] == "done"

    stored = service.get_game("classic", "g-1")
    (pseudonym,) = stored["sides"][0]["players"]
    assert pseudonym.startswith("erased-")
    assert stored["players"][0]["id"] == pseudonym
    (event,) = service.get_history("classic", "bob")["events"]
    assert event["opponents"] == [pseudonym]
    assert event["opponent"] == pseudonym
    assert mentions(storage, "alice") == []
