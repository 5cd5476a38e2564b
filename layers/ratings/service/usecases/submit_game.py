"""Submit a game: rate it once per game id, and answer a retry with the stored result.

An attempt reads the game's record, the players' links and states and their windows,
computes with the rules, and commits with the versions it read; if another writer got there
first the whole attempt is redone (`Retrier`), so a result is always computed from the state
it replaces. Nothing here knows which rulesets exist: a game's own fields go from the parsed
body to the ruleset and into the result as they are.
"""

from datetime import datetime

from ratings.rules import GameInput, Ladder, parse_game
from ratings.rules.submission import check_age
from ratings.service.errors import AlreadyStored, GameConflict, WriteConflict
from ratings.service.game_rating import evaluate, why_unranked
from ratings.service.ladders import Ladders
from ratings.service.player_reads import RecentWindow, players_of, resolve_pair
from ratings.service.ports import ResultsView, Writes
from ratings.service.results import GameEvent, Submitted, json_of
from ratings.service.retries import Retrier
from ratings.service.settings import Clock, Settings
from ratings.service.stored import PlayerEvent, StoredGame


class SubmitGame:
    def __init__(
        self,
        ladders: Ladders,
        writes: Writes,
        results: ResultsView,
        window: RecentWindow,
        retrier: Retrier,
        clock: Clock,
        settings: Settings,
    ) -> None:
        self.ladders = ladders
        self.writes = writes
        self.results = results
        self.window = window
        self.retrier = retrier
        self.clock = clock
        self.settings = settings

    def __call__(self, ladder_id: str, body: object) -> Submitted:
        """Rate a game once. A retry with the same content returns the stored result."""
        ladder = self.ladders.get(ladder_id)
        now = self.clock()
        game = parse_game(body, ladder.ruleset, now, enforce_age=False)
        return self.retrier.run("game", lambda: self._attempt(ladder, game, now))

    def _attempt(self, ladder: Ladder, game: GameInput, now: datetime) -> Submitted:
        assert game.game_id is not None
        ids = [player.player_id for player in game.players]
        reads = self.writes.read_for_game(ladder.ladder_id, game.game_id, ids)
        # An expired record still present (TTL deletes late) counts as gone, as it will be.
        if reads.game is not None and reads.game.expires_at > now:
            return _replay(reads.game, game)
        # Checked only now: a retry of a stored game is answered however old its played_at.
        check_age(game.played_at, now, "played_at")
        resolved = resolve_pair(ids, reads.links)
        players = players_of(self.writes, ladder, resolved, reads.links, reads.states)
        reason = why_unranked(game)
        states = [
            player.before_game(
                0 if reason else self.window.ranked_games(ladder.ruleset, player, game.played_at)
            )
            for player in players
        ]
        result, rating = evaluate(ladder, ladder.ruleset, game, states, reason)
        rated = []
        if rating is not None:
            rated = [
                player.rated(change.rating_after)
                for player, change in zip(players, rating.players, strict=True)
            ]
        events = [
            PlayerEvent.of_game(
                player,
                game_id=game.game_id,
                played_at=game.played_at,
                ranked=reason is None,
                body=json_of(GameEvent.of(result, index, resolved[1 - index])),
                kept_for=self.settings.history_retention,
            )
            for index, player in enumerate(players)
        ]
        answer = json_of(result)
        stored = StoredGame(
            ladder=ladder.ladder_id,
            game_id=game.game_id,
            fingerprint=game.fingerprint,
            result=answer,
            expires_at=now + self.settings.game_retention,
        )
        try:
            self.writes.commit_game(stored, rated, events)
        except AlreadyStored:
            existing = self.results.get_game(ladder.ladder_id, game.game_id)
            if existing is None:  # stored and gone again between two reads: try afresh
                raise WriteConflict(game.game_id) from None
            return _replay(existing, game)
        return Submitted(answer, created=True)


def _replay(stored: StoredGame, game: GameInput) -> Submitted:
    if stored.fingerprint != game.fingerprint:
        raise GameConflict(
            f"game_id {game.game_id!r} was already used with different content; "
            "send a retry with identical content, or use a new game_id"
        )
    return Submitted(stored.result, created=False)
