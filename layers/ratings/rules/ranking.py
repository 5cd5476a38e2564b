"""Where a player stands on a leaderboard: the leaderboard's order, and the rank a rating
histogram gives when counting the players above would cost too much. Standard library only.

The leaderboard's order is rating descending, then player id ascending; a rank is the position
in that order, counted from 1. Ratings are integers, so a histogram with one count per rating
knows exactly how many players rated higher when it was made; only the order among players of
the same rating is unknown to it.
"""

from collections import Counter
from collections.abc import Iterable
from typing import NamedTuple


def board_order(rating: int, player_id: str) -> tuple[int, str]:
    """The sort key of the leaderboard: higher ratings first, equal ratings by id."""
    return (-rating, player_id)


class RatingHistogram(NamedTuple):
    """How many leaderboard players had each rating, highest rating first."""

    #: (rating, players) pairs, ratings distinct and descending, players at least 1.
    counts: tuple[tuple[int, int], ...] = ()

    @classmethod
    def of(cls, ratings: Iterable[int]) -> "RatingHistogram":
        tally = Counter(ratings)
        return cls(tuple(sorted(tally.items(), reverse=True)))

    @property
    def players(self) -> int:
        return sum(players for _rating, players in self.counts)

    def above(self, rating: int) -> int:
        """Players with a higher rating."""
        return sum(players for other, players in self.counts if other > rating)

    def sharing(self, rating: int) -> int:
        """Players with exactly this rating."""
        return next((players for other, players in self.counts if other == rating), 0)

    def estimated_rank(self, rating: int) -> int:
        """The rank of a player of `rating`: after everyone rated higher, and in the middle of
        the players of the same rating (the histogram does not know their ids).

        With the histogram up to date, the true rank is between `above + 1` and
        `above + sharing`; the middle is off by at most half the players of that rating.
        """
        sharing = self.sharing(rating)
        return self.above(rating) + 1 + max(sharing - 1, 0) // 2
