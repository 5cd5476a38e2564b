"""The history view on DynamoDB: a player's events, newest first, one Query a page (with one
event more than the page, to tell whether more follow)."""

from ratings.service.ports import HistoryView
from ratings.service.stored import EventPosition, HistoryPage
from ratings.storage.dynamodb.layout import (
    EVENT_SK_PREFIX,
    EventItem,
    RatingsItem,
    event_of,
    event_sort_key,
    player_key,
)
from ratings.storage.dynamodb.table import BoundTable


class DynamoHistory(HistoryView):
    """A player's history items, read back to front in pages of `limit` (each one
    Query; the page says whether DynamoDB has more)."""

    def __init__(self, table: BoundTable) -> None:
        self._table = table

    def history(
        self, ladder: str, player_id: str, limit: int, after: EventPosition | None
    ) -> HistoryPage:
        last_key = None
        if after is not None:
            at, event_type, ref_id = after
            last_key = {
                "pk": {"S": player_key(ladder, player_id)},
                "sk": {"S": event_sort_key(at, event_type, ref_id)},
            }
        # One event past the page tells whether there are more: DynamoDB also returns a
        # LastEvaluatedKey when the Limit is used up by the last event, so the key alone
        # would make the caller read an empty page.
        response = self._table.query(
            player_key(ladder, player_id),
            range_key_condition=RatingsItem.sk.startswith(EVENT_SK_PREFIX),
            scan_index_forward=False,
            limit=limit + 1,
            exclusive_start_key=last_key,
        )
        raws = response.get("Items", [])
        events = [event_of(ladder, player_id, EventItem.from_raw_data(raw)) for raw in raws[:limit]]
        # A key with fewer items than asked: DynamoDB cut the page at 1 MB.
        more = len(raws) > limit or "LastEvaluatedKey" in response
        return HistoryPage(events, more=more)
