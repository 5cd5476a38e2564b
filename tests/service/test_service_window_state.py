"""gammon42's window counted from the state (`Player.recent`) gives what the history's Query
gives, whatever the order games arrive in (hypothesis).

Random runs of games (in time order and late, by up to the 14 days a game may be old, ranked
and not), links of anonymous ids to accounts, clock moves, TTL expiry, states made to look as
stored before the times were kept, reads of a player and previews. Two services go through the
same run: one as built; the other over a storage whose states keep no times before each step,
so that every window it counts is the Query of the history, as before the state kept them. Every
answer must be the same; and every ranked game's recent_ranked_games must be the Query's count
of the ids its player resolves to (today's `recent_ranked_games`, written out here).

Besides gammon42 as published (50 games), a ladder whose K switches at 3 recent games, so that
runs of a few dozen steps fill, trim and overflow the kept times again and again.
"""

import itertools
import random
from collections.abc import Callable, Mapping
from datetime import datetime, timedelta
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.games import MINUTE, NOW, FixedClock, game, ts

from ratings.rules import Gammon42, Ladder
from ratings.rules.ladders import DEFAULT_LADDERS
from ratings.service.errors import ServiceError
from ratings.service.facade import RatingService
from ratings.service.game_result import Submitted
from ratings.service.player import NO_GAMES, Player
from ratings.service.unit_of_work import Retrier
from ratings.storage.memory import InMemoryStorage, InMemoryUnitOfWork

LADDER = "backgammon"
ACCOUNTS = ["p0", "p1", "p2", "p3"]
DEVICES = ["d0", "d1"]
PLAYERS = ACCOUNTS + DEVICES
WINDOW = timedelta(days=7)
#: played_at at most 14 days old: a minute less, for the clock's own millisecond.
OLDEST = 14 * 24 * 60 - 1

ages = st.one_of(
    st.integers(0, 90),  # just played: in time order, or nearly
    st.integers(0, OLDEST),  # late, by up to the oldest a game may be
    st.sampled_from([7 * 24 * 60, 7 * 24 * 60 - 1, 7 * 24 * 60 + 1]),  # near a window's edge
)
player = st.integers(0, len(PLAYERS) - 1)
games = st.tuples(
    st.just("game"),
    player,
    player,
    ages,
    st.booleans(),
    st.sampled_from(["ranked", "ranked", "ranked", "boosted"]),
    st.sampled_from([1, 2, 4]),
)
steps = st.lists(
    st.one_of(
        games,
        games,
        games,
        st.tuples(st.just("advance"), st.sampled_from([1, 30, 60 * 10, 60 * 24, 60 * 24 * 3])),
        st.tuples(st.just("link"), st.integers(0, 1), st.integers(0, len(ACCOUNTS) - 1)),
        st.tuples(st.just("legacy"), player),
        st.tuples(st.just("read"), player),
        st.tuples(st.just("preview"), player, player, ages),
        st.tuples(st.just("expire")),
    ),
    min_size=10,
    max_size=80,
)


def ladders(heavy_volume_games: int) -> Mapping[str, Ladder]:
    return {
        **DEFAULT_LADDERS,
        LADDER: Ladder(LADDER, Gammon42(heavy_volume_games=heavy_volume_games)),
    }


def query_count(storage: InMemoryStorage, player_id: str, until: datetime, cap: int) -> int:
    """Today's count: the ids' history, the account's then the absorbed id's, up to `cap`."""
    resolved = storage.links.get(player_id, player_id)
    state = storage.states.get((LADDER, resolved))
    if state is None:
        return 0
    count = storage.unit_of_work().count_ranked_games(LADDER, resolved, until - WINDOW, until, cap)
    if state.absorbed_id is not None and count < cap:
        count += storage.unit_of_work().count_ranked_games(
            LADDER, state.absorbed_id, until - WINDOW, until, cap - count
        )
    return min(count, cap)


def outcome(action: Callable[[], Any]) -> Any:
    try:
        return action()
    except ServiceError as error:
        return type(error).__name__, str(error)


class CountingStorage(InMemoryStorage):
    """The fake, counting the Queries of the history its units of work send."""

    def __init__(self) -> None:
        super().__init__()
        self.queries = 0

    def unit_of_work(self, retrier: Retrier | None = None) -> InMemoryUnitOfWork:
        return CountingUnitOfWork(self, retrier)


class CountingUnitOfWork(InMemoryUnitOfWork):
    def __init__(self, storage: CountingStorage, retrier: Retrier | None) -> None:
        super().__init__(storage, retrier)
        self._storage = storage

    def count_ranked_games(
        self, ladder: str, player_id: str, since: datetime, until: datetime, limit: int
    ) -> int:
        self._storage.queries += 1
        return super().count_ranked_games(ladder, player_id, since, until, limit)


