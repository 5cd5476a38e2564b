"""The table layout: key formats, the pynamodb models of items and indexes (bound to no table:
`table.BoundTable` sends every request, on its own connection), and the mapping between items
and the storage ports' values.

The layout (keys, indexes, items, transactions) is described in docs/table-layout.md; keep the
two in step.
"""

import json
import zlib
from collections.abc import Mapping
from datetime import UTC, datetime
from functools import cache
from typing import Any

from pynamodb.attributes import (
    BinaryAttribute,
    BooleanAttribute,
    DiscriminatorAttribute,
    NumberAttribute,
    TTLAttribute,
    UnicodeAttribute,
)
from pynamodb.constants import (
    ATTR_DEFINITIONS,
    ATTR_NAME,
    ATTR_TYPE,
    GLOBAL_SECONDARY_INDEXES,
    INDEX_NAME,
    KEY_SCHEMA,
    KEY_TYPE,
    LOCAL_SECONDARY_INDEXES,
    PAY_PER_REQUEST_BILLING_MODE,
)
from pynamodb.indexes import (
    GlobalSecondaryIndex,
    IncludeProjection,
    KeysOnlyProjection,
    LocalSecondaryIndex,
)
from pynamodb.models import Model
from pynamodb.types import HASH, RANGE

from ratings.declare.answers import format_utc_millis, parse_utc_millis
from ratings.rules.seasons import ALL_TIME, OperatorStart, Reset
from ratings.service.game_result import GAME_EVENT
from ratings.service.player import FrozenStanding, Player, RecentGames
from ratings.service.seasons import SeasonStarts, board_id
from ratings.service.stored import PlayerEvent, StoredGame, StoredTournament

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
AWARD_SK_PREFIX = "AWARD#"
LINK_PK_PREFIX = "L#"
SEASON_SK_PREFIX = "SEASON#"
SEASONS_SK = "SEASONS"


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


def leaderboard_shard(board: str, player_id: str, shards: int) -> str:
    return f"{board}#{zlib.crc32(player_id.encode()) % shards}"


def standing_sort_key(season_id: str) -> str:
    return f"{SEASON_SK_PREFIX}{season_id}"


def seasons_key(ladder: str) -> str:
    return f"SEASONS#{ladder}"


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
    sanction_id = UnicodeAttribute(null=True)
    refunded_until = UnicodeAttribute(null=True)
    erasing = BooleanAttribute(default=False)
    games_day = UnicodeAttribute(null=True)
    games_that_day = NumberAttribute(null=True)
    #: `Player.recent` packed (`pack_recent`); absent: none kept (stored before they were,
    #: or a ladder whose ruleset has no recent-games window).
    recent = BinaryAttribute(null=True, legacy_encoding=False)
    #: The season the state is in; absent: all-time (a state stored before seasons).
    season_id = UnicodeAttribute(null=True)
    season_start = UnicodeAttribute(null=True)
    #: Ranked games within the season; absent: all of them (a state stored before seasons).
    season_games = NumberAttribute(null=True)
    #: `Player.sequence`; absent: 0 (a state stored before it was kept, or never rated).
    seq = NumberAttribute(null=True)


class StandingItem(RatingsItem, discriminator="standing"):
    """In a player's partition, for good: their final standing in a season they left, on
    that season's leaderboard (its index entry) unless hidden by a sanction."""

    ladder = UnicodeAttribute()
    player_id = UnicodeAttribute()
    season_id = UnicodeAttribute()
    season_start = UnicodeAttribute(null=True)
    rating = NumberAttribute()
    ranked_games = NumberAttribute()
    hidden = BooleanAttribute(default=False)


class SeasonStartsItem(RatingsItem, discriminator="season_starts"):
    """A ladder's operator-started seasons, one record, saved over its version."""

    starts = UnicodeAttribute()
    version = NumberAttribute()


class EventItem(RatingsItem, discriminator="event"):
    event_type = UnicodeAttribute(attr_name="event_kind")
    ref_id = UnicodeAttribute()
    at = UnicodeAttribute()
    ranked = BooleanAttribute()
    body = UnicodeAttribute()


class AwardPointerItem(RatingsItem, discriminator="award_pointer"):
    """In a player's partition, for good: a tournament whose awards name the player (its
    podium event expires, the tournament does not; an erasure finds it by this)."""

    tournament_id = UnicodeAttribute()


class GameItem(RatingsItem, discriminator="game"):
    fingerprint = UnicodeAttribute()
    result = UnicodeAttribute()
    #: Rewrites since stored (an erasure's pseudonyms); absent before the first.
    revision = NumberAttribute(null=True)
    #: `StoredGame.sequences` as compact JSON; absent: none (unranked, or stored before).
    seqs = UnicodeAttribute(null=True)


class TournamentItem(RatingsItem, discriminator="tournament"):
    fingerprint = UnicodeAttribute()
    result = UnicodeAttribute()
    revision = NumberAttribute(null=True)
    #: `StoredTournament.sequences` as compact JSON; absent: none.
    seqs = UnicodeAttribute(null=True)


