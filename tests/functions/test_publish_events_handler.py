"""PublishEvents under faults: EventBridge answering some entries failed, refusing a whole
request, the invocation running out of time, a read an event needs failing midway. An event
may be put twice, always with the same event_id; none is lost, none is made up; and the
handler's batch item failure is the first record not done, from which Lambda invokes it
again. EventBridge is a fake client here (what it was asked, what it answers); the records
are built from stored items as the stream carries them."""

import itertools
import json
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from types import ModuleType
from typing import Any

import pytest
from botocore.exceptions import ClientError
from support.handlers import LambdaContext

from ratings import wiring
from ratings.lambda_support import publishing
from ratings.lambda_support.publishing import (
    MAX_ENTRIES,
    MAX_REQUEST_BYTES,
    Publisher,
    entry_size,
    requests_of,
)
from ratings.service.events import GAME_RATED, Envelope, entry_of, event_id
from ratings.service.stored import StoredGame
from ratings.storage.dynamodb.layout import game_item
from ratings.storage.dynamodb.sanction_layout import LIFT_SK, LiftItem, sanction_key

pytestmark = pytest.mark.filterwarnings("ignore:No application metrics:UserWarning")

BUS = "ratings-events-test"
AT = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)
KEPT_UNTIL = datetime(2026, 4, 1, tzinfo=UTC)

#: How a fake answers one PutEvents: the entries it is given, the answer (or it raises).
Answer = Callable[[list[dict[str, Any]]], dict[str, Any]]


def throttled(code: str = "ThrottlingException", operation: str = "PutEvents") -> ClientError:
    return ClientError({"Error": {"Code": code, "Message": "Rate exceeded"}}, operation)


def all_put(entries: list[dict[str, Any]]) -> dict[str, Any]:
    return {"FailedEntryCount": 0, "Entries": [{"EventId": f"eb-{n}"} for n in range(len(entries))]}


def failing(ids: set[str]) -> Answer:
    """An answer in which each entry whose event_id is in `ids` is throttled."""

    def answer(entries: list[dict[str, Any]]) -> dict[str, Any]:
        results: list[dict[str, Any]] = []
        for number, entry in enumerate(entries):
            if json.loads(entry["Detail"])["event_id"] in ids:
                results.append({"ErrorCode": "ThrottlingException", "ErrorMessage": "slow down"})
            else:
                results.append({"EventId": f"eb-{number}"})
        failed = sum(1 for result in results if "ErrorCode" in result)
        return {"FailedEntryCount": failed, "Entries": results}

    return answer


class FakeEventBridge:
    """An EventBridge client that answers each PutEvents with the next of `answers` (the last
    one from then on), raising it if it is an exception; it remembers every request and the
    event ids it took onto the bus."""

    def __init__(self, *answers: Answer | Exception) -> None:
        self.answers = list(answers) or [all_put]
        self.requests: list[list[dict[str, Any]]] = []
        self.delivered: list[str] = []

    def put_events(self, Entries: list[dict[str, Any]]) -> dict[str, Any]:  # noqa: N803
        self.requests.append(list(Entries))
        answer = self.answers[min(len(self.requests), len(self.answers)) - 1]
        if isinstance(answer, Exception):
            raise answer
        answered = answer(list(Entries))
        # An entry the answer says nothing of is taken as not on the bus.
        for entry, result in zip(Entries, answered["Entries"], strict=False):
            if "ErrorCode" not in result:
                self.delivered.append(json.loads(entry["Detail"])["event_id"])
        return answered

    def sent_ids(self, request: int) -> list[str]:
        return [json.loads(entry["Detail"])["event_id"] for entry in self.requests[request]]


def envelope(number: int, padding: int = 0) -> Envelope:
    fields = {"game": {"game_id": f"g-{number}", "note": "x" * padding}}
    change = f"change-{number}"
    return Envelope(event_id(change, GAME_RATED), GAME_RATED, "backgammon", AT, {}, fields)


def publisher(client: FakeEventBridge, seconds_left: float = 30.0) -> Publisher:
    """A publisher that never waits, and always has `seconds_left`."""
    return Publisher(client, BUS, sleep=lambda _seconds: None, time_left=lambda: seconds_left)  # type: ignore[arg-type]


# The publisher ------------------------------------------------------------------------------


