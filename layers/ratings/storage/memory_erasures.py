"""The in-memory fake of the erasure port, over the tables of `ratings.storage.memory`.

Like the DynamoDB adapter it checks every condition of a write before changing anything, and
like DynamoDB it refuses a write of more than 100 items (one transaction's limit).
"""

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from ratings.service.errors import AlreadyLinked, AlreadyStored, WriteConflict
from ratings.service.game_result import GAME_EVENT
from ratings.service.player import FrozenStanding, Player
from ratings.service.ports import ErasureStore
from ratings.service.sanction_records import SANCTION_POINTER
from ratings.service.stored import (
    AWARD_POINTER,
    FROZEN_STANDING,
    ErasedIdentity,
    EventKey,
    Job,
    Link,
    PlayerEvent,
    PlayerItem,
    Pseudonymized,
    References,
    StoredGame,
    StoredTournament,
)

if TYPE_CHECKING:
    from ratings.storage.memory import InMemoryStorage

#: DynamoDB's limit of items in one transaction, which the fake holds a page's write to.
TRANSACTION_ITEMS = 100


class InMemoryErasures(ErasureStore):
    def __init__(self, tables: "InMemoryStorage") -> None:
        self._tables = tables

    def holds_player(self, player_id: str, ladders: Sequence[str]) -> bool:
        tables = self._tables
        with tables.lock:
            if player_id in tables.links or player_id in tables.absorbed:
                return True
            return any(
                (ladder, player_id) in tables.states
                or tables.events.get((ladder, player_id))
                or tables.awards.get((ladder, player_id))
                or any(key[:2] == (ladder, player_id) for key in tables.frozen)
                for ladder in ladders
            )

    def request_erasure(self, job: Job, player_id: str) -> None:
        tables = self._tables
        with tables.lock:
            if player_id in tables.links:
                raise AlreadyLinked(player_id)
            stored = tables.job_records.get((job.kind, job.job_id))
            if job.progress_version == 1:
                if stored is not None:
                    raise AlreadyStored(job.job_id)
            elif stored is None or stored.progress_version != job.progress_version - 1:
                raise WriteConflict(job.job_id)
            tables.job_records[(job.kind, job.job_id)] = job

    def read_identity(self, player_id: str, ladders: Sequence[str]) -> ErasedIdentity:
        tables = self._tables
        with tables.lock:
            absorbed = tables.absorbed.get(player_id)
            ids = [player_id] if absorbed is None else [player_id, absorbed]
            states = {
                (ladder, pid): tables.states[(ladder, pid)]
                for ladder in ladders
                for pid in ids
                if (ladder, pid) in tables.states
            }
            return ErasedIdentity(absorbed, tables.links.get(player_id), states)

    def mark(self, players: Sequence[Player]) -> None:
        tables = self._tables
        with tables.lock:
            for player in players:
                current = tables.states.get((player.ladder, player.player_id))
                if (current.version if current else 0) != player.replaces_version:
                    raise WriteConflict(player.player_id)
            for player in players:
                tables.states[(player.ladder, player.player_id)] = player

    def player_items(self, ladder: str, player_id: str, limit: int) -> Sequence[PlayerItem]:
        tables = self._tables
        with tables.lock:
            events = sorted(
                tables.events.get((ladder, player_id), []),
                key=lambda event: (event.at, event.event_type, event.ref_id),
            )
            items = [
                PlayerItem(
                    ladder, player_id, AWARD_POINTER, tournament_id, f"award:{tournament_id}"
                )
                for tournament_id in sorted(tables.awards.get((ladder, player_id), ()))
            ]
            items += [
                PlayerItem(ladder, player_id, SANCTION_POINTER, sid, f"sanction:{sid}")
                for sid in sorted(tables.sanction_tables.pointers.get((ladder, player_id), ()))
            ]
            items += [
                PlayerItem(
                    ladder,
                    player_id,
                    FROZEN_STANDING,
                    season_id,
                    f"standing:{season_id}",
                    standing=standing,
                )
                for (of_ladder, pid, season_id), standing in sorted(tables.frozen.items())
                if (of_ladder, pid) == (ladder, player_id)
            ]
            items += [
                PlayerItem(
                    ladder, player_id, event.event_type, event.ref_id, _event_key(event), event
                )
                for event in events
            ]
            return items[:limit]

    def read_references(
        self,
        ladder: str,
        game_ids: Sequence[str],
        tournament_ids: Sequence[str],
        events: Sequence[EventKey],
    ) -> References:
        tables = self._tables
        with tables.lock:
            games = {
                gid: tables.games[(ladder, gid)]
                for gid in game_ids
                if (ladder, gid) in tables.games
            }
            tournaments = {
                tid: tables.tournaments[(ladder, tid)]
                for tid in tournament_ids
                if (ladder, tid) in tables.tournaments
            }
            found: dict[EventKey, PlayerEvent] = {}
            for key in events:
                for event in tables.events.get((ladder, key.player_id), []):
                    if (event.at, event.ref_id) == (
                        key.at,
                        key.game_id,
                    ) and event.event_type == GAME_EVENT:
                        found[key] = event
            return References(games, tournaments, found)

    def pseudonymize(self, ladder: str, rewrite: Pseudonymized) -> None:
        size = sum(map(len, rewrite))
        if size > TRANSACTION_ITEMS:
            raise ValueError(f"a write of {size} items: a transaction holds at most 100")
        tables = self._tables
        with tables.lock:
            for game in rewrite.games:
                stored: StoredGame | None = tables.games.get((ladder, game.game_id))
                if stored is None or (stored.revision, stored.fingerprint) != (
                    game.revision,
                    game.fingerprint,
                ):
                    raise WriteConflict(game.game_id)
            for tournament in rewrite.tournaments:
                held: StoredTournament | None = tables.tournaments.get(
                    (ladder, tournament.tournament_id)
                )
                if held is None or held.revision != tournament.revision:
                    raise WriteConflict(tournament.tournament_id)
            for event in rewrite.events:
                if not any(
                    _event_key(held_event) == _event_key(event)
                    for held_event in tables.events.get((ladder, event.player_id), [])
                ):
                    raise WriteConflict(event.player_id)
            for item in rewrite.deleted:
                if item.kind == FROZEN_STANDING and item.standing is not None:
                    held_standing = tables.frozen.get(_frozen_key(item.standing))
                    if held_standing is None or held_standing.hidden != item.standing.hidden:
                        raise WriteConflict(item.player_id)  # hidden or shown meanwhile
            for game in rewrite.games:
                tables.games[(ladder, game.game_id)] = game._replace(revision=game.revision + 1)
            for tournament in rewrite.tournaments:
                tables.tournaments[(ladder, tournament.tournament_id)] = tournament._replace(
                    revision=tournament.revision + 1
                )
            for event in rewrite.events:
                held_events = tables.events[(ladder, event.player_id)]
                held_events[:] = [
                    event if _event_key(held_event) == _event_key(event) else held_event
                    for held_event in held_events
                ]
            for standing in rewrite.standings:
                tables.frozen[_frozen_key(standing)] = standing
            for item in rewrite.deleted:
                if item.kind == AWARD_POINTER:
                    tables.awards.get((ladder, item.player_id), set()).discard(item.ref_id)
                elif item.kind == SANCTION_POINTER:
                    pointers = tables.sanction_tables.pointers
                    pointers.get((ladder, item.player_id), set()).discard(item.ref_id)
                elif item.kind == FROZEN_STANDING:
                    tables.frozen.pop((ladder, item.player_id, item.ref_id), None)
                else:
                    held_events = tables.events.get((ladder, item.player_id), [])
                    held_events[:] = [e for e in held_events if _event_key(e) != item.key]

    def unlink(self, links: Sequence[Link]) -> None:
        tables = self._tables
        with tables.lock:
            for link in links:
                if tables.links.get(link.anonymous_id) == link.account_id:
                    del tables.links[link.anonymous_id]
                if tables.absorbed.get(link.account_id) == link.anonymous_id:
                    del tables.absorbed[link.account_id]

    def read_states(self, keys: Sequence[tuple[str, str]]) -> Mapping[tuple[str, str], Player]:
        tables = self._tables
        with tables.lock:
            return {key: tables.states[key] for key in keys if key in tables.states}

    def delete_states(
        self, players: Sequence[Player], standings: Sequence[FrozenStanding] = ()
    ) -> None:
        tables = self._tables
        with tables.lock:
            for player in players:
                current = tables.states.get((player.ladder, player.player_id))
                if current is not None and current.version != player.version:
                    raise WriteConflict(player.player_id)
            for player in players:
                tables.states.pop((player.ladder, player.player_id), None)
            for standing in standings:
                tables.frozen[_frozen_key(standing)] = standing
            for player in players:
                if not tables.events.get((player.ladder, player.player_id)):
                    tables.events.pop((player.ladder, player.player_id), None)


def _frozen_key(standing: FrozenStanding) -> tuple[str, str, str]:
    return (standing.ladder, standing.player_id, standing.season_id)


def _event_key(event: PlayerEvent) -> str:
    return f"event:{event.at.isoformat()}#{event.event_type}#{event.ref_id}"
