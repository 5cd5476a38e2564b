"""A game's result, declared once (see `ratings.declare.answers`): both players before and after,
what produced each change, and the ruleset's own fields as they were rated. The service
answers and stores it; the CLI's replay and simulate write it too.
"""

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime, timedelta
from types import MappingProxyType
from typing import TYPE_CHECKING, Annotated, Any, NamedTuple

from ratings.declare.answers import (
    Doc,
    JsonObject,
    Only,
    Ruled,
    SchemaContext,
    Spread,
    json_of,
    ruleset_of,
    rulesets_of,
)
from ratings.declare.kinds import ABSENT, ID, Absent, Field, Json, Object, Schema, nullable, ref
from ratings.rules import (
    MODES,
    UNRANKED_REASONS,
    Game,
    GameInput,
    Ladder,
    PlayerChange,
    PlayerState,
    Rating,
    Ruleset,
    unranked_reason,
)
from ratings.rules.ladders import RULESET_VERSIONS
from ratings.rules.ruleset import shapes_of
from ratings.service.player import Player
from ratings.service.stored import PlayerEvent, StoredGame, StoredTournament

if TYPE_CHECKING:
    from ratings.service.results import PodiumBonusEvent

#: Digits kept of the formula's fractional inputs in answers (expected score, coefficient...).
EXPLAIN_DIGITS = 4
UNRANKED_REASON = Json({"enum": [*UNRANKED_REASONS, None]}, covers_null=True)
#: A list of players' ids.
IDS = Json({"type": "array", "items": ID.schema()})
#: An empty mapping of spread properties (a ruleset without fields of its own).
NO_PROPERTIES: Mapping[str, Any] = MappingProxyType({})


def _own_fields(which: str) -> Callable[[SchemaContext], tuple[Field, ...]]:
    """The ruleset's own fields (`game_fields` or `player_fields`) as a result shows them."""

    def answered(context: SchemaContext) -> tuple[Field, ...]:
        fields: tuple[Field, ...] = getattr(ruleset_of(context), which)
        return tuple(entry.answered() for entry in fields)

    return answered


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
        Ruled(lambda context: ref(f"explain.{ruleset_of(context).name}")),
    ]

    @classmethod
    def of(cls, rating_before: int, change: PlayerChange | None) -> "RatingOutcome":
        if change is None:
            return cls(rating_before, rating_before, 0, None)
        return cls(
            rating_before, change.rating_after, change.delta, rounded_explain(change.explain)
        )


class PlayerResult(NamedTuple):
    """One player's part of a game's result."""

    id: Annotated[str, ID, Doc("The player's id (the account, once linked)")]
    outcome: Annotated[RatingOutcome, Spread()]
    bot: bool
    submitted_id: Annotated[str | Absent, ID, Doc("The id sent, when it is linked")] = ABSENT
    #: The ruleset's own player fields, as rated.
    options: Annotated[Mapping[str, Any], Spread(_own_fields("player_fields"))] = NO_PROPERTIES
    side: Annotated[
        int | Absent, Doc("The player's side: its index in sides (a game sent as sides)")
    ] = ABSENT


class SideResult(NamedTuple):
    """A side of a game sent as sides: its place and its players' ids, in the order sent."""

    place: Annotated[int, Doc("1 for the best side; equal places tie")]
    players: Annotated[list[str], IDS]


def _versions(context: SchemaContext) -> Schema:
    ruleset = ruleset_of(context)
    return {"enum": list(RULESET_VERSIONS.get(ruleset.name, {ruleset.version: ruleset}))}


def _winner(context: SchemaContext) -> Schema:
    """The winner's id; null for a draw, or for a game of other sides than two of one player
    (its sides tell the places), where the ruleset has such games."""
    ruleset = ruleset_of(context)
    shapes = shapes_of(ruleset)
    only_one_against_one = shapes.sides.max == 2 and shapes.players_per_side.max == 1
    if ruleset.draws_allowed or not only_one_against_one:
        return nullable(ID.schema())
    return ID.schema()


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
    ladder: Annotated[str, ID]
    played_at: datetime
    ruleset: Annotated[str, Ruled(lambda context: {"const": ruleset_of(context).name})]
    ruleset_version: Annotated[str, Ruled(_versions)]
    ranked: bool
    unranked_reason: Annotated[str | None, UNRANKED_REASON]
    winner: Annotated[str | None, Ruled(_winner, covers_null=True)]
    mode: Annotated[str, Json({"enum": list(MODES)})]
    players: Annotated[
        list[PlayerResult], Doc("Every player, in the order sent (sides: first side first)")
    ]
    #: The ruleset's own game fields, as rated.
    options: Annotated[Mapping[str, Any], Spread(_own_fields("game_fields"))] = NO_PROPERTIES
    sides: Annotated[
        list[SideResult] | Absent, Doc("The sides, in the order sent (a game sent as sides)")
    ] = ABSENT
    preview: Annotated[
        bool | Absent, Json({"const": True}), Only(lambda context: context.preview)
    ] = ABSENT

    def document(self) -> JsonObject:
        """The result as the service answers it and stores it."""
        return json_of(self)

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
        side_of = sides_of(game)
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
                    side=side_of[index] if game.sent_as_sides else ABSENT,
                )
            )
        sides: list[SideResult] | Absent = ABSENT
        if game.sent_as_sides:
            sides = [
                SideResult(place, [states[index].player_id for index in side])
                for side, place in zip(game.sides, game.places, strict=True)
            ]
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
            players=players,
            options=game.options,
            sides=sides,
        )


