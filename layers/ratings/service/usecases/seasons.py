"""A ladder's seasons: the list, one season, an operator's start of the next one, and a
player's final standings in the seasons that ended (`ratings.service.seasons` says how a
season begins without a write per player)."""

from __future__ import annotations

import hashlib
import json
import re
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from ratings.declare.answers import format_utc_millis, parse_utc_millis
from ratings.declare.kinds import Text
from ratings.rules import InvalidInput, Ladder
from ratings.rules.seasons import (
    OperatorStart,
    Season,
    check_season_id,
    parse_reset,
    season_at,
    season_named,
    seasons_before,
)
from ratings.service import cursors
from ratings.service.errors import InvalidCursor, NotFound, SeasonConflict
from ratings.service.game_result import Submitted
from ratings.service.parameters import page_limit, require_id
from ratings.service.player import FrozenStanding
from ratings.service.ports import RankView, SeasonStore
from ratings.service.ranking import Ranking
from ratings.service.results import JsonObject, json_of
from ratings.service.season_results import (
    PastStanding,
    PastStandings,
    SeasonDescription,
    SeasonList,
    describe,
)
from ratings.service.seasons import (
    MOST_OPERATOR_SEASONS,
    START_DELAY,
    SeasonStarts,
    board_id,
)
from ratings.service.unit_of_work import Retrier, UnitOfWork, players_of

if TYPE_CHECKING:
    from ratings.service.facade import Context

DEFAULT_SEASON_LIMIT = 20
#: What a season id in a path may look like at all (anything else is 400, not 404).
SEASON_ID_FORM = re.compile(r"[A-Za-z0-9_-]{1,48}")
SEASON_ID = Text(
    48,
    SEASON_ID_FORM,
    "1 to 48 letters, digits, '-' or '_' (YYYY-Www, YYYY-MM, YYYY-Qn, all-time, or an "
    "operator's id)",
)


def list_seasons(
    context: Context, ladder_id: str, limit: object = None, cursor: object = None
) -> JsonObject:
    """The ladder's seasons that have begun, newest first."""
    ladder = context.ladder(ladder_id)
    page_size = page_limit(limit, DEFAULT_SEASON_LIMIT)
    now = context.now()
    at = now if cursor is None else _decode_cursor(cursor, ladder.ladder_id, now)
    starts = _starts(context, ladder)
    listed: list[Season] = []
    for season in seasons_before(ladder.season, starts, at):
        listed.append(season)
        if len(listed) == page_size:
            break
    next_cursor = None
    last = listed[-1]
    if len(listed) == page_size and last.starts_at is not None:  # an earlier one exists
        position = ["s", ladder.ladder_id, format_utc_millis(last.starts_at)]
        next_cursor = cursors.encode_cursor(position)
    seasons = [_described(ladder, season, now) for season in listed]
    return json_of(SeasonList(ladder=ladder.ladder_id, seasons=seasons, next_cursor=next_cursor))


def read_season(context: Context, ranks: RankView, ladder_id: str, season_id: str) -> JsonObject:
    """One season, with the players on its leaderboard as the last refresh counted them."""
    ladder = context.ladder(ladder_id)
    season = find_season(context, ladder, season_id)
    standings = ranks.read_standings(board_id(ladder.ladder_id, season.season_id))
    players = None if standings is None else standings.histogram.players
    return json_of(_described(ladder, season, context.now())._replace(players=players))


def find_season(context: Context, ladder: Ladder, season_id: object) -> Season:
    """The season of the ladder with this id; InvalidInput for an id no season could have,
    NotFound for one that has not begun (or never will)."""
    season_id = SEASON_ID.parse(season_id, "season_id")
    season = season_named(ladder.season, _starts(context, ladder), season_id, context.now())
    if season is None:
        raise NotFound(
            f"season {season_id!r} does not exist in ladder {ladder.ladder_id!r} (or has not "
            f"begun); GET /v1/ladders/{ladder.ladder_id}/seasons lists its seasons"
        )
    return season


