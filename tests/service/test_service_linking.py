"""Linking an anonymous id to an account (rules.md, "Anonymous players and linking")."""

from datetime import timedelta
from typing import Any

import pytest
from support.games import DAY, NOW, game, minutes_before, play_series

from ratings.rules import InvalidInput
from ratings.service.errors import AlreadyLinked
from ratings.service.facade import RatingService
from ratings.storage.memory import InMemoryStorage

ANON = "dev-7f3a"
ACCOUNT = "acct-42"


def link(
    service: RatingService, anonymous_id: str = ANON, account_id: str = ACCOUNT
) -> dict[str, Any]:
    return service.link_identity({"anonymous_id": anonymous_id, "account_id": account_id})


def kept(answer: dict[str, Any]) -> dict[str, str]:
    return {entry["ladder"]: entry["kept"] for entry in answer["ladders"]}


def test_account_without_ranked_games_takes_the_anonymous_state(
    service: RatingService,
) -> None:
    service.submit_game("backgammon", game("g-1", ANON, "bob"))
    service.submit_game("backgammon", game("g-2", ANON, "carol"))
    anonymous = service.get_player("backgammon", ANON)

    answer = link(service)

    assert answer["anonymous_id"] == ANON
    assert answer["account_id"] == ACCOUNT
    assert kept(answer) == {
        "backgammon": "anonymous",
        "sedma": "account",
        "classic": "account",
        "sedma-pairs": "account",
        "classic-ffa": "account",
    }
    account = service.get_player("backgammon", ACCOUNT)
    assert account["player_id"] == ACCOUNT
    assert account["rating"] == anonymous["rating"] == 1532
    assert account["ranked_games"] == 2
    # Linking never adds two histories together: the account's own history stays empty.
    assert service.get_history("backgammon", ACCOUNT)["events"] == []


def test_account_with_ranked_games_keeps_its_own_and_anonymous_is_left_as_is(
    service: RatingService, storage: InMemoryStorage
) -> None:
    service.submit_game("backgammon", game("g-1", ACCOUNT, "bob"))  # account 1516
    service.submit_game("backgammon", game("g-2", "carol", ANON))  # anonymous 1484
    anonymous_before = storage.states[("backgammon", ANON)]

    answer = link(service)

    assert kept(answer)["backgammon"] == "account"
    account = service.get_player("backgammon", ACCOUNT)
    assert account["rating"] == 1516
    assert account["ranked_games"] == 1
    # Left as it was: same rating and counters (only unlisted, the id now resolves away).
    anonymous_after = storage.states[("backgammon", ANON)]
    assert (anonymous_after.rating, anonymous_after.ranked_games) == (
        anonymous_before.rating,
        anonymous_before.ranked_games,
    )
    assert not anonymous_after.listed


def test_each_ladder_is_decided_on_its_own(service: RatingService) -> None:
    service.submit_game("backgammon", game("g-1", ANON, "bob"))  # anonymous only
    service.submit_game("sedma", game("s-1", ACCOUNT, "bob"))  # account only
    service.submit_game("classic", game("c-1", ANON, "bob"))  # both
    service.submit_game("classic", game("c-2", "carol", ACCOUNT))

    answer = link(service)

    assert kept(answer) == {
        "backgammon": "anonymous",
        "sedma": "account",
        "classic": "account",
        "sedma-pairs": "account",
        "classic-ffa": "account",
    }
    assert service.get_player("backgammon", ACCOUNT)["rating"] == 1516
    assert service.get_player("sedma", ACCOUNT)["rating"] == 1020
    assert service.get_player("classic", ACCOUNT)["rating"] == 1184


def test_unranked_games_of_the_account_do_not_stop_the_takeover(
    service: RatingService,
) -> None:
    service.submit_game("backgammon", game("g-1", ACCOUNT, "bob", mode="boosted"))
    service.submit_game("backgammon", game("g-2", ANON, "bob"))

    assert kept(link(service))["backgammon"] == "anonymous"
    assert service.get_player("backgammon", ACCOUNT)["rating"] == 1516


def test_an_anonymous_id_links_once_and_an_account_absorbs_once(
    service: RatingService, storage: InMemoryStorage
) -> None:
    link(service)
    commits = storage.commits

    cases = [
        (ANON, "acct-other"),  # the anonymous id is already linked
        ("dev-other", ACCOUNT),  # the account already absorbed one
        ("dev-other", ANON),  # the "account" is a linked anonymous id
        (ACCOUNT, "acct-other"),  # the "anonymous id" is an account that absorbed one
    ]
    for anonymous_id, account_id in cases:
        with pytest.raises(AlreadyLinked) as raised:
            link(service, anonymous_id, account_id)
        assert raised.value.code == "already_linked"
    assert storage.commits == commits
    assert storage.links == {ANON: ACCOUNT}


