"""What the storage ports store and give back, besides players' states (`service.player`):
history events, game and tournament results, identity links, leaderboard rows, the rating
histogram, background jobs' records and messages, and what a use case reads before it writes.

NamedTuples rather than frozen dataclasses: as immutable and comparable, but nothing is
generated for them while a Lambda cold-starts (docs/performance.md).
"""

import hashlib
import json
from collections.abc import Mapping, Sequence
from datetime import datetime
from types import MappingProxyType
from typing import TYPE_CHECKING, Annotated, NamedTuple

from ratings.declare.answers import JsonObject, Key, json_of
from ratings.rules import InvalidInput
from ratings.rules.ranking import RatingHistogram
from ratings.service.player import FrozenStanding, Player

if TYPE_CHECKING:
    from ratings.service.seasons import SeasonStarts


class PlayerEvent(NamedTuple):
    """One line of a player's history: a game (ranked or not) or a podium bonus.

    Ranked games are what the recent-games window counts, by `at` (the game's played_at).
    A use case makes one with `game_result.history_line`.
    `expires_at` is when the store may drop the record; reads never rely on it (a history
    shows an event for the history retention after its `at`).
    """

    ladder: str
    player_id: str
    at: datetime
    event_type: str  # game_result.GAME_EVENT | results.PODIUM_EVENT
    ref_id: str  # game id or tournament id
    ranked: bool
    body: JsonObject
    expires_at: datetime


#: The players' states a commit stores (each one version on), and the events it adds.
Players = Sequence[Player]
Events = Sequence[PlayerEvent]

#: Where a history page stopped: the (at, event_type, ref_id) of the last event read.
EventPosition = tuple[datetime, str, str]


class HistoryPage(NamedTuple):
    events: Sequence[PlayerEvent]
    #: Whether the store may hold events after the last of `events`.
    more: bool = False


class StoredGame(NamedTuple):
    """A rated (or recorded) game: the full result and a fingerprint of what was submitted."""

    ladder: str
    game_id: str
    fingerprint: str
    result: JsonObject
    expires_at: datetime
    #: Rewrites of the result since it was stored (an erasure replaces ids by pseudonyms);
    #: a rewrite is stored only over the revision it read.
    revision: int = 0
    #: Each player's `Player.sequence` after the game, in the order of the result's players;
    #: empty when the game moved no rating (unranked). Positions, not ids: an erasure
    #: leaves them as they are. What the `game.rated` event's `sequences` are made of.
    sequences: tuple[int, ...] = ()


class StoredTournament(NamedTuple):
    ladder: str
    tournament_id: str
    fingerprint: str
    result: JsonObject
    revision: int = 0
    #: Each award's player's `Player.sequence` after it, in the order of the result's awards;
    #: None for a player paid nothing.
    sequences: tuple[int | None, ...] = ()


class Link(NamedTuple):
    anonymous_id: str
    account_id: str


class LeaderboardRow(NamedTuple):
    player_id: str
    rating: int
    ranked_games: int


class Standings(NamedTuple):
    """A ladder's rating histogram, as the last refresh counted it at `refreshed_at`."""

    ladder: str
    histogram: RatingHistogram
    refreshed_at: datetime


# What a use case reads before it writes ----------------------------------------------------


class GameReads(NamedTuple):
    """What rating a game needs to read first, fetched together."""

    game: StoredGame | None
    #: player id -> account id, for the ids that are linked anonymous ids.
    links: Mapping[str, str]
    #: player id -> state, for the ids asked for (missing: never stored).
    states: Mapping[str, Player]
    #: The ladder's operator-started seasons, when asked for in the same round trip.
    season_starts: "SeasonStarts | None" = None


class PodiumReads(NamedTuple):
    """What awarding a podium needs to read first, fetched together."""

    tournament: StoredTournament | None
    #: player id -> account id, for the ids that are linked anonymous ids.
    links: Mapping[str, str]
    #: player id -> state, for the ids asked for (missing: never stored).
    states: Mapping[str, Player]
    #: The ladder's operator-started seasons, when asked for in the same round trip.
    season_starts: "SeasonStarts | None" = None


class LinkReads(NamedTuple):
    """Existing links of both ids: what the anonymous id is linked to, what the account absorbed."""

    anonymous_linked_to: str | None
    account_absorbed: str | None
    #: The account id is itself an anonymous id linked to this account.
    account_linked_to: str | None
    #: The anonymous id is itself an account that absorbed this anonymous id.
    anonymous_absorbed: str | None
    #: (ladder, player id) -> state, for both ids in every ladder asked for.
    states: Mapping[tuple[str, str], Player] = MappingProxyType({})
    #: Those of the two ids whose erasure is pending (no link may change them meanwhile).
    erasing: tuple[str, ...] = ()
    #: ladder -> its operator-started seasons, for the ladders asked for in the same round trip.
    season_starts: "Mapping[str, SeasonStarts]" = MappingProxyType({})


# Background jobs ---------------------------------------------------------------------------

PENDING = "pending"
DONE = "done"


