"""The rating service: every use case, over an injected storage and ladder configuration.
Plain values in, plain values out; every write is one atomic commit through the storage port.

The use cases live by group (`games`, `reads`, `podiums`, `identities`) on a shared base
(`base`); their documents in `documents`. This module puts them together.
"""

from ratings.service.base import RetryPolicy, Settings, Submitted
from ratings.service.documents import describe_ladders
from ratings.service.games import GameUseCases
from ratings.service.identities import IdentityUseCases
from ratings.service.podiums import PodiumUseCases
from ratings.service.ports import JsonObject
from ratings.service.reads import ReadUseCases

__all__ = ["RatingService", "RetryPolicy", "Settings", "Submitted", "describe_ladders"]


class RatingService(GameUseCases, ReadUseCases, PodiumUseCases, IdentityUseCases):
    """The rating service's use cases (see the modules named above)."""

    def ladders(self) -> JsonObject:
        return describe_ladders(self._ladders)
