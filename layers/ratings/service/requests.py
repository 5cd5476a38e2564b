"""The bodies of the non-game writes (podiums, identity links, sanctions), declared once with
`ratings.declare.kinds`: `parse_podium`, `parse_link` and `parse_sanction` check with these
declarations, and the OpenAPI document is generated from them. A game's body belongs to its
ruleset (`ratings.rules.submission`).
"""

from datetime import datetime
from functools import cache
from typing import Any, NamedTuple

from ratings.declare.kinds import ID, Field, Flag, Integer, ListOf, Object, Text, Timestamp
from ratings.rules import InvalidInput
from ratings.rules.submission import check_future, fingerprint

__all__ = [
    "LINK",
    "PODIUM",
    "PodiumInput",
    "SanctionInput",
    "parse_link",
    "parse_podium",
    "parse_sanction",
    "sanction_body",
]

PODIUM_PLACE = Object(
    (
        Field("place", Integer(1, 3), "1, 2 or 3"),
        Field("player_id", ID, "The player's id"),
    ),
    "a podium place",
    title="PodiumPlace",
)
PODIUM = Object(
    (
        Field("tournament_id", ID, "The tournament's id: awarded once", example="t-2026-11"),
        Field("ladder", ID, "The ladder whose ratings get the bonuses", example="backgammon"),
        Field("finished_at", Timestamp(), "When the tournament ended; not in the future"),
        Field("public", Flag(), "Only public tournaments pay bonuses"),
        Field(
            "podium",
            ListOf(PODIUM_PLACE, 1, 3, "a list of 1 to 3 places"),
            "Places 1 to 3, each place and player at most once",
        ),
    ),
    "a podium message",
    title="Podium",
)
LINK = Object(
    (
        Field("anonymous_id", ID, "The id the player played under before", example="anon-42"),
        Field("account_id", ID, "The account it becomes", example="acct-42"),
    ),
    "an identity link",
    title="IdentityLink",
)

#: The refund window a sanction gets when it names none.
DEFAULT_REFUND_DAYS = 7


@cache
def sanction_body(retention_days: int) -> Object:
    """A sanction's body, where `refund_days` may reach the retention period (games older
    than it are no longer stored, so nothing could be refunded for them)."""
    return Object(
        (
            Field("sanction_id", ID, "The sanction's id: made once", example="s-2026-001"),
            Field("player_id", ID, "The player taken off the ladder", example="mallory"),
            Field(
                "reason",
                Text(500),
                "Why, in your own words (kept with the sanction and shown with it)",
                default=None,
                nullable=True,
                example="cheating",
            ),
            Field(
                "refund_days",
                Integer(0, retention_days),
                f"Refund losses in the player's ranked games of the last this many days "
                f"(0 to the retention period, {retention_days} days; 0 refunds nothing)",
                default=DEFAULT_REFUND_DAYS,
            ),
        ),
        "a sanction",
        title="Sanction",
    )


class SanctionInput(NamedTuple):
    sanction_id: str
    player_id: str
    reason: str | None
    refund_days: int
    fingerprint: str


class PodiumInput(NamedTuple):
    tournament_id: str
    ladder: str
    finished_at: datetime
    public: bool
    podium: tuple[tuple[int, str], ...]  # (place, player id), by place
    fingerprint: str


def parse_podium(body: object, now: datetime) -> PodiumInput:
    """Check a podium message; InvalidInput names the field."""
    values: dict[str, Any] = PODIUM.parse(body, "")
    check_future(values["finished_at"], now, "finished_at")
    places: dict[int, str] = {}
    for index, entry in enumerate(values["podium"]):
        where = f"podium[{index}]"
        place, player_id = entry["place"], entry["player_id"]
        if place in places:
            raise InvalidInput(f"{where}.place", f"{where}.place {place} appears twice")
        if player_id in places.values():
            raise InvalidInput(f"{where}.player_id", f"{where}.player_id appears twice")
        places[place] = player_id
    ordered = tuple(sorted(places.items()))
    finished_at: datetime = values["finished_at"]
    content = {
        "tournament_id": values["tournament_id"],
        "ladder": values["ladder"],
        "finished_at": finished_at.isoformat(),
        "public": values["public"],
        "podium": [list(entry) for entry in ordered],
    }
    return PodiumInput(
        values["tournament_id"],
        values["ladder"],
        finished_at,
        values["public"],
        ordered,
        fingerprint(content),
    )


def parse_sanction(body: object, retention_days: int) -> SanctionInput:
    """Check a sanction's body; InvalidInput names the field."""
    values: dict[str, Any] = sanction_body(retention_days).parse(body, "")
    return SanctionInput(
        values["sanction_id"],
        values["player_id"],
        values["reason"],
        values["refund_days"],
        fingerprint(values),
    )


def parse_link(body: object) -> tuple[str, str]:
    values = LINK.parse(body, "")
    anonymous_id, account_id = values["anonymous_id"], values["account_id"]
    if anonymous_id == account_id:
        raise InvalidInput("account_id", "account_id must differ from anonymous_id")
    return anonymous_id, account_id
