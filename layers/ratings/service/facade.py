"""The rating service as the handlers call it: every use case, built over one storage and one
set of ladders, each a field of `RatingService`. Plain values in, plain values out; every
write is one atomic commit through the writes port.

A new use case is a module in `ratings.service.usecases` and a line here.
"""

import random
import time
from collections.abc import Callable, Mapping

from ratings.rules import Ladder
from ratings.service.ladders import Ladders
from ratings.service.player_reads import RecentWindow
from ratings.service.ports import Storage
from ratings.service.results import LadderList, json_of
from ratings.service.retries import Retrier, RetryPolicy
from ratings.service.settings import Clock, Settings, utc_now
from ratings.service.standing import Ranking
from ratings.service.stored import JsonObject
from ratings.service.usecases.award_podium import AwardPodium
from ratings.service.usecases.link_identity import LinkIdentity
from ratings.service.usecases.preview_game import PreviewGame
from ratings.service.usecases.read_history import ReadHistory
from ratings.service.usecases.read_leaderboard import ReadLeaderboard
from ratings.service.usecases.read_player import ReadPlayer
from ratings.service.usecases.read_results import ReadGame, ReadTournament
from ratings.service.usecases.refresh_standings import RefreshStandings
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
        retry: RetryPolicy | None = None,
        sleep: Callable[[float], None] = time.sleep,
        rng: random.Random | None = None,
        on_retry: Callable[[str], None] | None = None,
    ) -> None:
        settings = settings or Settings()
        known = Ladders(ladders)
        writes = storage.writes
        retrier = Retrier(retry, sleep=sleep, rng=rng, on_retry=on_retry)
        window = RecentWindow(writes)
        ranking = Ranking(storage.ranks, clock, settings.exact_rank_limit)
        self.retrier = retrier
        self.submit_game = SubmitGame(
            known, writes, storage.results, window, retrier, clock, settings
        )
        self.preview_game = PreviewGame(known, writes, window, clock)
        self.award_podium = AwardPodium(known, writes, storage.results, retrier, clock, settings)
        self.link_identity = LinkIdentity(known, writes, retrier)
        self.get_game = ReadGame(known, storage.results, clock)
        self.get_tournament = ReadTournament(known, storage.results)
        self.get_player = ReadPlayer(known, writes, window, ranking, clock)
        self.get_history = ReadHistory(known, writes, storage.history, clock)
        self.get_leaderboard = ReadLeaderboard(known, writes, storage.leaderboard, ranking)
        self.refresh_standings = RefreshStandings(known, writes, storage.ranks, clock)
        self._ladders = ladders

    @property
    def retries(self) -> int:
        """Attempts redone since this service was made (for metrics and reports)."""
        return self.retrier.retries

    def ladders(self) -> JsonObject:
        return json_of(LadderList.of(self._ladders))
