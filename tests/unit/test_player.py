"""A player's state: what rating, awarding and linking make of it, and what it commits over."""

from ratings.service.player import Player

STORED = Player("backgammon", "alice", 1532, ranked_games=7, version=3, absorbed_id="anon-1")


def test_a_rated_player_moves_one_version_on_with_one_more_ranked_game() -> None:
    after = STORED.rated(1548)

    assert after == STORED._replace(rating=1548, ranked_games=8, version=4)
    assert after.replaces_version == STORED.version


def test_an_award_changes_the_rating_only() -> None:
    assert STORED.awarded(25) == STORED._replace(rating=1557, version=4)


def test_a_linked_anonymous_id_keeps_its_state_but_leaves_the_board() -> None:
    anonymous = Player("backgammon", "anon-2", 1490, ranked_games=2, version=5)

    unlisted = anonymous.unlisted()

    assert anonymous.on_the_board
    assert not unlisted.on_the_board
    assert unlisted == anonymous._replace(listed=False, version=6)


def test_an_account_absorbing_an_anonymous_id_takes_its_rating_and_games() -> None:
    account = Player("backgammon", "acct-2", 1500)  # never stored
    anonymous = Player("backgammon", "anon-2", 1490, ranked_games=2, version=5)

    absorbed = account.absorbing(anonymous)

    assert absorbed == Player("backgammon", "acct-2", 1490, 2, version=1, absorbed_id="anon-2")
    assert absorbed.replaces_version == 0  # committed only if no state is stored yet
    assert not account.stored
    assert absorbed.stored


def test_a_preview_supposes_other_counters_without_moving_the_version() -> None:
    supposed = STORED.supposing({"rating": 1800, "recent_ranked_games": 4})

    assert supposed == STORED._replace(rating=1800)
    assert supposed.before_game(4).recent_ranked_games == 4
