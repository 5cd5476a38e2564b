"""Rating a history from scratch, in played_at order, the way the service would have.

The replayer keeps what the service keeps per player (rating, ranked games, the played_at of
recent ranked games) and asks the rules package for each game. Its output is again the
export format: the input record with the rating fields rewritten, so a replayed file can be
calibrated, compared or replayed again. Unranked games stay unranked, for the reason recorded.
"""

from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, NamedTuple

from ratings.declare.kinds import Field
from ratings.declare.kinds import Object as FieldObject
from ratings.rules import Game, InvalidInput, PlayerState, Ruleset
from ratings.service.game_result import RatingOutcome
from ratings.service.results import json_of
from ratings_cli.calibration_figures import SpreadFigures
from ratings_cli.records import GameLine, InputError, Record, score_of


@dataclass
class Track:
    """One player as the replay goes: the state the rules need and a few running totals."""

    rating: int
    ranked_games: int = 0
    #: played_at of the ranked games still inside the recent window, oldest first.
    recent: deque[datetime] = field(default_factory=deque)
    wins: float = 0.0
    expected: float = 0.0
    points: int = 0
    last_played: datetime | None = None

    def recent_before(self, at: datetime, window: timedelta) -> int:
        """Ranked games with at - window <= played_at < at (the game itself never counts)."""
        while self.recent and self.recent[0] < at - window:
            self.recent.popleft()
        count = len(self.recent)
        # Games at the very same instant were replayed first but are not "before" this one.
        for played in reversed(self.recent):
            if played < at:
                break
            count -= 1
        return count


class ReplayedPlayer(NamedTuple):
    """A row of the replay's final table, as `--json` and `--table-out` write it."""

    rank: int
    player_id: str
    rating: int
    ranked_games: int
    wins: float
    #: The shares of their ranked games won and expected, to 4 digits.
    win_share: float | None
    expected_share: float | None
    points: int
    #: The played_at of their last ranked game, as `datetime.isoformat` writes it.
    last_played: str | None


class ReplaySummary(NamedTuple):
    """What `ratings replay` reports of a replay (as JSON with `--json`)."""

    ladder: str
    ruleset: str
    ruleset_version: str
    parameters: Mapping[str, object]
    games: int
    ranked_games: int
    players: int
    spread: SpreadFigures | None
    table: list[ReplayedPlayer]


@dataclass(frozen=True)
class TableRow:
    rank: int
    player_id: str
    rating: int
    ranked_games: int
    wins: float
    expected: float
    points: int
    last_played: datetime | None

    @property
    def win_share(self) -> float | None:
        return self.wins / self.ranked_games if self.ranked_games else None

    @property
    def expected_share(self) -> float | None:
        return self.expected / self.ranked_games if self.ranked_games else None

    def replayed(self) -> ReplayedPlayer:
        return ReplayedPlayer(
            self.rank,
            self.player_id,
            self.rating,
            self.ranked_games,
            self.wins,
            _round(self.win_share),
            _round(self.expected_share),
            self.points,
            self.last_played.isoformat() if self.last_played else None,
        )


def _round(value: float | None, digits: int = 4) -> float | None:
    return None if value is None else round(value, digits)


class Replayer:
    """Rates games one after another under one ruleset; feed them in played_at order."""

    def __init__(self, ladder_id: str, ruleset: Ruleset) -> None:
        self.ladder_id = ladder_id
        self.ruleset = ruleset
        self.players: dict[str, Track] = {}
        self.games = 0
        self.ranked = 0
        self._window = timedelta(days=ruleset.recent_window_days or 7)
        self._last: tuple[datetime, str] | None = None

    def track(self, player_id: str) -> Track:
        track = self.players.get(player_id)
        if track is None:
            track = self.players[player_id] = Track(self.ruleset.starting_rating)
        return track

    def rate(self, game: GameLine) -> Record:
        """The game's result under this replay's rules, in the export format."""
        key = game.sort_key()
        if self._last is not None and key < self._last:
            raise InputError(f"{game.where()}: games must be replayed in played_at order")
        self._last = key
        record = game.record
        ranked = bool(record.get("ranked", True))
        entries = record["players"]
        tracks = [self.track(entry["id"]) for entry in entries]
        states = tuple(
            PlayerState(
                entry["id"],
                track.rating,
                track.ranked_games,
                self._recent(track, game.played_at) if ranked else 0,
            )
            for entry, track in zip(entries, tracks, strict=True)
        )
        winner = record.get("winner")
        if winner is None and not self.ruleset.draws_allowed:
            raise InputError(
                f"{game.where('winner')}: winner must be one of the players' ids: "
                f"ruleset {self.ruleset.name} has no draws"
            )
        try:  # the ruleset's own fields, checked as the service checks them
            options = _own_fields(self.ruleset.game_fields, record, "")
            player_options = tuple(
                _own_fields(self.ruleset.player_fields, entry, f"players[{index}]")
                for index, entry in enumerate(entries)
            )
        except InvalidInput as error:
            raise InputError(f"{game.where(error.field)}: {error.message}") from None
        rules_game = Game(
            players=(states[0], states[1]),
            winner=winner,
            options=options,
            player_options=(player_options[0], player_options[1]),
        )
        changes = self.ruleset.rate(rules_game).players if ranked else None
        players = []
        for index, (entry, state) in enumerate(zip(entries, states, strict=True)):
            outcome = RatingOutcome.of(state.rating, changes[index] if changes else None)
            # The record's own fields stay as they are; the rating fields are the replay's.
            players.append({**entry, **json_of(outcome)})
        self.games += 1
        if changes is not None:
            self.ranked += 1
            for index, track in enumerate(tracks):
                change = changes[index]
                expected = change.explain.get("expected")
                track.rating = change.rating_after
                track.ranked_games += 1
                if self.ruleset.recent_games_needed is not None:
                    track.recent.append(game.played_at)
                track.wins += score_of(game, index)
                track.expected += float(expected) if isinstance(expected, int | float) else 0.5
                track.points += change.delta
                track.last_played = game.played_at
        result = dict(record)
        result["ladder"] = record.get("ladder", self.ladder_id)
        result["ruleset"] = self.ruleset.name
        result["ruleset_version"] = self.ruleset.version
        result["players"] = players
        return result

    def _recent(self, track: Track, at: datetime) -> int:
        # As the service: the count only as far as the K rule needs it, 0 when it never looks.
        limit = self.ruleset.recent_games_needed
        if limit is None:
            return 0
        return min(track.recent_before(at, self._window), limit)

    def table(self) -> list[TableRow]:
        """Players with at least one ranked game, rating descending, ties by player id."""
        ordered = sorted(
            ((pid, track) for pid, track in self.players.items() if track.ranked_games),
            key=lambda item: (-item[1].rating, item[0]),
        )
        return [
            TableRow(
                rank,
                pid,
                track.rating,
                track.ranked_games,
                track.wins,
                track.expected,
                track.points,
                track.last_played,
            )
            for rank, (pid, track) in enumerate(ordered, start=1)
        ]


def _own_fields(fields: tuple[Field, ...], values: Record, where: str) -> dict[str, Any]:
    """The ruleset's own fields of a stored game or player, absent or null ones defaulted
    (files converted from other sources may leave them out)."""
    present = {
        entry.name: values[entry.name] for entry in fields if values.get(entry.name) is not None
    }
    parsed: dict[str, Any] = FieldObject(fields, "a stored game").parse(present, where)
    return parsed
