"""The command line the game-rating benchmarks share: the description from the module's
docstring, and how many games among how many players."""

import argparse


def game_parser(
    doc: str | None, games: tuple[int, str], players: tuple[int, str]
) -> argparse.ArgumentParser:
    """A parser with `--games` and `--players`, each given as (default, help)."""
    parser = argparse.ArgumentParser(description=(doc or "").splitlines()[0])
    parser.add_argument("--games", type=int, default=games[0], help=games[1])
    parser.add_argument("--players", type=int, default=players[0], help=players[1])
    return parser