def test_only_the_entries_that_failed_are_sent_again_until_all_are_on_the_bus() -> None:
    envelopes = [envelope(number) for number in range(12)]
    flaky = {envelopes[3].event_id, envelopes[7].event_id, envelopes[11].event_id}
    client = FakeEventBridge(failing(flaky), failing(flaky), all_put)
    sent = publisher(client)

    undelivered = sent.publish(envelopes)

    assert undelivered == []
    # The first pass: ten, then two; the second (its one request): the three throttled.
    assert [len(request) for request in client.requests] == [10, 2, 3]
    assert client.sent_ids(2) == [envelopes[n].event_id for n in (3, 7, 11)]
    assert sorted(client.delivered) == sorted(e.event_id for e in envelopes)
    assert sent.retried == 3


def test_a_request_refused_as_a_whole_is_sent_again() -> None:
    envelopes = [envelope(number) for number in range(3)]
    client = FakeEventBridge(throttled(), throttled("InternalFailure"), all_put)
    sent = publisher(client)

    assert sent.publish(envelopes) == []
    assert [client.sent_ids(n) for n in range(3)] == [[e.event_id for e in envelopes]] * 3
    assert client.delivered == [e.event_id for e in envelopes]
    assert sent.retried == 6


def test_an_answer_shorter_than_its_request_counts_the_rest_as_failed() -> None:
    envelopes = [envelope(number) for number in range(3)]

    def short(entries: list[dict[str, Any]]) -> dict[str, Any]:
        return {"FailedEntryCount": 0, "Entries": [{"EventId": "eb-0"}]}

    client = FakeEventBridge(short, all_put)

    assert publisher(client).publish(envelopes) == []
    assert client.sent_ids(1) == [e.event_id for e in envelopes[1:]]


def test_what_still_fails_when_the_time_is_up_comes_back_in_order() -> None:
    envelopes = [envelope(number) for number in range(5)]
    client = FakeEventBridge(failing({envelopes[1].event_id, envelopes[4].event_id}))

    assert publisher(client, seconds_left=1.0).publish(envelopes) == [1, 4]
    assert len(client.requests) == 1  # no time for another request: none sent


def test_the_sends_of_an_entry_are_bounded() -> None:
    client = FakeEventBridge(throttled())

    assert publisher(client).publish([envelope(0)]) == [0]
    assert len(client.requests) == publishing.MAX_SENDS


@pytest.mark.parametrize(
    "paddings",
    [
        [0] * 25,  # many small ones: ten a request
        [100 * 1024] * 5,  # two fit in 256 KiB, not three
        [0, 250 * 1024, 0, 0, 200 * 1024, 60 * 1024, 0],
    ],
    ids=["small", "large", "mixed"],
)
def test_requests_never_exceed_ten_entries_or_256_kib(paddings: list[int]) -> None:
    entries = [entry_of(envelope(number, padding), BUS) for number, padding in enumerate(paddings)]

    requests = list(requests_of(entries))

    assert [position for request in requests for position in request] == list(range(len(entries)))
    for request in requests:
        assert 1 <= len(request) <= MAX_ENTRIES
        assert sum(entry_size(entries[position]) for position in request) <= MAX_REQUEST_BYTES
    # Each request is full: the next entry would not have fitted in it.
    for request, following in itertools.pairwise(requests):
        grown = sum(entry_size(entries[p]) for p in request) + entry_size(entries[following[0]])
        assert len(request) == MAX_ENTRIES or grown > MAX_REQUEST_BYTES


# The handler --------------------------------------------------------------------------------


def game_record(number: int) -> dict[str, Any]:
    """The stream record of game g-<number> stored (INSERT), as Lambda hands it over."""
    result = {"game_id": f"g-{number}", "ranked": False, "players": []}
    stored = StoredGame("backgammon", f"g-{number}", "fp", result, KEPT_UNTIL)
    return _record(game_item(stored).serialize(), number)


def lift_record(number: int) -> dict[str, Any]:
    lift = LiftItem(
        sanction_key("backgammon", "s-1"), LIFT_SK, lifted_at="2026-03-01T12:00:00.000Z"
    )
    return _record(lift.serialize(), number)


