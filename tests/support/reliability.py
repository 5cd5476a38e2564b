"""The reliability suite's games, deliveries over HTTP and SQS, and the invariants it checks.

Everything random is drawn from seeded `random.Random` instances; only thread scheduling (and
so the order in which concurrent deliveries land) varies between runs, which is the point.
"""

import json
import random
import threading
import time
import urllib.parse
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from ratings.rules import Game, PlayerState
from ratings.rules.gammon42 import VERSIONS
from support.games import parse_ts, ts
from support.http import Client

LADDER = "backgammon"
STARTING_RATING = 1500
WINDOW = timedelta(days=7)
HEAVY_VOLUME_GAMES = 50
#: The games queue's visibility timeout during the suite (seconds): how soon a failed record
#: comes back. No shorter than the GamesQueue function's Timeout (30 s), as AWS requires of a
#: Lambda's queue: the mapping's other consumers would receive a record again while the first
#: invocation still works on it (the template keeps 6x, for retries of its own).
REDELIVERY_SECONDS = 31


# Games and deliveries ----------------------------------------------------------------------


def make_games(
    rng: random.Random,
    prefix: str,
    players: Sequence[str],
    count: int,
    now: datetime,
    *,
    old_share: float = 0.15,
) -> list[dict[str, Any]]:
    """`count` backgammon games among `players`, the first players the hottest.

    Most games were played within the last 6 days (so early-played games count in the 7-day
    window of later ones); `old_share` of them 8 to 13 days ago (outside the window of recent
    games, still accepted: at most 14 days old).
    """
    weights = [len(players) - index for index in range(len(players))]
    games = []
    for number in range(count):
        first = rng.choices(players, weights)[0]
        second = rng.choice([p for p in players if p != first])
        if rng.random() < old_share:
            age = timedelta(days=rng.uniform(8, 13))
        else:
            age = timedelta(days=rng.uniform(0, 6), minutes=1)
        games.append(
            {
                "game_id": f"{prefix}-{number:04d}",
                "played_at": ts(now - age),
                "players": [{"id": first}, {"id": second}],
                "winner": rng.choice([first, second]),
                "cube": rng.choice([1, 1, 1, 2, 4, 8]),
            }
        )
    return games


@dataclass(frozen=True)
class Delivery:
    channel: str  # "http" or "sqs"
    game: Mapping[str, Any]


def plan_deliveries(rng: random.Random, games: Iterable[Mapping[str, Any]]) -> list[Delivery]:
    """Every game 1 to 3 times, each copy over HTTP or SQS at random, all shuffled."""
    deliveries = [
        Delivery(rng.choice(["http", "sqs"]), game)
        for game in games
        for _copy in range(rng.randint(1, 3))
    ]
    rng.shuffle(deliveries)
    return deliveries


@dataclass
class Outcome:
    """What the senders saw."""

    #: Final HTTP status per delivery, per game id.
    http_final: dict[str, list[int]] = field(default_factory=dict)
    #: Every HTTP status seen, retries included.
    http_seen: Counter[int] = field(default_factory=Counter)
    sqs_sent: int = 0
    answers: dict[str, list[Any]] = field(default_factory=dict)
    seconds: float = 0.0


def deliver(
    deliveries: Sequence[Delivery],
    client: Client,
    sqs_factory: Callable[[], Any],
    games_queue_url: str,
    *,
    threads: int = 16,
    extra_messages: Sequence[str] = (),
) -> Outcome:
    """Send everything at once from `threads` threads; SQS bodies are the game plus "ladder"."""
    outcome = Outcome()
    lock = threading.Lock()
    local = threading.local()

    def sqs() -> Any:
        if not hasattr(local, "sqs"):
            local.sqs = sqs_factory()
        return local.sqs

    def send(item: Delivery | str) -> None:
        if isinstance(item, str):
            sqs().send_message(QueueUrl=games_queue_url, MessageBody=item)
            with lock:
                outcome.sqs_sent += 1
            return
        if item.channel == "sqs":
            body = json.dumps({**item.game, "ladder": LADDER})
            sqs().send_message(QueueUrl=games_queue_url, MessageBody=body)
            with lock:
                outcome.sqs_sent += 1
            return
        status, answer, seen = client.submit(item.game)
        with lock:
            game_id = str(item.game["game_id"])
            outcome.http_final.setdefault(game_id, []).append(status)
            outcome.answers.setdefault(game_id, []).append(answer)
            outcome.http_seen.update(seen)

    items: list[Delivery | str] = [*deliveries, *extra_messages]
    # Poison messages spread through the stream rather than at its end.
    random.Random(len(items)).shuffle(items)
    started = time.monotonic()
    with ThreadPoolExecutor(threads) as pool:
        for future in [pool.submit(send, item) for item in items]:
            future.result()
    outcome.seconds = time.monotonic() - started
    return outcome


# Invariants --------------------------------------------------------------------------------


@dataclass
class Verified:
    games: int
    k16_games: int
    max_recent: int
    stored: dict[str, dict[str, Any]]