@pytest.mark.parametrize("played_before_linking", [True, False])
def test_the_same_link_again_answers_as_the_first_time_and_changes_nothing(
    service: RatingService, storage: InMemoryStorage, played_before_linking: bool
) -> None:
    if played_before_linking:
        service.submit_game("backgammon", game("g-1", ANON, "bob"))
    first = link(service)
    commits = storage.commits

    again = link(service)

    assert again == first
    assert kept(again)["backgammon"] == ("anonymous" if played_before_linking else "account")
    assert storage.commits == commits


def test_linking_an_id_to_itself_is_invalid(
    service: RatingService, storage: InMemoryStorage
) -> None:
    with pytest.raises(InvalidInput) as raised:
        link(service, ACCOUNT, ACCOUNT)
    assert raised.value.field == "account_id"
    assert storage.commits == 0
    assert storage.links == {}


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"anonymous_id": "bad id", "account_id": ACCOUNT}, "anonymous_id"),
        ({"account_id": ACCOUNT}, "anonymous_id"),
        ({"anonymous_id": ANON, "account_id": ""}, "account_id"),
        ({"anonymous_id": ANON, "account_id": ACCOUNT, "extra": 1}, "extra"),
        ([ANON, ACCOUNT], "body"),
    ],
)
def test_link_bodies_are_checked(
    service: RatingService, storage: InMemoryStorage, body: object, field: str
) -> None:
    with pytest.raises(InvalidInput) as raised:
        service.link_identity(body)
    assert raised.value.field == field
    assert storage.commits == 0


def test_games_for_a_linked_anonymous_id_rate_the_account(
    service: RatingService, storage: InMemoryStorage
) -> None:
    service.submit_game("backgammon", game("g-1", ACCOUNT, "bob"))  # account 1516, keeps own
    service.submit_game("backgammon", game("g-2", "carol", ANON))  # anonymous 1484
    link(service)
    anonymous_before = storage.states[("backgammon", ANON)]

    done = service.submit_game("backgammon", game("g-3", "dave", ANON, winner=ANON))

    dave, me = done.result["players"]
    assert me["id"] == ACCOUNT
    assert me["submitted_id"] == ANON
    assert "submitted_id" not in dave
    assert done.result["winner"] == ACCOUNT
    assert me["rating_before"] == 1516
    assert me["rating_after"] == service.get_player("backgammon", ACCOUNT)["rating"]
    assert service.get_player("backgammon", ACCOUNT)["ranked_games"] == 2
    assert storage.states[("backgammon", ANON)] == anonymous_before
    # The game is in the account's history, with the account as the opponent of dave.
    assert [e["game_id"] for e in service.get_history("backgammon", ACCOUNT)["events"]] == [
        "g-3",
        "g-1",
    ]
    assert service.get_history("backgammon", "dave")["events"][0]["opponent"] == ACCOUNT
    # A retry of the same submission is recognised as such.
    again = service.submit_game("backgammon", game("g-3", "dave", ANON, winner=ANON))
    assert again.created is False
    assert again.result == done.result


def test_a_linked_anonymous_id_answers_with_the_account(service: RatingService) -> None:
    service.submit_game("backgammon", game("g-1", ACCOUNT, "bob"))
    service.submit_game("backgammon", game("g-2", "carol", ANON))
    link(service)

    player = service.get_player("backgammon", ANON)

    assert player == service.get_player("backgammon", ACCOUNT)
    assert player["player_id"] == ACCOUNT
    assert player["rating"] == 1516
    history = service.get_history("backgammon", ANON)
    assert history["player_id"] == ACCOUNT
    assert [e["game_id"] for e in history["events"]] == ["g-1"]


def test_a_game_between_an_anonymous_id_and_its_account_is_invalid(
    service: RatingService, storage: InMemoryStorage
) -> None:
    link(service)
    commits = storage.commits

    for body in (game("g-self", ANON, ACCOUNT), game("g-self", ACCOUNT, ANON)):
        with pytest.raises(InvalidInput) as raised:
            service.submit_game("backgammon", body)
        assert raised.value.field == "players[1].id"
        with pytest.raises(InvalidInput):
            service.preview_game("backgammon", {k: v for k, v in body.items() if k != "game_id"})
    assert storage.commits == commits
    assert storage.games == {}


