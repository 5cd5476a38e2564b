"""The answers about seasons (`usecases.seasons`), declared as the other answers are
(`ratings.service.results`): the OpenAPI document's schemas come from `COMPONENTS`."""

from collections.abc import Mapping
from datetime import datetime
from typing import Annotated, NamedTuple

from ratings.declare.answers import POSITIVE, Doc
from ratings.declare.kinds import ABSENT, ID, Absent, Json
from ratings.rules.seasons import Season

SEASON_ID = Doc(
    "YYYY-Www (ISO week), YYYY-MM, YYYY-Qn for a scheduled season, all-time for the season of "
    "a ladder without a schedule (or before its first), else the id an operator started it with"
)


class ResetDescription(NamedTuple):
    kind: Annotated[str, Json({"enum": ["none", "hard", "soft"]})]
    target: Annotated[int | None, Doc("soft only: the rating ratings move toward")]
    squish: Annotated[
        float | None, Doc("soft only: new = round_half_away(target + (old - target) * squish)")
    ]


class SeasonDescription(NamedTuple):
    """A ladder's season: when it began and ends, what its start did to ratings, and what
    its leaderboard asks."""

    season_id: Annotated[str, SEASON_ID]
    starts_at: Annotated[datetime | None, Doc("null for all-time, which has no beginning")]
    ends_at: Annotated[
        datetime | None, Doc("when the next season starts (the next reset); null when open-ended")
    ]
    reset: ResetDescription
    min_games: Annotated[
        int, POSITIVE, Doc("ranked games within the season to appear on its leaderboard")
    ]
    status: Annotated[str | Absent, Json({"enum": ["active", "ended"]})] = ABSENT
    players: Annotated[
        int | Absent | None,
        Doc(
            "players on the season's leaderboard, as the last standings refresh counted them "
            "(final once a refresh ran after its end); null before any"
        ),
    ] = ABSENT


class SeasonList(NamedTuple):
    ladder: Annotated[str, ID]
    seasons: list[SeasonDescription]
    next_cursor: str | None


class PlayerSeason(NamedTuple):
    """A player in the ladder's current season."""

    season_id: Annotated[str, SEASON_ID]
    ranked_games: Annotated[int, Doc("ranked games within the season")]
    eligible: Annotated[bool, Doc("on the season's leaderboard (min_games reached, no sanction)")]


class PastStanding(NamedTuple):
    """A player's final standing in an ended season."""

    season_id: Annotated[str, SEASON_ID]
    rank: Annotated[int | None, POSITIVE]
    of: Annotated[int | None, POSITIVE]
    exact: bool
    rating: int
    ranked_games: Annotated[int, Doc("ranked games within that season")]


class PastStandings(NamedTuple):
    player_id: Annotated[str, ID]
    ladder: Annotated[str, ID]
    seasons: list[PastStanding]
    next_cursor: str | None


def describe(season: Season, starting_rating: int, min_games: int) -> SeasonDescription:
    reset = season.reset.document(starting_rating)
    return SeasonDescription(
        season_id=season.season_id,
        starts_at=season.starts_at,
        ends_at=season.ends_at,
        reset=ResetDescription(**reset),  # type: ignore[arg-type]
        min_games=min_games,
    )


COMPONENTS: Mapping[str, type] = {
    "Season": SeasonDescription,
    "SeasonList": SeasonList,
    "PlayerSeason": PlayerSeason,
    "PastStandings": PastStandings,
}
