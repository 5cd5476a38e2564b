"""`make run` entry point. Until the local stack lands it shows what the rules can already do."""

import sys

from ratings.rules import DEFAULT_LADDERS


def main(argv: list[str]) -> int:
    print("Elo rating service: the local stack (API, queues, schedule on moto) is not built yet.")
    print("Ladders configured:")
    for ladder in DEFAULT_LADDERS.values():
        ruleset = ladder.ruleset
        print(
            f"  {ladder.ladder_id}: {ruleset.name} {ruleset.version}, "
            f"starting rating {ladder.starting_rating}, podium bonuses {ladder.podium_bonuses}"
        )
    if argv:
        print(f"(arguments {argv} are for the local stack and were ignored)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
