"""The rating service as the handlers call it: every use case, built over one storage and one
set of ladders, each a field of `RatingService`. Plain values in, plain values out; every
write is one atomic commit through the writes port.

A new use case is a module in `ratings.service.usecases` and a line here.
"""

from collections.abc import Mapping

from ratings.rules import Ladder
from ratings.service.context import Context
from ratings.service.jobs import JobKind, NoJobQueue, RunJob
from ratings.service.ports import JobQueue, Storage
from ratings.service.ranking import Ranking
from ratings.service.results import JsonObject, LadderList, json_of
from ratings.service.retries import Retrier
from ratings.service.settings import Clock, Settings, utc_now
from ratings.service.stored import ERASURE
from ratings.service.usecases.award_podium import AwardPodium
from ratings.service.usecases.erase_player import ErasePlayer
from ratings.service.usecases.erase_sanctions import SanctionPseudonyms
from ratings.service.usecases.lift_sanction import LiftSanction
from ratings.service.usecases.link_identity import LinkIdentity
from ratings.service.usecases.pay_refunds import PayRefunds
from ratings.service.usecases.preview_game import PreviewGame
from ratings.service.usecases.read_history import ReadHistory
from ratings.service.usecases.read_leaderboard import ReadLeaderboard
from ratings.service.usecases.read_player import ReadPlayer
from ratings.service.usecases.read_results import ReadResults
from ratings.service.usecases.read_sanction import ReadSanction
from ratings.service.usecases.refresh_standings import RefreshStandings
from ratings.service.usecases.request_erasure import ReadErasure, RequestErasure
from ratings.service.usecases.sanction_player import SanctionPlayer
from ratings.service.usecases.submit_game import SubmitGame


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
        # Moderation, and the background jobs it queues: a kind is a module with its step;
        # the worker runs them all.
        jobs = job_queue or NoJobQueue()
        sanctions = storage.sanctions
        self.sanction_player = SanctionPlayer(context, sanctions, writes, jobs, retrier).run
        self.get_sanction = ReadSanction(context, sanctions).run
        self.lift_sanction = LiftSanction(context, sanctions, writes, retrier).run
        self.pay_refunds = PayRefunds(context, sanctions, writes, storage.jobs, retrier)
        self.request_erasure = RequestErasure(
            context, storage.jobs, storage.erasures, jobs, retrier
        ).run
        self.get_erasure = ReadErasure(storage.jobs).run
        kinds: dict[str, JobKind] = {
            ERASURE: ErasePlayer(context, storage.erasures, SanctionPseudonyms(sanctions)),
            self.pay_refunds.kind: self.pay_refunds,
        }
        self.run_job = RunJob(storage.jobs, jobs, kinds, retrier, clock)
        self._ladders = ladders

    @property
    def retries(self) -> int:
        """Attempts redone since this service was made (for metrics and reports)."""
        return self.retrier.retries

    def ladders(self) -> JsonObject:
        return json_of(LadderList.of(self._ladders))
