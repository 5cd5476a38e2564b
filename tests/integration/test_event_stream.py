"""What the table's stream holds for the events (ratings.storage.dynamodb.stream), on each
engine: a change is one record, and a request that stored nothing leaves none. A game sent
again (answered from the stored game) and a game refused add no record that the event source
mapping lets through, so the events are exactly one game.rated for the one game stored.

The tables of the other tests have no stream (ratings_local makes the template's table
without one): these tests give theirs the template's StreamSpecification."""

from collections.abc import Iterator
from typing import Any

import pytest
from support.engines import Engine, ratings_table
from support.games import FixedClock, game
from support.services import rating_service
from support.streams import enable_stream, let_through, stream_records, streams_client

from ratings.service.errors import GameConflict
from ratings.service.events import GAME_RATED
from ratings.storage.dynamodb import DynamoStorage
from ratings.storage.dynamodb.stream import envelopes_of


class NoLookups:
    """A game's event reads nothing: any read is a failure of the test."""

    def sanctioned_player(self, ladder: str, sanction_id: str) -> str | None:
        raise AssertionError("a game's event reads no sanction")

    def season(self, ladder: str, season_id: str) -> Any:
        raise AssertionError("a game's event reads no season")


@pytest.fixture
def streamed(engine: Engine, table_name: str) -> Iterator[tuple[DynamoStorage, str]]:
    """The adapter on a fresh table with the template's stream, and the stream's ARN."""
    with ratings_table(engine, table_name):
        stream = enable_stream(engine.client(), table_name)
        yield engine.storage(table_name), stream


def test_a_game_sent_again_and_a_game_refused_make_no_second_event(
    engine: Engine, streamed: tuple[DynamoStorage, str], clock: FixedClock
) -> None:
    storage, stream = streamed
    service = rating_service(storage, clock)

    stored = service.submit_game("backgammon", game("g-1", "alice", "bob"))
    again = service.submit_game("backgammon", game("g-1", "alice", "bob"))
    with pytest.raises(GameConflict):
        service.submit_game("backgammon", game("g-1", "alice", "bob", winner="bob"))

    assert stored.created
    assert not again.created
    records = stream_records(streams_client(engine.endpoint_url), stream)
    made = [
        envelope
        for record in let_through(records)
        for envelope in envelopes_of(record, NoLookups())
    ]
    (rated,) = made
    assert rated.type == GAME_RATED
    assert rated.fields == {"game": service.get_game("backgammon", "g-1")}
    assert rated.sequences == {"alice": 1, "bob": 1}
    # The game's write is one record of the game and one of each state, and nothing more.
    kinds = sorted(record["dynamodb"]["NewImage"]["kind"]["S"] for record in records)
    assert kinds.count("game") == 1
    assert {record["eventName"] for record in records} == {"INSERT"}
