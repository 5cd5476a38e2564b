"""Refresh a ladder's standings: count its leaderboard into a rating histogram and store it
(what ranks beyond the exact limit are estimated from). It writes the histogram only."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ratings.rules.ranking import RatingHistogram
from ratings.service.ports import RankView
from ratings.service.results import JsonObject, StandingsRefreshed, json_of
from ratings.service.stored import Standings
from ratings.service.unit_of_work import UnitOfWork

if TYPE_CHECKING:
    from ratings.service.facade import Context


def refresh_standings(
    uow: UnitOfWork, ranks: RankView, context: Context, ladder_id: str
) -> JsonObject:
    """The index is read while games are rated: a player whose rating moves during the
    read may come twice; the first entry read counts, so nobody is counted twice. The next
    refresh reads afresh, so whatever moved during this one is counted there, once.
    """
    ladder = context.ladder(ladder_id)
    started = context.now()
    seen: set[str] = set()
    ratings: list[int] = []
    entries = 0
    for player_id, rating in ranks.leaderboard_entries(ladder.ladder_id):
        entries += 1
        if player_id not in seen:
            seen.add(player_id)
            ratings.append(rating)
    histogram = RatingHistogram.of(ratings)
    stored = uow.put_standings(Standings(ladder.ladder_id, histogram, started))
    summary = StandingsRefreshed(
        ladder=ladder.ladder_id,
        players=histogram.players,
        ratings=len(histogram.counts),
        entries_read=entries,
        refreshed_at=started,
        stored=stored,
    )
    return json_of(summary)
