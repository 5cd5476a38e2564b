"""Games: rate a submitted game once, preview one, read a stored one.

Rating reads the states and window counts, computes with the rules, and commits with the
versions it read; if another writer got there first the whole attempt is re-read and redone,
so a result is always computed from the state it replaces. Nothing here knows which rulesets
exist: a game's own fields go from the parsed body to the ruleset and into the result as
they are.
"""

from collections.abc import Sequence
from datetime import datetime

from ratings.rules import (
    Game,
    GameInput,
    Ladder,
    PlayerState,
    Rating,
    Ruleset,
    parse_game,
    unranked_reason,
)
from ratings.rules.submission import check_age
from ratings.service import documents
from ratings.service.base import ServiceBase, Submitted
from ratings.service.errors import GameConflict, NotFound
from ratings.service.inputs import require_id
from ratings.service.ports import (
    AlreadyStored,
    JsonObject,
    PlayerEvent,
    StateWrite,
    StoredGame,
    WriteConflict,
)


class GameUseCases(ServiceBase):
    def submit_game(self, ladder_id: str, body: object) -> Submitted:
        """Rate a game once. A retry with the same content returns the stored result."""
        ladder = self.ladder(ladder_id)
        now = self._clock()
        game = parse_game(body, ladder.ruleset, now, enforce_age=False)
        return self._with_retries("game", lambda: self._submit_once(ladder, game, now))

    def preview_game(self, ladder_id: str, body: object) -> JsonObject:
        """What the game would change, with optional overrides; nothing is stored."""
        ladder = self.ladder(ladder_id)
        now = self._clock()
        versions = tuple(ladder.versions)
        game = parse_game(body, ladder.ruleset, now, preview_versions=versions)
        ruleset = ladder.ruleset
        if game.ruleset_version is not None:
            ruleset = ladder.at_version(game.ruleset_version)
        ids = [player.player_id for player in game.players]
        reads = self._storage.read_for_game(ladder.ladder_id, None, ids)
        resolved = self._resolve_pair(ids, reads.links)
        records = self._records(ladder, resolved, reads.links, reads.states)
        states = []
        for player, record in zip(game.players, records, strict=True):
            overrides = player.overrides
            recent = overrides.get("recent_ranked_games")
            if recent is None:
                recent = self._recent(ladder, ruleset, record, game.played_at)
            rating = overrides.get("rating", record.rating)
            ranked_games = overrides.get("ranked_games", record.ranked_games)
            states.append(PlayerState(record.player_id, rating, ranked_games, recent))
        result, _rating = self._evaluate(ladder, ruleset, game, states, self._unranked(game))
        result["preview"] = True
        return result

    def get_game(self, ladder_id: str, game_id: str) -> JsonObject:
        ladder = self.ladder(ladder_id)
        require_id(game_id, "game_id")
        stored = self._storage.get_game(ladder.ladder_id, game_id)
        if stored is None or stored.expires_at <= self._clock():
            raise NotFound(f"game {game_id!r} is not stored in ladder {ladder_id!r}")
        return stored.result

    def _submit_once(self, ladder: Ladder, game: GameInput, now: datetime) -> Submitted:
        assert game.game_id is not None
        ids = [player.player_id for player in game.players]
        reads = self._storage.read_for_game(ladder.ladder_id, game.game_id, ids)
        # An expired record still present (TTL deletes late) counts as gone, as it will be.
        if reads.game is not None and reads.game.expires_at > now:
            return self._replay(reads.game, game)
        # Checked only now: a retry of a stored game is answered however old its played_at.
        check_age(game.played_at, now, "played_at")
        resolved = self._resolve_pair(ids, reads.links)
        records = self._records(ladder, resolved, reads.links, reads.states)
        ruleset = ladder.ruleset
        reason = self._unranked(game)
        states = [
            PlayerState(
                record.player_id,
                record.rating,
                record.ranked_games,
                0 if reason else self._recent(ladder, ruleset, record, game.played_at),
            )
            for record in records
        ]
        result, rating = self._evaluate(ladder, ruleset, game, states, reason)
        writes = []
        if rating is not None:
            writes = [
                StateWrite(
                    ladder.ladder_id,
                    record.player_id,
                    record.version,
                    change.rating_after,
                    record.ranked_games + 1,
                    record.absorbed_id,
                )
                for record, change in zip(records, rating.players, strict=True)
            ]
        events = [
            PlayerEvent(
                ladder=ladder.ladder_id,
                player_id=resolved[index],
                at=game.played_at,
                kind="game",
                ref_id=game.game_id,
                ranked=reason is None,
                body=documents.game_event(result, index, resolved[1 - index]),
                expires_at=game.played_at + self._settings.history_retention,
            )
            for index in range(2)
        ]
        stored = StoredGame(
            ladder.ladder_id,
            game.game_id,
            game.fingerprint,
            result,
            now + self._settings.game_retention,
        )
        try:
            # An expired record is replaced, as if TTL had deleted it already.
            self._storage.commit_game(stored, writes, events, now=now)
        except AlreadyStored:
            existing = self._storage.get_game(ladder.ladder_id, game.game_id)
            if existing is None or existing.expires_at <= now:  # gone again: try afresh
                raise WriteConflict(game.game_id) from None
            return self._replay(existing, game)
        return Submitted(result, created=True)

    @staticmethod
    def _replay(stored: StoredGame, game: GameInput) -> Submitted:
        if stored.fingerprint != game.fingerprint:
            raise GameConflict(
                f"game_id {game.game_id!r} was already used with different content; "
                "send a retry with identical content, or use a new game_id"
            )
        return Submitted(stored.result, created=False)

    @staticmethod
    def _unranked(game: GameInput) -> str | None:
        bots = (game.players[0].bot, game.players[1].bot)
        networks = (game.players[0].network, game.players[1].network)
        return unranked_reason(game.mode, bots, networks)

    @staticmethod
    def _evaluate(
        ladder: Ladder,
        ruleset: Ruleset,
        game: GameInput,
        states: Sequence[PlayerState],
        reason: str | None,
    ) -> tuple[JsonObject, Rating | None]:
        """The result document of a game under `ruleset`, and the rating unless `reason`
        (why the game is unranked) is given."""
        winner = game.winner
        if winner is not None:  # the winner as resolved (an anonymous id may be an account)
            winner = states[[p.player_id for p in game.players].index(winner)].player_id
        rules_game = Game(
            players=(states[0], states[1]),
            winner=winner,
            options=game.options,
            player_options=(game.players[0].options, game.players[1].options),
        )
        rating = None if reason else ruleset.rate(rules_game)
        result = documents.game_result(
            ladder.ladder_id, ruleset, game, states, winner, reason, rating
        )
        return result, rating