class Run:
    """The two services, the one as built and the one whose states keep no times."""

    def __init__(self, heavy_volume_games: int) -> None:
        self.cap = heavy_volume_games
        self.clock = FixedClock(NOW)
        self.built = CountingStorage()
        self.queried = InMemoryStorage()
        chosen = ladders(heavy_volume_games)
        self.services = [
            RatingService(
                storage,
                chosen,
                clock=self.clock,
                retrier=Retrier(sleep=lambda seconds: None, rng=random.Random(1205)),
            )
            for storage in (self.built, self.queried)
        ]
        self.ids = itertools.count()
        self.kept_times = 0  # states that had times to count from, over the run
        #: The windows of ranked games (the Queries the built service sent: `built.queries`).
        self.windows = 0

    def both(self, action: Callable[[RatingService], Any]) -> Any:
        states = self.queried.states
        for key, state in states.items():
            states[key] = state._replace(recent=None)
        self.kept_times += sum(
            1 for state in self.built.states.values() if state.recent not in (None, NO_GAMES)
        )
        built_service, queried_service = self.services
        built = outcome(lambda: action(built_service))
        queried = outcome(lambda: action(queried_service))
        assert built == queried
        return built

    def step(self, step: tuple[Any, ...]) -> None:
        kind, *args = step
        now = self.clock.now
        if kind == "game":
            first, second, age, first_wins, mode, cube = args
            a, b = PLAYERS[first], PLAYERS[second]
            if a == b:
                return
            played_at = now - age * MINUTE
            # The same games are stored on both sides: the oracle reads the other one's.
            expected = [query_count(self.queried, pid, played_at, self.cap) for pid in (a, b)]
            body = game(
                f"g-{next(self.ids)}",
                a,
                b,
                winner=a if first_wins else b,
                played_at=played_at,
                mode=mode,
                cube=cube,
            )
            submitted = self.both(lambda service: service.submit_game(LADDER, body))
            if not isinstance(submitted, Submitted):  # refused: one account after linking
                return
            result = submitted.result
            if result["ranked"]:
                counted = [entry["explain"]["recent_ranked_games"] for entry in result["players"]]
                assert counted == expected
                self.windows += 2
        elif kind == "advance":
            self.clock.advance(args[0] * MINUTE)
        elif kind == "link":
            device, account = DEVICES[args[0]], ACCOUNTS[args[1]]
            self.both(
                lambda service: service.link_identity(
                    {"anonymous_id": device, "account_id": account}
                )
            )
        elif kind == "legacy":  # as if stored before states kept the times
            for storage in (self.built, self.queried):
                key = (LADDER, PLAYERS[args[0]])
                if key in storage.states:
                    storage.states[key] = storage.states[key]._replace(recent=None)
        elif kind == "read":
            self.both(lambda service: service.get_player(LADDER, PLAYERS[args[0]]))
        elif kind == "preview":
            first, second, age = args
            body = {
                "players": [{"id": PLAYERS[first]}, {"id": PLAYERS[second]}],
                "winner": PLAYERS[first],
                "played_at": ts(now - age * MINUTE),
            }
            self.both(lambda service: service.preview_game(LADDER, body))
        else:
            for storage in (self.built, self.queried):
                storage.expire(now)


@pytest.mark.parametrize("heavy_volume_games", [3, 50])
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(run=steps)
def test_the_state_counts_what_the_history_query_counts(
    heavy_volume_games: int, run: list[tuple[Any, ...]]
) -> None:
    each = Run(heavy_volume_games)
    for step in run:
        each.step(step)


def test_a_long_run_in_and_out_of_order_counts_alike() -> None:
    """One fixed long run (the random ones are short): 400 games of two players, a third of
    them late, with the published cap of 50."""
    rng = random.Random(20261205)
    each = Run(50)
    for index in range(400):
        age = rng.randrange(0, OLDEST) if index % 3 == 0 else rng.randrange(0, 5)
        each.step(
            ("game", rng.randrange(2), rng.randrange(2, 4), age, rng.random() < 0.5, "ranked", 1)
        )
        if index % 7 == 0:
            each.step(("advance", rng.choice([1, 30, 600])))
    assert each.kept_times > 0
    # Most windows came from the states; the late games behind 50 newer ones, from the history.
    assert 0 < each.built.queries < each.windows / 4


def test_the_built_service_keeps_the_times_it_counts_from() -> None:
    """The comparison above is not between two Query counts: the built states keep times."""
    each = Run(3)
    for index in range(6):
        each.step(("game", 0, 1, 60 - index, True, "ranked", 1))
    state = each.built.states[(LADDER, "p0")]
    assert isinstance(state, Player)
    assert state.recent is not None
    assert len(state.recent.times) == 3
    assert each.built.queries == 0
    # The other side's state, stripped before each game, starts again after each: complete
    # only from a floor later than any game it has.
    queried = each.queried.states[(LADDER, "p0")].recent
    assert queried is not None
    assert queried.floor is not None
    assert queried.floor > max(queried.times)
