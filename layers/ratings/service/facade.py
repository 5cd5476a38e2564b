"""The rating service as the handlers call it: one method per use case, each calling the use
case (a function in `ratings.service.usecases`) over one storage and one set of ladders. Plain
values in, plain values out; every write is one atomic commit through a unit of work, made
anew for each call.

A new use case is a module in `ratings.service.usecases` and a method here. The moderation use
cases, and the background jobs they queue, are imported on first use: the game functions never
call them, and every import is cold-start time.
"""

from collections.abc import Mapping
from functools import cached_property
from typing import TYPE_CHECKING

from ratings.rules import Ladder
from ratings.service.context import Clock, Context, Settings, utc_now
from ratings.service.game_result import Submitted
from ratings.service.ports import JobQueue, Storage
from ratings.service.ranking import Ranking
from ratings.service.results import JsonObject, LadderList, json_of
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
        self.context = Context(ladders, settings, clock)
        self.retrier = retrier or Retrier()
        self.ranking = Ranking(storage.ranks, clock, settings.exact_rank_limit)
        self.storage = storage
        self._job_queue = job_queue

    def unit_of_work(self) -> UnitOfWork:
        """A new unit of work on the storage, its attempts made by this service's retrier."""
        return self.storage.unit_of_work(self.retrier)

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
        return json_of(LadderList.of(self.context.ladders))

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
        return SanctionPlayer(self.context, sanctions, uow, self.job_queue).run(ladder_id, body)

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
        return LiftSanction(self.context, sanctions, uow).run(ladder_id, sanction_id)

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
