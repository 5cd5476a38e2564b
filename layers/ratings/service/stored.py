"""What the storage ports store and give back, besides players' states (`service.player`):
history events, game and tournament results, identity links, leaderboard rows, the rating
histogram, and what a use case reads before it writes.

NamedTuples rather than frozen dataclasses: as immutable and comparable, but nothing is
generated for them while a Lambda cold-starts (docs/performance.md).
"""

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from types import MappingProxyType
from typing import NamedTuple

from ratings.rules.ranking import RatingHistogram
from ratings.service.player import Player
from ratings.service.results import GameEvent, JsonObject, PodiumBonusEvent, json_of


class PlayerEvent(NamedTuple):
    """One line of a player's history: a game (ranked or not) or a podium bonus.

    Ranked games are what the recent-games window counts, by `at` (the game's played_at).
    `expires_at` is when the store may drop the record; reads never rely on it.
    """

    ladder: str
    player_id: str
    at: datetime
    event_type: str  # results.GAME_EVENT | results.PODIUM_EVENT
    ref_id: str  # game id or tournament id
    ranked: bool
    body: JsonObject
    expires_at: datetime

    @classmethod
    def of(
        cls, player: Player, event: GameEvent | PodiumBonusEvent, kept_for: timedelta
    ) -> "PlayerEvent":
        """`event` in `player`'s history, kept for `kept_for` after it happened."""
        if isinstance(event, GameEvent):
            ref_id, ranked = event.game_id, event.ranked
        else:
            ref_id, ranked = event.tournament_id, False
        return cls(
            ladder=player.ladder,
            player_id=player.player_id,
            at=event.at,
            event_type=event.type,
            ref_id=ref_id,
            ranked=ranked,
            body=json_of(event),
            expires_at=event.at + kept_for,
        )


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


class StoredTournament(NamedTuple):
    ladder: str
    tournament_id: str
    fingerprint: str
    result: JsonObject


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


class PodiumReads(NamedTuple):
    """What awarding a podium needs to read first, fetched together."""

    tournament: StoredTournament | None
    #: player id -> account id, for the ids that are linked anonymous ids.
    links: Mapping[str, str]
    #: player id -> state, for the ids asked for (missing: never stored).
    states: Mapping[str, Player]


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
