"""The rating service as the handlers call it: one method per use case, each calling the use
case (a function in `ratings.service.usecases`) over one storage and one set of ladders. Plain
values in, plain values out; every write is one atomic commit through a unit of work, made
anew for each call.

And what every use case is given besides its storage: the `Context` (the ladders, an unknown
id being NotFound; the `Settings`: how long records are kept, how far ranks are counted
exactly, a player's daily game limit and the arithmetic behind it; and the time).

A new use case is a module in `ratings.service.usecases` and a method here. The moderation use
cases, and the background jobs they queue, are imported on first use: the game functions never
call them, and every import is cold-start time.
"""

from collections.abc import Callable, Mapping
from datetime import UTC, datetime, timedelta
from functools import cached_property, partial
from typing import TYPE_CHECKING, NamedTuple

from ratings.rules import Ladder
from ratings.rules.seasons import Season, season_at
from ratings.service.errors import NotFound
from ratings.service.game_result import Submitted
from ratings.service.ports import JobQueue, Storage
from ratings.service.ranking import Ranking
from ratings.service.results import JsonObject, LadderList, json_of
from ratings.service.seasons import Seasons
from ratings.service.unit_of_work import Retrier, UnitOfWork
from ratings.service.usecases.award_podium import award_podium
from ratings.service.usecases.link_identity import link_identity
from ratings.service.usecases.preview_game import preview_game
from ratings.service.usecases.read_history import read_history
from ratings.service.usecases.read_leaderboard import read_leaderboard
from ratings.service.usecases.read_player import read_player
from ratings.service.usecases.read_results import read_game, read_tournament
from ratings.service.usecases.refresh_standings import refresh_standings
from ratings.service.usecases.submit_game import submit_game

if TYPE_CHECKING:
    from ratings.service.jobs import RunJob
    from ratings.service.usecases.pay_refunds import PayRefunds


# The service's settings and its clock.

#: What the use cases ask the time of (tests pass one they move).
Clock = Callable[[], datetime]


#: The time now, in UTC (a partial of the standard library's, so that the time is asked of
#: no module of ours on every request).
utc_now: Clock = partial(datetime.now, UTC)


class Settings(NamedTuple):
    #: How long per-player history records live (their TTL), counted from the event's time.
    history_retention: timedelta = timedelta(days=30)
    #: How long a game's record (and so duplicate detection) lives, counted from receipt.
    game_retention: timedelta = timedelta(days=30)
    #: Ranks up to this are counted exactly on the leaderboard index; beyond, estimated.
    exact_rank_limit: int = 1000
    #: Games a player may have rated per UTC day; None: as many as keep the player's
    #: partition within its budget at the longer of the two retentions (`daily_game_limit`).
    games_per_day: int | None = None

    @property
    def daily_game_limit(self) -> int:
        if self.games_per_day is not None:
            return self.games_per_day
        return daily_game_limit(max(self.history_retention, self.game_retention))


# The daily game limit of a player, which keeps a player's partition of the table well under
# the 10 GiB DynamoDB lets one partition key hold in a table with a local secondary index
# (docs/table-layout.md, "How big a player's partition gets", has the arithmetic).
#
# Almost all of a partition is history events, and an event lives `RetentionDays` (3650 at
# most) after its time. Without a limit, one API key at its daily quota (1,000,000 requests)
# of games against one victim would add about 1.8 GB a day to the victim's partition: full in
# under a week at the longest retention, after which every write there fails. So each
# player's games are counted per UTC day (of receipt) in their state, and a game that would
# take a player past the limit is refused; the limit is what keeps the largest partition at
# half the cap for the retention configured.

#: DynamoDB's limit on one partition key's items and their local index entries.
ITEM_COLLECTION_LIMIT_BYTES = 10 * 1024**3
#: What the limit keeps a partition under: half of it, whatever the retention.
PARTITION_BUDGET_BYTES = ITEM_COLLECTION_LIMIT_BYTES // 2
#: The largest history event, with its ranked_by_time entry and DynamoDB's 100-byte overhead
#: on each (1,820 bytes measured: a ranked game between 128-character ids,
#: tests/integration/test_partition_size.py), rounded up.
EVENT_ITEM_BYTES = 2_000
#: How late DynamoDB's TTL may delete an expired event (AWS: typically within a few days; a
#: month counted to be safe).
TTL_LAG_DAYS = 30
#: How late a game may be submitted after it was played (`rules.submission`'s 14 days), plus
#: the day it is counted on.
LATE_DAYS = 15
#: The limit at a short retention, where the partition's budget would allow more: one game
#: every 9 seconds, all day.
MOST_GAMES_PER_DAY = 10_000


