"""Identities: link an anonymous id to an account once, moving its state where the account
has none (per ladder)."""

from collections.abc import Mapping

from ratings.service.base import ServiceBase, Submitted
from ratings.service.errors import AlreadyLinked
from ratings.service.inputs import parse_link
from ratings.service.ports import (
    AlreadyStored,
    JsonObject,
    Link,
    PlayerRecord,
    StateWrite,
    WriteConflict,
)


class IdentityUseCases(ServiceBase):
    def link_identity(self, body: object) -> JsonObject:
        """Link an anonymous id to an account once; see rules.md for what moves."""
        anonymous_id, account_id = parse_link(body)
        return self._with_retries("link", lambda: self._link_once(anonymous_id, account_id)).result

    def _link_once(self, anonymous_id: str, account_id: str) -> Submitted:
        ladder_ids = list(self._ladders)
        reads = self._storage.read_for_link(anonymous_id, account_id, ladder_ids)
        if reads.anonymous_linked_to == account_id:
            return self._repeated_link(anonymous_id, account_id, reads.states)
        if reads.anonymous_linked_to is not None:
            raise AlreadyLinked(f"anonymous_id {anonymous_id!r} is already linked to an account")
        if reads.account_absorbed is not None:
            raise AlreadyLinked(f"account_id {account_id!r} has already absorbed an anonymous id")
        if reads.account_linked_to is not None:
            raise AlreadyLinked(
                f"account_id {account_id!r} is an anonymous id linked to another account"
            )
        if reads.anonymous_absorbed is not None:
            raise AlreadyLinked(
                f"anonymous_id {anonymous_id!r} is an account that absorbed an anonymous id"
            )
        writes: list[StateWrite] = []
        kept: list[JsonObject] = []
        for ladder_id in ladder_ids:
            anonymous = reads.states.get((ladder_id, anonymous_id))
            account = reads.states.get((ladder_id, account_id))
            account_ranked = account.ranked_games if account else 0
            # The anonymous state is rewritten unchanged but unlisted, conditioned on the
            # version read: a game of the anonymous id committed meanwhile (or one in flight,
            # which will now conflict and re-read the link) can never be lost to the account.
            if anonymous is None:
                starting = self._ladders[ladder_id].starting_rating
                anonymous = PlayerRecord(ladder_id, anonymous_id, starting)
            writes.append(
                StateWrite(
                    ladder_id,
                    anonymous_id,
                    anonymous.version,
                    anonymous.rating,
                    anonymous.ranked_games,
                    anonymous.absorbed_id,
                    listed=False,
                )
            )
            if anonymous.version > 0 and account_ranked == 0:
                writes.append(
                    StateWrite(
                        ladder_id,
                        account_id,
                        account.version if account else 0,
                        anonymous.rating,
                        anonymous.ranked_games,
                        absorbed_id=anonymous_id,
                    )
                )
                kept.append({"ladder": ladder_id, "kept": "anonymous"})
            else:
                kept.append({"ladder": ladder_id, "kept": "account"})
        try:
            self._storage.commit_link(Link(anonymous_id, account_id), writes)
        except AlreadyStored:
            # Linked meanwhile: read again, to answer a concurrent copy of this very link as
            # its retry, and any other link as the conflict it is.
            raise WriteConflict(anonymous_id) from None
        result = {"anonymous_id": anonymous_id, "account_id": account_id, "ladders": kept}
        return Submitted(result, created=True)

    def _repeated_link(
        self,
        anonymous_id: str,
        account_id: str,
        states: Mapping[tuple[str, str], PlayerRecord],
    ) -> Submitted:
        """The answer of a link already made: in each ladder the account kept the anonymous
        state exactly when it absorbed it, as the first answer said."""
        kept: list[JsonObject] = []
        for ladder_id in self._ladders:
            account = states.get((ladder_id, account_id))
            absorbed = account is not None and account.absorbed_id == anonymous_id
            kept.append({"ladder": ladder_id, "kept": "anonymous" if absorbed else "account"})
        result = {"anonymous_id": anonymous_id, "account_id": account_id, "ladders": kept}
        return Submitted(result, created=False)
