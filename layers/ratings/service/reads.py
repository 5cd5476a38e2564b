"""Reads of a ladder's players: a player's state and standing, their history, the leaderboard
(from the top, from a cursor, or around a player)."""

from datetime import timedelta

from ratings.rules import InvalidInput, PlayerState
from ratings.service import documents
from ratings.service.inputs import require_id
from ratings.service.ports import JsonObject, PlayerEvent
from ratings.service.standings import StandingUseCases

DEFAULT_HISTORY_LIMIT = 50
DEFAULT_LEADERBOARD_LIMIT = 100
MAX_PAGE = 100


class ReadUseCases(StandingUseCases):
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
            "standing": self.standing(ladder.ladder_id, record),
        }

    def get_history(
        self, ladder_id: str, player_id: str, limit: object = None, cursor: object = None
    ) -> JsonObject:
        ladder = self.ladder(ladder_id)
        require_id(player_id, "player_id")
        page_size = page_limit(limit, DEFAULT_HISTORY_LIMIT)
        resolved = self._storage.resolve(player_id)
        after = documents.decode_history_cursor(cursor, ladder.ladder_id, resolved)
        now = self._clock()
        # One event more than the page, so next_cursor is given only when a next page has
        # events; expired events (TTL deletes late) are skipped as if already gone.
        events: list[PlayerEvent] = []
        while len(events) <= page_size:
            page = self._storage.history(
                ladder.ladder_id, resolved, page_size + 1 - len(events), after
            )
            events.extend(event for event in page.events if event.expires_at > now)
            if not page.more or not page.events:
                break
            last = page.events[-1]
            after = (last.at, last.kind, last.ref_id)
        next_cursor = None
        if len(events) > page_size:
            last = events[page_size - 1]
            next_cursor = documents.history_cursor(
                ladder.ladder_id, resolved, last.at, last.kind, last.ref_id
            )
        return {
            "player_id": resolved,
            "ladder": ladder.ladder_id,
            "events": [event.body for event in events[:page_size]],
            "next_cursor": next_cursor,
        }

    def get_leaderboard(
        self, ladder_id: str, limit: object = None, cursor: object = None, around: object = None
    ) -> JsonObject:
        ladder = self.ladder(ladder_id)
        page_size = page_limit(limit, DEFAULT_LEADERBOARD_LIMIT)
        if around is not None:
            if cursor is not None:
                raise InvalidInput(
                    "around", "around and cursor cannot be used together: around starts a page"
                )
            return self.leaderboard_around(ladder.ladder_id, around, page_size)
        rank_offset, after = documents.decode_leaderboard_cursor(cursor, ladder.ladder_id)
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
            next_cursor = documents.leaderboard_cursor(
                ladder.ladder_id, rank_offset + len(rows), last.rating, last.player_id
            )
        return {"ladder": ladder.ladder_id, "entries": entries, "next_cursor": next_cursor}


def page_limit(limit: object, default: int) -> int:
    if limit is None:
        return default
    if isinstance(limit, str) and limit.isdigit() and len(limit) <= 6:
        limit = int(limit)
    if isinstance(limit, bool) or not isinstance(limit, int) or not 1 <= limit <= MAX_PAGE:
        raise InvalidInput("limit", f"limit must be an integer from 1 to {MAX_PAGE}")
    return limit
