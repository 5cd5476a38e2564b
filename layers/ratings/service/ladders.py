"""The ladders a service serves, looked up by id (an unknown id is NotFound)."""

from collections.abc import Mapping
from typing import NamedTuple

from ratings.rules import Ladder
from ratings.service.errors import NotFound


class Ladders(NamedTuple):
    by_id: Mapping[str, Ladder]

    def get(self, ladder_id: str) -> Ladder:
        ladder = self.by_id.get(ladder_id)
        if ladder is None:
            known = ", ".join(self.by_id)
            raise NotFound(f"ladder {ladder_id!r} does not exist; ladders: {known}")
        return ladder

    def ids(self) -> list[str]:
        return list(self.by_id)
