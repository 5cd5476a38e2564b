"""Erase a player: the erasure job's steps (`ratings.service.jobs`), requested by
`request_erasure`. Nothing is recomputed: others' ratings, deltas and histories stay as they
are, with a pseudonym where they named the player.

The phases, each made of idempotent steps:

1. mark: the player's state in every ladder, and the state of the anonymous id their account
   absorbed, is marked as being erased (a state is created where none is stored). A game,
   podium or link with a marked player waits (PlayerErasing), and every commit holds only
   over the states it read, so nothing read before the mark lands after it.
2. pages: page by page through each id's own items in each ladder, expired ones included:
   a game's record and the event of it of every other player of the game (teammates and
   opponents alike) get the pseudonyms, so does a tournament whose awards name the player,
   and each standing the player left frozen in a season is stored again under the pseudonym
   (it stays on that season's leaderboard, as it stood); then the player's own items are
   deleted, all in one write per page. A page is the id's first items left, as many as fit
   in one write (at most `PAGE_SIZE`, the write within DynamoDB's limits of a transaction:
   `_counted`, `_weighed`). Sanctions of the player and refunds paid to them get their
   pseudonyms first (`erase_sanctions`). Deleted items are gone, so every step starts at the
   id's first item left.
3. unlink: both sides of the identity link are deleted.
4. states: the marked states are deleted (only while as marked: a write that slipped in
   sends the job back to phase 1), each with, when it is still in a season that has ended
   (the player has not played since) and stood on that season's leaderboard, its final
   standing there frozen under the pseudonym, in the same write; and the job keeps nothing
   but its dates.

So an erased player stays in the final standings of every season that ended, under their
pseudonym, and in none under their id; from the live leaderboard they are gone.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, ClassVar

from ratings.declare.answers import JsonObject
from ratings.service import pseudonyms
from ratings.service.errors import WriteConflict
from ratings.service.game_result import GAME_EVENT
from ratings.service.jobs import JobKind
from ratings.service.player import FrozenStanding, Player
from ratings.service.ports import ErasureStore
from ratings.service.results import PODIUM_EVENT
from ratings.service.stored import (
    AWARD_POINTER,
    ERASURE,
    FROZEN_STANDING,
    EventKey,
    Job,
    Link,
    PlayerEvent,
    PlayerItem,
    Progress,
    Pseudonymized,
    References,
    StoredGame,
    StoredTournament,
)
from ratings.service.usecases.erase_sanctions import SanctionPseudonyms
from ratings.service.usecases.request_erasure import FIRST_PHASE, new_pseudonym

if TYPE_CHECKING:
    from ratings.rules.seasons import Season
    from ratings.service.facade import Context

PAGES, UNLINK, STATES = "pages", "unlink", "states"
#: Own items read a step, at most. A page takes as many of them, in order, as fit in one write
#: (`_counted`, `_weighed`): each costs its delete and what it rewrites (a game event: the
#: game's record and every other player's event of it, up to 1 + 15 + 1 items in a game of
#: 16; a frozen standing: its copy under the pseudonym; a podium event or award pointer: the
#: tournament's record, once a page).
PAGE_SIZE = 25
#: DynamoDB's limit of items in one transaction: a page's write holds at most as many.
WRITE_ITEMS = 100
#: The other players of a game at most (16 players: `ratings.rules`' largest game).
MAX_OTHERS = 15
#: What a page's write may weigh, by its documents' JSON (`_weight`): half of DynamoDB's 4 MB
#: a transaction, leaving room for what the estimate leaves out (attribute names, keys).
WRITE_BYTES = 2_000_000
#: What `_weight` adds to a document's JSON for the rest of its item.
ITEM_OVERHEAD = 1024


@dataclass(frozen=True)
class ErasePlayer(JobKind):
    kind: ClassVar[str] = ERASURE

    context: Context
    erasures: ErasureStore
    sanctions: SanctionPseudonyms | None = None

    def step(self, job: Job) -> Job:
        phase = job.progress.phase
        if phase == FIRST_PHASE:
            return self._mark(job)
        if phase == PAGES:
            return self._page(job)
        if phase == UNLINK:
            return self._unlink(job)
        if phase == STATES:
            return self._delete_states(job)
        raise RuntimeError(f"an erasure job has no phase {phase!r}")

    # 1. mark ------------------------------------------------------------------------------

    def _mark(self, job: Job) -> Job:
        player_id = job.details["player_id"]
        ladders = [self.context.ladder(ladder_id) for ladder_id in self.context.ladder_ids()]
        identity = self.erasures.read_identity(player_id, [ladder.ladder_id for ladder in ladders])
        if identity.linked_to is not None:
            # Refused when requested, and no link is made while an erasure is pending.
            raise RuntimeError("the erased id became a linked anonymous id while pending")
        names = dict(job.details.get("names") or {player_id: job.details["pseudonym"]})
        if identity.absorbed_id is not None and identity.absorbed_id not in names:
            names[identity.absorbed_id] = new_pseudonym()
        players = [
            identity.states.get((ladder.ladder_id, erased_id))
            or Player(ladder.ladder_id, erased_id, ladder.starting_rating)
            for ladder in ladders
            for erased_id in names
        ]
        marked = [player if player.erasing else player.marked_erasing() for player in players]
        unmarked = [after for before, after in zip(players, marked, strict=True) if after != before]
        if unmarked:
            self.erasures.mark(unmarked)
        details = {
            **job.details,
            "names": names,
            # Kept when met again after the unlink phase (the job went back to phase 1).
            "absorbed_id": identity.absorbed_id or job.details.get("absorbed_id"),
            "marked": [[p.ladder, p.player_id, p.version] for p in marked],
        }
        return job.advanced(Progress(PAGES, {"partition": 0}), details)

    # 2. pages -----------------------------------------------------------------------------

    def _page(self, job: Job) -> Job:
        partitions = _partitions(job)
        index = (job.progress.position or {}).get("partition", 0)
        if index >= len(partitions):
            return job.advanced(Progress(UNLINK))
        ladder, player_id = partitions[index]
        items = self.erasures.player_items(ladder, player_id, PAGE_SIZE)
        if not items:
            return job.advanced(Progress(PAGES, {"partition": index + 1}))
        names: Mapping[str, str] = job.details["names"]
        owns = _counted(items, names)
        references = self.erasures.read_references(ladder, *_wanted(owns))
        unnamed = _named_by_records(owns, references, names)
        if unnamed:
            more = self.erasures.read_references(ladder, [], [], unnamed).events
            references = references._replace(events={**references.events, **more})
        page = _weighed(owns, references)
        if self.sanctions is not None:
            self.sanctions.rewrite(ladder, page, names)
        self.erasures.pseudonymize(ladder, _rewrite(owns[: len(page)], references, names))
        return job.advanced(Progress(PAGES, {"partition": index}))

    # 3. unlink, 4. states ------------------------------------------------------------------

    def _unlink(self, job: Job) -> Job:
        absorbed = job.details.get("absorbed_id")
        if absorbed is not None:
            self.erasures.unlink([Link(absorbed, job.details["player_id"])])
        return job.advanced(Progress(STATES))

    def _delete_states(self, job: Job) -> Job:
        marked = [
            Player(ladder, player_id, 0, version=version, erasing=True)
            for ladder, player_id, version in job.details["marked"]
        ]
        names: Mapping[str, str] = job.details["names"]
        states = self.erasures.read_states([(p.ladder, p.player_id) for p in marked])
        standings = []
        for player in marked:
            state = states.get((player.ladder, player.player_id))
            # None: deleted already (the step is done again); moved: the delete refuses it.
            if state is not None and state.version == player.version:
                standing = self._final_standing(state, names[player.player_id])
                if standing is not None:
                    standings.append(standing)
        try:
            self.erasures.delete_states(marked, standings)
        except WriteConflict:
            # Something wrote a marked state (and maybe items with it): start over.
            return job.advanced(Progress(FIRST_PHASE))
        return job.finished(self.context.now())

    def _final_standing(self, state: Player, pseudonym: str) -> FrozenStanding | None:
        """What the marked `state` leaves under `pseudonym` when deleted: its final standing
        in the season it is in, when that season has ended and the player stood on its
        leaderboard (hidden while under a sanction, as when a state leaves a season for the
        next); None when it is in the ladder's current season (it leaves the live leaderboard
        with the state), or did not stand."""
        ladder = self.context.ladders.get(state.ladder)
        if ladder is None:
            return None
        current = self.context.season(ladder)
        if state.season_id == current.season_id or _began_after(state, current):
            return None
        # As it stood before it was marked: a state being erased stands nowhere.
        before = state._replace(erasing=False, min_games=ladder.season.min_games)
        if not before.stood:
            return None
        return FrozenStanding(
            ladder=state.ladder,
            player_id=pseudonym,
            season_id=state.season_id,
            season_start=state.season_start,
            rating=state.rating,
            ranked_games=state.games_in_season,
            hidden=state.sanctioned,
        )


def _began_after(state: Player, current: Season) -> bool:
    """Whether the state is in a season that began after `current` (another function's clock
    passed a boundary this one has not yet): a season that has not ended."""
    if state.season_start is None:
        return False
    return current.starts_at is None or state.season_start > current.starts_at


def _partitions(job: Job) -> list[tuple[str, str]]:
    """Every (ladder, id) whose own items the erasure walks, in a fixed order."""
    return [(ladder, player_id) for ladder, player_id, _version in job.details["marked"]]


@dataclass
class _Own:
    """One of the player's own items a page takes, and what its write rewrites: the game's
    or tournament's record (once a page: the first item naming it) and the other players'
    events of the game; `size`: the items of the write it makes, at most."""

    item: PlayerItem
    games: list[str] = field(default_factory=list)
    tournaments: list[str] = field(default_factory=list)
    events: list[EventKey] = field(default_factory=list)
    size: int = 1
    #: A game event naming no other player (the game's record tells who played).
    unnamed: bool = False


def _counted(items: Sequence[PlayerItem], names: Mapping[str, str]) -> list[_Own]:
    """The page, by items: the first of `items` whose write stays within `WRITE_ITEMS`,
    counting for each its delete and what it rewrites (more than is written when a record
    names the ids no more, or a game event names no other player: counted as the most a game
    has, `MAX_OTHERS`); always the first item (17 items at most). The same items read give
    the same page, so a step done again rewrites what it would have."""
    owns: list[_Own] = []
    games: set[str] = set()
    tournaments: set[str] = set()
    total = 0
    for item in items:
        own = _Own(item)
        if item.kind == GAME_EVENT and item.event is not None:
            if item.ref_id not in games:
                own.games.append(item.ref_id)
            others = _others(item.event.body, names)
            if others is None:
                own.unnamed, others = True, []
            own.events = [EventKey(pid, item.event.at, item.ref_id) for pid in others]
            own.size += len(own.games) + (MAX_OTHERS if own.unnamed else len(own.events))
        elif item.kind in (PODIUM_EVENT, AWARD_POINTER):
            if item.ref_id not in tournaments:
                own.tournaments.append(item.ref_id)
            own.size += len(own.tournaments)
        elif item.kind == FROZEN_STANDING:
            own.size += 1  # its copy under the pseudonym
        if owns and total + own.size > WRITE_ITEMS:
            break
        owns.append(own)
        games.update(own.games)
        tournaments.update(own.tournaments)
        total += own.size
    return owns


def _wanted(owns: Sequence[_Own]) -> tuple[list[str], list[str], list[EventKey]]:
    """The games, tournaments and other players' events the page rewrites."""
    return (
        [gid for own in owns for gid in own.games],
        [tid for own in owns for tid in own.tournaments],
        [key for own in owns for key in own.events],
    )


