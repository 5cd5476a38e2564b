"""What erasing a player does to sanctions (a part of `erase_player`'s pages): the records of
the sanctions that took the player off a ladder, and the refunds paid to them, get the
player's pseudonyms, before the player's own items that point at them are deleted.

A sanction whose refunds are still being paid is rewritten only once they are done: the
refunds page through the player's own games, which the erasure deletes. Until then the
erasure's step is refused as retry-later, and its message comes back.
"""

from collections.abc import Mapping, Sequence

from ratings.service.errors import RetryLater
from ratings.service.ports import SanctionStore
from ratings.service.sanction_records import REFUND_EVENT, SANCTION_POINTER
from ratings.service.stored import PlayerItem


class SanctionPseudonyms:
    def __init__(self, sanctions: SanctionStore) -> None:
        self.sanctions = sanctions

    def rewrite(self, ladder: str, items: Sequence[PlayerItem], names: Mapping[str, str]) -> None:
        """Give the sanctions and refunds that the player's own `items` point at the
        pseudonyms of `names` (id -> pseudonym). Idempotent: a record renamed already is
        left as it is."""
        sanction_ids = [item.ref_id for item in items if item.kind == SANCTION_POINTER]
        decision_keys = [
            (str(item.event.body.get("sanction_id")), item.ref_id)
            for item in items
            if item.kind == REFUND_EVENT and item.event is not None
        ]
        if not sanction_ids and not decision_keys:
            return
        named = self.sanctions.read_named(ladder, sanction_ids, decision_keys)
        pending = [s.sanction_id for s in named.sanctions.values() if not s.done]
        if pending:
            raise RetryLater(
                f"the erasure waits for the refunds of sanction {pending[0]!r} to be paid"
            )
        sanctions = []
        for sanction in named.sanctions.values():
            renamed = sanction._replace(
                player_id=names.get(sanction.player_id, sanction.player_id),
                submitted_id=names.get(sanction.submitted_id, sanction.submitted_id),
                played_as=tuple(names.get(pid, pid) for pid in sanction.played_as),
            )
            if renamed != sanction:
                sanctions.append(renamed._replace(progress_version=sanction.progress_version + 1))
        decisions = [
            decision._replace(player_id=names[decision.player_id])
            for decision in named.decisions.values()
            if decision.player_id is not None and decision.player_id in names
        ]
        if sanctions or decisions:
            self.sanctions.rename(sanctions, decisions)