class LinkItem(RatingsItem, discriminator="link"):
    #: The other side: the account (on the ANON item) or the anonymous id (on the ACCOUNT item).
    other_id = UnicodeAttribute()


class StandingsItem(RatingsItem, discriminator="standings"):
    #: The histogram as compact JSON: [[rating, players], ...], highest rating first.
    counts = UnicodeAttribute()
    players = NumberAttribute()
    refreshed_at = UnicodeAttribute()


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
    season_id = item.season_id or ALL_TIME
    season_games = item.season_games
    return Player(
        ladder=item.ladder,
        player_id=item.player_id,
        rating=int(item.rating),
        ranked_games=int(item.ranked_games),
        version=int(item.version),
        absorbed_id=item.absorbed_id,
        listed=item.listed is not False,
        sanction_id=item.sanction_id,
        refunded_until=None
        if item.refunded_until is None
        else parse_utc_millis(item.refunded_until),
        erasing=item.erasing is True,
        games_day=item.games_day,
        games_that_day=int(item.games_that_day or 0),
        recent=None if item.recent is None else unpack_recent(item.recent),
        season_id=season_id,
        season_start=None if item.season_start is None else parse_utc_millis(item.season_start),
        season_games=None if season_games is None else int(season_games),
        sequence=int(item.seq or 0),
    )


def state_item_of(player: Player) -> StateItem:
    # The item's attributes are the player's fields, by name: player_of reads them back.
    fields = player._asdict()
    del fields["min_games"], fields["entered"]  # configuration, and what goes beside it
    if player.refunded_until is not None:
        fields["refunded_until"] = format_utc_millis(player.refunded_until)
    if player.season_start is not None:
        fields["season_start"] = format_utc_millis(player.season_start)
    fields["recent"] = None if player.recent is None else pack_recent(player.recent)
    fields["seq"] = fields.pop("sequence") or None
    return StateItem(player_key(player.ladder, player.player_id), STATE_SK, **fields)


def standing_item(standing: FrozenStanding, shards: int) -> StandingItem:
    """A frozen standing, with its entry on its season's leaderboard unless hidden."""
    item = StandingItem(
        player_key(standing.ladder, standing.player_id),
        standing_sort_key(standing.season_id),
        ladder=standing.ladder,
        player_id=standing.player_id,
        season_id=standing.season_id,
        season_start=None
        if standing.season_start is None
        else format_utc_millis(standing.season_start),
        rating=standing.rating,
        ranked_games=standing.ranked_games,
        hidden=standing.hidden,
    )
    if not standing.hidden:
        board = board_id(standing.ladder, standing.season_id)
        item.lb_shard = leaderboard_shard(board, standing.player_id, shards)
        item.lb_rating = standing.rating
    return item


def standing_of(item: StandingItem) -> FrozenStanding:
    return FrozenStanding(
        ladder=item.ladder,
        player_id=item.player_id,
        season_id=item.season_id,
        season_start=None if item.season_start is None else parse_utc_millis(item.season_start),
        rating=int(item.rating),
        ranked_games=int(item.ranked_games),
        hidden=item.hidden is True,
    )


def season_starts_item(ladder: str, starts: SeasonStarts) -> SeasonStartsItem:
    document = [
        {
            "season_id": start.season_id,
            "starts_at": format_utc_millis(start.starts_at),
            "reset": None if start.reset is None else list(start.reset),
            "fingerprint": start.fingerprint,
        }
        for start in starts.starts
    ]
    return SeasonStartsItem(
        seasons_key(ladder), SEASONS_SK, starts=compact_json(document), version=starts.version
    )


def season_starts_of(item: SeasonStartsItem) -> SeasonStarts:
    starts = tuple(
        OperatorStart(
            season_id=start["season_id"],
            starts_at=parse_utc_millis(start["starts_at"]),
            reset=None if start["reset"] is None else Reset(*start["reset"]),
            fingerprint=start["fingerprint"],
        )
        for start in json.loads(item.starts)
    )
    return SeasonStarts(starts, int(item.version))


#: The first byte of a packed `RecentGames`: its format. Both start with the floor (0: none)
#: as milliseconds since the epoch in TIME_BYTES; then the times, oldest first: as offsets of
#: OFFSET_BYTES from the first (itself in TIME_BYTES), or, when they span more than those
#: reach (49 days: never for times a week's window can still use), each in TIME_BYTES.
RECENT_OFFSETS, RECENT_TIMES = 2, 1
TIME_BYTES = 6
OFFSET_BYTES = 4


def pack_recent(recent: RecentGames) -> bytes:
    """`recent` in 13 + 4 n bytes (261 for gammon42's 62), so a state item stays under 1 KB."""
    floor = (recent.floor or 0).to_bytes(TIME_BYTES, "big")
    times = recent.times
    if not times or times[-1] - times[0] < 1 << (8 * OFFSET_BYTES):
        first = times[0] if times else 0
        offsets = b"".join((at - first).to_bytes(OFFSET_BYTES, "big") for at in times[1:])
        return bytes([RECENT_OFFSETS]) + floor + first.to_bytes(TIME_BYTES, "big") + offsets
    return bytes([RECENT_TIMES]) + floor + b"".join(at.to_bytes(TIME_BYTES, "big") for at in times)


