"""Read a sanction: where it stands and every refund decided so far."""

from typing import NamedTuple

from ratings.service.context import Context
from ratings.service.errors import NotFound
from ratings.service.moderation_results import SanctionResult
from ratings.service.parameters import require_id
from ratings.service.ports import SanctionStore
from ratings.service.results import JsonObject, json_of
from ratings.service.sanction_records import Sanction, SanctionView


class ReadSanction(NamedTuple):
    context: Context
    sanctions: SanctionStore

    def run(self, ladder_id: str, sanction_id: str) -> JsonObject:
        ladder = self.context.ladder(ladder_id)
        sanction, view = self.stored(ladder.ladder_id, sanction_id)
        return json_of(SanctionResult.of(sanction, view.decisions))

    def stored(self, ladder_id: str, sanction_id: str) -> tuple[Sanction, SanctionView]:
        """The sanction as stored, and its decisions; NotFound when there is none (a
        malformed id: refused)."""
        require_id(sanction_id, "sanction_id")
        view = self.sanctions.read_sanction(ladder_id, sanction_id)
        if view.sanction is None:
            raise NotFound(f"sanction {sanction_id!r} does not exist in ladder {ladder_id!r}")
        return view.sanction, view
