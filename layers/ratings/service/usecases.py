"""The use cases: rate, preview, read, link, award. Plain values in, plain values out.

Every write is one atomic commit through the storage port. Rating a game reads the states and
window counts, computes with the rules, and commits with the versions it read; if another
writer got there first the whole attempt is re-read and redone, so a result is always computed
from the state it replaces.
"""

import base64
import binascii
import json
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from ratings.rules import (
    Game,
    InvalidInput,
    Ladder,
    PlayerState,
    Rating,
    Ruleset,
    SedmaStats,
    unranked_reason,
)
from ratings.service.errors import (
    AlreadyLinked,
    GameConflict,
    NotFound,
    RetryLater,
    TournamentConflict,
)
from ratings.service.inputs import (
    GameInput,
    PodiumInput,
    check_age,
    parse_game,
    parse_link,
    parse_podium,
    require_id,
    utc_now,
)
from ratings.service.ports import (
    AlreadyStored,
    JsonObject,
    Link,
    PlayerEvent,
    PlayerRecord,
    StateWrite,
    Storage,
    StoredGame,
    StoredTournament,
    TransientStorageError,
    WriteConflict,
)

#: Digits kept of the formula's fractional inputs in answers (expected score, coefficient...).
EXPLAIN_DIGITS = 4
#: A cap on any window count, for rulesets that never look at it (only shown to callers).
DISPLAY_RECENT_LIMIT = 1000
DEFAULT_HISTORY_LIMIT = 50
DEFAULT_LEADERBOARD_LIMIT = 100
MAX_PAGE = 100


@dataclass(frozen=True)
class RetryPolicy:
    """Bounded retries with full jitter: attempt n sleeps uniform(0, min(cap, base * 2**n))."""

    attempts: int = 8
    base_seconds: float = 0.01
    cap_seconds: float = 0.4

    def delay(self, attempt: int, rng: random.Random) -> float:
        return rng.uniform(0, min(self.cap_seconds, self.base_seconds * 2**attempt))


@dataclass(frozen=True)
class Settings:
    #: How long per-player history records live (their TTL), counted from the event's time.
    history_retention: timedelta = timedelta(days=30)
    #: How long a game's record (and so duplicate detection) lives, counted from receipt.
    game_retention: timedelta = timedelta(days=30)


@dataclass(frozen=True)
class Submitted:
    """The answer to a submitted game: the result, and whether this call stored it."""

    result: JsonObject
    created: bool


def describe_ladders(ladders: Mapping[str, Ladder]) -> JsonObject:
    """The ladders, their rulesets and parameters (GET /v1/ladders): configuration only, so
    it needs no storage."""
    return {
        "ladders": [
            {
                "id": ladder.ladder_id,
                "ruleset": ladder.ruleset.name,
                "version": ladder.ruleset.version,
                "starting_rating": ladder.starting_rating,
                "podium_bonuses": list(ladder.podium_bonuses),
                "parameters": dict(ladder.ruleset.parameters()),
            }
            for ladder in ladders.values()
        ]
    }


