"""Link an identity: an anonymous id becomes an account once, its state moving to the account
in each ladder where the account has no ranked games, and its sanction following it in each
ladder where it is under one (docs/rules.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from ratings.service.errors import AlreadyLinked, AlreadyStored, PlayerErasing, WriteConflict
from ratings.service.game_result import Submitted
from ratings.service.player import Player
from ratings.service.requests import parse_link
from ratings.service.results import JsonObject, LadderKept, LinkResult, json_of
from ratings.service.stored import Link
from ratings.service.unit_of_work import UnitOfWork

if TYPE_CHECKING:
    from ratings.service.facade import Context


def link_identity(uow: UnitOfWork, context: Context, body: object) -> JsonObject:
    """Link an anonymous id to an account once; see rules.md for what moves."""
    anonymous_id, account_id = parse_link(body)
    link = Link(anonymous_id=anonymous_id, account_id=account_id)
    attempts = uow.attempts("link")
    while True:
        with attempts:
            return _link_once(uow, context, link).result


def _link_once(uow: UnitOfWork, context: Context, link: Link) -> Submitted:
    """One attempt: a link already made answered again, else the link and the states
    it moves committed over the versions read."""
    anonymous_id, account_id = link
    ladder_ids = context.ladder_ids()
    reads = uow.read_for_link(anonymous_id, account_id, ladder_ids)
    if reads.anonymous_linked_to == account_id:
        return _repeated(context, link, reads.states)
    if reads.erasing:
        raise PlayerErasing
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
    moved: list[Player] = []
    kept: list[LadderKept] = []
    for ladder_id in ladder_ids:
        ladder = context.ladder(ladder_id)
        anonymous = reads.states.get((ladder_id, anonymous_id)) or uow.new_player(
            ladder, anonymous_id
        )
        account = reads.states.get((ladder_id, account_id)) or uow.new_player(ladder, account_id)
        moved.append(anonymous.unlisted())
        if anonymous.stored and account.ranked_games == 0:
            moved.append(account.absorbing(anonymous))
            kept.append(LadderKept(ladder=ladder_id, kept="anonymous"))
        else:
            sanctioned = account.linked_with(anonymous)
            if sanctioned is not None:
                moved.append(sanctioned)
            kept.append(LadderKept(ladder=ladder_id, kept="account"))
    try:
        uow.commit_link(link, moved)
    except AlreadyStored:
        # Linked meanwhile: read again, to answer a concurrent copy of this very link as
        # its retry, and any other link as the conflict it is.
        raise WriteConflict(anonymous_id) from None
    result = LinkResult(anonymous_id=anonymous_id, account_id=account_id, ladders=kept)
    return Submitted(json_of(result), created=True)


def _repeated(context: Context, link: Link, states: Mapping[tuple[str, str], Player]) -> Submitted:
    """The answer of a link already made: in each ladder the account kept the anonymous
    state exactly when it absorbed it, as the first answer said."""
    kept: list[LadderKept] = []
    for ladder_id in context.ladder_ids():
        account = states.get((ladder_id, link.account_id))
        absorbed = account is not None and account.absorbed_id == link.anonymous_id
        kept.append(LadderKept(ladder=ladder_id, kept="anonymous" if absorbed else "account"))
    result = LinkResult(anonymous_id=link.anonymous_id, account_id=link.account_id, ladders=kept)
    return Submitted(json_of(result), created=False)
