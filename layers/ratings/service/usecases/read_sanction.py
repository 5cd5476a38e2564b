"""Read a sanction: where it stands, what its decisions add up to, and one page of them.

Every answer about a sanction (POST, GET, DELETE) carries one page of its decisions by game
id (then by the victim's seat, in a game of more than two players), never all of them: a
cheater's window may hold tens of thousands of games, and a Lambda answer stops at 6 MB. GET
pages on with `limit` and `cursor`, like the other listings.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from ratings.service import cursors
from ratings.service.errors import NotFound
from ratings.service.moderation_results import SanctionResult
from ratings.service.parameters import (
    DEFAULT_SANCTION_LIMIT,
    MAX_SANCTION_PAGE,
    page_limit,
    require_id,
)
from ratings.service.ports import SanctionStore
from ratings.service.results import JsonObject, json_of
from ratings.service.sanction_records import Sanction, SanctionView

if TYPE_CHECKING:
    from ratings.service.facade import Context


class ReadSanction(NamedTuple):
    context: Context
    sanctions: SanctionStore

    def run(
        self, ladder_id: str, sanction_id: str, limit: object = None, cursor: object = None
    ) -> JsonObject:
        ladder = self.context.ladder(ladder_id)
        require_id(sanction_id, "sanction_id")
        page_size = page_limit(limit, DEFAULT_SANCTION_LIMIT, MAX_SANCTION_PAGE)
        after = cursors.decode_sanction_cursor(cursor, ladder.ladder_id, sanction_id)
        sanction, view = self.stored(ladder.ladder_id, sanction_id, after, page_size)
        return sanction_answer(sanction, view)

    def stored(
        self,
        ladder_id: str,
        sanction_id: str,
        after: str | None = None,
        limit: int = DEFAULT_SANCTION_LIMIT,
    ) -> tuple[Sanction, SanctionView]:
        """The sanction as stored, and the page of its decisions after the decision ref
        `after` (`sanction_records.decision_ref`);
        NotFound when there is none (a malformed id: refused)."""
        require_id(sanction_id, "sanction_id")
        view = self.sanctions.read_sanction(ladder_id, sanction_id, after, limit)
        if view.sanction is None:
            raise NotFound(f"sanction {sanction_id!r} does not exist in ladder {ladder_id!r}")
        return view.sanction, view


def sanction_answer(sanction: Sanction, view: SanctionView) -> JsonObject:
    """The answer about `sanction` with the page of decisions `view` holds, and the cursor
    of the next page when more follow."""
    next_cursor = None
    if view.more and view.decisions:
        last = view.decisions[-1].ref
        next_cursor = cursors.sanction_cursor(sanction.ladder, sanction.sanction_id, last)
    return json_of(SanctionResult.of(sanction, view.decisions, next_cursor))
