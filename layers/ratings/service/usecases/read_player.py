"""Read a player: their state in a ladder (a linked anonymous id reads as its account), the K
and provisional status of their next game, and where they stand."""

from datetime import timedelta

from ratings.service.ladders import Ladders
from ratings.service.parameters import require_id
from ratings.service.player import Player
from ratings.service.player_reads import RecentWindow, players_of
from ratings.service.ports import Writes
from ratings.service.results import PlayerSummary, Standing, json_of
from ratings.service.settings import Clock
from ratings.service.standing import Ranking
from ratings.service.stored import JsonObject


class ReadPlayer:
    def __init__(
        self, ladders: Ladders, writes: Writes, window: RecentWindow, ranking: Ranking, clock: Clock
    ) -> None:
        self.ladders = ladders
        self.writes = writes
        self.window = window
        self.ranking = ranking
        self.clock = clock

    def __call__(self, ladder_id: str, player_id: str) -> JsonObject:
        ladder = self.ladders.get(ladder_id)
        require_id(player_id, "player_id")
        reads = self.writes.read_for_game(ladder.ladder_id, None, [player_id])
        resolved = reads.links.get(player_id, player_id)
        (player,) = players_of(self.writes, ladder, [resolved], reads.links, reads.states)
        # The window of a game played now, games stored at this very millisecond included.
        until = self.clock() + timedelta(milliseconds=1)
        recent = self.window.ranked_games(ladder.ruleset, player, until, display=True)
        state = player.before_game(recent)
        summary = PlayerSummary(
            player_id=player.player_id,
            ladder=ladder.ladder_id,
            rating=player.rating,
            ranked_games=player.ranked_games,
            recent_ranked_games=recent,
            k=ladder.ruleset.k_for(state),
            provisional=ladder.ruleset.provisional(state),
            standing=self.standing(player),
        )
        return json_of(summary)

    def standing(self, player: Player) -> Standing | None:
        """The player's standing (`player` resolved and read), None when not on the board."""
        if not player.on_the_board:
            return None
        return self.ranking.rank(player.ladder, player.rating, player.player_id)
