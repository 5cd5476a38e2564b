"""The rating service as the handlers call it: every use case, built over one storage and one
set of ladders, each a field of `RatingService`. Plain values in, plain values out; every
write is one atomic commit through the writes port.

A new use case is a module in `ratings.service.usecases` and a line here. The moderation use
cases, and the background jobs they queue, are made (and their modules imported) on first use:
the game functions never call them, and every import is cold-start time.
"""

from collections.abc import Callable, Mapping
from functools import cached_property
from typing import TYPE_CHECKING

from ratings.rules import Ladder
from ratings.service.context import Context
from ratings.service.ports import JobQueue, Storage
from ratings.service.ranking import Ranking
from ratings.service.results import JsonObject, LadderList, json_of
from ratings.service.retries import Retrier
from ratings.service.settings import Clock, Settings, utc_now
from ratings.service.usecases.award_podium import AwardPodium
from ratings.service.usecases.link_identity import LinkIdentity
from ratings.service.usecases.preview_game import PreviewGame
from ratings.service.usecases.read_history import ReadHistory
from ratings.service.usecases.read_leaderboard import ReadLeaderboard
from ratings.service.usecases.read_player import ReadPlayer
from ratings.service.usecases.read_results import ReadResults
from ratings.service.usecases.refresh_standings import RefreshStandings
from ratings.service.usecases.submit_game import SubmitGame

if TYPE_CHECKING:
    from ratings.service.jobs import RunJob
    from ratings.service.results import Submitted
    from ratings.service.usecases.pay_refunds import PayRefunds


class RatingService:
    """Every use case over `storage` and `ladders` (see the modules named above)."""

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
        """`retrier` redoes contended attempts (by default: the default policy, real sleeps)."""
        settings = settings or Settings()
        context = Context(ladders, settings, clock)
        writes = storage.writes
        retrier = retrier or Retrier()
        ranking = Ranking(storage.ranks, clock, settings.exact_rank_limit)
        self.retrier = retrier
        self.ranking = ranking
        results = storage.results
        self.submit_game = SubmitGame(context, writes, results, retrier).run
        self.preview_game = PreviewGame(context, writes).run
        self.award_podium = AwardPodium(context, writes, results, retrier).run
        self.link_identity = LinkIdentity(context, writes, retrier).run
        stored_results = ReadResults(context, results)
        self.get_game = stored_results.game
        self.get_tournament = stored_results.tournament
        self.get_player = ReadPlayer(context, writes, ranking).run
        self.get_history = ReadHistory(context, writes, storage.history).run
        self.get_leaderboard = ReadLeaderboard(context, writes, storage.leaderboard, ranking).run
        self.refresh_standings = RefreshStandings(context, writes, storage.ranks).run
        self._ladders = ladders
        self._context = context
        self._storage = storage
        self._job_queue = job_queue
        self._clock = clock

    # Moderation, and the background jobs it queues: a kind is a module with its step; the
    # worker runs them all.

    @cached_property
    def _jobs_queue(self) -> JobQueue:
        from ratings.service.jobs import NoJobQueue

        return self._job_queue or NoJobQueue()

    @cached_property
    def sanction_player(self) -> "Callable[[str, object], Submitted]":
        from ratings.service.usecases.sanction_player import SanctionPlayer

        storage = self._storage
        return SanctionPlayer(
            self._context, storage.sanctions, storage.writes, self._jobs_queue, self.retrier
        ).run

    @cached_property
    def get_sanction(self) -> Callable[..., JsonObject]:
        """(ladder, sanction_id, limit=None, cursor=None): a page of its decisions."""
        from ratings.service.usecases.read_sanction import ReadSanction

        return ReadSanction(self._context, self._storage.sanctions).run

    @cached_property
    def lift_sanction(self) -> Callable[[str, str], JsonObject]:
        from ratings.service.usecases.lift_sanction import LiftSanction

        storage = self._storage
        return LiftSanction(self._context, storage.sanctions, storage.writes, self.retrier).run

    @cached_property
    def pay_refunds(self) -> "PayRefunds":
        from ratings.service.usecases.pay_refunds import PayRefunds

        storage = self._storage
        return PayRefunds(
            self._context, storage.sanctions, storage.writes, storage.jobs, self.retrier
        )

    @cached_property
    def request_erasure(self) -> Callable[[str], JsonObject]:
        from ratings.service.usecases.request_erasure import RequestErasure

        storage = self._storage
        return RequestErasure(
            self._context, storage.jobs, storage.erasures, self._jobs_queue, self.retrier
        ).run

    @cached_property
    def get_erasure(self) -> Callable[[str], JsonObject]:
        from ratings.service.usecases.request_erasure import ReadErasure

        return ReadErasure(self._storage.jobs).run

    @cached_property
    def run_job(self) -> "RunJob":
        from ratings.service.jobs import JobKind, RunJob
        from ratings.service.stored import ERASURE
        from ratings.service.usecases.erase_player import ErasePlayer
        from ratings.service.usecases.erase_sanctions import SanctionPseudonyms

        storage = self._storage
        erase = ErasePlayer(self._context, storage.erasures, SanctionPseudonyms(storage.sanctions))
        kinds: dict[str, JobKind] = {ERASURE: erase, self.pay_refunds.kind: self.pay_refunds}
        return RunJob(storage.jobs, self._jobs_queue, kinds, self.retrier, self._clock)

    @property
    def retries(self) -> int:
        """Attempts redone since this service was made (for metrics and reports)."""
        return self.retrier.retries

    def ladders(self) -> JsonObject:
        return json_of(LadderList.of(self._ladders))
