"""Preview a game: what it would change, with optional overrides of the stored state and
another published version of the ruleset; nothing is stored."""

from ratings.rules import parse_game
from ratings.service.game_rating import evaluate, why_unranked
from ratings.service.ladders import Ladders
from ratings.service.player_reads import RecentWindow, players_of, resolve_pair
from ratings.service.ports import Writes
from ratings.service.results import json_of
from ratings.service.settings import Clock
from ratings.service.stored import JsonObject


class PreviewGame:
    def __init__(
        self, ladders: Ladders, writes: Writes, window: RecentWindow, clock: Clock
    ) -> None:
        self.ladders = ladders
        self.writes = writes
        self.window = window
        self.clock = clock

    def __call__(self, ladder_id: str, body: object) -> JsonObject:
        ladder = self.ladders.get(ladder_id)
        now = self.clock()
        versions = tuple(ladder.versions)
        game = parse_game(body, ladder.ruleset, now, preview_versions=versions)
        ruleset = ladder.ruleset
        if game.ruleset_version is not None:
            ruleset = ladder.at_version(game.ruleset_version)
        ids = [player.player_id for player in game.players]
        reads = self.writes.read_for_game(ladder.ladder_id, None, ids)
        resolved = resolve_pair(ids, reads.links)
        players = players_of(self.writes, ladder, resolved, reads.links, reads.states)
        states = []
        for submitted, player in zip(game.players, players, strict=True):
            overrides = submitted.overrides
            recent = overrides.get("recent_ranked_games")
            if recent is None:
                recent = self.window.ranked_games(ruleset, player, game.played_at)
            states.append(player.supposing(overrides).before_game(recent))
        result, _rating = evaluate(ladder, ruleset, game, states, why_unranked(game))
        return json_of(result._replace(preview=True))
