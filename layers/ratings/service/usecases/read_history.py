"""Read a player's history: their games and podium bonuses, newest first, page by page."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ratings.service import cursors
from ratings.service.parameters import DEFAULT_HISTORY_LIMIT, page_limit, require_id
from ratings.service.ports import HistoryView
from ratings.service.results import History, JsonObject, json_of
from ratings.service.stored import PlayerEvent
from ratings.service.unit_of_work import UnitOfWork

if TYPE_CHECKING:
    from ratings.service.facade import Context


def read_history(
    uow: UnitOfWork,
    history: HistoryView,
    context: Context,
    ladder_id: str,
    player_id: str,
    limit: object = None,
    cursor: object = None,
) -> JsonObject:
    ladder = context.ladder(ladder_id)
    require_id(player_id, "player_id")
    page_size = page_limit(limit, DEFAULT_HISTORY_LIMIT)
    resolved = uow.resolve(player_id)
    after = cursors.decode_history_cursor(cursor, ladder.ladder_id, resolved)
    # Events are shown for the history retention after their time (the store may keep
    # them longer: a game's events live as long as its record).
    shown_since = context.now() - context.settings.history_retention
    # One event more than the page, so next_cursor is given only when a next page has
    # events; events past the retention (TTL deletes late, and a game's events are kept
    # as long as its record) are skipped as if already gone.
    events: list[PlayerEvent] = []
    while len(events) <= page_size:
        page = history.history(ladder.ladder_id, resolved, page_size + 1 - len(events), after)
        events.extend(event for event in page.events if event.at > shown_since)
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
