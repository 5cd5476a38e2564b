"""Read a player: their state in a ladder (a linked anonymous id reads as its account), the K
and provisional status of their next game, and where they stand."""

from datetime import timedelta
from typing import NamedTuple

from ratings.service.context import Context
from ratings.service.parameters import require_id
from ratings.service.player import Player
from ratings.service.player_reads import players_of, recent_ranked_games
from ratings.service.ports import Writes
from ratings.service.ranking import Ranking
from ratings.service.results import JsonObject, PlayerSummary, Standing, json_of


class ReadPlayer(NamedTuple):
    """Reads a player's state and window through `writes` (as a game now would see
    them) and ranks them through `ranking`."""

    context: Context
    writes: Writes
    ranking: Ranking

    def run(self, ladder_id: str, player_id: str) -> JsonObject:
        ladder = self.context.ladder(ladder_id)
        require_id(player_id, "player_id")
        reads = self.writes.read_for_game(ladder.ladder_id, None, [player_id])
        resolved = reads.links.get(player_id, player_id)
        (player,) = players_of(self.writes, ladder, [resolved], reads.links, reads.states)
        # The window of a game played now, games stored at this very millisecond included.
        until = self.context.now() + timedelta(milliseconds=1)
        recent = recent_ranked_games(self.writes, ladder.ruleset, player, until, display=True)
        state = player.before_game(recent)
        summary = PlayerSummary(
            player_id=player.player_id,
            ladder=ladder.ladder_id,
            rating=player.rating,
            ranked_games=player.ranked_games,
            recent_ranked_games=recent,
            k=ladder.ruleset.k_for(state),
            provisional=ladder.ruleset.provisional(state),
            sanctioned=player.sanctioned,
            standing=self.standing(player),
        )
        return json_of(summary)

    def standing(self, player: Player) -> Standing | None:
        """The player's standing (`player` resolved and read), None when not on the board
        (no ranked game, or under a sanction)."""
        if not player.on_the_board:
            return None
        return self.ranking.rank(player.ladder, player.rating, player.player_id)