def test_absorbed_recent_games_keep_counting_in_the_accounts_window(
    service: RatingService,
) -> None:
    t = NOW - DAY
    play_series(service, ANON, minutes_before(t, 50))
    assert kept(link(service))["backgammon"] == "anonymous"

    player = service.get_player("backgammon", ACCOUNT)
    assert player["recent_ranked_games"] == 50
    assert player["k"] == 16
    # Under either id, the next game is rated with the absorbed week.
    via_account = service.submit_game(
        "backgammon", game("g-acct", ACCOUNT, "rookie-1", played_at=t)
    ).result["players"][0]
    via_anonymous = service.submit_game(
        "backgammon", game("g-anon", ANON, "rookie-2", played_at=t)
    ).result["players"][0]
    for side in (via_account, via_anonymous):
        assert side["id"] == ACCOUNT
        assert side["explain"]["recent_ranked_games"] == 50
        assert side["explain"]["k"] == 16


def test_absorbed_and_own_games_add_up_in_the_window(service: RatingService) -> None:
    t = NOW - DAY
    play_series(service, ANON, minutes_before(t, 30), prefix="anon")
    link(service)
    # After linking, 19 more games in the same week as the account itself.
    play_series(service, ACCOUNT, minutes_before(t, 19, start=timedelta(hours=3)), prefix="acct")

    side = service.submit_game("backgammon", game("g-49", ACCOUNT, "rookie", played_at=t)).result[
        "players"
    ][0]
    assert side["explain"]["recent_ranked_games"] == 49
    assert side["explain"]["k"] == 32

    side = service.submit_game(
        "backgammon", game("g-50", ACCOUNT, "rookie-2", played_at=t + timedelta(minutes=1))
    ).result["players"][0]
    assert side["explain"]["recent_ranked_games"] == 50
    assert side["explain"]["k"] == 16


def test_link_retries_when_the_account_plays_meanwhile(
    service: RatingService, storage: InMemoryStorage
) -> None:
    service.submit_game("backgammon", game("g-1", ANON, "bob"))  # anonymous 1516

    # The account plays its first ranked game between the link's reads and its commit.
    def account_plays() -> None:
        service.submit_game("backgammon", game("g-2", "carol", ACCOUNT))

    storage.before_commit = account_plays

    answer = link(service)

    assert service.retries >= 1
    assert kept(answer)["backgammon"] == "account"
    assert service.get_player("backgammon", ACCOUNT)["rating"] == 1484
    assert storage.links == {ANON: ACCOUNT}


def test_a_game_of_the_anonymous_id_racing_the_link_is_not_lost(
    service: RatingService, storage: InMemoryStorage
) -> None:
    service.submit_game("backgammon", game("g-1", ANON, "bob"))  # anonymous 1516

    def anonymous_plays() -> None:
        service.submit_game("backgammon", game("g-2", ANON, "carol"))

    storage.before_commit = anonymous_plays

    assert kept(link(service))["backgammon"] == "anonymous"

    # Either serial order gives the account the anonymous state after both games.
    anonymous_after_both = storage.states[("backgammon", ANON)]
    assert anonymous_after_both.ranked_games == 2
    account = service.get_player("backgammon", ACCOUNT)
    assert account["ranked_games"] == 2
    assert account["rating"] == anonymous_after_both.rating


def test_a_link_racing_a_game_of_the_anonymous_id_does_not_strand_the_game(
    service: RatingService, storage: InMemoryStorage
) -> None:
    service.submit_game("backgammon", game("g-1", ANON, "bob"))  # anonymous 1516

    def link_meanwhile() -> None:
        link(service)

    storage.before_commit = link_meanwhile

    done = service.submit_game("backgammon", game("g-2", ANON, "carol"))

    # Whichever happened first, the account ends with both games' outcome.
    account = service.get_player("backgammon", ACCOUNT)
    assert account["ranked_games"] == 2
    assert account["rating"] == done.result["players"][0]["rating_after"]
    assert done.result["players"][0]["id"] == ACCOUNT


def test_leaderboard_lists_a_linked_player_once_under_the_account(
    service: RatingService,
) -> None:
    service.submit_game("backgammon", game("g-1", ANON, "bob"))
    link(service)

    ids = [entry["player_id"] for entry in service.get_leaderboard("backgammon")["entries"]]

    assert ids.count(ACCOUNT) == 1
    assert ANON not in ids
    assert ids == [ACCOUNT, "bob"]
