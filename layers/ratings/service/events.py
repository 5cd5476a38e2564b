"""The events the service publishes (docs/api.md, "Events"): one per stored change a backend
may want to hear of, each made from what the change stored and nothing else.

An `Envelope` is an event as it goes on the bus: EventBridge's `source` is `SOURCE`, its
`detail-type` the event's `type`, its `detail` `Envelope.detail()`. The storage decides which
stored change makes which event (`ratings.storage.dynamodb.stream`); this module says what each
event carries.
"""

import json
import uuid
from collections.abc import Mapping
from datetime import datetime
from typing import Any, NamedTuple

from ratings.declare.answers import JsonObject, format_utc_millis
from ratings.service.sanction_records import RefundDecision
from ratings.service.stored import StoredGame, StoredTournament

#: The EventBridge `source` of every event.
SOURCE = "elo-ratings"

GAME_RATED = "game.rated"
PODIUM_AWARDED = "podium.awarded"
REFUND_PAID = "refund.paid"
PLAYER_SANCTIONED = "player.sanctioned"
SANCTION_LIFTED = "player.sanction_lifted"
SANCTION_COMPLETED = "sanction.completed"
SEASON_STARTED = "season.started"
ERASURE_COMPLETED = "erasure.completed"
#: Every type, in the order docs/api.md lists them.
TYPES = (
    GAME_RATED,
    PODIUM_AWARDED,
    REFUND_PAID,
    PLAYER_SANCTIONED,
    SANCTION_LIFTED,
    SANCTION_COMPLETED,
    SEASON_STARTED,
    ERASURE_COMPLETED,
)

#: Event ids are UUIDs named by the change they report (`event_id`).
_EVENT_IDS = uuid.UUID("5f0c1a52-4be4-4a53-9b0e-0d7f1e6b1c3a")


def event_id(change_id: str, event_type: str) -> str:
    """The id of the `event_type` event of the stored change `change_id` (its stream record's
    id): the same on every delivery of that change, and different for any other change."""
    return str(uuid.uuid5(_EVENT_IDS, f"{change_id}/{event_type}"))


class Envelope(NamedTuple):
    """One event: what every event has, and its type's own fields."""

    event_id: str
    type: str
    #: The ladder the change is in (None: an erasure, which spans every ladder).
    ladder: str | None
    at: datetime
    #: For each player whose rating the change moved, their `Player.sequence` after it.
    sequences: Mapping[str, int]
    fields: JsonObject

    def detail(self) -> JsonObject:
        """The event's `detail` on the bus."""
        return {
            "event_id": self.event_id,
            "type": self.type,
            "ladder": self.ladder,
            "at": format_utc_millis(self.at),
            "sequences": dict(self.sequences),
            **self.fields,
        }


def game_rated(change_id: str, at: datetime, game: StoredGame) -> Envelope:
    """A game stored (ranked or not): its result, as GET .../games/{game_id} answers it."""
    players = game.result.get("players", [])
    sequences = {
        entry["id"]: sequence
        for entry, sequence in zip(players, game.sequences, strict=False)
        if isinstance(entry, dict) and isinstance(entry.get("id"), str)
    }
    return Envelope(
        event_id(change_id, GAME_RATED),
        GAME_RATED,
        game.ladder,
        at,
        sequences,
        {"game": game.result},
    )


def podium_awarded(change_id: str, at: datetime, tournament: StoredTournament) -> Envelope:
    """A podium stored: the tournament, as GET .../tournaments/{tournament_id} answers it."""
    awards = tournament.result.get("awards", [])
    sequences = {
        award["player_id"]: sequence
        for award, sequence in zip(awards, tournament.sequences, strict=False)
        if sequence is not None and isinstance(award, dict)
    }
    return Envelope(
        event_id(change_id, PODIUM_AWARDED),
        PODIUM_AWARDED,
        tournament.ladder,
        at,
        sequences,
        {"tournament": tournament.result},
    )


def refund_paid(change_id: str, decision: RefundDecision) -> Envelope | None:
    """A refund paid to a victim of a sanctioned player (None: a withheld decision, which
    moves no rating and names nobody)."""
    if decision.player_id is None or decision.rating_after is None:
        return None
    sequences = {} if decision.sequence is None else {decision.player_id: decision.sequence}
    return Envelope(
        event_id(change_id, REFUND_PAID),
        REFUND_PAID,
        decision.ladder,
        decision.at,
        sequences,
        {
            "sanction_id": decision.sanction_id,
            "player_id": decision.player_id,
            "game_id": decision.game_id,
            "delta": decision.points,
            "rating_after": decision.rating_after,
        },
    )


def sanction_event(
    change_id: str, event_type: str, at: datetime, ladder: str, sanction_id: str, player_id: str
) -> Envelope:
    """A sanction imposed, lifted, or its refunds completed."""
    assert event_type in (PLAYER_SANCTIONED, SANCTION_LIFTED, SANCTION_COMPLETED)
    return Envelope(
        event_id(change_id, event_type),
        event_type,
        ladder,
        at,
        {},
        {"sanction_id": sanction_id, "player_id": player_id},
    )


def season_started(
    change_id: str,
    at: datetime,
    ladder: str,
    season: JsonObject,
    previous_season_id: str | None,
) -> Envelope:
    """A season begun: as GET .../seasons/{season_id} answers it, and the one before."""
    return Envelope(
        event_id(change_id, SEASON_STARTED),
        SEASON_STARTED,
        ladder,
        at,
        {},
        {"season": season, "previous_season_id": previous_season_id},
    )


def erasure_completed(change_id: str, at: datetime, player_id: str) -> Envelope:
    """An erasure done: the id erased, so that the backend erases its own copies."""
    return Envelope(
        event_id(change_id, ERASURE_COMPLETED),
        ERASURE_COMPLETED,
        None,
        at,
        {},
        {"player_id": player_id},
    )


def entry_of(envelope: Envelope, bus: str) -> dict[str, Any]:
    """The envelope as one entry of EventBridge's PutEvents."""
    return {
        "Source": SOURCE,
        "DetailType": envelope.type,
        "Detail": json.dumps(envelope.detail(), separators=(",", ":"), ensure_ascii=False),
        "EventBusName": bus,
        "Time": envelope.at,
    }
