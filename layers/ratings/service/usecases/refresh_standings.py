"""Refresh a ladder's standings: count its leaderboard into a rating histogram and store it
(what ranks beyond the exact limit are estimated from). It writes the histogram only."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from ratings.rules.ranking import RatingHistogram
from ratings.service.ports import RankView
from ratings.service.results import JsonObject, StandingsRefreshed, json_of
from ratings.service.seasons import board_id
from ratings.service.stored import Standings
from ratings.service.unit_of_work import UnitOfWork

if TYPE_CHECKING:
    from ratings.service.facade import Context


#: How long after a season's end its final standings are counted once more: by then every
#: game rated in its last instant has landed (a function's attempts end well within it).
SETTLED_AFTER = timedelta(minutes=5)


def refresh_standings(
    uow: UnitOfWork, ranks: RankView, context: Context, ladder_id: str
) -> JsonObject:
    """The current season's histogram; and, until one is stored from after its end settled
    (SETTLED_AFTER), the histogram of the season before, final from then on (an ended
    season's leaderboard no longer changes, so nothing is read per player at the boundary).

    The index is read while games are rated: a player whose rating moves during the
    read may come twice; the first entry read counts, so nobody is counted twice. The next
    refresh reads afresh, so whatever moved during this one is counted there, once.
    """
    ladder = context.ladder(ladder_id)
    started = context.now()
    season = context.season(ladder, started)
    summary = _refresh(
        uow, ranks, ladder.ladder_id, board_id(ladder.ladder_id, season.season_id), started
    )
    if season.starts_at is not None:
        previous = context.season(ladder, season.starts_at - timedelta(milliseconds=1))
        board = board_id(ladder.ladder_id, previous.season_id)
        stored = ranks.read_standings(board)
        settled = season.starts_at + SETTLED_AFTER
        if started >= settled and (stored is None or stored.refreshed_at < settled):
            _refresh(uow, ranks, ladder.ladder_id, board, started)
    return summary


def _refresh(
    uow: UnitOfWork, ranks: RankView, ladder_id: str, board: str, started: datetime
) -> JsonObject:
    seen: set[str] = set()
    ratings: list[int] = []
    entries = 0
    for player_id, rating in ranks.leaderboard_entries(board):
        entries += 1
        if player_id not in seen:
            seen.add(player_id)
            ratings.append(rating)
    histogram = RatingHistogram.of(ratings)
    stored = uow.put_standings(Standings(board, histogram, started))
    summary = StandingsRefreshed(
        ladder=ladder_id,
        players=histogram.players,
        ratings=len(histogram.counts),
        entries_read=entries,
        refreshed_at=started,
        stored=stored,
    )
    return json_of(summary)
