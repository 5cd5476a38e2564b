"""Read a player's history: their games and podium bonuses, newest first, page by page."""

from ratings.service import cursors
from ratings.service.ladders import Ladders
from ratings.service.parameters import DEFAULT_HISTORY_LIMIT, page_limit, require_id
from ratings.service.ports import HistoryView, Writes
from ratings.service.results import History, json_of
from ratings.service.settings import Clock
from ratings.service.stored import JsonObject, PlayerEvent


class ReadHistory:
    def __init__(
        self, ladders: Ladders, writes: Writes, history: HistoryView, clock: Clock
    ) -> None:
        self.ladders = ladders
        # Resolves a linked anonymous id to its account.
        self.writes = writes
        self.history = history
        self.clock = clock

    def __call__(
        self, ladder_id: str, player_id: str, limit: object = None, cursor: object = None
    ) -> JsonObject:
        ladder = self.ladders.get(ladder_id)
        require_id(player_id, "player_id")
        page_size = page_limit(limit, DEFAULT_HISTORY_LIMIT)
        resolved = self.writes.resolve(player_id)
        after = cursors.decode_history_cursor(cursor, ladder.ladder_id, resolved)
        now = self.clock()
        # One event more than the page, so next_cursor is given only when a next page has
        # events; expired events (TTL deletes late) are skipped as if already gone.
        events: list[PlayerEvent] = []
        while len(events) <= page_size:
            page = self.history.history(
                ladder.ladder_id, resolved, page_size + 1 - len(events), after
            )
            events.extend(event for event in page.events if event.expires_at > now)
            if not page.more or not page.events:
                break
            last = page.events[-1]
            after = (last.at, last.event_type, last.ref_id)
        next_cursor = None
        if len(events) > page_size:
            last = events[page_size - 1]
            next_cursor = cursors.history_cursor(
                ladder.ladder_id, resolved, last.at, last.event_type, last.ref_id
            )
        answer = History(
            player_id=resolved,
            ladder=ladder.ladder_id,
            events=[event.body for event in events[:page_size]],
            next_cursor=next_cursor,
        )
        return json_of(answer)
