"""Submit a game: rate it once per game id, and answer a retry with the stored result.

An attempt reads the game's record, the players' links and states and their windows,
computes with the rules, and commits over the versions it read; if another writer got there
first the unit of work makes the attempt again, so a result is always computed from the state
it replaces. Nothing here knows which rulesets exist: a game's own fields go from the parsed
body to the ruleset and into the result as they are.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from ratings.rules import (
    GameInput,
    Ladder,
    parse_game,
)
from ratings.rules.submission import check_age
from ratings.service.errors import GameConflict, PlayerDailyLimit
from ratings.service.game_result import (
    GameEvent,
    GameResult,
    Submitted,
    answer_again,
    evaluate,
    history_line,
    why_unranked,
)
from ratings.service.player import Player, refuse_erasing, resolve_pair
from ratings.service.stored import StoredGame
from ratings.service.unit_of_work import UnitOfWork, players_of, recent_ranked_games

if TYPE_CHECKING:
    from ratings.service.facade import Context


def submit_game(uow: UnitOfWork, context: Context, ladder_id: str, body: object) -> Submitted:
    """Rate a game once. A retry with the same content returns the stored result."""
    ladder = context.ladder(ladder_id)
    now = context.now()
    game = parse_game(
        body,
        ladder.ruleset,
        now,
        enforce_age=False,
        sides=(ladder.sides.min, ladder.sides.max),
        players_per_side=(ladder.players_per_side.min, ladder.players_per_side.max),
    )
    attempts = uow.attempts("game")
    while True:
        with attempts:
            return _rate_once(uow, context, ladder, game, now)


def _rate_once(
    uow: UnitOfWork, context: Context, ladder: Ladder, game: GameInput, now: datetime
) -> Submitted:
    """One attempt: the stored answer of a game met again, else the game rated and
    committed over the states read."""
    assert game.game_id is not None
    ids = [player.player_id for player in game.players]
    reads = uow.read_for_game(ladder.ladder_id, game.game_id, ids)
    # An expired record still present (TTL deletes late) counts as gone, as it will be.
    if reads.game is not None and reads.game.expires_at > now:
        return _again(reads.game, game)
    # Checked only now: a retry of a stored game is answered however old its played_at.
    check_age(game.played_at, now, "played_at")
    resolved = resolve_pair(ids, reads.links)
    players = players_of(uow, ladder, resolved, reads.links, reads.states)
    refuse_erasing(players)
    day = _count_day(context, players, now)
    # Played before the season began (the ladder's, or a later one a state is already in):
    # stored, and unranked for everyone.
    season = uow.season_of(ladder, players, now)
    result, written = _rate(uow, ladder, game, players, day, now, season.starts_at)
    stored = StoredGame(
        ladder=ladder.ladder_id,
        game_id=game.game_id,
        fingerprint=game.fingerprint,
        result=result.document(),
        expires_at=now + context.settings.game_retention,
        sequences=tuple(player.sequence for player in written) if result.ranked else (),
    )
    retention = context.settings.history_retention
    events = [
        history_line(
            player,
            GameEvent.of(result, index, game),
            retention,
            kept_until=stored.expires_at,
        )
        for index, player in enumerate(players)
    ]
    # Each state is written over the version read: an erasure that marked one meanwhile does
    # not see the game land after its mark. An expired record is replaced, as if TTL had
    # deleted it already.
    existing = uow.commit_game(stored, written, events, now=now)
    if existing is not None:  # stored meanwhile: answered as a retry of it
        return _again(existing, game)
    return Submitted(stored.result, created=True)


def _rate(
    uow: UnitOfWork,
    ladder: Ladder,
    game: GameInput,
    players: Sequence[Player],
    day: str,
    now: datetime,
    season_start: datetime | None,
) -> tuple[GameResult, list[Player]]:
    """The game's result and each player's state after it. Both states are written, ranked
    or not: each counts the game towards its day."""
    sanctioned = [player.sanctioned for player in players]
    reason = why_unranked(game, sanctioned, season_start)
    states = [
        player.before_game(
            0 if reason else recent_ranked_games(uow, ladder.ruleset, player, game.played_at)
        )
        for player in players
    ]
    result, rating = evaluate(ladder, ladder.ruleset, game, states, reason)
    if rating is None:
        return result, [player.played().counting(day) for player in players]
    # The state keeps the game's time for the windows of later games (`Player.recent`).
    return result, [
        player.rated(change.rating_after)
        .counting(day)
        .with_recent_game(game.played_at, now, ladder.ruleset)
        for player, change in zip(players, rating.players, strict=True)
    ]


def _again(stored: StoredGame, game: GameInput) -> Submitted:
    """A game id met again: its stored answer, or GameConflict for other content."""
    answer = answer_again(stored, game.fingerprint)
    if answer is None:
        raise GameConflict(
            f"game_id {game.game_id!r} was already used with different content; "
            "send a retry with identical content, or use a new game_id"
        )
    return answer


def _count_day(context: Context, players: Sequence[Player], now: datetime) -> str:
    """The UTC day the game counts on; PlayerDailyLimit when a player has had the day's most
    games already."""
    day = now.astimezone(UTC).date().isoformat()
    limit = context.settings.daily_game_limit
    for position, player in enumerate(players):
        if player.games_on(day) >= limit:
            raise PlayerDailyLimit(position, limit)
    return day
