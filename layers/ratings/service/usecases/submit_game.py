"""Submit a game: rate it once per game id, and answer a retry with the stored result.

An attempt reads the game's record, the players' links and states and their windows,
computes with the rules, and commits with the versions it read; if another writer got there
first the whole attempt is redone (`Retrier`), so a result is always computed from the state
it replaces. Nothing here knows which rulesets exist: a game's own fields go from the parsed
body to the ruleset and into the result as they are.
"""

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import NamedTuple

from ratings.rules import GameInput, Ladder, parse_game
from ratings.rules.submission import check_age
from ratings.service.context import Context
from ratings.service.errors import GameConflict, PlayerDailyLimit
from ratings.service.game_rating import evaluate, why_unranked
from ratings.service.once import answer_again, commit_once
from ratings.service.player import Player
from ratings.service.player_reads import (
    players_of,
    recent_ranked_games,
    refuse_erasing,
    resolve_pair,
)
from ratings.service.ports import ResultsView, Writes
from ratings.service.results import GameEvent, Submitted, json_of
from ratings.service.retries import Retrier
from ratings.service.stored import PlayerEvent, StoredGame


class SubmitGame(NamedTuple):
    """Rates a game once: reads and commits through `writes`, answers a repeat from
    `results`, redoes a contended attempt through `retrier`."""

    context: Context
    writes: Writes
    results: ResultsView
    retrier: Retrier

    def run(self, ladder_id: str, body: object) -> Submitted:
        """Rate a game once. A retry with the same content returns the stored result."""
        ladder = self.context.ladder(ladder_id)
        now = self.context.now()
        game = parse_game(body, ladder.ruleset, now, enforce_age=False)
        return self.retrier.run("game", lambda: self._attempt(ladder, game, now))

    def _attempt(self, ladder: Ladder, game: GameInput, now: datetime) -> Submitted:
        assert game.game_id is not None
        ids = [player.player_id for player in game.players]
        reads = self.writes.read_for_game(ladder.ladder_id, game.game_id, ids)
        # An expired record still present (TTL deletes late) counts as gone, as it will be.
        conflict = GameConflict(
            f"game_id {game.game_id!r} was already used with different content; "
            "send a retry with identical content, or use a new game_id"
        )
        if reads.game is not None and reads.game.expires_at > now:
            return answer_again(reads.game, game.fingerprint, conflict)
        # Checked only now: a retry of a stored game is answered however old its played_at.
        check_age(game.played_at, now, "played_at")
        resolved = resolve_pair(ids, reads.links)
        players = players_of(self.writes, ladder, resolved, reads.links, reads.states)
        refuse_erasing(players)
        day = self._count_day(players, now)
        reason = why_unranked(game, players)
        states = [
            player.before_game(
                0
                if reason
                else recent_ranked_games(self.writes, ladder.ruleset, player, game.played_at)
            )
            for player in players
        ]
        result, rating = evaluate(ladder, ladder.ruleset, game, states, reason)
        # Both states are written, ranked or not: each counts the game towards its day.
        if rating is None:
            written = [player.played().counting(day) for player in players]
        else:
            written = [
                player.rated(change.rating_after)
                .counting(day)
                .with_recent_game(game.played_at, now, ladder.ruleset)
                for player, change in zip(players, rating.players, strict=True)
            ]
        stored = StoredGame(
            ladder=ladder.ladder_id,
            game_id=game.game_id,
            fingerprint=game.fingerprint,
            result=json_of(result),
            expires_at=now + self.context.settings.game_retention,
        )
        retention = self.context.settings.history_retention
        events = [
            PlayerEvent.of(
                player,
                GameEvent.of(result, index, resolved[1 - index]),
                retention,
                kept_until=stored.expires_at,
            )
            for index, player in enumerate(players)
        ]
        # Each state is written over the version read: an erasure that marked one meanwhile
        # does not see the game land after its mark.
        return commit_once(
            stored,
            conflict,
            # An expired record is replaced, as if TTL had deleted it already.
            lambda: self.writes.commit_game(stored, written, events, now=now),
            lambda: _unexpired(self.results.get_game(stored.ladder, stored.game_id), now),
        )

    def _count_day(self, players: Sequence[Player], now: datetime) -> str:
        """The UTC day the game counts on; PlayerDailyLimit when a player has had the day's
        most games already."""
        day = now.astimezone(UTC).date().isoformat()
        limit = self.context.settings.daily_game_limit
        for position, player in enumerate(players):
            if player.games_on(day) >= limit:
                raise PlayerDailyLimit(position, limit)
        return day


def _unexpired(stored: StoredGame | None, now: datetime) -> StoredGame | None:
    """A game's record, unless it has expired (TTL deletes late): then it counts as gone."""
    return stored if stored is not None and stored.expires_at > now else None
