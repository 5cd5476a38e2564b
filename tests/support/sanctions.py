"""The bodies of sanctions, a cheater's games, ways to run a sanction's refunds to the end
(alone, or while its victims go on playing), and to read every page of its decisions, for
every test layer."""

import threading
from collections.abc import Sequence
from datetime import timedelta
from typing import Any

from ratings.service.facade import RatingService
from support.games import HOUR, MINUTE, NOW, game


def sanction(sanction_id: str = "s-1", player_id: str = "mallory", **extra: Any) -> dict[str, Any]:
    """A sanction's body (reason "cheating"; the default refund_days unless `extra` sets it)."""
    return {"sanction_id": sanction_id, "player_id": player_id, "reason": "cheating", **extra}


def mallory_beats(
    service: RatingService,
    victims: Sequence[str],
    *,
    apart: timedelta = MINUTE,
    ladder: str = "backgammon",
) -> None:
    """mallory beats each of `victims` in turn, in games g-0, g-1, ...: the first an hour ago,
    each next one `apart` later."""
    for index, victim in enumerate(victims):
        at = NOW - HOUR + index * apart
        service.submit_game(ladder, game(f"g-{index}", "mallory", victim, played_at=at))


def sanction_and_refund(
    service: RatingService, body: dict[str, Any], ladder: str = "backgammon"
) -> dict[str, Any]:
    """Make the sanction and run its refunds to the end: the sanction's answer then."""
    service.sanction_player(ladder, body)
    service.pay_refunds.run(ladder, body["sanction_id"])
    answer: dict[str, Any] = service.get_sanction(ladder, body["sanction_id"])
    return answer


def refund_while_victims_play(
    service: RatingService,
    victims: Sequence[str],
    *,
    rounds: int,
    games_per_step: int,
    games_each: int,
    ladder: str = "backgammon",
) -> list[BaseException]:
    """mallory beats each victim `rounds` times and is sanctioned (s-1); then the refunds run
    to the end, `games_per_step` a step, while each victim plays `games_each` more games
    (against a rival of their own, on a thread of their own). What the threads raised, since
    a thread cannot fail the test."""
    mallory_beats(service, list(victims) * rounds, ladder=ladder)
    service.sanction_player(ladder, sanction())
    service.pay_refunds.games_per_step = games_per_step
    errors: list[BaseException] = []

    def keep_playing(victim: str) -> None:
        try:
            for number in range(games_each):
                body = game(
                    f"{victim}-p{number}", victim, f"{victim}-rival", played_at=NOW - MINUTE
                )
                service.submit_game(ladder, body)
        except BaseException as error:  # reported to the test
            errors.append(error)

    threads = [threading.Thread(target=keep_playing, args=(victim,)) for victim in victims]
    for thread in threads:
        thread.start()
    service.pay_refunds.run(ladder, "s-1")
    for thread in threads:
        thread.join()
    return errors


def refunds_of(answer: dict[str, Any]) -> dict[str, list[tuple[str, int]]]:
    """The refunds of a sanction's answer: player id -> [(game id, points)], by game id."""
    paid: dict[str, list[tuple[str, int]]] = {}
    for refund in answer["refunds"]:
        paid.setdefault(refund["player_id"], []).append((refund["game_id"], refund["delta"]))
    return paid


def decision_pages(
    service: RatingService,
    sanction_id: str = "s-1",
    *,
    limit: int | None = None,
    ladder: str = "backgammon",
) -> list[dict[str, Any]]:
    """Every answer of GET on the sanction, from the first page on, each with the cursor the
    one before gave, until one gives none."""
    pages = [service.get_sanction(ladder, sanction_id, limit)]
    while pages[-1]["next_cursor"] is not None:
        cursor = pages[-1]["next_cursor"]
        pages.append(service.get_sanction(ladder, sanction_id, limit, cursor))
    return pages


def decided_games(pages: Sequence[dict[str, Any]]) -> list[str]:
    """The game ids the pages list, refunds and withheld, page by page, each page's in game
    id order."""
    return [
        game_id
        for page in pages
        for game_id in sorted(e["game_id"] for e in page["refunds"] + page["withheld"])
    ]