def _record(image: dict[str, Any], number: int) -> dict[str, Any]:
    return {
        "eventID": f"record-{number}",
        "eventName": "INSERT",
        "eventSource": "aws:dynamodb",
        "dynamodb": {
            "ApproximateCreationDateTime": AT.timestamp(),
            "NewImage": image,
            "SequenceNumber": f"{1000 + number}",
            "StreamViewType": "NEW_AND_OLD_IMAGES",
        },
    }


def expected_id(number: int) -> str:
    return event_id(f"record-{number}", GAME_RATED)


@pytest.fixture
def handler(
    publish_events: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Callable[..., Any]]:
    """The function's handler with `client` as its EventBridge client, invoked with the
    records and `remaining_millis` of time."""
    monkeypatch.setenv("RATINGS_EVENT_BUS_NAME", BUS)
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    wiring.reset()
    publish_events.metrics.clear_metrics()

    def invoke(
        client: FakeEventBridge, records: list[dict[str, Any]], remaining_millis: int = 30_000
    ) -> Any:
        monkeypatch.setattr(publish_events.wiring, "events_client", lambda: client)
        monkeypatch.setattr(publishing, "_JITTER", _NoJitter())
        context = LambdaContext(function_name="publish-events", remaining_millis=remaining_millis)
        return publish_events.lambda_handler({"Records": records}, context)

    yield invoke
    monkeypatch.undo()  # the container's own client again, before it is forgotten
    wiring.reset()


class _NoJitter:
    """Waits of no length: the retries' pace is not what these tests are about."""

    def uniform(self, low: float, high: float) -> float:
        return 0.0


def test_a_batch_whose_events_are_throttled_once_is_all_delivered(
    handler: Callable[..., Any],
) -> None:
    records = [game_record(number) for number in range(3)]
    client = FakeEventBridge(failing({expected_id(1)}), all_put)

    assert handler(client, records) == {"batchItemFailures": []}
    assert sorted(client.delivered) == sorted(expected_id(n) for n in range(3))


def test_out_of_time_the_first_undelivered_record_comes_again_with_the_same_ids(
    handler: Callable[..., Any],
) -> None:
    """2 s left: no time for a retry. Records 1 and 2's events fail; the handler reports
    record 1, and Lambda's next invocation from it delivers the rest: record 2's event twice
    perhaps, each time with the same id; every record's event on the bus."""
    records = [game_record(number) for number in range(4)]
    first = FakeEventBridge(failing({expected_id(1), expected_id(2)}))

    answer = handler(first, records, remaining_millis=2_000)

    assert answer == {"batchItemFailures": [{"itemIdentifier": "1001"}]}
    assert sorted(first.delivered) == [expected_id(0), expected_id(3)]
    again = FakeEventBridge(all_put)
    assert handler(again, records[1:]) == {"batchItemFailures": []}
    assert again.sent_ids(0) == [expected_id(n) for n in (1, 2, 3)]  # 3 again: a duplicate
    delivered = first.delivered + again.delivered
    assert set(delivered) == {expected_id(n) for n in range(4)}  # none lost, none invented


def test_a_record_whose_read_fails_is_reported_and_those_before_it_delivered(
    handler: Callable[..., Any], publish_events: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    class FailingLookups:
        def sanctioned_player(self, ladder: str, sanction_id: str) -> str | None:
            raise throttled("ProvisionedThroughputExceededException", "BatchGetItem")

        def season(self, ladder: str, season_id: str) -> Any:
            raise AssertionError("no season in this batch")

    monkeypatch.setattr(publish_events, "LOOKUPS", FailingLookups())
    records = [game_record(0), game_record(1), lift_record(2), game_record(3)]
    client = FakeEventBridge(all_put)

    answer = handler(client, records)

    assert answer == {"batchItemFailures": [{"itemIdentifier": "1002"}]}
    assert client.delivered == [expected_id(0), expected_id(1)]


def test_a_batch_that_makes_no_event_puts_nothing(handler: Callable[..., Any]) -> None:
    image = game_item(
        StoredGame("backgammon", "g-9", "fp", {"game_id": "g-9"}, KEPT_UNTIL, revision=1)
    ).serialize()
    rewrite = {**_record(image, 9), "eventName": "MODIFY"}
    rewrite["dynamodb"]["OldImage"] = image
    client = FakeEventBridge()

    assert handler(client, [rewrite]) == {"batchItemFailures": []}
    assert client.requests == []
