"""Where a player stands: their rank on the leaderboard, exact near the top, estimated from the
ladder's rating histogram beyond.

The rank is exact when the rank view can count the players ahead within `exact_rank_limit`
(a bounded read of the leaderboard index); otherwise it is the histogram's estimate, as of the
histogram's refresh.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, NamedTuple

from ratings.service.ports import RankView
from ratings.service.results import Standing

if TYPE_CHECKING:
    from ratings.service.facade import Clock


class Ranking(NamedTuple):
    """Ranks positions on a ladder's leaderboard."""

    ranks: RankView
    clock: Clock
    exact_rank_limit: int

    def rank(self, ladder_id: str, rating: int, player_id: str) -> Standing:
        limit = self.exact_rank_limit
        read_at = self.clock()
        ahead = self.ranks.count_ahead(ladder_id, rating, player_id, limit)
        standings = self.ranks.read_standings(ladder_id)
        if ahead is not None:
            rank, exact, as_of = ahead + 1, True, read_at
        elif standings is not None:
            rank, exact = standings.histogram.estimated_rank(rating), False
            as_of = standings.refreshed_at
        else:
            return Standing(rank=None, of=None, exact=False, as_of=None)
        # The histogram may predate the player's first ranked game: `of` is never below rank.
        of = None if standings is None else max(standings.histogram.players, rank)
        return Standing(rank=rank, of=of, exact=exact, as_of=as_of)