def sides_of(game: GameInput) -> list[int]:
    """Each player's side (its index in `game.sides`), in the order of `game.players`."""
    side_of = [0] * len(game.players)
    for number, side in enumerate(game.sides):
        for index in side:
            side_of[index] = number
    return side_of


def explain_schema(ruleset: Ruleset) -> Schema:
    """The `explain` object of a rated player under `ruleset`, from its declared fields."""
    described = f"The formula's inputs under {ruleset.name} (null when unranked)"
    return Object(ruleset.explain_fields, description=described).schema()


#: The type of a game's history event (as its JSON's `type` says).
GAME_EVENT = "game"


class GameEvent(NamedTuple):
    """The history event of one player of a stored game."""

    type: Annotated[str, Json({"const": "game"})]
    game_id: Annotated[str, ID]
    at: datetime
    opponent: Annotated[
        str | None,
        Json(nullable(ID.schema()), covers_null=True),
        Doc("The opponent; null in a game of more than one opponent (see opponents)"),
    ]
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
                    *(ref(f"explain.{name}") for name in rulesets_of(context)),
                ]
            },
            covers_null=True,
        ),
    ]
    teammates: Annotated[
        list[str] | Absent, IDS, Doc("The player's side but them (a game sent as sides)")
    ] = ABSENT
    opponents: Annotated[
        list[str] | Absent, IDS, Doc("The players of every other side (a game sent as sides)")
    ] = ABSENT

    @classmethod
    def of(cls, result: GameResult, index: int, game: GameInput) -> "GameEvent":
        """The event of the `index`-th player of `game`, rated as `result`: it names the
        opponent (one against one), or the teammates and opponents (a game sent as sides)."""
        outcome = result.players[index].outcome
        assert result.game_id is not None  # only a stored game has history
        ids = [player.id for player in result.players]
        mine = sides_of(game)[index]
        teammates = [ids[i] for i in game.sides[mine] if i != index]
        opponents = [
            ids[i] for side, members in enumerate(game.sides) if side != mine for i in members
        ]
        return cls(
            GAME_EVENT,
            result.game_id,
            result.played_at,
            opponents[0] if len(opponents) == 1 else None,
            result.ranked,
            result.unranked_reason,
            outcome.delta,
            outcome.rating_after,
            outcome.explain,
            teammates if game.sent_as_sides else ABSENT,
            opponents if game.sent_as_sides else ABSENT,
        )


# The answer to a write ------------------------------------------------------------------------


class Submitted(NamedTuple):
    """The answer to a write: the result, and whether this call stored it."""

    result: JsonObject
    created: bool


def answer_again(stored: StoredGame | StoredTournament, fingerprint: str) -> Submitted | None:
    """A write made once per id (a game, a tournament), met again: the stored result when
    `fingerprint` is the stored one's (a retry), None when it is not (the caller's conflict)."""
    if stored.fingerprint != fingerprint:
        return None
    return Submitted(stored.result, created=False)


def history_line(
    player: Player,
    event: "GameEvent | PodiumBonusEvent",
    kept_for: timedelta,
    kept_until: datetime | None = None,
) -> PlayerEvent:
    """`event` as a line of `player`'s history, kept `kept_for` after it happened, and at least
    until `kept_until` (a game's record's expiry: while the record names the player, so does
    an event of theirs, where an erasure finds it)."""
    if isinstance(event, GameEvent):
        ref_id, ranked = event.game_id, event.ranked
    else:
        ref_id, ranked = event.tournament_id, False
    expires_at = event.at + kept_for
    if kept_until is not None:
        expires_at = max(expires_at, kept_until)
    return PlayerEvent(
        ladder=player.ladder,
        player_id=player.player_id,
        at=event.at,
        event_type=event.type,
        ref_id=ref_id,
        ranked=ranked,
        body=json_of(event),
        expires_at=expires_at,
    )


# Rating a checked game: whether it is ranked, the rules' verdict, and the result. Shared by
# submitting a game and previewing one; nothing here reads or writes storage.


def why_unranked(
    game: GameInput, sanctioned: Sequence[bool], season_start: datetime | None = None
) -> str | None:
    """The reason the game does not rate (played before the season began, a sanctioned
    player, mode, a bot anywhere, a shared network across sides), or None. `sanctioned`:
    whether each player, in the game's order, is under a sanction (`Player.sanctioned`, as
    read); `season_start`: when the season the game would count in began (None: all-time,
    which never ended)."""
    bots = [player.bot for player in game.players]
    networks = [player.network for player in game.players]
    ended = season_start is not None and game.played_at < season_start
    return unranked_reason(game.mode, bots, networks, sanctioned, ended, sides_of(game))


def evaluate(
    ladder: Ladder,
    ruleset: Ruleset,
    game: GameInput,
    states: Sequence[PlayerState],
    reason: str | None,
) -> tuple[GameResult, Rating | None]:
    """The result of a game under `ruleset`, and the rating unless `reason` (why the game is
    unranked) is given."""
    winner = game.winner
    if winner is not None:  # the winner as resolved (an anonymous id may be an account)
        winner = states[[p.player_id for p in game.players].index(winner)].player_id
    rules_game = Game(
        players=tuple(states),
        winner=winner,
        options=game.options,
        player_options=tuple(player.options for player in game.players),
        sides=game.sides,
        places=game.places,
    )
    rating = None if reason else ruleset.rate(rules_game)
    result = GameResult.of(ladder.ladder_id, ruleset, game, states, winner, reason, rating)
    return result, rating