class Progress(NamedTuple):
    """How far a job got: the phase it is in and, within it, where the next step starts."""

    phase: str
    #: The kind's own position in the phase (a page's cursor, an index); None at its start.
    position: JsonObject | None = None


class Job(NamedTuple):
    """One job's record. `progress_version` counts the writes of the record: 1 when created;
    a save stores version n only over version n - 1 (like a player's state)."""

    kind: str
    #: The job's id within its kind (an erasure: a hash of the player id).
    job_id: str
    status: str  # PENDING | DONE
    requested_at: datetime
    progress: Progress
    #: The kind's own fields (an erasure: the ids and pseudonyms, while pending).
    details: JsonObject
    progress_version: int = 1
    completed_at: datetime | None = None

    @property
    def pending(self) -> bool:
        return self.status == PENDING

    @property
    def message(self) -> "JobMessage":
        return JobMessage(self.kind, self.job_id)

    def advanced(self, progress: Progress, details: JsonObject | None = None) -> "Job":
        """The job after a step that leaves it pending at `progress` (and with `details`)."""
        return self._replace(
            progress=progress,
            details=self.details if details is None else details,
            progress_version=self.progress_version + 1,
        )

    def finished(self, at: datetime, details: JsonObject | None = None) -> "Job":
        """The job once its last step is done: what it keeps from then on is `details`."""
        return self._replace(
            status=DONE,
            completed_at=at,
            progress=Progress(DONE),
            details={} if details is None else details,
            progress_version=self.progress_version + 1,
        )


class JobMessage(NamedTuple):
    """What the jobs queue carries: the job it names, nothing else (the record has the rest)."""

    kind: Annotated[str, Key("job")]
    job_id: str

    def body(self) -> str:
        return json.dumps(json_of(self), separators=(",", ":"))

    @classmethod
    def parse(cls, body: object) -> "JobMessage":
        """The message in a queue message's JSON value; InvalidInput when it is not one."""
        if not isinstance(body, dict):
            raise InvalidInput("message body", "message body must be a JSON object")
        kind, job_id = body.get("job"), body.get("job_id")
        if not isinstance(kind, str) or not kind:
            raise InvalidInput("job", "job must name a job kind, like erasure")
        if not isinstance(job_id, str) or not job_id:
            raise InvalidInput("job_id", "job_id must be the id of a job")
        return cls(kind, job_id)


#: The job kind of an erasure (`usecases.request_erasure`, `usecases.erase_player`).
ERASURE = "erasure"


def erasure_id(player_id: str) -> str:
    """The id of the erasure job of `player_id`: its SHA-256, so the record names no id."""
    return hashlib.sha256(player_id.encode()).hexdigest()


# What erasing a player reads and writes ----------------------------------------------------

#: The kind of a player's pointer to a tournament whose awards name them (`PlayerItem.kind`).
AWARD_POINTER = "award"
#: The kind of a player's standing frozen in a season they left (`PlayerItem.kind`).
FROZEN_STANDING = "standing"


class PlayerItem(NamedTuple):
    """One item of a player's own records in a ladder, as an erasure reads them: a history
    event (`event`), a pointer to a tournament whose awards name the player, a standing
    frozen in a season (`standing`), or any other item stored under the player (which the
    erasure deletes as it is)."""

    ladder: str
    player_id: str
    #: GAME_EVENT, PODIUM_EVENT, AWARD_POINTER, FROZEN_STANDING, or the stored item's own kind.
    kind: str
    #: The game's or tournament's id, the season's id of a standing (empty for other items).
    ref_id: str
    #: The storage's own name of the item within the player's records (what deletes it).
    key: str
    event: "PlayerEvent | None" = None
    standing: FrozenStanding | None = None


class ErasedIdentity(NamedTuple):
    """The ids an erasure covers, as stored when it starts."""

    #: The anonymous id the player's account absorbed (linked to it), if any.
    absorbed_id: str | None
    #: The account the player is linked to as an anonymous id, if any.
    linked_to: str | None
    #: (ladder, player id) -> state, for the player and the absorbed id in each ladder.
    states: Mapping[tuple[str, str], Player]


class EventKey(NamedTuple):
    """Where a player's event of a game is: the game's players share its `at` and id."""

    player_id: str
    at: datetime
    game_id: str


class References(NamedTuple):
    """Other records an erasure rewrites, read together (missing: not, or no more, stored)."""

    games: Mapping[str, StoredGame]
    tournaments: Mapping[str, StoredTournament]
    events: Mapping[EventKey, PlayerEvent]


class Pseudonymized(NamedTuple):
    """One step of an erasure's rewriting, stored all at once or not at all: others' records
    with pseudonyms for the ids (each game and tournament over the revision it read, each
    event only while it exists), the player's frozen standings stored again under their
    pseudonyms, and the player's own items deleted (a frozen standing only while as read)."""

    games: Sequence[StoredGame]
    tournaments: Sequence[StoredTournament]
    events: Sequence[PlayerEvent]
    deleted: Sequence[PlayerItem]
    #: The standings of `deleted`, each with the pseudonym as its player id.
    standings: Sequence[FrozenStanding] = ()
