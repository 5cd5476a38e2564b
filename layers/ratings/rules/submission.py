"""A submitted game: its body's one definition under a ruleset, and the one place it is checked.

The body is the fields every game has, plus the ruleset's own (`Ruleset.game_fields`,
`player_fields`) and, for a preview, overrides of the stored state. `parse_game` checks a
body against that definition; the OpenAPI document is generated from the same `game_body`.
Only what a schema cannot say is checked by hand here: two distinct players, a winner among
them, and the time limits relative to now.
"""

import hashlib
import json
from collections.abc import Mapping
from datetime import datetime, timedelta
from functools import cache
from types import MappingProxyType
from typing import Any, NamedTuple

from ratings.declare.kinds import (
    ID,
    REQUIRED,
    Choice,
    Field,
    Flag,
    Integer,
    InvalidInput,
    ListOf,
    Object,
    Text,
    Timestamp,
)
from ratings.rules.model import MODES
from ratings.rules.ruleset import Ruleset

#: How far in the future a played_at may be (clock skew between game servers and us).
MAX_FUTURE = timedelta(minutes=5)
#: How old a played_at may be; the game record outlives this, so duplicates are always seen.
MAX_AGE = timedelta(days=14)
#: Bounds for the numbers a preview may put in place of the stored state.
MAX_COUNT = 1_000_000
MAX_RATING = 100_000


class PlayerInput(NamedTuple):
    player_id: str
    network: str | None = None
    bot: bool = False
    #: The ruleset's own player fields, every one present (absent ones have their default).
    options: Mapping[str, Any] = MappingProxyType({})
    #: Preview only: stored values to use instead ("rating", and the ruleset's counters).
    overrides: Mapping[str, int] = MappingProxyType({})


class GameInput(NamedTuple):
    """A submitted game, checked against its ladder's ruleset. `played_at` is UTC."""

    game_id: str | None
    played_at: datetime
    players: tuple[PlayerInput, PlayerInput]
    winner: str | None
    mode: str
    #: The ruleset's own game fields, every one present.
    options: Mapping[str, Any]
    ruleset_version: str | None
    #: sha256 of the canonical submitted content: equal for a retry, different otherwise.
    fingerprint: str


def fingerprint(content: Mapping[str, Any]) -> str:
    canonical = json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(canonical.encode()).hexdigest()


@cache
def game_body(ruleset: Ruleset, preview_versions: tuple[str, ...] | None = None) -> Object:
    """The body of a game under `ruleset`; with `preview_versions`, the body of a preview."""
    preview = preview_versions is not None
    player_fields = [
        Field("id", ID, "The player's id (an anonymous id, or an account once linked)"),
        Field(
            "network",
            Text(256),
            "A fingerprint of the player's network; two players on the same one: unranked",
            default=None,
            nullable=True,
        ),
        Field("bot", Flag(), "Whether the player is a bot: the game is then unranked", False),
        *ruleset.player_fields,
    ]
    if preview:
        player_fields.append(
            Field(
                "rating",
                Integer(-MAX_RATING, MAX_RATING),
                "Used instead of the stored rating",
                default=None,
            )
        )
        player_fields.extend(
            Field(name, Integer(0, MAX_COUNT), "Used instead of the stored count", default=None)
            for name in ruleset.state_overrides
        )
    player = Object(tuple(player_fields), f"a {ruleset.name} player", title="Player")
    draw = " or null for a draw" if ruleset.draws_allowed else ""
    fields = [
        Field(
            "game_id",
            ID,
            "The game's id: a retry with the same id and content is answered, never rated again",
            default=None if preview else REQUIRED,
            example="g-000123",
        ),
        Field(
            "played_at",
            Timestamp(),
            "When the game ended: at most 5 minutes in the future and at most 14 days old; "
            "absent or null: the time of receipt",
            default=None,
            nullable=True,
        ),
        Field(
            "players",
            ListOf(player, 2, 2, "a list of exactly two players"),
            "The two players, who must be different people",
        ),
        Field(
            "winner",
            ID,
            f"The winning player's id{draw}",
            nullable=ruleset.draws_allowed,
        ),
        Field("mode", Choice(MODES), "Only ranked games change ratings", "ranked"),
        *ruleset.game_fields,
    ]
    if preview_versions is not None:
        fields.append(
            Field(
                "ruleset_version",
                Choice(preview_versions),
                "Rate under another published version of the ladder's ruleset",
                default=None,
            )
        )
    what = "preview" if preview else "game"
    return Object(tuple(fields), f"a {ruleset.name} {what}", title=f"{ruleset.name} {what}")


