"""The in-memory fake of the sanctions port, over the fake's tables (`ratings.storage.memory`):
its commits go through the same checked commit as the writes port's, so a refund and a game
of the victim conflict here exactly as they do on DynamoDB."""

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from ratings.rules.refunds import Window
from ratings.service.errors import AlreadyStored, WriteConflict
from ratings.service.player import Player
from ratings.service.ports import SanctionStore
from ratings.service.sanction_records import (
    GameAgainst,
    GamePosition,
    GamesPage,
    RefundDecision,
    RefundReads,
    Sanction,
    SanctionReads,
    opponents_undecided,
)
from ratings.service.stored import GAME_EVENT, PlayerEvent

if TYPE_CHECKING:
    from ratings.storage.memory import InMemoryStorage


class SanctionTables:
    """The fake's sanction records and decisions, by (ladder, sanction id)."""

    def __init__(self) -> None:
        self.sanctions: dict[tuple[str, str], Sanction] = {}
        self.decisions: dict[tuple[str, str], dict[str, RefundDecision]] = {}


class InMemorySanctions(SanctionStore):
    def __init__(self, tables: "InMemoryStorage") -> None:
        self._tables = tables
        self._own = tables.sanction_tables

    def read_for_sanction(self, ladder: str, sanction_id: str, player_id: str) -> SanctionReads:
        tables = self._tables
        with tables.lock:
            return SanctionReads(
                sanction=self._own.sanctions.get((ladder, sanction_id)),
                account_of=tables.links.get(player_id),
                anonymous_of=tables.absorbed.get(player_id),
                states=tables.writes.read_states(ladder, [player_id]),
            )

    def get_sanction(self, ladder: str, sanction_id: str) -> Sanction | None:
        with self._tables.lock:
            return self._own.sanctions.get((ladder, sanction_id))

    def decisions(self, ladder: str, sanction_id: str) -> Sequence[RefundDecision]:
        with self._tables.lock:
            decided = self._own.decisions.get((ladder, sanction_id), {})
            return [decided[game_id] for game_id in sorted(decided)]

    def games_against(
        self,
        ladder: str,
        player_id: str,
        window: Window,
        after: GamePosition | None,
        limit: int,
    ) -> GamesPage:
        with self._tables.lock:
            events = list(self._tables.events.get((ladder, player_id), []))
        games = sorted(
            (
                GameAgainst(event.ref_id, event.at)
                for event in events
                if event.kind == GAME_EVENT and event.ranked and event.at in window
            ),
            key=lambda game: (game.played_at, game.game_id),
        )
        if after is not None:
            games = [game for game in games if (game.played_at, game.game_id) > after]
        return GamesPage(games[:limit], more=len(games) > limit)

    def read_for_refunds(
        self, ladder: str, sanction_id: str, player_id: str, games: Sequence[GameAgainst]
    ) -> RefundReads:
        tables = self._tables
        with tables.lock:
            decided = self._own.decisions.get((ladder, sanction_id), {})
            found = {g.game_id: decided[g.game_id] for g in games if g.game_id in decided}
            stored = {
                g.game_id: tables.games[(ladder, g.game_id)]
                for g in games
                if (ladder, g.game_id) in tables.games
            }
            opponents = opponents_undecided(stored, found, player_id)
            return RefundReads(
                decided=found,
                games=stored,
                links={pid: tables.links[pid] for pid in opponents if pid in tables.links},
                states=tables.writes.read_states(ladder, opponents),
            )

    def commit_sanction(self, sanction: Sanction, player: Player) -> None:
        key = (sanction.ladder, sanction.sanction_id)
        sanctions = self._own.sanctions

        def create() -> Callable[[], None]:
            if key in sanctions:
                raise AlreadyStored(sanction.sanction_id)
            return lambda: sanctions.__setitem__(key, sanction)

        self._tables.writes.commit_checked([player], [], create)

    def commit_lift(self, sanction: Sanction, player: Player | None) -> None:
        key = (sanction.ladder, sanction.sanction_id)
        sanctions = self._own.sanctions

        def lift() -> Callable[[], None]:
            stored = sanctions.get(key)
            if stored is None or stored.lifted_at is not None:
                raise AlreadyStored(sanction.sanction_id)

            def apply() -> None:
                # Only lifted_at: a progress save meanwhile must not be undone.
                sanctions[key] = stored._replace(lifted_at=sanction.lifted_at)

            return apply

        self._tables.writes.commit_checked([] if player is None else [player], [], lift)

    def commit_refund(self, decision: RefundDecision, victim: Player, event: PlayerEvent) -> None:
        self._tables.writes.commit_checked([victim], [event], self._deciding(decision))

    def record_withheld(self, decision: RefundDecision) -> None:
        self._tables.writes.commit_checked([], [], self._deciding(decision))

    def save_progress(self, sanction: Sanction) -> None:
        key = (sanction.ladder, sanction.sanction_id)
        with self._tables.lock:
            stored = self._own.sanctions.get(key)
            if stored is None or stored.progress_version != sanction.progress_version - 1:
                raise WriteConflict(sanction.sanction_id)
            # Only the progress: a lift meanwhile must not be undone.
            self._own.sanctions[key] = stored._replace(
                status=sanction.status,
                completed_at=sanction.completed_at,
                progress=sanction.progress,
                progress_version=sanction.progress_version,
            )

    def _deciding(self, decision: RefundDecision) -> Callable[[], Callable[[], None]]:
        decided = self._own.decisions.setdefault((decision.ladder, decision.sanction_id), {})

        def check() -> Callable[[], None]:
            if decision.game_id in decided:
                raise AlreadyStored(decision.game_id)
            return lambda: decided.__setitem__(decision.game_id, decision)

        return check
