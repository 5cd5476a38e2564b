"""Every answer of the service but a game's result and its history event, and the answer to a
write (`service.game_result`), and the moderation
answers (`service.moderation_results`), declared once as a typed value (see
`ratings.declare.answers` for the annotations): what the use cases return, what the HTTP API,
the queues' consumers and the CLI write, and what the OpenAPI document's result schemas are
generated from (`COMPONENTS`, `RULESET_COMPONENTS`). A use case returns an answer's JSON
(`json_of`); a stored result is returned as it was stored.
"""

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Annotated, NamedTuple

from ratings.declare.answers import PLACE, POSITIVE, Doc, Ruled, rulesets_of
from ratings.declare.answers import JsonObject as JsonObject
from ratings.declare.answers import json_of as json_of
from ratings.declare.kinds import ABSENT, ID, Absent, Json, ref
from ratings.rules import Ladder
from ratings.rules.seasons import Season
from ratings.service.game_result import GameEvent, GameResult
from ratings.service.season_results import PlayerSeason, SeasonDescription, describe

#: The types of history event (as their JSON's `type` says).
PODIUM_EVENT = "podium_bonus"


# Errors -------------------------------------------------------------------------------------


class ErrorDetail(NamedTuple):
    code: Annotated[str, Doc("Stable, machine-readable")]
    message: Annotated[str, Doc("The field, the fault, the rule")]


class ErrorBody(NamedTuple):
    """The body of every answer that is not a success."""

    error: ErrorDetail


# Ladders ------------------------------------------------------------------------------------


class Between(NamedTuple):
    """A count's bounds, both included."""

    min: Annotated[int, POSITIVE]
    max: Annotated[int, POSITIVE]


class LadderDescription(NamedTuple):
    id: Annotated[str, ID]
    ruleset: Annotated[str, Ruled(lambda context: {"enum": sorted(rulesets_of(context))})]
    version: str
    starting_rating: int
    podium_bonuses: list[int]
    parameters: Annotated[Mapping[str, object], Json({"type": "object"})]
    sides: Annotated[Between, Doc("How many sides a game of the ladder has")]
    players_per_side: Annotated[Between, Doc("How many players each side has")]
    season: Annotated[SeasonDescription, Doc("the ladder's current season")]


class LadderList(NamedTuple):
    ladders: list[LadderDescription]

    @classmethod
    def of(cls, ladders: Mapping[str, Ladder], seasons: Mapping[str, Season]) -> "LadderList":
        """The ladders, their rulesets and parameters, the shape of their games
        (configuration: ladders.json), and the season each is in (`seasons`, by ladder id)."""
        return cls(
            [
                LadderDescription(
                    id=ladder.ladder_id,
                    ruleset=ladder.ruleset.name,
                    version=ladder.ruleset.version,
                    starting_rating=ladder.starting_rating,
                    podium_bonuses=list(ladder.podium_bonuses),
                    parameters=dict(ladder.ruleset.parameters()),
                    sides=Between(*ladder.sides),
                    players_per_side=Between(*ladder.players_per_side),
                    season=describe(
                        seasons[ladder.ladder_id], ladder.starting_rating, ladder.season.min_games
                    ),
                )
                for ladder in ladders.values()
            ]
        )


# A player -----------------------------------------------------------------------------------


class Standing(NamedTuple):
    """A rank on a leaderboard of `of` players; `rank` and `of` are None before the ladder's
    first refresh when the rank is beyond the exact limit (or, for `of`, at all: an exact rank
    counts only the players rated the same or higher, so the size comes from a refresh)."""

    rank: Annotated[int | None, POSITIVE]
    of: Annotated[
        int | None,
        POSITIVE,
        Doc(
            "Players on the leaderboard, as the last standings refresh counted them (never less "
            "than rank); null until the ladder's first refresh (RefreshStandings, every 5 "
            "minutes by default), even when rank is exact"
        ),
    ]
    exact: bool
    as_of: datetime | None


class PlayerSummary(NamedTuple):
    player_id: Annotated[str, ID]
    ladder: Annotated[str, ID]
    rating: int
    ranked_games: int
    recent_ranked_games: int
    k: int
    provisional: bool
    sanctioned: Annotated[
        bool,
        Doc(
            "Under a sanction in the ladder: off its leaderboard (no standing), no game with "
            "them rates; the rating is kept"
        ),
    ]
    standing: Standing | None
    season: PlayerSeason