def parse_game(
    body: object,
    ruleset: Ruleset,
    now: datetime,
    *,
    preview_versions: tuple[str, ...] | None = None,
    enforce_age: bool = True,
) -> GameInput:
    """Check a submitted game (or, with `preview_versions`, a preview) against `ruleset`.

    With `enforce_age` False the caller checks the 14-day limit itself (after looking for a
    stored game of the same id, which is answered whatever its age).
    """
    if (
        isinstance(body, Mapping)
        and "winner" in body
        and body["winner"] is None
        and not ruleset.draws_allowed
    ):
        raise InvalidInput(
            "winner", f"winner must be one of the players' ids: ruleset {ruleset.name} has no draws"
        )
    values = game_body(ruleset, preview_versions).parse(body, "")

    if values["played_at"] is None:  # the time of receipt, kept to the millisecond
        played_at = now.replace(microsecond=now.microsecond // 1000 * 1000)
    else:
        played_at = values["played_at"]
    check_future(played_at, now, "played_at")
    if enforce_age:
        check_age(played_at, now, "played_at")

    own_player_fields = [entry.name for entry in ruleset.player_fields]
    players = tuple(
        PlayerInput(
            player_id=raw["id"],
            network=raw["network"],
            bot=raw["bot"],
            options=MappingProxyType({name: raw[name] for name in own_player_fields}),
            overrides=MappingProxyType(
                {
                    name: raw[name]
                    for name in ("rating", *ruleset.state_overrides)
                    if raw.get(name) is not None
                }
            ),
        )
        for raw in values["players"]
    )
    first, second = players
    if first.player_id == second.player_id:
        raise InvalidInput(
            "players[1].id",
            f"players[1].id must differ from players[0].id (both are {first.player_id!r})",
        )
    winner = values["winner"]
    if winner is not None and winner not in (first.player_id, second.player_id):
        draw = " or null for a draw" if ruleset.draws_allowed else ""
        raise InvalidInput(
            "winner", f"winner must be one of the players' ids{draw}, got {winner!r}"
        )

    options = {entry.name: values[entry.name] for entry in ruleset.game_fields}
    content = {
        "game_id": values["game_id"],
        "played_at": None if values["played_at"] is None else played_at.isoformat(),
        "players": [
            {"id": p.player_id, "network": p.network, "bot": p.bot, **p.options} for p in players
        ],
        "winner": winner,
        "mode": values["mode"],
        **options,
    }
    return GameInput(
        game_id=values["game_id"],
        played_at=played_at,
        players=(first, second),
        winner=winner,
        mode=values["mode"],
        options=MappingProxyType(options),
        ruleset_version=values.get("ruleset_version"),
        fingerprint=fingerprint(content),
    )


def check_future(at: datetime, now: datetime, field: str) -> None:
    if at > now + MAX_FUTURE:
        raise InvalidInput(field, f"{field} must be at most 5 minutes in the future")


def check_age(at: datetime, now: datetime, field: str) -> None:
    """Refuse games older than 14 days: their game record may be gone, so a duplicate of
    one could no longer be recognised."""
    if at < now - MAX_AGE:
        raise InvalidInput(field, f"{field} must be at most 14 days old")
