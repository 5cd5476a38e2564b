"""Ladders: which ruleset, version and parameters each rating pool runs, and its podium bonuses."""

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from ratings.declare.kinds import InvalidInput
from ratings.rules import classic, gammon42, sedma
from ratings.rules.classic import Classic
from ratings.rules.gammon42 import Gammon42
from ratings.rules.ruleset import Ruleset
from ratings.rules.seasons import SeasonPlan
from ratings.rules.sedma import Sedma

#: Bonuses of a public tournament's podium, for places 1, 2 and 3.
PODIUM_BONUSES = (50, 25, 15)

#: One endless season: a ladder that never opted into seasons.
ENDLESS = SeasonPlan()

#: Every version of every ruleset, by ruleset name then version.
RULESET_VERSIONS: Mapping[str, Mapping[str, Ruleset]] = {
    gammon42.NAME: gammon42.VERSIONS,
    sedma.NAME: {"1.0": Sedma()},
    classic.NAME: {"1.0": Classic()},
}


@dataclass(frozen=True)
class Ladder:
    """One rating pool: a game's players and the ruleset that rates them."""

    ladder_id: str
    ruleset: Ruleset
    podium_bonuses: tuple[int, ...] = PODIUM_BONUSES
    #: Its seasons: the schedule, the reset and what a season's leaderboard asks.
    season: SeasonPlan = ENDLESS

    @property
    def starting_rating(self) -> int:
        return self.ruleset.starting_rating

    def podium_bonus(self, place: int) -> int:
        """The bonus for `place` (1-based); 0 for a place the ladder does not pay."""
        if 1 <= place <= len(self.podium_bonuses):
            return self.podium_bonuses[place - 1]
        return 0

    @property
    def versions(self) -> Mapping[str, Ruleset]:
        """The published versions of this ladder's ruleset (just its own, if unpublished)."""
        return RULESET_VERSIONS.get(self.ruleset.name) or {self.ruleset.version: self.ruleset}

    def at_version(self, version: str) -> Ruleset:
        """This ladder's ruleset at another published version (for previews)."""
        versions = self.versions
        if version not in versions:
            allowed = ", ".join(versions)
            raise InvalidInput(
                "ruleset_version",
                f"ruleset_version must be one of {allowed} for ruleset {self.ruleset.name}, "
                f"got {version!r}",
            )
        if version == self.ruleset.version:
            return self.ruleset
        # Keep the ladder's own starting rating; the formula is the other version's.
        published: Any = versions[version]  # every ruleset is a frozen dataclass
        changed: Ruleset = replace(published, starting_rating=self.starting_rating)
        return changed


#: The default deployment's ladders.
DEFAULT_LADDERS: Mapping[str, Ladder] = {
    "backgammon": Ladder("backgammon", Gammon42()),
    "sedma": Ladder("sedma", Sedma()),
    "classic": Ladder("classic", Classic()),
}


def ruleset_named(name: str, version: str) -> Ruleset:
    """A published ruleset by name and version, or InvalidInput saying what exists."""
    versions = RULESET_VERSIONS.get(name)
    if versions is None:
        raise InvalidInput("ruleset", f"ruleset must be one of {', '.join(RULESET_VERSIONS)}")
    if version not in versions:
        raise InvalidInput(
            "ruleset_version",
            f"ruleset_version must be one of {', '.join(versions)} for ruleset {name}",
        )
    return versions[version]
