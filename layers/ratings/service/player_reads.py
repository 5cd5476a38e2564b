"""Reading the players of a use case: resolving linked ids to accounts, their states (or the
starting state of a player never stored), and the recent-games window the K rule reads."""

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta

from ratings.rules import InvalidInput, Ladder, Ruleset
from ratings.service.errors import PlayerErasing
from ratings.service.player import Player
from ratings.service.ports import Writes

#: A cap on any window count, for rulesets that never look at it (only shown to callers).
DISPLAY_RECENT_LIMIT = 1000
#: The window shown for rulesets without one of their own.
DISPLAY_WINDOW_DAYS = 7


def resolve_pair(ids: Sequence[str], links: Mapping[str, str]) -> list[str]:
    """A game's two ids as their accounts; they must stay two people."""
    resolved = [links.get(player_id, player_id) for player_id in ids]
    if resolved[0] == resolved[1]:
        raise InvalidInput(
            "players[1].id",
            "players[1].id and players[0].id belong to the same account after linking",
        )
    return resolved


def players_of(
    writes: Writes,
    ladder: Ladder,
    resolved: Sequence[str],
    links: Mapping[str, str],
    states: Mapping[str, Player],
) -> list[Player]:
    """The stored (or starting) state of each resolved id. `states` were read with `links`:
    an account reached through a link was not among them, so it is read now."""
    missing = [pid for pid in resolved if pid in links.values() and pid not in states]
    extra = writes.read_states(ladder.ladder_id, missing) if missing else {}
    players = []
    for player_id in resolved:
        player = states.get(player_id) or extra.get(player_id)
        if player is None:
            player = Player(ladder.ladder_id, player_id, ladder.starting_rating)
        players.append(player)
    return players


def refuse_erasing(players: Sequence[Player]) -> None:
    """PlayerErasing when one of `players` is being erased (a write must wait for it)."""
    if any(player.erasing for player in players):
        raise PlayerErasing


def recent_ranked_games(
    writes: Writes, ruleset: Ruleset, player: Player, until: datetime, *, display: bool = False
) -> int:
    """Ranked games of the player in the ruleset's window before `until`, counted as far as
    the K rule needs; with `display`, also for a ruleset that never looks (up to
    DISPLAY_RECENT_LIMIT, over DISPLAY_WINDOW_DAYS). From the state when it knows them
    (`Player.recent_ranked_games`), else on the history."""
    limit = ruleset.recent_games_needed
    if limit is None:
        if not display:
            return 0
        limit = DISPLAY_RECENT_LIMIT
    if not player.stored:
        return 0  # never stored: no games anywhere
    window = timedelta(days=ruleset.recent_window_days or DISPLAY_WINDOW_DAYS)
    since = until - window
    known = player.recent_ranked_games(since, until, limit)
    if known is not None:
        return known  # the state keeps every game the window can count
    # A late game whose window starts before the times the state dropped, or a state that
    # keeps none (stored before they were kept): the window is counted on the history, a
    # Query per id.
    count = writes.count_ranked_games(player.ladder, player.player_id, since, until, limit)
    if player.absorbed_id is not None and count < limit:
        count += writes.count_ranked_games(
            player.ladder, player.absorbed_id, since, until, limit - count
        )
    return min(count, limit)
