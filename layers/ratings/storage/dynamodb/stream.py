"""Which stored change makes which event: the table's stream records, read as the items they
carry (docs/api.md, "Events"; docs/table-layout.md, "The stream").

Each change the events report is one item written once, so its stream record appears exactly
once in the stream (DynamoDB's promise), and a request that stored nothing has none:

| the record | the event |
|---|---|
| a game record inserted (or put over an expired one) | `game.rated` |
| a tournament record inserted | `podium.awarded` |
| a paid refund decision inserted | `refund.paid` |
| a sanction's record inserted | `player.sanctioned` (`sanction.completed` too, if done) |
| a sanction's lift inserted | `player.sanction_lifted` |
| a sanction's record turning `done` | `sanction.completed` |
| an erasure's record turning `done` | `erasure.completed`, with the id from the record before |
| a season's standings inserted (the first refresh of its board) | `season.started` |

Anything else (a state, a history line, an erasure's rewrites, a TTL deletion) makes none.
`FILTER_KINDS` is what the event source mapping lets through at all (template.yaml), so
Lambda is not invoked for the rest.
"""

import json
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, Protocol

from ratings.declare.answers import JsonObject, parse_utc_millis
from ratings.rules.seasons import ALL_TIME
from ratings.service import events
from ratings.service.events import Envelope
from ratings.service.player import board_season
from ratings.service.stored import DONE
from ratings.storage.dynamodb.job_layout import JobItem
from ratings.storage.dynamodb.layout import (
    GameItem,
    RatingsItem,
    StandingsItem,
    TournamentItem,
    standings_key,
    stored_game_of,
    stored_tournament_of,
)
from ratings.storage.dynamodb.sanction_layout import DecisionItem, LiftItem, decision_of

#: The item kinds (`kind`) whose changes may make an event: the rest never reach the function.
FILTER_KINDS = ("game", "tournament", "refund", "job", "sanction_lift", "standings")

Image = Mapping[str, Any]


class Lookups(Protocol):
    """What an event needs beyond its record, read when it is made."""

    def sanctioned_player(self, ladder: str, sanction_id: str) -> str | None:
        """The player a sanction is on (None: not stored)."""

    def season(self, ladder: str, season_id: str) -> tuple[JsonObject, str | None] | None:
        """The season as GET .../seasons/{season_id} answers it, and the id of the season
        before it (None: the ladder has no such season)."""


def envelopes_of(record: Mapping[str, Any], lookups: Lookups) -> list[Envelope]:
    """The events one stream record makes (most make none)."""
    change = record.get("dynamodb") or {}
    new, old = change.get("NewImage"), change.get("OldImage")
    if new is None:  # a deletion (TTL's, an erasure's) reports nothing
        return []
    change_id = str(record["eventID"])
    at = _approximate(change.get("ApproximateCreationDateTime"))
    item = RatingsItem.from_raw_data(dict(new))
    before = None if old is None else RatingsItem.from_raw_data(dict(old))
    inserted = record.get("eventName") == "INSERT"
    if isinstance(item, GameItem) and (inserted or _replaced(item, before)):
        ladder, game_id = _parts(item.pk, 2)
        return [events.game_rated(change_id, at, stored_game_of(ladder, game_id, item))]
    if isinstance(item, TournamentItem) and inserted:
        ladder, tournament_id = _parts(item.pk, 2)
        tournament = stored_tournament_of(ladder, tournament_id, item)
        return [events.podium_awarded(change_id, at, tournament)]
    if isinstance(item, DecisionItem) and inserted:
        ladder, sanction_id = _parts(item.pk, 2)
        paid = events.refund_paid(change_id, decision_of(ladder, sanction_id, item))
        return [] if paid is None else [paid]
    if isinstance(item, LiftItem) and inserted:
        ladder, sanction_id = _parts(item.pk, 2)
        player_id = lookups.sanctioned_player(ladder, sanction_id)
        if player_id is None:
            return []
        lifted_at = parse_utc_millis(item.lifted_at)
        return [
            events.sanction_event(
                change_id, events.SANCTION_LIFTED, lifted_at, ladder, sanction_id, player_id
            )
        ]
    if isinstance(item, JobItem):
        return _job_events(change_id, item, before if isinstance(before, JobItem) else None)
    if isinstance(item, StandingsItem) and inserted:
        return _season_started(change_id, item, lookups)
    return []


def _replaced(item: GameItem, before: RatingsItem | None) -> bool:
    """Whether a game record modified is a new game stored over an expired record that TTL
    had not deleted yet (its id used again): an erasure's rewrite always counts a revision,
    a new game starts without one."""
    return isinstance(before, GameItem) and not item.revision


def _job_events(change_id: str, item: JobItem, before: JobItem | None) -> list[Envelope]:
    done_now = item.status == DONE and (before is None or before.status != DONE)
    if item.job_kind == "sanction":
        details = json.loads(item.details)
        ladder, sanction_id, player_id = (
            details["ladder"],
            details["sanction_id"],
            details["player_id"],
        )
        made = []
        if before is None:
            at = parse_utc_millis(item.requested_at)
            made.append(
                events.sanction_event(
                    change_id, events.PLAYER_SANCTIONED, at, ladder, sanction_id, player_id
                )
            )
        if done_now:
            at = parse_utc_millis(item.completed_at) if item.completed_at else _now()
            made.append(
                events.sanction_event(
                    change_id, events.SANCTION_COMPLETED, at, ladder, sanction_id, player_id
                )
            )
        return made
    if item.job_kind == "erasure" and done_now and before is not None:
        # The record done keeps no id (`{}`): the id is in the record as it was before.
        player_id = json.loads(before.details).get("player_id")
        if not isinstance(player_id, str):
            return []
        at = parse_utc_millis(item.completed_at) if item.completed_at else _now()
        return [events.erasure_completed(change_id, at, player_id)]
    return []


def _season_started(change_id: str, item: StandingsItem, lookups: Lookups) -> list[Envelope]:
    ladder, season_id = board_season(item.pk.removeprefix(standings_key("")))
    if season_id == ALL_TIME:  # a ladder without seasons: nothing begins
        return []
    found = lookups.season(ladder, season_id)
    if found is None:
        return []
    season, previous = found
    starts_at = season.get("starts_at")
    at = parse_utc_millis(starts_at) if isinstance(starts_at, str) else _now()
    return [events.season_started(change_id, at, ladder, season, previous)]


def _parts(pk: str, count: int) -> list[str]:
    """The parts of a key after its prefix: `G#{ladder}#{game_id}` -> [ladder, game_id]."""
    return pk.split("#", count)[1:]


def _approximate(value: Any) -> datetime:
    """A stream record's ApproximateCreationDateTime (epoch seconds) as a time."""
    if value is None:
        return _now()
    if isinstance(value, datetime):
        return value.astimezone(UTC)
    return datetime.fromtimestamp(float(value), UTC)


def _now() -> datetime:
    return datetime.now(UTC)