def partition_days(retention: timedelta) -> int:
    """Days' worth of a player's games that can have events in their partition at once: the
    games' own events (a game received within the retention, the day it counts on and TTL's
    lag), plus at most one refund event for each (a refund lives the retention after it is
    paid, for a game played up to the retention before)."""
    days = retention.days
    games = days + 1 + TTL_LAG_DAYS
    refunds = 2 * days + TTL_LAG_DAYS + LATE_DAYS
    return games + refunds


def daily_game_limit(retention: timedelta) -> int:
    """Games a player may have rated (ranked or not) per UTC day: as many as keep the
    partition within PARTITION_BUDGET_BYTES at this retention, at most MOST_GAMES_PER_DAY."""
    fitting = PARTITION_BUDGET_BYTES // (EVENT_ITEM_BYTES * partition_days(retention))
    return int(min(MOST_GAMES_PER_DAY, fitting))


def partition_bytes(retention: timedelta) -> int:
    """The most a player's history events take at this retention under the daily limit."""
    return daily_game_limit(retention) * partition_days(retention) * EVENT_ITEM_BYTES


class Context(NamedTuple):
    ladders: Mapping[str, Ladder]
    settings: Settings
    clock: Clock
    #: The ladders' current seasons (None: every ladder in its one endless season).
    seasons: Seasons | None = None

    def season(self, ladder: Ladder, at: datetime | None = None) -> Season:
        """The ladder's season at `at` (default: now)."""
        if self.seasons is None:
            return season_at(ladder.season, (), self.now() if at is None else at)
        return self.seasons.current(ladder, at)

    def ladder(self, ladder_id: str) -> Ladder:
        ladder = self.ladders.get(ladder_id)
        if ladder is None:
            known = ", ".join(self.ladders)
            raise NotFound(f"ladder {ladder_id!r} does not exist; ladders: {known}")
        return ladder

    def ladder_ids(self) -> list[str]:
        return list(self.ladders)

    def now(self) -> datetime:
        return self.clock()


