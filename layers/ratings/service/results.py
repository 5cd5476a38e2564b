"""Every answer of the service, declared once as a typed value (see `service.declared` for the
annotations): what the use cases return, what the store keeps of a game or a tournament, what
the HTTP API, the queues' consumers and the CLI write, and what the OpenAPI document's result
schemas are generated from (`COMPONENTS`, `RULESET_COMPONENTS`).

Each answer's `json()` is its JSON; a use case returns that JSON (a stored result is returned
as it was stored).
"""

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from types import MappingProxyType
from typing import Annotated, Any, NamedTuple

from ratings.rules import (
    MODES,
    UNRANKED_REASONS,
    GameInput,
    Ladder,
    PlayerChange,
    PlayerState,
    Rating,
    Ruleset,
)
from ratings.rules.fields import ID, Field
from ratings.rules.ladders import RULESET_VERSIONS
from ratings.service.declared import (
    ABSENT,
    Absent,
    Doc,
    Json,
    Only,
    Ruled,
    Schema,
    SchemaContext,
    Spread,
    nullable,
    ref,
    to_json,
)

JsonObject = dict[str, Any]

#: The types of history event (as their JSON's `type` says).
GAME_EVENT = "game"
PODIUM_EVENT = "podium_bonus"

#: Digits kept of the formula's fractional inputs in answers (expected score, coefficient...).
EXPLAIN_DIGITS = 4

IDENTIFIER = Json(ID.schema())
POSITIVE = Json({"type": "integer", "minimum": 1})
PLACE = Json({"type": "integer", "minimum": 1, "maximum": 3})
UNRANKED_REASON = Json({"enum": [*UNRANKED_REASONS, None]}, covers_null=True)
NO_PROPERTIES: Mapping[str, Any] = MappingProxyType({})


def _ruleset(context: SchemaContext) -> Ruleset:
    assert context.ruleset is not None, "a game's result is declared per ruleset"
    return context.ruleset


def _own_fields(which: str) -> Callable[[SchemaContext], dict[str, Schema]]:
    """The ruleset's own fields (`game_fields` or `player_fields`) as a result shows them."""

    def answered(context: SchemaContext) -> dict[str, Schema]:
        fields: tuple[Field, ...] = getattr(_ruleset(context), which)
        return {entry.name: entry.answered_schema() for entry in fields}

    return answered


def _rulesets(context: SchemaContext) -> dict[str, Ruleset]:
    return {ladder.ruleset.name: ladder.ruleset for ladder in context.ladders.values()}


def json_of(answer: tuple[Any, ...]) -> JsonObject:
    """An answer's JSON object."""
    written: JsonObject = to_json(answer)
    return written


# Errors -------------------------------------------------------------------------------------


class ErrorDetail(NamedTuple):
    code: Annotated[str, Doc("Stable, machine-readable")]
    message: Annotated[str, Doc("The field, the fault, the rule")]


class ErrorBody(NamedTuple):
    """The body of every answer that is not a success."""

    error: ErrorDetail


# Ladders ------------------------------------------------------------------------------------


class LadderDescription(NamedTuple):
    id: Annotated[str, IDENTIFIER]
    ruleset: Annotated[str, Ruled(lambda context: {"enum": sorted(_rulesets(context))})]
    version: str
    starting_rating: int
    podium_bonuses: list[int]
    parameters: Annotated[Mapping[str, object], Json({"type": "object"})]


class LadderList(NamedTuple):
    ladders: list[LadderDescription]

    @classmethod
    def of(cls, ladders: Mapping[str, Ladder]) -> "LadderList":
        """The ladders, their rulesets and parameters: configuration only."""
        return cls(
            [
                LadderDescription(
                    id=ladder.ladder_id,
                    ruleset=ladder.ruleset.name,
                    version=ladder.ruleset.version,
                    starting_rating=ladder.starting_rating,
                    podium_bonuses=list(ladder.podium_bonuses),
                    parameters=dict(ladder.ruleset.parameters()),
                )
                for ladder in ladders.values()
            ]
        )


# A game's result ----------------------------------------------------------------------------


def rounded_explain(values: Mapping[str, Any]) -> JsonObject:
    return {
        name: round(value, EXPLAIN_DIGITS) if isinstance(value, float) else value
        for name, value in values.items()
    }


class RatingOutcome(NamedTuple):
    """What a game did to one player's rating, and what produced it (unranked: nothing)."""

    rating_before: int
    rating_after: int
    delta: int
    explain: Annotated[
        Mapping[str, Any] | None,
        Ruled(lambda context: ref(f"explain.{_ruleset(context).name}")),
    ]

    @classmethod
    def of(cls, rating_before: int, change: PlayerChange | None) -> "RatingOutcome":
        if change is None:
            return cls(rating_before, rating_before, 0, None)
        return cls(
            rating_before, change.rating_after, change.delta, rounded_explain(change.explain)
        )


