"""The table layout: key formats, the pynamodb models of items and indexes, their binding to
one table (with the few request helpers every adapter uses), and the mapping between items and
the storage ports' values.

The layout (keys, indexes, items, transactions) is described in docs/table-layout.md; keep the
two in step.
"""

import json
import zlib
from collections.abc import Iterator, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, NamedTuple

from pynamodb.attributes import (
    BooleanAttribute,
    DiscriminatorAttribute,
    NumberAttribute,
    TTLAttribute,
    UnicodeAttribute,
)
from pynamodb.connection import Connection
from pynamodb.constants import PAY_PER_REQUEST_BILLING_MODE
from pynamodb.indexes import (
    GlobalSecondaryIndex,
    IncludeProjection,
    KeysOnlyProjection,
    LocalSecondaryIndex,
)
from pynamodb.models import Model
from pynamodb.settings import get_settings_value

from ratings.service.player import Player
from ratings.service.results import GAME_EVENT
from ratings.service.stored import PlayerEvent, StoredGame, StoredTournament
from ratings.storage.dynamodb.errors import transient_as_storage_error
from ratings.timestamps import format_utc_millis, parse_utc_millis

RANKED_INDEX = "ranked_by_time"
LEADERBOARD_INDEX = "leaderboard"
TTL_ATTRIBUTE = "expires_at"
STATE_SK = "STATE"
GAME_SK = "GAME"
TOURNAMENT_SK = "TOURNAMENT"
ANON_SK = "ANON"
ACCOUNT_SK = "ACCOUNT"
STANDINGS_SK = "STANDINGS"
EVENT_SK_PREFIX = "E#"
LINK_PK_PREFIX = "L#"


def player_key(ladder: str, player_id: str) -> str:
    return f"P#{ladder}#{player_id}"


def game_key(ladder: str, game_id: str) -> str:
    return f"G#{ladder}#{game_id}"


def tournament_key(ladder: str, tournament_id: str) -> str:
    return f"T#{ladder}#{tournament_id}"


def link_key(player_id: str) -> str:
    return f"{LINK_PK_PREFIX}{player_id}"


def standings_key(ladder: str) -> str:
    return f"S#{ladder}"


def leaderboard_shard(ladder: str, player_id: str, shards: int) -> str:
    return f"{ladder}#{zlib.crc32(player_id.encode()) % shards}"