def fetch_stored(
    client: Client, game_ids: Iterable[str], outcome: "Outcome | None" = None
) -> dict[str, dict[str, Any]]:
    stored: dict[str, dict[str, Any]] = {}
    lost: dict[str, Any] = {}

    def one(game_id: str) -> None:
        status, body = client.get(f"/v1/ladders/{LADDER}/games/{game_id}")
        if status == 200:
            assert body["game_id"] == game_id, (game_id, body)
            stored[game_id] = body
        else:
            seen = None if outcome is None else outcome.http_final.get(game_id)
            answers = None if outcome is None else outcome.answers.get(game_id)
            lost[game_id] = (status, body, seen, answers)

    for game_id in game_ids:  # one at a time: concurrent requests may cross (see Client)
        one(game_id)
    assert not lost, f"games lost (GET status, body, HTTP finals, HTTP answers): {lost}"
    return stored


def history(client: Client, player: str) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    cursor: str | None = None
    while True:
        path = f"/v1/ladders/{LADDER}/players/{player}/history?limit=100"
        if cursor:
            path += f"&cursor={urllib.parse.quote(cursor)}"
        status, page = client.get(path)
        assert status == 200, page
        events.extend(page["events"])
        cursor = page["next_cursor"]
        if not cursor:
            return events


def verify(
    client: Client,
    games: Sequence[Mapping[str, Any]],
    players: Sequence[str],
    *,
    start: Mapping[str, int] | None = None,
    earlier: Mapping[str, Sequence[Mapping[str, Any]]] | None = None,
    outcome: Outcome | None = None,
) -> Verified:
    """Every game stored once, applied once, each delta what the rules give. See the docs.

    `start` is each player's state before these games (default: newcomers); `earlier` the
    stored results of games they played before (part of their history and chain).
    """
    stored = fetch_stored(client, [str(game["game_id"]) for game in games], outcome)
    by_player: dict[str, list[dict[str, Any]]] = {p: [] for p in players}
    for game in games:
        result = stored[str(game["game_id"])]
        # The stored result is this submission's, not another content's.
        assert [p["id"] for p in result["players"]] == [p["id"] for p in game["players"]]
        assert result["winner"] == game["winner"]
        assert result["cube"] == game["cube"]
        assert parse_ts(result["played_at"]) == parse_ts(str(game["played_at"]))
        assert result["ranked"] is True
        for entry in result["players"]:
            by_player[entry["id"]].append(result)

    k16 = 0
    max_recent = 0
    for result in stored.values():
        # The delta of every game is the rules' delta for the stored ratings before and the
        # stored window counts; K follows the count; the count never exceeds the player's
        # games stored in the window (a game counted twice, or itself, would).
        ruleset = VERSIONS[result["ruleset_version"]]
        states = tuple(
            PlayerState(p["id"], p["rating_before"], 0, p["explain"]["recent_ranked_games"])
            for p in result["players"]
        )
        rating = ruleset.rate(
            Game(
                players=(states[0], states[1]),
                winner=result["winner"],
                options={"cube": result["cube"]},
            )
        )
        at = parse_ts(result["played_at"])
        for entry, change in zip(result["players"], rating.players, strict=True):
            explain = entry["explain"]
            assert entry["delta"] == change.delta, (result["game_id"], entry, change)
            assert entry["rating_after"] == entry["rating_before"] + entry["delta"]
            assert explain["k"] == change.explain["k"]
            recent = explain["recent_ranked_games"]
            assert explain["k"] == (16 if recent >= HEAVY_VOLUME_GAMES else 32)
            in_window = sum(
                1
                for other in by_player[entry["id"]]
                if at - WINDOW <= parse_ts(other["played_at"]) < at
            )
            earlier_in_window = sum(
                1
                for other in (earlier or {}).get(entry["id"], [])
                if at - WINDOW <= parse_ts(other["played_at"]) < at
            )
            assert recent <= min(in_window + earlier_in_window, HEAVY_VOLUME_GAMES), (
                result["game_id"],
                entry["id"],
                recent,
                in_window,
            )
            k16 += explain["k"] == 16
            max_recent = max(max_recent, recent)

    for player in players:
        results = [*(earlier or {}).get(player, []), *by_player[player]]
        entries = [next(p for p in result["players"] if p["id"] == player) for result in results]
        base = (start or {}).get(player, STARTING_RATING)
        status, state = client.get(f"/v1/ladders/{LADDER}/players/{player}")
        assert status == 200
        # Applied exactly once: the rating is the start plus each stored delta once ...
        assert state["rating"] == base + sum(e["delta"] for e in entries), player
        # ... each game counted once ...
        assert state["ranked_games"] == len(results), (player, state, len(results))
        # ... and the games form one chain: each result starts from the rating another one
        # ended at (or the start), and one ends at the current rating. Two games rated from
        # the same state (a lost update), or a delta applied twice, break the multiset.
        befores = Counter(e["rating_before"] for e in entries) + Counter([state["rating"]])
        afters = Counter(e["rating_after"] for e in entries) + Counter([base])
        assert befores == afters, (player, befores - afters, afters - befores)
        # History: each game once, and nothing else.
        events = history(client, player)
        ids = [event["game_id"] for event in events if event["type"] == "game"]
        assert sorted(ids) == sorted(r["game_id"] for r in results), player
        assert len(ids) == len(set(ids))
    return Verified(len(stored), k16, max_recent, stored)


def summary(scenario: str, **figures: Any) -> str:
    parts = " ".join(f"{name}={value}" for name, value in figures.items())
    line = f"[reliability] {scenario}: {parts}"
    print(line)
    return line