class RatingService:
    """The rating service's use cases over an injected storage and ladder configuration."""

    def __init__(
        self,
        storage: Storage,
        ladders: Mapping[str, Ladder],
        *,
        settings: Settings | None = None,
        clock: Callable[[], datetime] = utc_now,
        retry: RetryPolicy | None = None,
        sleep: Callable[[float], None] = time.sleep,
        rng: random.Random | None = None,
        on_retry: Callable[[str], None] | None = None,
    ) -> None:
        self._storage = storage
        self._ladders = ladders
        self._settings = settings or Settings()
        self._clock = clock
        self._retry = retry or RetryPolicy()
        self._sleep = sleep
        self._rng = rng or random.Random()
        self._on_retry = on_retry
        #: Conflicts retried since this service was made (for metrics and reports).
        self.retries = 0

    # Ladders -----------------------------------------------------------------------------

    def ladders(self) -> JsonObject:
        return describe_ladders(self._ladders)

    def ladder(self, ladder_id: str) -> Ladder:
        ladder = self._ladders.get(ladder_id)
        if ladder is None:
            known = ", ".join(self._ladders)
            raise NotFound(f"ladder {ladder_id!r} does not exist; ladders: {known}")
        return ladder

    # Games -------------------------------------------------------------------------------

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
        game = parse_game(body, ladder.ruleset, now, preview=True)
        ruleset = ladder.ruleset
        if game.ruleset_version is not None:
            ruleset = ladder.at_version(game.ruleset_version)
        ids = [player.player_id for player in game.players]
        reads = self._storage.read_for_game(ladder.ladder_id, None, ids)
        resolved = self._resolve_pair(ids, reads.links)
        records = self._records(ladder, resolved, reads.links, reads.states)
        states = []
        for player, record in zip(game.players, records, strict=True):
            rating = record.rating if player.rating is None else player.rating
            ranked_games = (
                record.ranked_games if player.ranked_games is None else player.ranked_games
            )
            if player.recent_ranked_games is not None:
                recent = player.recent_ranked_games
            else:
                recent = self._recent(ladder, ruleset, record, game.played_at)
            states.append(PlayerState(record.player_id, rating, ranked_games, recent))
        reason = self._unranked_reason(game)
        result, _rating = self._evaluate(ladder, ruleset, game, states, reason)
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
        reason = self._unranked_reason(game)
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
        events = [self._game_event(ladder, game, result, index, resolved) for index in range(2)]
        stored = StoredGame(
            ladder.ladder_id,
            game.game_id,
            game.fingerprint,
            result,
            now + self._settings.game_retention,
        )
        try:
            self._storage.commit_game(stored, writes, events)
        except AlreadyStored:
            existing = self._storage.get_game(ladder.ladder_id, game.game_id)
            if existing is None:  # stored and gone again between two reads: try afresh
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
    def _unranked_reason(game: GameInput) -> str | None:
        bots = (game.players[0].bot, game.players[1].bot)
        networks = (game.players[0].network, game.players[1].network)
        return unranked_reason(game.mode, bots, networks)

    def _evaluate(
        self,
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
        stats: tuple[SedmaStats, SedmaStats] | None = None
        if ruleset.name == "sedma":
            stats = (
                game.players[0].stats or SedmaStats(),
                game.players[1].stats or SedmaStats(),
            )
        rules_game = Game(
            players=(states[0], states[1]),
            winner=winner,
            cube=game.cube or 1,
            stats=stats,
        )
        ruleset.validate(rules_game)
        rating = None if reason else ruleset.rate(rules_game)
        players = []
        for index, (player, state) in enumerate(zip(game.players, states, strict=True)):
            entry: JsonObject = {
                "id": state.player_id,
                "rating_before": state.rating,
                "rating_after": state.rating,
                "delta": 0,
                "explain": None,
                "bot": player.bot,
            }
            if state.player_id != player.player_id:
                entry["submitted_id"] = player.player_id
            if player.stats is not None or ruleset.name == "sedma":
                entry["stats"] = _stats_dict(stats[index] if stats else None)
            if rating is not None:
                change = rating.players[index]
                entry["rating_after"] = change.rating_after
                entry["delta"] = change.delta
                entry["explain"] = _explain(change.explain)
            players.append(entry)
        result: JsonObject = {
            "game_id": game.game_id,
            "ladder": ladder.ladder_id,
            "played_at": _timestamp(game.played_at),
            "ruleset": ruleset.name,
            "ruleset_version": ruleset.version,
            "ranked": reason is None,
            "unranked_reason": reason,
            "winner": winner,
            "mode": game.mode,
            "players": players,
        }
        if ruleset.name == "gammon42":
            result.update(cube=game.cube or 1, ending=game.ending, points=game.points)
        return result, rating

    def _game_event(
        self,
        ladder: Ladder,
        game: GameInput,
        result: JsonObject,
        index: int,
        resolved: Sequence[str],
    ) -> PlayerEvent:
        assert game.game_id is not None
        player = result["players"][index]
        body = {
            "type": "game",
            "game_id": game.game_id,
            "at": result["played_at"],
            "opponent": resolved[1 - index],
            "ranked": result["ranked"],
            "unranked_reason": result["unranked_reason"],
            "delta": player["delta"],
            "rating_after": player["rating_after"],
            "explain": player["explain"],
        }
        return PlayerEvent(
            ladder=ladder.ladder_id,
            player_id=resolved[index],
            at=game.played_at,
            kind="game",
            ref_id=game.game_id,
            ranked=bool(result["ranked"]),
            body=body,
            expires_at=game.played_at + self._settings.history_retention,
        )

    # Players -----------------------------------------------------------------------------

    def get_player(self, ladder_id: str, player_id: str) -> JsonObject:
        ladder = self.ladder(ladder_id)
        require_id(player_id, "player_id")
        reads = self._storage.read_for_game(ladder.ladder_id, None, [player_id])
        resolved = reads.links.get(player_id, player_id)
        (record,) = self._records(ladder, [resolved], reads.links, reads.states)
        # The window of a game played now, games stored at this very millisecond included.
        until = self._clock() + timedelta(milliseconds=1)
        recent = self._recent(ladder, ladder.ruleset, record, until, display=True)
        state = PlayerState(record.player_id, record.rating, record.ranked_games, recent)
        return {
            "player_id": record.player_id,
            "ladder": ladder.ladder_id,
            "rating": record.rating,
            "ranked_games": record.ranked_games,
            "recent_ranked_games": recent,
            "k": ladder.ruleset.k_for(state),
            "provisional": ladder.ruleset.provisional(state),
        }

    def get_history(
        self, ladder_id: str, player_id: str, limit: object = None, cursor: object = None
    ) -> JsonObject:
        ladder = self.ladder(ladder_id)
        require_id(player_id, "player_id")
        page_size = _page_limit(limit, DEFAULT_HISTORY_LIMIT)
        if cursor is not None and (not isinstance(cursor, str) or len(cursor) > 1024):
            raise InvalidInput("cursor", "cursor must be a next_cursor from a previous page")
        resolved = self._storage.resolve(player_id)
        page = self._storage.history(ladder.ladder_id, resolved, page_size, cursor)
        now = self._clock()
        return {
            "player_id": resolved,
            "ladder": ladder.ladder_id,
            "events": [event.body for event in page.events if event.expires_at > now],
            "next_cursor": page.next_cursor,
        }

    def get_leaderboard(
        self, ladder_id: str, limit: object = None, cursor: object = None
    ) -> JsonObject:
        ladder = self.ladder(ladder_id)
        page_size = _page_limit(limit, DEFAULT_LEADERBOARD_LIMIT)
        rank_offset, after = _decode_leaderboard_cursor(cursor)
        rows = list(self._storage.leaderboard(ladder.ladder_id, page_size + 1, after))
        more = len(rows) > page_size
        rows = rows[:page_size]
        entries = [
            {
                "rank": rank_offset + position,
                "player_id": row.player_id,
                "rating": row.rating,
                "ranked_games": row.ranked_games,
            }
            for position, row in enumerate(rows, start=1)
        ]
        next_cursor = None
        if more and rows:
            last = rows[-1]
            next_cursor = _encode_cursor(
                {"n": rank_offset + len(rows), "r": last.rating, "p": last.player_id}
            )
        return {"ladder": ladder.ladder_id, "entries": entries, "next_cursor": next_cursor}

    # Tournaments -------------------------------------------------------------------------

    def get_tournament(self, ladder_id: str, tournament_id: str) -> JsonObject:
        ladder = self.ladder(ladder_id)
        require_id(tournament_id, "tournament_id")
        stored = self._storage.get_tournament(ladder.ladder_id, tournament_id)
        if stored is None:
            raise NotFound(f"tournament {tournament_id!r} has not been awarded in {ladder_id!r}")
        return stored.result

    def award_podium(self, body: object) -> Submitted:
        """Pay a tournament's podium bonuses once per tournament id (public tournaments only)."""
        podium = parse_podium(body, self._clock())
        ladder = self.ladder(podium.ladder)
        return self._with_retries("podium", lambda: self._award_once(ladder, podium))

    def _award_once(self, ladder: Ladder, podium: PodiumInput) -> Submitted:
        existing = self._storage.get_tournament(ladder.ladder_id, podium.tournament_id)
        if existing is not None:
            return self._replay_tournament(existing, podium)
        ids = [player_id for _place, player_id in podium.podium]
        reads = self._storage.read_for_game(ladder.ladder_id, None, ids)
        resolved = [reads.links.get(player_id, player_id) for player_id in ids]
        if len(set(resolved)) != len(resolved):
            raise InvalidInput("podium", "podium players must be different people (after linking)")
        records = self._records(ladder, resolved, reads.links, reads.states)
        awards: list[JsonObject] = []
        writes: list[StateWrite] = []
        events: list[PlayerEvent] = []
        at = _timestamp(podium.finished_at)
        for (place, submitted_id), record in zip(podium.podium, records, strict=True):
            bonus = ladder.podium_bonus(place) if podium.public else 0
            award: JsonObject = {
                "place": place,
                "player_id": record.player_id,
                "delta": bonus,
                "rating_after": record.rating + bonus,
            }
            if submitted_id != record.player_id:
                award["submitted_id"] = submitted_id
            awards.append(award)
            if bonus == 0:
                continue
            writes.append(
                StateWrite(
                    ladder.ladder_id,
                    record.player_id,
                    record.version,
                    record.rating + bonus,
                    record.ranked_games,
                    record.absorbed_id,
                )
            )
            event_body = {
                "type": "podium_bonus",
                "tournament_id": podium.tournament_id,
                "place": place,
                "at": at,
                "delta": bonus,
                "rating_after": record.rating + bonus,
            }
            events.append(
                PlayerEvent(
                    ladder.ladder_id,
                    record.player_id,
                    podium.finished_at,
                    "podium_bonus",
                    podium.tournament_id,
                    False,
                    event_body,
                    podium.finished_at + self._settings.history_retention,
                )
            )
        result: JsonObject = {
            "tournament_id": podium.tournament_id,
            "ladder": ladder.ladder_id,
            "status": "awarded",
            "public": podium.public,
            "finished_at": at,
            "awards": awards,
        }
        tournament = StoredTournament(
            ladder.ladder_id, podium.tournament_id, podium.fingerprint, result
        )
        try:
            self._storage.commit_tournament(tournament, writes, events)
        except AlreadyStored:
            existing = self._storage.get_tournament(ladder.ladder_id, podium.tournament_id)
            if existing is None:
                raise WriteConflict(podium.tournament_id) from None
            return self._replay_tournament(existing, podium)
        return Submitted(result, created=True)

    @staticmethod
    def _replay_tournament(stored: StoredTournament, podium: PodiumInput) -> Submitted:
        if stored.fingerprint != podium.fingerprint:
            raise TournamentConflict(
                f"tournament_id {podium.tournament_id!r} was already awarded with another podium"
            )
        return Submitted(stored.result, created=False)

    # Identities --------------------------------------------------------------------------

    def link_identity(self, body: object) -> JsonObject:
        """Link an anonymous id to an account once; see rules.md for what moves."""
        anonymous_id, account_id = parse_link(body)
        return self._with_retries("link", lambda: self._link_once(anonymous_id, account_id)).result

    def _link_once(self, anonymous_id: str, account_id: str) -> Submitted:
        ladder_ids = list(self._ladders)
        reads = self._storage.read_for_link(anonymous_id, account_id, ladder_ids)
        if reads.anonymous_linked_to is not None:
            raise AlreadyLinked(f"anonymous_id {anonymous_id!r} is already linked to an account")
        if reads.account_absorbed is not None:
            raise AlreadyLinked(f"account_id {account_id!r} has already absorbed an anonymous id")
        if reads.account_linked_to is not None:
            raise AlreadyLinked(
                f"account_id {account_id!r} is an anonymous id linked to another account"
            )
        if reads.anonymous_absorbed is not None:
            raise AlreadyLinked(
                f"anonymous_id {anonymous_id!r} is an account that absorbed an anonymous id"
            )
        writes: list[StateWrite] = []
        kept: list[JsonObject] = []
        for ladder_id in ladder_ids:
            anonymous = reads.states.get((ladder_id, anonymous_id))
            account = reads.states.get((ladder_id, account_id))
            account_ranked = account.ranked_games if account else 0
            # The anonymous state is rewritten unchanged but unlisted, conditioned on the
            # version read: a game of the anonymous id committed meanwhile (or one in flight,
            # which will now conflict and re-read the link) can never be lost to the account.
            if anonymous is None:
                starting = self._ladders[ladder_id].starting_rating
                anonymous = PlayerRecord(ladder_id, anonymous_id, starting)
            writes.append(
                StateWrite(
                    ladder_id,
                    anonymous_id,
                    anonymous.version,
                    anonymous.rating,
                    anonymous.ranked_games,
                    anonymous.absorbed_id,
                    listed=False,
                )
            )
            if anonymous.version > 0 and account_ranked == 0:
                writes.append(
                    StateWrite(
                        ladder_id,
                        account_id,
                        account.version if account else 0,
                        anonymous.rating,
                        anonymous.ranked_games,
                        absorbed_id=anonymous_id,
                    )
                )
                kept.append({"ladder": ladder_id, "kept": "anonymous"})
            else:
                kept.append({"ladder": ladder_id, "kept": "account"})
        try:
            self._storage.commit_link(Link(anonymous_id, account_id), writes)
        except AlreadyStored:
            raise AlreadyLinked(
                f"anonymous_id {anonymous_id!r} or account_id {account_id!r} was linked meanwhile"
            ) from None
        result = {"anonymous_id": anonymous_id, "account_id": account_id, "ladders": kept}
        return Submitted(result, created=True)

    # Shared steps ------------------------------------------------------------------------

    def _with_retries(self, what: str, attempt: Callable[[], Submitted]) -> Submitted:
        for number in range(self._retry.attempts):
            try:
                return attempt()
            except (WriteConflict, TransientStorageError):
                self.retries += 1
                if self._on_retry is not None:
                    self._on_retry(what)
                if number + 1 < self._retry.attempts:
                    self._sleep(self._retry.delay(number, self._rng))
        raise RetryLater(
            f"the {what} could not be stored after {self._retry.attempts} attempts "
            "because of concurrent updates or throttling; retry later"
        )

    @staticmethod
    def _resolve_pair(ids: Sequence[str], links: Mapping[str, str]) -> list[str]:
        resolved = [links.get(player_id, player_id) for player_id in ids]
        if resolved[0] == resolved[1]:
            raise InvalidInput(
                "players[1].id",
                "players[1].id and players[0].id belong to the same account after linking",
            )
        return resolved

    def _records(
        self,
        ladder: Ladder,
        resolved: Sequence[str],
        links: Mapping[str, str],
        states: Mapping[str, PlayerRecord],
    ) -> list[PlayerRecord]:
        """The stored (or starting) state of each resolved id, reading accounts if needed."""
        missing = [pid for pid in resolved if pid in links.values() and pid not in states]
        extra = self._storage.read_states(ladder.ladder_id, missing) if missing else {}
        records = []
        for player_id in resolved:
            record = states.get(player_id) or extra.get(player_id)
            if record is None:
                record = PlayerRecord(ladder.ladder_id, player_id, ladder.starting_rating)
            records.append(record)
        return records

    def _recent(
        self,
        ladder: Ladder,
        ruleset: Ruleset,
        record: PlayerRecord,
        until: datetime,
        *,
        display: bool = False,
    ) -> int:
        """Ranked games of the player in the window before `until`, as far as the rule needs."""
        limit = ruleset.recent_games_needed
        if limit is None:
            if not display:
                return 0
            limit = DISPLAY_RECENT_LIMIT
        if record.version == 0:
            return 0  # never stored: no games anywhere
        window = timedelta(days=ruleset.recent_window_days or 7)
        since = until - window
        count = self._storage.count_ranked_games(
            ladder.ladder_id, record.player_id, since, until, limit
        )
        if record.absorbed_id is not None and count < limit:
            count += self._storage.count_ranked_games(
                ladder.ladder_id, record.absorbed_id, since, until, limit - count
            )
        return min(count, limit)


def _explain(values: Mapping[str, Any]) -> JsonObject:
    return {
        name: round(value, EXPLAIN_DIGITS) if isinstance(value, float) else value
        for name, value in values.items()
    }


def _stats_dict(stats: Any) -> JsonObject | None:
    if stats is None:
        return None
    return {
        "bad_moves": stats.bad_moves,
        "rounds_won_16": stats.rounds_won_16,
        "rounds_won_24": stats.rounds_won_24,
        "rounds_won_4_last": stats.rounds_won_4_last,
    }


def _timestamp(at: datetime) -> str:
    """RFC 3339 in UTC with a Z, to the millisecond (sorts as text in time order)."""
    return at.strftime("%Y-%m-%dT%H:%M:%S.") + f"{at.microsecond // 1000:03d}Z"


def _page_limit(limit: object, default: int) -> int:
    if limit is None:
        return default
    if isinstance(limit, str) and limit.isdigit() and len(limit) <= 6:
        limit = int(limit)
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_PAGE:
        raise InvalidInput("limit", f"limit must be an integer from 1 to {MAX_PAGE}")
    return limit


def _encode_cursor(position: Mapping[str, Any]) -> str:
    raw = json.dumps(position, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _decode_leaderboard_cursor(cursor: object) -> tuple[int, tuple[int, str] | None]:
    if cursor is None:
        return 0, None
    problem = InvalidInput("cursor", "cursor must be a next_cursor from a previous page")
    if not isinstance(cursor, str) or len(cursor) > 512:
        raise problem
    try:
        padded = cursor + "=" * (-len(cursor) % 4)
        position = json.loads(base64.urlsafe_b64decode(padded.encode()))
        rank, rating, player_id = position["n"], position["r"], position["p"]
    except (ValueError, KeyError, TypeError, binascii.Error):
        raise problem from None
    if not (
        isinstance(rank, int)
        and isinstance(rating, int)
        and not isinstance(rating, bool)
        and isinstance(player_id, str)
        and rank >= 0
    ):
        raise problem
    return rank, (rating, player_id)
