"""A submitted game: its body's one definition under a ruleset, and the one place it is checked.

The body is the fields every game has, plus the ruleset's own (`Ruleset.game_fields`,
`player_fields`) and, for a preview, overrides of the stored state; its players come as two
players and a winner (`game_body`) or as sides, each with its players and place
(`sides_body`). `parse_game` checks a body against that definition; the OpenAPI document is
generated from the same declarations. Only what a schema cannot say is checked by hand here:
distinct players, a winner among them, the sides within the ladder's shape and the ruleset's
(places, ties), and the time limits relative to now.
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
from ratings.rules.ruleset import Ruleset, shape_refusal

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
    """A submitted game, checked against its ladder's ruleset. `played_at` is UTC.

    `players` are every player in the order sent; `sides` the indices of each side's players
    in `players`, and `places` each side's place (1 the best; equal places tie). A game sent
    as `players` and `winner` is two sides of one player; `winner` is the winning player's id
    when the game has two sides of one player (None: a draw, or a game of other sides)."""

    game_id: str | None
    played_at: datetime
    players: tuple[PlayerInput, ...]
    winner: str | None
    mode: str
    #: The ruleset's own game fields, every one present.
    options: Mapping[str, Any]
    ruleset_version: str | None
    #: sha256 of the canonical submitted content: equal for a retry, different otherwise.
    fingerprint: str
    sides: tuple[tuple[int, ...], ...] = ((0,), (1,))
    places: tuple[int, ...] = (1, 2)
    #: Sent as `sides` (its answer names the sides), not as `players` and `winner`.
    sent_as_sides: bool = False


def fingerprint(content: Mapping[str, Any]) -> str:
    canonical = json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(canonical.encode()).hexdigest()


@cache
def player_body(ruleset: Ruleset, preview: bool) -> Object:
    """One player of a game under `ruleset` (with a preview's overrides)."""
    player_fields = [
        Field("id", ID, "The player's id (an anonymous id, or an account once linked)"),
        Field(
            "network",
            Text(256),
            "A fingerprint of the player's network; two opponents on the same one: unranked",
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
    return Object(tuple(player_fields), f"a {ruleset.name} player", title="Player")


def _common_fields(
    ruleset: Ruleset, preview_versions: tuple[str, ...] | None
) -> tuple[list[Field], list[Field]]:
    """The fields every body has before its players, and after them."""
    preview = preview_versions is not None
    before = [
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
    ]
    after = [
        Field("mode", Choice(MODES), "Only ranked games change ratings", "ranked"),
        *ruleset.game_fields,
    ]
    if preview_versions is not None:
        after.append(
            Field(
                "ruleset_version",
                Choice(preview_versions),
                "Rate under another published version of the ladder's ruleset",
                default=None,
            )
        )
    return before, after


@cache
def game_body(ruleset: Ruleset, preview_versions: tuple[str, ...] | None = None) -> Object:
    """The body of a game under `ruleset`, as two players and a winner; with
    `preview_versions`, the body of a preview."""
    preview = preview_versions is not None
    player = player_body(ruleset, preview)
    draw = " or null for a draw" if ruleset.draws_allowed else ""
    before, after = _common_fields(ruleset, preview_versions)
    fields = [
        *before,
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
        *after,
    ]
    what = "preview" if preview else "game"
    return Object(tuple(fields), f"a {ruleset.name} {what}", title=f"{ruleset.name} {what}")


#: The most sides, and players on a side, any body may name (a ladder allows fewer).
MOST_SIDES = 64
MOST_ON_A_SIDE = 64


@cache
def sides_body(
    ruleset: Ruleset,
    preview_versions: tuple[str, ...] | None = None,
    sides: tuple[int, int] = (2, MOST_SIDES),
    players_per_side: tuple[int, int] = (1, MOST_ON_A_SIDE),
) -> Object:
    """The body of a game under `ruleset` as sides, each with its players and place; with
    `sides` and `players_per_side`, only as many as a ladder takes (what its OpenAPI body
    declares; the parser takes any and then says what the ladder takes, naming the field)."""
    preview = preview_versions is not None
    side = Object(
        (
            Field(
                "players",
                ListOf(player_body(ruleset, preview), *players_per_side),
                "The side's players, at least one",
            ),
            Field(
                "place",
                Integer(1, sides[1]),
                "1 for the best side; sides of equal place tie (where the ruleset has draws)",
            ),
        ),
        "a side",
        title="Side",
    )
    before, after = _common_fields(ruleset, preview_versions)
    fields = [
        *before,
        Field(
            "sides",
            ListOf(side, *sides),
            "The sides, each player in exactly one; as many as the ladder's sides allow",
        ),
        *after,
    ]
    what = "preview" if preview else "game"
    title = f"{ruleset.name} {what} by sides"
    return Object(tuple(fields), f"a {ruleset.name} {what}", title=title)


def parse_game(
    body: object,
    ruleset: Ruleset,
    now: datetime,
    *,
    preview_versions: tuple[str, ...] | None = None,
    enforce_age: bool = True,
    sides: tuple[int, int] = (2, 2),
    players_per_side: tuple[int, int] = (1, 1),
) -> GameInput:
    """Check a submitted game (or, with `preview_versions`, a preview) against `ruleset`, as
    `players` and `winner` or as `sides`; a game as sides must be of a shape the ladder takes
    (`sides`, `players_per_side`: the (min, max) of each).

    With `enforce_age` False the caller checks the 14-day limit itself (after looking for a
    stored game of the same id, which is answered whatever its age).
    """
    if isinstance(body, Mapping) and "sides" in body:
        return _parse_sides(
            body, ruleset, now, preview_versions, enforce_age, sides, players_per_side
        )
    if not (sides[0] <= 2 <= sides[1] and players_per_side[0] <= 1 <= players_per_side[1]):
        # Players and winner are one against one: a ladder of other games takes sides only.
        shape = f"{_count(*sides, 'side')} of {_count(*players_per_side, 'player')}"
        if isinstance(body, Mapping) and "players" in body:
            raise InvalidInput(
                "players",
                f"players is not a field of a game of this ladder: its games are {shape}, "
                "sent as sides (each side's players and place)",
            )
        raise InvalidInput(
            "sides", f"sides is required: this ladder's games are {shape}, each with its place"
        )
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
    played_at = _played_at(values, now, enforce_age)

    players = tuple(_player(raw, ruleset) for raw in values["players"])
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
    places = (1, 1) if winner is None else (1, 2) if winner == first.player_id else (2, 1)
    return GameInput(
        game_id=values["game_id"],
        played_at=played_at,
        players=(first, second),
        winner=winner,
        places=places,
        mode=values["mode"],
        options=MappingProxyType(options),
        ruleset_version=values.get("ruleset_version"),
        fingerprint=fingerprint(content),
    )


def _player(raw: Mapping[str, Any], ruleset: Ruleset) -> PlayerInput:
    return PlayerInput(
        player_id=raw["id"],
        network=raw["network"],
        bot=raw["bot"],
        options=MappingProxyType({entry.name: raw[entry.name] for entry in ruleset.player_fields}),
        overrides=MappingProxyType(
            {
                name: raw[name]
                for name in ("rating", *ruleset.state_overrides)
                if raw.get(name) is not None
            }
        ),
    )


def _played_at(values: Mapping[str, Any], now: datetime, enforce_age: bool) -> datetime:
    if values["played_at"] is None:  # the time of receipt, kept to the millisecond
        played_at: datetime = now.replace(microsecond=now.microsecond // 1000 * 1000)
    else:
        played_at = values["played_at"]
    check_future(played_at, now, "played_at")
    if enforce_age:
        check_age(played_at, now, "played_at")
    return played_at


def _parse_sides(
    body: Mapping[str, Any],
    ruleset: Ruleset,
    now: datetime,
    preview_versions: tuple[str, ...] | None,
    enforce_age: bool,
    allowed_sides: tuple[int, int],
    allowed_players: tuple[int, int],
) -> GameInput:
    """A game sent as sides: each within the ladder's shape, each player once, places from 1
    up to the number of sides, ties only where the ruleset has draws."""
    if "players" in body or "winner" in body:
        field = "players" if "players" in body else "winner"
        raise InvalidInput(
            field, f"{field} is not a field of a game sent as sides: give each side's players"
        )
    values = sides_body(ruleset, preview_versions).parse(body, "")
    played_at = _played_at(values, now, enforce_age)
    raw_sides = values["sides"]
    low, high = allowed_sides
    if not low <= len(raw_sides) <= high:
        raise InvalidInput("sides", f"sides must be {_count(low, high, 'side')} in this ladder")
    low, high = allowed_players
    players: list[PlayerInput] = []
    indices: list[tuple[int, ...]] = []
    seen: dict[str, str] = {}
    for number, raw_side in enumerate(raw_sides):
        field = f"sides[{number}].players"
        if not low <= len(raw_side["players"]) <= high:
            raise InvalidInput(field, f"{field} must be {_count(low, high, 'player')} a side")
        side: list[int] = []
        for position, raw in enumerate(raw_side["players"]):
            where = f"{field}[{position}].id"
            if raw["id"] in seen:
                raise InvalidInput(
                    where, f"{where} {raw['id']!r} is already {seen[raw['id']]}: each player once"
                )
            seen[raw["id"]] = where
            side.append(len(players))
            players.append(_player(raw, ruleset))
        indices.append(tuple(side))
    places = tuple(raw_side["place"] for raw_side in raw_sides)
    for number, place in enumerate(places):
        if place > len(places):
            raise InvalidInput(
                f"sides[{number}].place",
                f"sides[{number}].place must be from 1 to {len(places)} (the number of sides)",
            )
    if min(places) != 1:
        raise InvalidInput("sides", "sides must have a side at place 1 (the best)")
    if len(set(places)) != len(places) and not ruleset.draws_allowed:
        tied = next(n for n, place in enumerate(places) if place in places[:n])
        raise InvalidInput(
            f"sides[{tied}].place",
            f"sides[{tied}].place ties with another side: ruleset {ruleset.name} has no draws",
        )
    refused = shape_refusal(ruleset, [len(side) for side in indices], places)
    if refused is not None:
        raise InvalidInput("sides", refused)
    winner = None
    if len(indices) == 2 and all(len(side) == 1 for side in indices) and places[0] != places[1]:
        winner = players[indices[places.index(1)][0]].player_id
    options = {entry.name: values[entry.name] for entry in ruleset.game_fields}
    content = {
        "game_id": values["game_id"],
        "played_at": None if values["played_at"] is None else played_at.isoformat(),
        "sides": [
            {
                "place": place,
                "players": [
                    {"id": p.player_id, "network": p.network, "bot": p.bot, **p.options}
                    for p in (players[index] for index in side)
                ],
            }
            for side, place in zip(indices, places, strict=True)
        ],
        "mode": values["mode"],
        **options,
    }
    return GameInput(
        game_id=values["game_id"],
        played_at=played_at,
        players=tuple(players),
        winner=winner,
        mode=values["mode"],
        options=MappingProxyType(options),
        ruleset_version=values.get("ruleset_version"),
        fingerprint=fingerprint(content),
        sides=tuple(indices),
        places=places,
        sent_as_sides=True,
    )


def _count(low: int, high: int, what: str) -> str:
    if low == high:
        return f"exactly {low} {what}{'' if low == 1 else 's'}"
    return f"{low} to {high} {what}s"


def check_future(at: datetime, now: datetime, field: str) -> None:
    if at > now + MAX_FUTURE:
        raise InvalidInput(field, f"{field} must be at most 5 minutes in the future")


def check_age(at: datetime, now: datetime, field: str) -> None:
    """Refuse games older than 14 days: their game record may be gone, so a duplicate of
    one could no longer be recognised."""
    if at < now - MAX_AGE:
        raise InvalidInput(field, f"{field} must be at most 14 days old")
