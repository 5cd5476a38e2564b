"""A player's state: what rating, awarding and linking make of it, and what it commits over."""

from datetime import UTC, datetime, timedelta

from ratings.rules import Gammon42, Sedma
from ratings.service.player import Player, RecentGames, kept_for, millis
from ratings.storage.dynamodb.layout import pack_recent, unpack_recent

STORED = Player("backgammon", "alice", 1532, ranked_games=7, version=3, absorbed_id="anon-1")


def test_a_rated_player_moves_one_version_on_with_one_more_ranked_game() -> None:
    after = STORED.rated(1548)

    assert after == STORED._replace(rating=1548, ranked_games=8, version=4, sequence=1)
    assert after.replaces_version == STORED.version


def test_an_award_changes_the_rating_only() -> None:
    assert STORED.awarded(25) == STORED._replace(rating=1557, version=4, sequence=1)


def test_a_linked_anonymous_id_keeps_its_state_but_leaves_the_board() -> None:
    anonymous = Player("backgammon", "anon-2", 1490, ranked_games=2, version=5)

    unlisted = anonymous.unlisted()

    assert anonymous.on_the_board
    assert not unlisted.on_the_board
    assert unlisted == anonymous._replace(listed=False, version=6)
    assert unlisted.sequence == anonymous.sequence  # no rating moved: no event to count


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


# The played_at times a state keeps for the recent-games window ----------------------------


def _at(minutes: int) -> datetime:
    return datetime(2026, 11, 29, 12, 0, tzinfo=UTC) + timedelta(minutes=minutes)


def _kept(*minutes: int, floor: int | None = None) -> RecentGames:
    return RecentGames(
        tuple(millis(_at(m)) for m in minutes), None if floor is None else millis(_at(floor))
    )


def test_a_window_is_counted_from_the_times_when_they_hold_all_of_it() -> None:
    kept = _kept(0, 10, 20, 30, floor=-5)

    assert kept.in_window(_at(-5), _at(30), 50) == 3  # since at the floor: exact, until excluded
    assert kept.in_window(_at(10), _at(31), 50) == 3
    assert kept.in_window(_at(-6), _at(31), 50) is None  # starts before the floor
    assert kept.in_window(_at(-6), _at(31), 4) == 4  # ... but the cap is reached anyway
    assert RecentGames().in_window(_at(-10_000), _at(0), 50) == 0  # never a game


def test_trimming_keeps_the_newest_and_raises_the_floor_past_what_it_drops() -> None:
    kept = _kept(0, 10, 20)

    added = kept.adding(_at(5), 3, _at(-1000))

    assert added == _kept(5, 10, 20, floor=0)._replace(floor=millis(_at(0)) + 1)
    # Times before the horizon go whatever the room.
    assert kept.adding(_at(30), 10, _at(15)) == RecentGames(
        (millis(_at(20)), millis(_at(30))), millis(_at(10)) + 1
    )


def test_a_new_ranked_game_is_kept_as_far_as_the_ruleset_counts() -> None:
    now = _at(0)
    player = Player("backgammon", "alice", 1500, ranked_games=1, version=1)
    ruleset = Gammon42()

    after = player.with_recent_game(_at(-3), now, ruleset)

    assert after.recent == _kept(-3)
    assert after.recent_ranked_games(_at(-3), _at(-2), 50) == 1
    # A ruleset that never looks at the window keeps nothing: the history tells.
    assert player.with_recent_game(_at(-3), now, Sedma()).recent is None
    # A state that kept nothing (stored before) starts complete only from past any game
    # accepted until now.
    legacy = player._replace(recent=None)
    assert legacy.recent_ranked_games(_at(-100), _at(0), 50) is None
    started = legacy.with_recent_game(_at(-3), now, ruleset).recent
    assert started is not None
    assert started.times == (millis(_at(-3)),)
    assert started.floor is not None
    assert started.floor > millis(now + timedelta(minutes=5))
    # ... unless it never had a ranked game.
    fresh = Player("backgammon", "bob", 1500, version=2, recent=None)
    assert fresh.recent_ranked_games(_at(-100), _at(0), 50) == 0


def test_kept_times_for_gammon42_are_62_newest() -> None:
    player = Player("backgammon", "alice", 1500, ranked_games=1, version=1)
    for minute in range(100):
        player = player.with_recent_game(_at(minute), _at(100), Gammon42())
    assert player.recent is not None
    assert len(player.recent.times) == kept_for(50) == 62
    assert player.recent.floor == millis(_at(37)) + 1


def test_an_account_absorbing_takes_the_anonymous_ids_times() -> None:
    anonymous = Player("backgammon", "anon-3", 1480, 2, version=2, recent=_kept(1, 2))
    account = Player("backgammon", "acct-3", 1500, version=1, recent=None)  # kept none, no games

    assert account.absorbing(anonymous).recent == _kept(1, 2)
    assert account._replace(ranked_games=1).absorbing(anonymous).recent is None
    both = _kept(0, 5, floor=-1).merged(_kept(1, 2, 3, floor=-3))
    assert both == RecentGames(_kept(2, 3, 5).times, millis(_at(1)) + 1)


def test_the_times_pack_into_a_few_bytes_and_back() -> None:
    samples = [
        RecentGames(),
        _kept(floor=10),
        _kept(0),
        _kept(*range(62), floor=-3),
        _kept(0, 60 * 24 * 60, floor=None),  # 60 days apart: beyond 4-byte offsets
    ]
    for recent in samples:
        packed = pack_recent(recent)
        assert unpack_recent(packed) == recent
    assert len(pack_recent(_kept(*range(62)))) == 13 + 4 * 61
    assert unpack_recent(b"\x09junk") is None  # a format this code does not know
