"""What every use case may ask of the service it belongs to: the ladders it serves (an unknown
id is NotFound), its settings, and the time."""

from collections.abc import Mapping
from datetime import datetime
from typing import NamedTuple

from ratings.rules import Ladder
from ratings.service.errors import NotFound
from ratings.service.settings import Clock, Settings


class Context(NamedTuple):
    ladders: Mapping[str, Ladder]
    settings: Settings
    clock: Clock

    def ladder(self, ladder_id: str) -> Ladder:
        ladder = self.ladders.get(ladder_id)
        if ladder is None:
            known = ", ".join(self.ladders)
            raise NotFound(f"ladder {ladder_id!r} does not exist; ladders: {known}")
        return ladder

    def ladder_ids(self) -> list[str]:
        return list(self.ladders)

    def now(self) -> datetime:
        return self.clock()