def _others(body: JsonObject, names: Mapping[str, str]) -> list[str] | None:
    """The other players of a game whose event of it names the erased player, from the erased
    player's own event `body`: its teammates and opponents (a game sent as sides), else its
    opponent; None when it names none of them. An id erased too is left out: its own events
    are deleted, not rewritten."""
    if isinstance(body.get("teammates"), list) or isinstance(body.get("opponents"), list):
        ids = [*(body.get("teammates") or []), *(body.get("opponents") or [])]
    elif isinstance(body.get("opponent"), str):
        ids = [body["opponent"]]
    else:
        return None
    return _not_erased(ids, names)


def _not_erased(ids: Sequence[object], names: Mapping[str, str]) -> list[str]:
    erased = set(names) | set(names.values())
    return [pid for pid in dict.fromkeys(ids) if isinstance(pid, str) and pid not in erased]


def _named_by_records(
    owns: Sequence[_Own], references: References, names: Mapping[str, str]
) -> list[EventKey]:
    """The other players' events of the game events that name no other player, by the
    players of the game's record (now part of `owns`, to be read)."""
    keys: list[EventKey] = []
    for own in owns:
        game = references.games.get(own.item.ref_id)
        if own.unnamed and game is not None and own.item.event is not None:
            ids = [entry.get("id") for entry in game.result.get("players", [])]
            at = own.item.event.at
            own.events = [EventKey(pid, at, own.item.ref_id) for pid in _not_erased(ids, names)]
            keys += own.events
    return keys