def start_season(
    context: Context, store: SeasonStore, retrier: Retrier, ladder_id: str, body: object
) -> Submitted:
    """Start the ladder's next season START_DELAY from now, once per season id: the same
    request again is answered the same (200), another with that id is a SeasonConflict."""
    ladder = context.ladder(ladder_id)
    if not isinstance(body, dict):
        raise InvalidInput("body", "the body must be a JSON object with season_id and reset")
    unknown = sorted(set(body) - {"season_id", "reset"})
    if unknown:
        raise InvalidInput(unknown[0], f"{unknown[0]} is not a field (season_id, reset)")
    if "season_id" not in body:
        raise InvalidInput("season_id", "season_id is required")
    season_id = check_season_id(body["season_id"])
    reset = None if body.get("reset") is None else parse_reset(body["reset"], "reset")
    request = {"season_id": season_id, "reset": None if reset is None else list(reset)}
    fingerprint = hashlib.sha256(json.dumps(request, sort_keys=True).encode()).hexdigest()
    attempts = retrier.attempts("season start")
    while True:
        with attempts:
            stored = store.read_starts(ladder.ladder_id)
            same = next((s for s in stored.starts if s.season_id == season_id), None)
            if same is not None:
                if same.fingerprint != fingerprint:
                    raise SeasonConflict(
                        f"season_id {season_id!r} was already used in ladder "
                        f"{ladder.ladder_id!r}; start a season with a new id"
                    )
                return Submitted(_started(context, ladder, stored, same), created=False)
            if len(stored.starts) >= MOST_OPERATOR_SEASONS:
                raise SeasonConflict(
                    f"ladder {ladder.ladder_id!r} has had {MOST_OPERATOR_SEASONS} seasons "
                    "started by operators, the most it keeps"
                )
            now = context.now()
            starts_at = now + START_DELAY
            if stored.starts:  # each start after the one before it
                starts_at = max(starts_at, stored.starts[-1].starts_at + timedelta(milliseconds=1))
            starts_at = parse_utc_millis(format_utc_millis(starts_at))  # as stored
            start = OperatorStart(season_id, starts_at, reset, fingerprint)
            saved = SeasonStarts((*stored.starts, start), stored.version + 1)
            store.save_starts(ladder.ladder_id, saved)
            if context.seasons is not None:
                context.seasons.forget(ladder.ladder_id)
            return Submitted(_started(context, ladder, saved, start), created=True)


def _started(
    context: Context, ladder: Ladder, stored: SeasonStarts, start: OperatorStart
) -> JsonObject:
    season = season_at(ladder.season, stored.starts, start.starts_at)
    return json_of(_described(ladder, season, context.now()))


def read_player_seasons(
    uow: UnitOfWork,
    store: SeasonStore,
    ranking: Ranking,
    context: Context,
    ladder_id: str,
    player_id: str,
    limit: object = None,
    cursor: object = None,
) -> JsonObject:
    """The player's final standing in each ended season they stood on the leaderboard of,
    newest first, a page at a time (each standing's rank is a count of its own): none while
    sanctioned (hidden from every season's standings)."""
    ladder = context.ladder(ladder_id)
    require_id(player_id, "player_id")
    page_size = page_limit(limit, DEFAULT_SEASON_LIMIT)
    skip = 0 if cursor is None else _decode_standings_cursor(cursor, ladder.ladder_id, player_id)
    reads = uow.read_for_game(ladder.ladder_id, None, [player_id])
    resolved = reads.links.get(player_id, player_id)
    (player,) = players_of(uow, ladder, [resolved], reads.links, reads.states)
    standings: list[FrozenStanding] = []
    if not (player.sanctioned or player.erasing):
        standings = list(store.standings_of(ladder.ladder_id, player.player_id))
        if player.entered is not None and player.entered.frozen is not None:
            standings.append(player.entered.frozen)  # the season just left, not stored yet
    standings = [standing for standing in standings if not standing.hidden]
    standings.sort(key=_newest_first)
    page = standings[skip : skip + page_size]
    next_cursor = None
    if len(standings) > skip + page_size:
        position = ["ps", ladder.ladder_id, player_id, skip + page_size]
        next_cursor = cursors.encode_cursor(position)
    seasons = []
    for standing in page:
        board = board_id(ladder.ladder_id, standing.season_id)
        rank = ranking.rank(board, standing.rating, standing.player_id)
        seasons.append(
            PastStanding(
                season_id=standing.season_id,
                rank=rank.rank,
                of=rank.of,
                exact=rank.exact,
                rating=standing.rating,
                ranked_games=standing.ranked_games,
            )
        )
    answer = PastStandings(
        player_id=player.player_id,
        ladder=ladder.ladder_id,
        seasons=seasons,
        next_cursor=next_cursor,
    )
    return json_of(answer)


def _decode_standings_cursor(cursor: object, ladder_id: str, player_id: str) -> int:
    """How many of the player's standings the pages before have listed."""
    _listing, of_ladder, of_player, listed = cursors.decode_position(cursor, "ps", 4)
    if (of_ladder, of_player) != (ladder_id, player_id):
        raise InvalidCursor
    if not isinstance(listed, int) or isinstance(listed, bool) or not 0 < listed < 10**6:
        raise InvalidCursor
    return listed


def _newest_first(standing: FrozenStanding) -> tuple[bool, float]:
    start = standing.season_start
    return (start is None, 0.0 if start is None else -start.timestamp())


def _described(ladder: Ladder, season: Season, now: datetime) -> SeasonDescription:
    description = describe(season, ladder.starting_rating, ladder.season.min_games)
    return description._replace(status=season.status(now))


def _starts(context: Context, ladder: Ladder) -> tuple[OperatorStart, ...]:
    if context.seasons is None:
        return ()
    return context.seasons.starts(ladder.ladder_id).starts


def _decode_cursor(cursor: object, ladder_id: str, now: datetime) -> datetime:
    """Where a page of seasons continues: just before the last season listed began."""
    position = cursors.decode_position(cursor, "s", 3)
    _listing, of_ladder, starts_at = position
    if of_ladder != ladder_id or not isinstance(starts_at, str):
        raise InvalidCursor
    try:
        at = parse_utc_millis(starts_at)
    except ValueError:
        raise InvalidCursor from None
    if at > now:
        raise InvalidCursor
    return at - timedelta(milliseconds=1)
