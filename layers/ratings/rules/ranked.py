"""Whether a game changes ratings at all: ranked, or recorded with the reason it is not."""

#: Only games in this mode rate; the others are recorded with reason "mode".
RANKED_MODE = "ranked"
MODES = ("ranked", "boosted", "tournament")

#: The reasons a game is unranked, in the order they are checked.
UNRANKED_REASONS = ("sanctioned", "mode", "bot", "shared_network")


def unranked_reason(
    mode: str,
    bots: tuple[bool, bool],
    networks: tuple[str | None, str | None],
    sanctioned: tuple[bool, bool] = (False, False),
) -> str | None:
    """None when the game is ranked, else the first reason it is not.

    `bots` flags each player as a bot; `networks` is each player's network fingerprint
    (None or empty when not reported). Two players on the same non-empty fingerprint are
    treated as one person on two devices. `sanctioned` flags each player who is under a
    sanction in the ladder: nothing they play rates, whatever the mode, so it comes first.
    """
    if any(sanctioned):
        return "sanctioned"
    if mode != RANKED_MODE:
        return "mode"
    if any(bots):
        return "bot"
    first, second = networks
    if first and second and first == second:
        return "shared_network"
    return None
