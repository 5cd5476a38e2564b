"""The HTTP API's bodies as pydantic models: what the OpenAPI document (/swagger) shows.

They describe api.md for people and tools; they do not validate. Requests are checked by the
service's parsers (`ratings.service.inputs`), the single source of the rules and of the error
messages, so routes take these models with `SkipValidation`.
"""

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from ratings.rules.fields import ID_PATTERN

Id = Annotated[str, Field(pattern=f"^{ID_PATTERN.pattern}$", examples=["g-000123"])]
Count = Annotated[int, Field(ge=0)]
Rating = int
Explain = Annotated[
    dict[str, Any] | None,
    Field(description="The formula's inputs for this ruleset; null when unranked"),
]


class _Doc(BaseModel):
    # Built on first use (the OpenAPI document), not at import: cold starts stay short.
    model_config = ConfigDict(defer_build=True)


class ErrorDetail(_Doc):
    code: str = Field(examples=["invalid_request"], description="Stable, machine-readable")
    message: str = Field(description="Which field, what was wrong, what is allowed")


class ErrorBody(_Doc):
    error: ErrorDetail


class LadderInfo(_Doc):
    id: str = Field(examples=["backgammon"])
    ruleset: Literal["gammon42", "sedma", "classic"]
    version: str = Field(examples=["1.3.1"])
    starting_rating: Rating
    podium_bonuses: list[int]
    parameters: dict[str, Any]


class Ladders(_Doc):
    ladders: list[LadderInfo]


class SedmaStats(_Doc):
    bad_moves: Count = 0
    rounds_won_16: Count = 0
    rounds_won_24: Count = 0
    rounds_won_4_last: Count = 0


class GamePlayer(_Doc):
    id: Id
    network: str | None = Field(None, max_length=256, description="Same network: unranked")
    bot: bool = False
    stats: SedmaStats | None = Field(None, description="sedma only")


class GameSubmission(_Doc):
    game_id: Id
    played_at: datetime | None = Field(
        None,
        description="RFC 3339 with offset; default: time of receipt; "
        "at most 5 minutes in the future, at most 14 days old",
    )
    players: list[GamePlayer] = Field(min_length=2, max_length=2)
    winner: str | None = Field(description="A player's id; null = draw (classic only)")
    mode: Literal["ranked", "boosted", "tournament"] = "ranked"
    cube: Literal[1, 2, 4, 8, 16, 32, 64] = Field(1, description="gammon42 only")
    ending: Literal["normal", "resign", "disconnect", "timeout"] | None = Field(
        None, description="gammon42 only; informative"
    )
    points: Literal[1, 2, 3] | None = Field(None, description="gammon42 only; informative")


class PreviewPlayer(GamePlayer):
    rating: int | None = Field(None, description="Used instead of the stored rating")
    recent_ranked_games: Count | None = Field(None, description="gammon42 only")
    ranked_games: Count | None = Field(None, description="classic only")


class GamePreview(GameSubmission):
    game_id: Id | None = None  # type: ignore[assignment]
    players: list[PreviewPlayer] = Field(min_length=2, max_length=2)  # type: ignore[assignment]
    ruleset_version: str | None = Field(
        None, description="Another version of the ladder's ruleset (gammon42: 1.0.5, 1.2.0)"
    )


class PlayerChange(_Doc):
    id: str
    rating_before: Rating
    rating_after: Rating
    delta: int
    explain: Explain
    bot: bool
    submitted_id: str | None = Field(None, description="The anonymous id sent, when linked")
    stats: SedmaStats | None = None


class GameResult(_Doc):
    game_id: str | None
    ladder: str
    played_at: str
    ruleset: str
    ruleset_version: str
    ranked: bool
    unranked_reason: Literal["mode", "bot", "shared_network"] | None
    winner: str | None
    mode: str
    cube: int | None = None
    ending: str | None = None
    points: int | None = None
    players: list[PlayerChange]


class PreviewResult(GameResult):
    preview: Literal[True]


class PlayerSummary(_Doc):
    player_id: str
    ladder: str
    rating: Rating
    ranked_games: int
    recent_ranked_games: int
    k: int
    provisional: bool


class GameEvent(_Doc):
    type: Literal["game"]
    game_id: str
    at: str
    opponent: str
    ranked: bool
    unranked_reason: str | None
    delta: int
    rating_after: Rating
    explain: Explain


class PodiumBonusEvent(_Doc):
    type: Literal["podium_bonus"]
    tournament_id: str
    place: int
    at: str
    delta: int
    rating_after: Rating


class History(_Doc):
    player_id: str
    ladder: str
    events: list[Annotated[GameEvent | PodiumBonusEvent, Field(discriminator="type")]]
    next_cursor: str | None


class LeaderboardEntry(_Doc):
    rank: int
    player_id: str
    rating: Rating
    ranked_games: int


class Leaderboard(_Doc):
    ladder: str
    entries: list[LeaderboardEntry]
    next_cursor: str | None


class Award(_Doc):
    place: int
    player_id: str
    delta: int
    rating_after: Rating
    submitted_id: str | None = None


class Tournament(_Doc):
    tournament_id: str
    ladder: str
    status: Literal["awarded"]
    public: bool
    finished_at: str
    awards: list[Award]


class LinkRequest(_Doc):
    anonymous_id: Id
    account_id: Id


class LadderKept(_Doc):
    ladder: str
    kept: Literal["anonymous", "account"]


class LinkResult(_Doc):
    anonymous_id: str
    account_id: str
    ladders: list[LadderKept]


_ERRORS = {
    400: "Invalid input: the message names the field and what is allowed",
    404: "Unknown ladder, or a game or tournament that is not stored",
    409: "Conflict: the id was already used with other content, or already linked",
    413: "Body over 64 KiB",
    503: "Busy or briefly unavailable: retry later with backoff",
}


def responses(
    status: int, model: type[BaseModel], description: str, *errors: int
) -> dict[int, Any]:
    """OpenAPI responses of a route: its success body and the error bodies it may answer."""
    documented: dict[int, Any] = {
        status: {"description": description, "content": {"application/json": {"model": model}}}
    }
    for code in (*errors, 503):
        documented[code] = {
            "description": _ERRORS[code],
            "content": {"application/json": {"model": ErrorBody}},
        }
    return documented
