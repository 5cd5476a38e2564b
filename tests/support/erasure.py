"""Erasing players in tests: a service with a jobs queue the test drains (the worker, run in
the test), and what the storage still holds of an id, whatever the item."""

import json
import random
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from typing import Any

from ratings.rules import Classic, Ladder
from ratings.rules.ladders import Span
from ratings.service.facade import RatingService
from ratings.service.jobs import JobRun
from ratings.service.player import FrozenStanding, Player
from ratings.service.ports import Storage
from ratings.service.stored import Pseudonymized
from ratings.service.unit_of_work import Retrier
from ratings.storage.dynamodb import DynamoStorage
from ratings.storage.memory import InMemoryStorage
from support.jobs import Countdown, RecordingJobQueue
from support.services import rating_service


def erasing_service(
    storage: Storage, clock: Callable[[], datetime], queue: RecordingJobQueue
) -> RatingService:
    """The default ladders over `storage`, queueing jobs to `queue`, never sleeping."""
    return rating_service(storage, clock, queue)


def work_jobs(
    service: RatingService,
    queue: RecordingJobQueue,
    seconds: Callable[[], Callable[[], float]] = lambda: Countdown(600),
    limit: int = 10_000,
) -> list[JobRun]:
    """Run the worker on every queued message (continuations included) until none is left;
    each invocation gets `seconds()` as its remaining time."""
    runs: list[JobRun] = []
    for _ in range(limit):
        sent = queue.take()
        if not sent:
            return runs
        for message in sent:
            body = {"job": message.kind, "job_id": message.job_id}
            runs.append(service.run_job(body, seconds()))
    raise AssertionError(f"jobs still queued after {limit} rounds")


def erase(service: RatingService, queue: RecordingJobQueue, player_id: str) -> dict[str, Any]:
    """Request the erasure, work it to the end, and answer its status."""
    service.request_erasure(player_id)
    work_jobs(service, queue)
    status: dict[str, Any] = service.get_erasure(player_id)
    return status


def stored_texts(storage: Storage) -> Iterator[str]:
    """Every stored item (or record of the fake) as text, every attribute included."""
    if isinstance(storage, DynamoStorage):
        client = storage.connection.client
        pages = client.get_paginator("scan").paginate(TableName=storage.table.table_name)
        for page in pages:
            for item in page.get("Items", []):
                # A binary attribute (a state's kept times) as hex: it holds no id.
                yield json.dumps(item, sort_keys=True, default=bytes.hex)
        return
    assert isinstance(storage, InMemoryStorage)
    tables: list[Any] = [
        storage.states,
        storage.games,
        storage.tournaments,
        storage.links,
        storage.absorbed,
        storage.job_records,
        {key: sorted(value) for key, value in storage.awards.items() if value},
        storage.sanction_tables.decisions,
        {key: sorted(value) for key, value in storage.sanction_tables.pointers.items() if value},
        storage.frozen,
    ]
    for table in tables:
        for key, value in table.items():
            yield repr((key, value))
    for key, events in storage.events.items():
        for event in events:
            yield repr((key, event))


def mentions(storage: Storage, *ids: str) -> list[str]:
    """The stored items whose text contains one of `ids` (pick ids no other text contains)."""
    return [text for text in stored_texts(storage) if any(pid in text for pid in ids)]


def crash_after_writes_with_standings(storage: Storage) -> list[list[str]]:
    """Make the erasure's writes that store standings land, then stop the worker before it
    saves the job (once each): the step is done again from the progress saved before. The
    seasons of the standings of each write that crashed."""
    erasures = storage.erasures
    pseudonymize, delete_states = erasures.pseudonymize, erasures.delete_states
    crashed: list[list[str]] = []
    seen: set[tuple[tuple[str, str], ...]] = set()

    def crash_once(standings: Sequence[FrozenStanding]) -> None:
        written = tuple((standing.player_id, standing.season_id) for standing in standings)
        if written and written not in seen:
            seen.add(written)
            crashed.append([season_id for _pseudonym, season_id in written])
            raise RuntimeError("the worker stopped after the write, before saving the job")

    def crashing_pseudonymize(ladder: str, rewrite: Pseudonymized) -> None:
        pseudonymize(ladder, rewrite)
        crash_once(rewrite.standings)

    def crashing_delete_states(
        players: Sequence[Player], standings: Sequence[FrozenStanding] = ()
    ) -> None:
        delete_states(players, standings)
        crash_once(standings)

    erasures.pseudonymize = crashing_pseudonymize  # type: ignore[method-assign]
    erasures.delete_states = crashing_delete_states  # type: ignore[method-assign]
    return crashed


# Team and free-for-all games: a ladder that takes them (no default ladder does yet).

#: Classic games of 2 to 8 sides of 1 to 8 players (16 at most).
TEAM_LADDERS = {"ffa": Ladder("ffa", Classic(), sides=Span(2, 8), players_per_side=Span(1, 8))}


def team_service(
    storage: Storage, clock: Callable[[], datetime], queue: RecordingJobQueue
) -> RatingService:
    """`TEAM_LADDERS` over `storage`, queueing jobs to `queue`, never sleeping."""
    return RatingService(
        storage,
        TEAM_LADDERS,
        clock=clock,
        retrier=Retrier(sleep=lambda seconds: None, rng=random.Random(20261129)),
        job_queue=queue,
    )


def play_sides(service: RatingService, game_id: str, *sides: Sequence[str]) -> dict[str, Any]:
    """Store a game on "ffa" of `sides` (each its players' ids), placed in the order given."""
    body = {
        "game_id": game_id,
        "sides": [
            {"players": [{"id": pid} for pid in players], "place": place}
            for place, players in enumerate(sides, start=1)
        ],
    }
    result: dict[str, Any] = service.submit_game("ffa", body).result
    return result


def crash_after_each_write(storage: Storage) -> list[int]:
    """Make each of the erasure's page writes land, then stop the worker before it saves the
    job (once a write): the step is done again from the progress saved before. The number of
    items of each write that crashed."""
    erasures = storage.erasures
    pseudonymize = erasures.pseudonymize
    crashed: list[int] = []
    seen: set[tuple[str, ...]] = set()

    def crashing_pseudonymize(ladder: str, rewrite: Pseudonymized) -> None:
        pseudonymize(ladder, rewrite)
        deleted = tuple(item.key for item in rewrite.deleted)
        if deleted not in seen:
            seen.add(deleted)
            crashed.append(sum(map(len, rewrite)))
            raise RuntimeError("the worker stopped after the write, before saving the job")

    erasures.pseudonymize = crashing_pseudonymize  # type: ignore[method-assign]
    return crashed


def write_sizes(storage: Storage) -> list[int]:
    """Record the number of items of each page write the erasure makes (in a list it fills)."""
    erasures = storage.erasures
    pseudonymize = erasures.pseudonymize
    sizes: list[int] = []

    def counting_pseudonymize(ladder: str, rewrite: Pseudonymized) -> None:
        sizes.append(sum(map(len, rewrite)))
        pseudonymize(ladder, rewrite)

    erasures.pseudonymize = counting_pseudonymize  # type: ignore[method-assign]
    return sizes
