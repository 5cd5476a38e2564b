"""Read a player's history: their games and podium bonuses, newest first, page by page."""

from typing import NamedTuple

from ratings.service import cursors
from ratings.service.context import Context
from ratings.service.parameters import DEFAULT_HISTORY_LIMIT, page_limit, require_id
from ratings.service.ports import HistoryView, Writes
from ratings.service.results import History, JsonObject, json_of
from ratings.service.stored import PlayerEvent


class ReadHistory(NamedTuple):
    """Pages through a player's events in `history`, skipping those past their
    retention."""

    context: Context
    #: Resolves a linked anonymous id to its account.
    writes: Writes
    history: HistoryView

    def run(
        self, ladder_id: str, player_id: str, limit: object = None, cursor: object = None
    ) -> JsonObject:
        ladder = self.context.ladder(ladder_id)
        require_id(player_id, "player_id")
        page_size = page_limit(limit, DEFAULT_HISTORY_LIMIT)
        resolved = self.writes.resolve(player_id)
        after = cursors.decode_history_cursor(cursor, ladder.ladder_id, resolved)
        now = self.context.now()
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