class PlayerResult(NamedTuple):
    """One player's side of a game's result."""

    id: Annotated[str, IDENTIFIER, Doc("The player's id (the account, once linked)")]
    outcome: Annotated[RatingOutcome, Spread()]
    bot: bool
    submitted_id: Annotated[str | Absent, IDENTIFIER, Doc("The id sent, when it is linked")] = (
        ABSENT
    )
    #: The ruleset's own player fields, as rated.
    options: Annotated[Mapping[str, Any], Spread(_own_fields("player_fields"))] = NO_PROPERTIES


def _versions(context: SchemaContext) -> Schema:
    ruleset = _ruleset(context)
    return {"enum": list(RULESET_VERSIONS.get(ruleset.name, {ruleset.version: ruleset}))}


def _winner(context: SchemaContext) -> Schema:
    return nullable(ID.schema()) if _ruleset(context).draws_allowed else ID.schema()


class GameResult(NamedTuple):
    """A game's result: both players before and after, what produced each change, and the
    ruleset's own fields as they were rated (a preview's: what it would be)."""

    game_id: Annotated[
        str | None,
        Ruled(
            lambda context: nullable(ID.schema()) if context.preview else ID.schema(),
            covers_null=True,
        ),
    ]
    ladder: Annotated[str, IDENTIFIER]
    played_at: datetime
    ruleset: Annotated[str, Ruled(lambda context: {"const": _ruleset(context).name})]
    ruleset_version: Annotated[str, Ruled(_versions)]
    ranked: bool
    unranked_reason: Annotated[str | None, UNRANKED_REASON]
    winner: Annotated[str | None, Ruled(_winner, covers_null=True)]
    mode: Annotated[str, Json({"enum": list(MODES)})]
    players: tuple[PlayerResult, PlayerResult]
    #: The ruleset's own game fields, as rated.
    options: Annotated[Mapping[str, Any], Spread(_own_fields("game_fields"))] = NO_PROPERTIES
    preview: Annotated[
        bool | Absent, Json({"const": True}), Only(lambda context: context.preview)
    ] = ABSENT

    @classmethod
    def of(
        cls,
        ladder_id: str,
        ruleset: Ruleset,
        game: GameInput,
        states: Sequence[PlayerState],
        winner: str | None,
        unranked_reason: str | None,
        rating: Rating | None,
    ) -> "GameResult":
        """The result of `game` under `ruleset`, from the players' states before it (resolved
        ids), the resolved winner, and the rating (None when unranked)."""
        players = []
        for index, (submitted, state) in enumerate(zip(game.players, states, strict=True)):
            change = rating.players[index] if rating is not None else None
            players.append(
                PlayerResult(
                    id=state.player_id,
                    outcome=RatingOutcome.of(state.rating, change),
                    bot=submitted.bot,
                    submitted_id=(
                        submitted.player_id if state.player_id != submitted.player_id else ABSENT
                    ),
                    options=submitted.options,
                )
            )
        return cls(
            game_id=game.game_id,
            ladder=ladder_id,
            played_at=game.played_at,
            ruleset=ruleset.name,
            ruleset_version=ruleset.version,
            ranked=unranked_reason is None,
            unranked_reason=unranked_reason,
            winner=winner,
            mode=game.mode,
            players=(players[0], players[1]),
            options=game.options,
        )


def explain_schema(ruleset: Ruleset) -> Schema:
    """The `explain` object of a rated player under `ruleset`, from its declared fields."""
    return {
        "type": "object",
        "properties": {
            entry.name: {
                "type": "number" if entry.number else "string",
                "description": entry.description,
            }
            for entry in ruleset.explain_fields
        },
        "required": [entry.name for entry in ruleset.explain_fields],
        "additionalProperties": False,
        "description": f"The formula's inputs under {ruleset.name} (null when unranked)",
    }


# A player -----------------------------------------------------------------------------------


class Standing(NamedTuple):
    """A rank on a leaderboard of `of` players; `rank` and `of` are None before the ladder's
    first refresh when the rank is beyond the exact limit (or, for `of`, at all)."""

    rank: Annotated[int | None, POSITIVE]
    of: Annotated[int | None, POSITIVE]
    exact: bool
    as_of: datetime | None


class PlayerSummary(NamedTuple):
    player_id: Annotated[str, IDENTIFIER]
    ladder: Annotated[str, IDENTIFIER]
    rating: int
    ranked_games: int
    recent_ranked_games: int
    k: int
    provisional: bool
    standing: Standing | None


# History ------------------------------------------------------------------------------------


