"""Ladders: which ruleset, version and parameters each rating pool runs, the shape of its
games, its podium bonuses and its seasons. A deployment's ladders come from ladders.json
(`ratings.rules.ladder_config`); `DEFAULT_LADDERS` is what that file holds as shipped."""

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

from ratings.declare.kinds import InvalidInput
from ratings.rules import classic, gammon42, sedma
from ratings.rules.classic import Classic
from ratings.rules.gammon42 import Gammon42
from ratings.rules.model import Span as Span  # beside the rulesets' Shapes, kept here too
from ratings.rules.ruleset import Ruleset
from ratings.rules.seasons import SeasonPlan
from ratings.rules.sedma import Sedma

#: Bonuses of a public tournament's podium, for places 1, 2 and 3.
PODIUM_BONUSES = (50, 25, 15)

#: Every version of every ruleset, by ruleset name then version.
RULESET_VERSIONS: Mapping[str, Mapping[str, Ruleset]] = {
    gammon42.NAME: gammon42.VERSIONS,
    sedma.NAME: {"1.0": Sedma()},
    classic.NAME: {"1.0": Classic()},
}


#: A ladder's games unless it says otherwise: two sides of one player each (what each
#: ruleset rates is its `shapes`, and a ladder's shape must lie within it: `ladder_config`).
TWO_SIDES = Span(2, 2)
ONE_PLAYER = Span(1, 1)
#: A ladder that never opts in to seasons: one endless season.
NO_SEASONS = SeasonPlan()


@dataclass(frozen=True)
class Ladder:
    """One rating pool: a game's players and the ruleset that rates them."""

    ladder_id: str
    ruleset: Ruleset
    podium_bonuses: tuple[int, ...] = PODIUM_BONUSES
    #: Its seasons: the schedule, the reset and what a season's leaderboard asks.
    season: SeasonPlan = NO_SEASONS
    #: How many sides a game of the ladder has, and how many players each side.
    sides: Span = TWO_SIDES
    players_per_side: Span = ONE_PLAYER

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
        # The formula is the other version's; the ladder's own parameters are kept.
        published: Any = versions[version]  # every ruleset is a frozen dataclass
        changed: Ruleset = replace(published, **self._own_parameters(published))
        return changed

    def _own_parameters(self, other: Any) -> dict[str, object]:
        """The ladder's starting rating, and each parameter it sets apart from its own
        published version (ladders.json's `parameters`) where `other` has the same value as
        that version: what a version defines (gammon42's divisor) stays the other version's."""
        own: Any = self.ruleset
        base: Any = self.versions.get(own.version, own)
        kept: dict[str, object] = {"starting_rating": self.starting_rating}
        for field in dataclasses.fields(own):
            if not field.init or field.name == "version":
                continue
            mine, published = getattr(own, field.name), getattr(base, field.name)
            if mine != published and getattr(other, field.name) == published:
                kept[field.name] = mine
        return kept


#: The ladders of ladders.json as shipped, for the code that runs without the file (tests,
#: benchmarks); tests/unit/test_ladder_config.py holds the two equal.
DEFAULT_LADDERS: Mapping[str, Ladder] = {
    "backgammon": Ladder("backgammon", Gammon42()),
    "sedma": Ladder("sedma", Sedma()),
    "classic": Ladder("classic", Classic()),
    # Teams and free-for-all: sedma's partners (two against two) and classic's 3 to 8 sides.
    "sedma-pairs": Ladder("sedma-pairs", Sedma(), players_per_side=Span(2, 2)),
    "classic-ffa": Ladder("classic-ffa", Classic(), sides=Span(3, 8)),
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