# History ------------------------------------------------------------------------------------


class PodiumBonusEvent(NamedTuple):
    """The history event of a podium bonus."""

    type: Annotated[str, Json({"const": "podium_bonus"})]
    tournament_id: Annotated[str, ID]
    place: Annotated[int, PLACE]
    at: datetime
    delta: int
    rating_after: int


class History(NamedTuple):
    player_id: Annotated[str, ID]
    ladder: Annotated[str, ID]
    #: The stored events, each the JSON of a GameEvent, a PodiumBonusEvent or a RefundEvent
    #: (`ratings.service.moderation_results`).
    events: Annotated[
        Sequence[JsonObject],
        Json(
            {
                "type": "array",
                "items": {"oneOf": [ref("GameEvent"), ref("PodiumBonusEvent"), ref("RefundEvent")]},
            }
        ),
    ]
    next_cursor: str | None


# The leaderboard ----------------------------------------------------------------------------


class LeaderboardEntry(NamedTuple):
    rank: Annotated[int | None, POSITIVE]
    player_id: Annotated[str, ID]
    rating: int
    ranked_games: int


class Leaderboard(NamedTuple):
    """A page of the leaderboard; a page around a player also says whom, and how exact."""

    ladder: Annotated[str, ID]
    entries: list[LeaderboardEntry]
    next_cursor: str | None
    season_id: Annotated[str | Absent, Doc("the season whose leaderboard this is")] = ABSENT
    around: Annotated[str | Absent, ID] = ABSENT
    exact: bool | Absent = ABSENT
    as_of: datetime | Absent | None = ABSENT


# Tournaments and links ----------------------------------------------------------------------


class Award(NamedTuple):
    place: Annotated[int, PLACE]
    player_id: Annotated[str, ID]
    delta: int
    rating_after: int
    submitted_id: Annotated[str | Absent, ID] = ABSENT


class Tournament(NamedTuple):
    tournament_id: Annotated[str, ID]
    ladder: Annotated[str, ID]
    status: Annotated[
        str,
        Json({"enum": ["awarded", "season_ended"]}),
        Doc(
            "awarded; season_ended when the tournament finished before the ladder's current "
            "season began (no bonus is paid)"
        ),
    ]
    public: bool
    finished_at: datetime
    awards: list[Award]


class LadderKept(NamedTuple):
    ladder: Annotated[str, ID]
    kept: Annotated[str, Json({"enum": ["anonymous", "account"]})]


class LinkResult(NamedTuple):
    anonymous_id: Annotated[str, ID]
    account_id: Annotated[str, ID]
    ladders: list[LadderKept]


# Summaries of the scheduled functions (logged and returned, not in the HTTP API) ----------


class StandingsRefreshed(NamedTuple):
    ladder: str
    players: int
    ratings: int
    entries_read: int
    refreshed_at: datetime
    stored: bool


class RefreshedLadders(NamedTuple):
    """What a run of the RefreshStandings function returns: each ladder's summary, the JSON
    of a StandingsRefreshed."""

    ladders: Sequence[JsonObject]


class PodiumsDrained(NamedTuple):
    """What a run of the AwardPodiums function did with the messages it received, by outcome."""

    awarded: int
    dead_lettered: int
    #: Already awarded (a message delivered again): deleted.
    duplicate: int
    #: Sent back to the podium queue, delayed (contention, throttling): deleted.
    requeued: int
    #: Left in the queue for a later run (a bug, or a failed send back).
    left: int
    #: Received once the run's time was spent: made visible again, untouched.
    released: int
    #: Handled but not deleted: they come back and are settled again, as duplicates.
    undeleted: int


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
        "limit, else estimated from the rating histogram of the last refresh (as_of); before a "
        "ladder's first refresh, of is null, and so is rank beyond the exact limit"
    ),
}
#: Answers declared per ruleset: (name prefix, answer, title suffix, preview). A game's result
#: under any ruleset is "GameResult".
RULESET_COMPONENTS = (
    ("result", GameResult, "game result", False),
    ("preview_result", GameResult, "preview result", True),
)