def compact_json(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"))


class RankedByTime(LocalSecondaryIndex["RatingsItem"]):  # type: ignore[no-untyped-call]
    """A player's ranked games by played_at: the recent-games window as a key range."""

    class Meta:
        index_name = RANKED_INDEX
        projection = KeysOnlyProjection()

    pk = UnicodeAttribute(hash_key=True)
    ranked_at = UnicodeAttribute(range_key=True)


class Leaderboard(GlobalSecondaryIndex["RatingsItem"]):  # type: ignore[no-untyped-call]
    """Ratings per write shard, highest first when read backwards."""

    class Meta:
        index_name = LEADERBOARD_INDEX
        projection = IncludeProjection(["player_id", "ranked_games"])

    lb_shard = UnicodeAttribute(hash_key=True)
    lb_rating = NumberAttribute(range_key=True)


class RatingsItem(Model):
    """Every item of the table; the subclasses below are its item types (stored in the
    attribute `kind`)."""

    class Meta:
        table_name = "ratings"
        billing_mode = PAY_PER_REQUEST_BILLING_MODE

    pk = UnicodeAttribute(hash_key=True)
    sk = UnicodeAttribute(range_key=True)
    item_type = DiscriminatorAttribute(attr_name="kind")
    expires_at = TTLAttribute(null=True)
    ranked_at = UnicodeAttribute(null=True)
    lb_shard = UnicodeAttribute(null=True)
    lb_rating = NumberAttribute(null=True)

    ranked_by_time = RankedByTime()
    leaderboard = Leaderboard()


class StateItem(RatingsItem, discriminator="state"):
    ladder = UnicodeAttribute()
    player_id = UnicodeAttribute()
    rating = NumberAttribute()
    ranked_games = NumberAttribute()
    version = NumberAttribute()
    absorbed_id = UnicodeAttribute(null=True)
    listed = BooleanAttribute(default=True)


class EventItem(RatingsItem, discriminator="event"):
    event_type = UnicodeAttribute(attr_name="event_kind")
    ref_id = UnicodeAttribute()
    at = UnicodeAttribute()
    ranked = BooleanAttribute()
    body = UnicodeAttribute()


class GameItem(RatingsItem, discriminator="game"):
    fingerprint = UnicodeAttribute()
    result = UnicodeAttribute()


class TournamentItem(RatingsItem, discriminator="tournament"):
    fingerprint = UnicodeAttribute()
    result = UnicodeAttribute()


class LinkItem(RatingsItem, discriminator="link"):
    #: The other side: the account (on the ANON item) or the anonymous id (on the ACCOUNT item).
    other_id = UnicodeAttribute()


class StandingsItem(RatingsItem, discriminator="standings"):
    #: The histogram as compact JSON: [[rating, players], ...], highest rating first.
    counts = UnicodeAttribute()
    players = NumberAttribute()
    refreshed_at = UnicodeAttribute()


class Client(NamedTuple):
    """The table client's timeouts and retries: pynamodb's defaults (15 s, 30 s, 3) where
    None (wiring fits them to the function's time)."""

    connect_timeout_seconds: float | None = None
    read_timeout_seconds: float | None = None
    max_retry_attempts: int | None = None


class BoundTable:
    """The models bound to one table, the connection every request goes through, and the
    requests every adapter makes (transient failures raised as TransientStorageError)."""

    def __init__(
        self, table_name: str, region: str, endpoint_url: str | None, shards: int, client: Client
    ) -> None:
        if shards < 1:
            raise ValueError("leaderboard_shards must be at least 1")
        # The models are process-wide classes; one process serves one table.
        meta = RatingsItem.Meta
        meta.table_name = table_name
        setattr(meta, "region", region)  # noqa: B010 - pynamodb reads these optional settings
        setattr(meta, "host", endpoint_url)  # noqa: B010
        for name, value in client._asdict().items():
            setattr(meta, name, get_settings_value(name) if value is None else value)
        RatingsItem._connection = None  # rebind to the table configured above
        self.table_name = table_name
        self.endpoint_url = endpoint_url
        self.shards = shards

    @property
    def connection(self) -> Connection:
        """The low-level connection (one botocore client) every request goes through."""
        return RatingsItem._get_connection().connection

    @staticmethod
    def create_table() -> None:
        """Create the table from the models, with its indexes and TTL, unless it exists (the
        benchmarks; the tests and the local stack create template.yaml's own)."""
        if not RatingsItem.exists():
            # pynamodb enables the TTL itself: enabling it again is refused by DynamoDB
            # ("TimeToLive is already enabled"), though moto accepts it.
            RatingsItem.create_table(wait=True)

    def batch_get(self, keys: Sequence[tuple[str, str]]) -> Iterator[RatingsItem]:
        with transient_as_storage_error():
            yield from RatingsItem.batch_get(keys, consistent_read=True)

    def get(self, pk: str, sk: str) -> RatingsItem | None:
        with transient_as_storage_error():
            try:
                return RatingsItem.get(pk, sk, consistent_read=True)
            except RatingsItem.DoesNotExist:
                return None

    def query(self, hash_key: str, **options: Any) -> dict[str, Any]:
        """One page of a query on the table (or one of its indexes), as DynamoDB answers it."""
        with transient_as_storage_error():
            return dict(self.connection.query(self.table_name, hash_key, **options))

    def pages(self, hash_key: str, **options: Any) -> Iterator[dict[str, Any]]:
        """Every page of a query, as DynamoDB answers them, each after the last one's
        LastEvaluatedKey; a caller that stops iterating reads no further page."""
        start_key = None
        while True:
            response = self.query(hash_key, exclusive_start_key=start_key, **options)
            yield response
            start_key = response.get("LastEvaluatedKey")
            if not start_key:
                return

    def leaderboard_shards(self, ladder: str) -> list[str]:
        """The hash keys of the ladder's leaderboard index, one a write shard."""
        return [f"{ladder}#{shard}" for shard in range(self.shards)]


def table_definition() -> Mapping[str, Any]:
    """Keys, indexes and TTL attribute as the models declare them (checked against the template)."""
    return {
        "key": ("pk", "sk"),
        "local_indexes": {RANKED_INDEX: ("pk", "ranked_at")},
        "global_indexes": {LEADERBOARD_INDEX: ("lb_shard", "lb_rating")},
        "ttl_attribute": TTL_ATTRIBUTE,
    }


# Items <-> values ------------------------------------------------------------------------


def player_of(item: StateItem) -> Player:
    return Player(
        ladder=item.ladder,
        player_id=item.player_id,
        rating=int(item.rating),
        ranked_games=int(item.ranked_games),
        version=int(item.version),
        absorbed_id=item.absorbed_id,
        listed=item.listed is not False,
    )


def state_item_of(player: Player) -> StateItem:
    # The item's attributes are the player's fields, by name: player_of reads them back.
    return StateItem(player_key(player.ladder, player.player_id), STATE_SK, **player._asdict())


def stored_game_of(ladder: str, game_id: str, item: GameItem) -> StoredGame:
    expires_at = item.expires_at or datetime.max.replace(tzinfo=UTC)
    return StoredGame(ladder, game_id, item.fingerprint, json.loads(item.result), expires_at)


def event_sort_key(at: datetime, event_type: str, ref_id: str) -> str:
    """An event's sort key: newest last in time order, then by type and id."""
    return f"{EVENT_SK_PREFIX}{format_utc_millis(at)}#{event_type}#{ref_id}"


def game_item(game: StoredGame) -> GameItem:
    """A game's record: its fingerprint and result, kept until `expires_at` (its TTL)."""
    key = game_key(game.ladder, game.game_id)
    result = compact_json(game.result)
    return GameItem(
        key, GAME_SK, fingerprint=game.fingerprint, result=result, expires_at=game.expires_at
    )


def tournament_item(tournament: StoredTournament) -> TournamentItem:
    """A tournament's record: its fingerprint and awards, kept for good."""
    key = tournament_key(tournament.ladder, tournament.tournament_id)
    result = compact_json(tournament.result)
    return TournamentItem(key, TOURNAMENT_SK, fingerprint=tournament.fingerprint, result=result)


def event_item(event: PlayerEvent) -> EventItem:
    at = format_utc_millis(event.at)
    item = EventItem(
        player_key(event.ladder, event.player_id),
        event_sort_key(event.at, event.event_type, event.ref_id),
        event_type=event.event_type,
        ref_id=event.ref_id,
        at=at,
        ranked=event.ranked,
        body=compact_json(event.body),
        expires_at=event.expires_at,
    )
    if event.event_type == GAME_EVENT and event.ranked:  # only ranked games enter the window index
        item.ranked_at = f"{at}#{event.ref_id}"
    return item


def event_of(ladder: str, player_id: str, item: EventItem) -> PlayerEvent:
    expires_at = item.expires_at or datetime.max.replace(tzinfo=UTC)
    return PlayerEvent(
        ladder=ladder,
        player_id=player_id,
        at=parse_utc_millis(item.at),
        event_type=item.event_type,
        ref_id=item.ref_id,
        ranked=item.ranked,
        body=json.loads(item.body),
        expires_at=expires_at,
    )