class RatingService:
    """Every use case over `storage` and `ladders` (see the modules named above). Each method
    calls the use case of the same name, defined in its own module."""

    def __init__(
        self,
        storage: Storage,
        ladders: Mapping[str, Ladder],
        *,
        settings: Settings | None = None,
        clock: Clock = utc_now,
        retrier: Retrier | None = None,
        job_queue: JobQueue | None = None,
    ) -> None:
        """`retrier` makes every use case's attempts (by default: the default policy, real
        sleeps)."""
        settings = settings or Settings()
        seasons = Seasons(
            ladders,
            lambda ladder_id: storage.seasons.read_starts(ladder_id),
            clock,
            settings.history_retention,
        )
        self.context = Context(ladders, settings, clock, seasons)
        self.retrier = retrier or Retrier()
        self.ranking = Ranking(storage.ranks, clock, settings.exact_rank_limit)
        self.storage = storage
        self._job_queue = job_queue

    def unit_of_work(self) -> UnitOfWork:
        """A new unit of work on the storage, its attempts made by this service's retrier."""
        uow = self.storage.unit_of_work(self.retrier)
        uow.seasons = self.context.seasons
        return uow

    # Games, podiums, links.

    def submit_game(self, ladder_id: str, body: object) -> Submitted:
        return submit_game(self.unit_of_work(), self.context, ladder_id, body)

    def preview_game(self, ladder_id: str, body: object) -> JsonObject:
        return preview_game(self.unit_of_work(), self.context, ladder_id, body)

    def award_podium(self, body: object) -> Submitted:
        return award_podium(self.unit_of_work(), self.context, body)

    def link_identity(self, body: object) -> JsonObject:
        return link_identity(self.unit_of_work(), self.context, body)

    # Reads.

    def get_game(self, ladder_id: str, game_id: str) -> JsonObject:
        return read_game(self.storage.results, self.context, ladder_id, game_id)

    def get_tournament(self, ladder_id: str, tournament_id: str) -> JsonObject:
        return read_tournament(self.storage.results, self.context, ladder_id, tournament_id)

    def get_player(self, ladder_id: str, player_id: str) -> JsonObject:
        return read_player(self.unit_of_work(), self.ranking, self.context, ladder_id, player_id)

    def get_history(
        self, ladder_id: str, player_id: str, limit: object = None, cursor: object = None
    ) -> JsonObject:
        history = self.storage.history
        uow = self.unit_of_work()
        return read_history(uow, history, self.context, ladder_id, player_id, limit, cursor)

    def get_leaderboard(
        self, ladder_id: str, limit: object = None, cursor: object = None, around: object = None
    ) -> JsonObject:
        board, uow = self.storage.leaderboard, self.unit_of_work()
        context = self.context
        return read_leaderboard(uow, board, self.ranking, context, ladder_id, limit, cursor, around)

    def refresh_standings(self, ladder_id: str) -> JsonObject:
        ranks = self.storage.ranks
        return refresh_standings(self.unit_of_work(), ranks, self.context, ladder_id)

    def ladders(self) -> JsonObject:
        context = self.context
        if context.seasons is not None:  # every ladder's record in one read
            context.seasons.refresh(context.ladder_ids(), self.storage.seasons.read_starts_of)
        seasons = {
            ladder_id: context.season(ladder) for ladder_id, ladder in context.ladders.items()
        }
        return json_of(LadderList.of(context.ladders, seasons))

    # Seasons.

    def list_seasons(
        self, ladder_id: str, limit: object = None, cursor: object = None
    ) -> JsonObject:
        from ratings.service.usecases.seasons import list_seasons

        return list_seasons(self.context, ladder_id, limit, cursor)

    def get_season(self, ladder_id: str, season_id: str) -> JsonObject:
        from ratings.service.usecases.seasons import read_season

        return read_season(self.context, self.storage.ranks, ladder_id, season_id)

    def get_season_leaderboard(
        self,
        ladder_id: str,
        season_id: str,
        limit: object = None,
        cursor: object = None,
        around: object = None,
    ) -> JsonObject:
        board, uow, context = self.storage.leaderboard, self.unit_of_work(), self.context
        seasons = self.storage.seasons
        return read_leaderboard(
            uow, board, self.ranking, context, ladder_id, limit, cursor, around, season_id, seasons
        )

    def get_player_seasons(
        self, ladder_id: str, player_id: str, limit: object = None, cursor: object = None
    ) -> JsonObject:
        from ratings.service.usecases.seasons import read_player_seasons

        store, uow, context = self.storage.seasons, self.unit_of_work(), self.context
        return read_player_seasons(
            uow, store, self.ranking, context, ladder_id, player_id, limit, cursor
        )

    def start_season(self, ladder_id: str, body: object) -> Submitted:
        from ratings.service.usecases.seasons import start_season

        return start_season(self.context, self.storage.seasons, self.retrier, ladder_id, body)

    @property
    def retries(self) -> int:
        """Attempts redone since this service was made (for metrics and reports)."""
        return self.retrier.retries

    # Moderation, and the background jobs it queues: a kind is a module with its step; the
    # worker runs them all.

    @cached_property
    def job_queue(self) -> JobQueue:
        from ratings.service.jobs import NoJobQueue

        return self._job_queue or NoJobQueue()

    def sanction_player(self, ladder_id: str, body: object) -> Submitted:
        from ratings.service.usecases.sanction_player import SanctionPlayer

        sanctions, uow = self.storage.sanctions, self.unit_of_work()
        seasons = self.storage.seasons
        sanction = SanctionPlayer(self.context, sanctions, uow, self.job_queue, seasons)
        return sanction.run(ladder_id, body)

    def get_sanction(
        self, ladder_id: str, sanction_id: str, limit: object = None, cursor: object = None
    ) -> JsonObject:
        """A sanction with a page of its decisions."""
        from ratings.service.usecases.read_sanction import ReadSanction

        read = ReadSanction(self.context, self.storage.sanctions)
        return read.run(ladder_id, sanction_id, limit, cursor)

    def lift_sanction(self, ladder_id: str, sanction_id: str) -> JsonObject:
        from ratings.service.usecases.lift_sanction import LiftSanction

        sanctions, uow = self.storage.sanctions, self.unit_of_work()
        lift = LiftSanction(self.context, sanctions, uow, self.storage.seasons)
        return lift.run(ladder_id, sanction_id)

    @cached_property
    def pay_refunds(self) -> "PayRefunds":
        from ratings.service.usecases.pay_refunds import PayRefunds

        storage = self.storage
        return PayRefunds(
            self.context, storage.sanctions, self.unit_of_work(), storage.jobs, self.retrier
        )

    def request_erasure(self, player_id: str) -> JsonObject:
        from ratings.service.usecases.request_erasure import RequestErasure

        storage = self.storage
        request = RequestErasure(
            self.context, storage.jobs, storage.erasures, self.job_queue, self.retrier
        )
        return request.run(player_id)

    def get_erasure(self, player_id: str) -> JsonObject:
        from ratings.service.usecases.request_erasure import ReadErasure

        return ReadErasure(self.storage.jobs).run(player_id)

    @cached_property
    def run_job(self) -> "RunJob":
        from ratings.service.jobs import JobKind, RunJob
        from ratings.service.stored import ERASURE
        from ratings.service.usecases.erase_player import ErasePlayer
        from ratings.service.usecases.erase_sanctions import SanctionPseudonyms

        storage = self.storage
        erase = ErasePlayer(self.context, storage.erasures, SanctionPseudonyms(storage.sanctions))
        kinds: dict[str, JobKind] = {ERASURE: erase, self.pay_refunds.kind: self.pay_refunds}
        return RunJob(storage.jobs, self.job_queue, kinds, self.retrier, self.context.clock)