def _weighed(owns: Sequence[_Own], references: References) -> list[PlayerItem]:
    """The page's items: the first of `owns` whose write's documents weigh (`_weight`) at
    most `WRITE_BYTES`, always the first."""
    page: list[PlayerItem] = []
    total = 0
    for own in owns:
        documents: list[object] = [own.item.event.body if own.item.event else None]
        documents += [references.games[gid].result for gid in own.games if gid in references.games]
        documents += [
            references.tournaments[tid].result
            for tid in own.tournaments
            if tid in references.tournaments
        ]
        documents += [references.events[key].body for key in own.events if key in references.events]
        weight = sum(map(_weight, documents))
        if page and total + weight > WRITE_BYTES:
            break
        page.append(own.item)
        total += weight
    return page


def _weight(document: object) -> int:
    """An item's weight in a write: its document's JSON and `ITEM_OVERHEAD`."""
    if document is None:
        return ITEM_OVERHEAD
    return ITEM_OVERHEAD + len(json.dumps(document, default=str))


def _rewrite(
    owns: Sequence[_Own], references: References, names: Mapping[str, str]
) -> Pseudonymized:
    """The page's write: each record its items name, renamed where it names an id (once,
    whichever item names it), and the items deleted."""
    games: list[StoredGame] = []
    for game_id in [gid for own in owns for gid in own.games]:
        game = references.games.get(game_id)
        if game is not None:
            result = pseudonyms.game_result(game.result, names)
            if result is not game.result:
                games.append(game._replace(result=result))
    tournaments: list[StoredTournament] = []
    for tournament_id in [tid for own in owns for tid in own.tournaments]:
        tournament = references.tournaments.get(tournament_id)
        if tournament is not None:
            renamed = pseudonyms.tournament_result(tournament.result, names)
            if renamed is not tournament.result:
                tournaments.append(tournament._replace(result=renamed))
    events: list[PlayerEvent] = []
    for key in dict.fromkeys(key for own in owns for key in own.events):
        event = references.events.get(key)
        if event is not None:
            body: JsonObject = pseudonyms.opponent_event(event.body, names)
            if body is not event.body:
                events.append(event._replace(body=body))
    items = [own.item for own in owns]
    standings = [
        item.standing._replace(player_id=names[item.player_id])
        for item in items
        if item.kind == FROZEN_STANDING and item.standing is not None
    ]
    return Pseudonymized(games, tournaments, events, items, standings)