class GameEvent(NamedTuple):
    """The history event of one player of a stored game."""

    type: Annotated[str, Json({"const": "game"})]
    game_id: Annotated[str, IDENTIFIER]
    at: datetime
    opponent: Annotated[str, IDENTIFIER]
    ranked: bool
    unranked_reason: Annotated[str | None, UNRANKED_REASON]
    delta: int
    rating_after: int
    explain: Annotated[
        Mapping[str, Any] | None,
        Ruled(
            lambda context: {
                "anyOf": [
                    {"type": "null"},
                    *(ref(f"explain.{name}") for name in _rulesets(context)),
                ]
            },
            covers_null=True,
        ),
    ]

    @classmethod
    def of(cls, result: GameResult, index: int, opponent: str) -> "GameEvent":
        outcome = result.players[index].outcome
        assert result.game_id is not None  # only a stored game has history
        return cls(
            GAME_EVENT,
            result.game_id,
            result.played_at,
            opponent,
            result.ranked,
            result.unranked_reason,
            outcome.delta,
            outcome.rating_after,
            outcome.explain,
        )


class PodiumBonusEvent(NamedTuple):
    """The history event of a podium bonus."""

    type: Annotated[str, Json({"const": "podium_bonus"})]
    tournament_id: Annotated[str, IDENTIFIER]
    place: Annotated[int, PLACE]
    at: datetime
    delta: int
    rating_after: int


class History(NamedTuple):
    player_id: Annotated[str, IDENTIFIER]
    ladder: Annotated[str, IDENTIFIER]
    #: The stored events, each the JSON of a GameEvent or a PodiumBonusEvent.
    events: Annotated[
        Sequence[JsonObject],
        Json({"type": "array", "items": {"oneOf": [ref("GameEvent"), ref("PodiumBonusEvent")]}}),
    ]
    next_cursor: str | None


# The leaderboard ----------------------------------------------------------------------------


class LeaderboardEntry(NamedTuple):
    rank: Annotated[int | None, POSITIVE]
    player_id: Annotated[str, IDENTIFIER]
    rating: int
    ranked_games: int


class Leaderboard(NamedTuple):
    """A page of the leaderboard; a page around a player also says whom, and how exact."""

    ladder: Annotated[str, IDENTIFIER]
    entries: list[LeaderboardEntry]
    next_cursor: str | None
    around: Annotated[str | Absent, IDENTIFIER] = ABSENT
    exact: bool | Absent = ABSENT
    as_of: datetime | Absent | None = ABSENT


# Tournaments and links ----------------------------------------------------------------------


class Award(NamedTuple):
    place: Annotated[int, PLACE]
    player_id: Annotated[str, IDENTIFIER]
    delta: int
    rating_after: int
    submitted_id: Annotated[str | Absent, IDENTIFIER] = ABSENT


class Tournament(NamedTuple):
    tournament_id: Annotated[str, IDENTIFIER]
    ladder: Annotated[str, IDENTIFIER]
    status: Annotated[str, Json({"const": "awarded"})]
    public: bool
    finished_at: datetime
    awards: list[Award]


class LadderKept(NamedTuple):
    ladder: Annotated[str, IDENTIFIER]
    kept: Annotated[str, Json({"enum": ["anonymous", "account"]})]


class LinkResult(NamedTuple):
    anonymous_id: Annotated[str, IDENTIFIER]
    account_id: Annotated[str, IDENTIFIER]
    ladders: list[LadderKept]


# Summaries of the scheduled functions (logged and returned, not in the HTTP API) ----------


class StandingsRefreshed(NamedTuple):
    ladder: str
    players: int
    ratings: int
    entries_read: int
    refreshed_at: datetime
    stored: bool


# The answer to a write ------------------------------------------------------------------------


class Submitted(NamedTuple):
    """The answer to a write: the result, and whether this call stored it."""

    result: JsonObject
    created: bool


#: The answers of the HTTP API, by their name in the OpenAPI document.
COMPONENTS: Mapping[str, type] = {
    "ErrorBody": ErrorBody,
    "Ladders": LadderList,
    "PlayerSummary": PlayerSummary,
    "Standing": Standing,
    "GameEvent": GameEvent,
    "PodiumBonusEvent": PodiumBonusEvent,
    "History": History,
    "Leaderboard": Leaderboard,
    "Tournament": Tournament,
    "LinkResult": LinkResult,
}
#: What the document says of an answer as a whole, where it says anything.
DESCRIPTIONS: Mapping[type, str] = {
    Standing: (
        "Where the player stands on the leaderboard: exact up to the deployment's exact-rank "
        "limit, else estimated from the rating histogram of the last refresh (as_of); rank and "
        "of are null before a ladder's first refresh"
    ),
}
#: Answers declared per ruleset: (name prefix, answer, title suffix, preview). A game's result
#: under any ruleset is "GameResult".
RULESET_COMPONENTS = (
    ("result", GameResult, "game result", False),
    ("preview_result", GameResult, "preview result", True),
)