def unpack_recent(packed: bytes) -> RecentGames | None:
    """What `pack_recent` packed; None (none kept: read the history) for what it cannot read."""
    head = 1 + TIME_BYTES
    if len(packed) < head or packed[0] not in (RECENT_OFFSETS, RECENT_TIMES):
        return None
    floor = int.from_bytes(packed[1:head], "big") or None
    if packed[0] == RECENT_TIMES:
        width, base, rest = TIME_BYTES, 0, packed[head:]
    else:
        if len(packed) < head + TIME_BYTES:
            return None
        first = int.from_bytes(packed[head : head + TIME_BYTES], "big")
        if not first and len(packed) == head + TIME_BYTES:
            return RecentGames((), floor)
        # The first time is offset 0 from itself.
        width, base, rest = OFFSET_BYTES, first, bytes(OFFSET_BYTES) + packed[head + TIME_BYTES :]
    if len(rest) % width:
        return None
    times = tuple(
        base + int.from_bytes(rest[start : start + width], "big")
        for start in range(0, len(rest), width)
    )
    return RecentGames(times, floor)


def stored_game_of(ladder: str, game_id: str, item: GameItem) -> StoredGame:
    expires_at = item.expires_at or datetime.max.replace(tzinfo=UTC)
    result = json.loads(item.result)
    return StoredGame(
        ladder,
        game_id,
        item.fingerprint,
        result,
        expires_at,
        int(item.revision or 0),
        tuple(json.loads(item.seqs)) if item.seqs else (),
    )


def stored_tournament_of(ladder: str, tournament_id: str, item: TournamentItem) -> StoredTournament:
    result = json.loads(item.result)
    revision = int(item.revision or 0)
    sequences = tuple(json.loads(item.seqs)) if item.seqs else ()
    return StoredTournament(ladder, tournament_id, item.fingerprint, result, revision, sequences)


def event_sort_key(at: datetime, event_type: str, ref_id: str) -> str:
    """An event's sort key: newest last in time order, then by type and id."""
    return f"{EVENT_SK_PREFIX}{format_utc_millis(at)}#{event_type}#{ref_id}"


def game_item(game: StoredGame) -> GameItem:
    """A game's record: its fingerprint and result, kept until `expires_at` (its TTL)."""
    key = game_key(game.ladder, game.game_id)
    result = compact_json(game.result)
    return GameItem(
        key,
        GAME_SK,
        fingerprint=game.fingerprint,
        result=result,
        expires_at=game.expires_at,
        revision=game.revision or None,
        seqs=compact_json(list(game.sequences)) if game.sequences else None,
    )


def tournament_item(tournament: StoredTournament) -> TournamentItem:
    """A tournament's record: its fingerprint and awards, kept for good."""
    key = tournament_key(tournament.ladder, tournament.tournament_id)
    result = compact_json(tournament.result)
    revision = tournament.revision or None
    sequences = compact_json(list(tournament.sequences)) if tournament.sequences else None
    return TournamentItem(
        key,
        TOURNAMENT_SK,
        fingerprint=tournament.fingerprint,
        result=result,
        revision=revision,
        seqs=sequences,
    )


def award_pointer_item(ladder: str, player_id: str, tournament_id: str) -> AwardPointerItem:
    return AwardPointerItem(
        player_key(ladder, player_id),
        f"{AWARD_SK_PREFIX}{tournament_id}",
        tournament_id=tournament_id,
    )


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


@cache
def table_schema() -> dict[str, Any]:
    """The table's keys and its indexes' keys, as DynamoDB's DescribeTable gives them: what
    the connection builds requests from (the models' declaration, `table_definition`,
    which the tests check against template.yaml)."""
    definition = table_definition()
    types = {
        attribute.attr_name: attribute.attr_type
        for attribute in RatingsItem.get_attributes().values()
    }

    def keys(hash_key: str, range_key: str) -> list[dict[str, str]]:
        return [
            {ATTR_NAME: hash_key, KEY_TYPE: HASH},
            {ATTR_NAME: range_key, KEY_TYPE: RANGE},
        ]

    def indexes(kind: str) -> list[dict[str, Any]]:
        return [
            {INDEX_NAME: name, KEY_SCHEMA: keys(*key)} for name, key in definition[kind].items()
        ]

    named = {*definition["key"]}
    for kind in ("local_indexes", "global_indexes"):
        for key in definition[kind].values():
            named.update(key)
    return {
        KEY_SCHEMA: keys(*definition["key"]),
        ATTR_DEFINITIONS: [{ATTR_NAME: name, ATTR_TYPE: types[name]} for name in sorted(named)],
        LOCAL_SECONDARY_INDEXES: indexes("local_indexes"),
        GLOBAL_SECONDARY_INDEXES: indexes("global_indexes"),
    }
