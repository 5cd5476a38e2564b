"""A pytest plugin for testing a game backend against the rating service on this machine.

Installed with the project (an entry point of pytest11), it adds the session fixture
`ratings_stack`: the whole local stack (API, queues, schedule, emulated AWS), started once
on free ports for the test session and stopped after it, as an `Endpoints` with the URLs a
backend needs. Nothing is imported until a test asks for the fixture. With
`--ratings-dynamodb-local` the table runs on Amazon's DynamoDB Local (`make
setup-dynamodb-local` installs it) instead of moto. With `--ratings-api-key` and
`--ratings-moderation-key` the stack requires the two credentials as the deployed one does
(a game key on every route; the moderation credential besides it on erasure and sanctions),
and `Endpoints` hands both to the test.

    def test_my_backend_rates_a_game(ratings_stack):
        my_backend.configure(rating_api=ratings_stack.api_url)
        ...
        assert ratings_stack.get("/v1/ladders/backgammon/players/alice")["rating"] == 1519

The service's events (api.md, "Events") arrive in the stack's `events` queue; the fixture
`wait_for_event` waits for one and returns its `detail` (`StackEvents`, which the session
fixture `ratings_events` shares between tests, keeps the others for later waits):

    def test_my_backend_hears_of_a_rated_game(ratings_stack, wait_for_event):
        ...
        rated = wait_for_event("game.rated", lambda detail: detail["game"]["game_id"] == "g-1")
        assert rated["sequences"] == {"alice": 1, "bob": 1}
"""

import json
import os
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from ratings_local.stack import LocalStack


@dataclass(frozen=True)
class Endpoints:
    """Where the running stack answers: its HTTP API and its emulated AWS."""

    api_url: str
    aws_endpoint_url: str
    region: str
    table: str
    #: Where the table answers: `aws_endpoint_url`, unless it runs on DynamoDB Local.
    dynamodb_endpoint_url: str = ""
    #: Queue URLs by role: games, games_dlq, podiums, podiums_dlq, moderation_jobs(_dlq),
    #: events (every event the service publishes, as EventBridge sends it) and events_dlq.
    queues: dict[str, str] = field(default_factory=dict)
    #: The key the API requires in x-api-key, or None when it requires none.
    api_key: str | None = None
    #: The moderation credential the moderation routes require in x-moderation-key (locally
    #: in place of a SigV4 signature), or None when they require none.
    moderation_key: str | None = None

    def get(self, path: str) -> Any:
        """GET a path of the API and return its JSON body (errors raise HTTPError)."""
        return self.call("GET", path)

    def invoke(self, function: str) -> Any:
        """Run a function now (AwardPodiumsFunction drains the podium queue)."""
        return self.call("POST", f"/_local/invoke/{function}")

    def call(self, method: str, path: str, body: Any = None, *, moderation: bool = False) -> Any:
        """Send a request with the game key (and, with `moderation`, the moderation credential
        too) and return its JSON body; an error answer raises HTTPError."""
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(f"{self.api_url}{path}", data=data, method=method)
        request.add_header("content-type", "application/json")
        if self.api_key is not None:
            request.add_header("x-api-key", self.api_key)
        if moderation and self.moderation_key is not None:
            request.add_header("x-moderation-key", self.moderation_key)
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.load(response)


Detail = dict[str, Any]


class StackEvents:
    """The events of a running stack, read from its `events` queue (each message is one event
    as EventBridge sends it to a queue). What a wait reads but does not want is kept, in order,
    for the waits after it; an event a wait returns is taken."""

    def __init__(self, endpoints: Endpoints) -> None:
        import boto3

        self._queue_url = endpoints.queues["events"]
        self._sqs = boto3.client(
            "sqs",
            endpoint_url=endpoints.aws_endpoint_url,
            region_name=endpoints.region,
            aws_access_key_id="local",
            aws_secret_access_key="local",
        )
        self._lock = threading.Lock()
        #: Events read and not taken yet, oldest first (whole EventBridge events).
        self.unclaimed: list[dict[str, Any]] = []

    def wait_for_event(
        self,
        type: str | None = None,
        predicate: Callable[[Detail], bool] | None = None,
        timeout: float = 10.0,
    ) -> Detail:
        """The `detail` of the oldest event of `type` (any, when None) whose detail `predicate`
        accepts, waiting up to `timeout` seconds for it; AssertionError when none comes."""
        detail: Detail = self.wait_for_envelope(type, predicate, timeout)["detail"]
        return detail

    def wait_for_envelope(
        self,
        type: str | None = None,
        predicate: Callable[[Detail], bool] | None = None,
        timeout: float = 10.0,
    ) -> dict[str, Any]:
        """As `wait_for_event`, but the whole event as the queue got it (version, id,
        detail-type, source, account, time, region, resources, detail)."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while True:
                found = self._take(type, predicate)
                if found is not None:
                    return found
                if time.monotonic() >= deadline:
                    seen = [event.get("detail-type") for event in self.unclaimed]
                    raise AssertionError(
                        f"no {type or 'matching'} event within {timeout:g} s "
                        f"(unclaimed events: {seen})"
                    )
                self._read(min(1.0, max(0.0, deadline - time.monotonic())))

    def _take(
        self, type: str | None, predicate: Callable[[Detail], bool] | None
    ) -> dict[str, Any] | None:
        for position, event in enumerate(self.unclaimed):
            detail: Detail = event.get("detail") or {}
            if type is not None and event.get("detail-type") != type:
                continue
            if predicate is not None and not predicate(detail):
                continue
            del self.unclaimed[position]
            return event
        return None

    def _read(self, wait: float) -> None:
        received = self._sqs.receive_message(
            QueueUrl=self._queue_url, MaxNumberOfMessages=10, WaitTimeSeconds=int(wait)
        )
        messages = received.get("Messages", [])
        for message in messages:
            self.unclaimed.append(json.loads(message["Body"]))
        if messages:
            self._sqs.delete_message_batch(
                QueueUrl=self._queue_url,
                Entries=[
                    {"Id": str(index), "ReceiptHandle": message["ReceiptHandle"]}
                    for index, message in enumerate(messages)
                ],
            )
        elif wait < 1:
            time.sleep(wait)


@contextmanager
def running_stack(**options: Any) -> Iterator["LocalStack"]:
    """A started local stack (`options` as for `ratings_local.stack.Options`; free ports and an
    hourly schedule by default); the process's environment is put back when it stops."""
    from ratings import wiring
    from ratings_local.stack import LocalStack, Options

    saved = dict(os.environ)
    settings = {"port": 0, "aws_port": 0, "schedule_interval": 3600, **options}
    local = LocalStack(Options(**settings))
    try:
        local.start()
        yield local
    finally:
        local.stop()
        os.environ.clear()
        os.environ.update(saved)
        wiring.reset()


#: What `Endpoints` takes as the stack describes it, under the same names.
_DESCRIBED = ("api_url", "aws_endpoint_url", "dynamodb_endpoint_url", "region", "table")


def endpoints_of(stack: "LocalStack") -> Endpoints:
    described = stack.endpoints()
    return Endpoints(
        **{name: described[name] for name in _DESCRIBED},
        queues={role: url for role, url in described["queues"].items() if url},
        api_key=stack.options.api_key,
        moderation_key=stack.options.moderation_key,
    )


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("ratings", "the local rating service (fixture ratings_stack)")
    group.addoption(
        "--ratings-api-key",
        default=None,
        help="make the local API require this x-api-key, as the deployed one does",
    )
    group.addoption(
        "--ratings-moderation-key",
        default=None,
        help="make the local moderation routes (erasure, sanctions) require this "
        "x-moderation-key besides the API key, where the deployed ones require a SigV4 signature",
    )
    group.addoption(
        "--ratings-schedule-interval",
        type=float,
        default=60.0,
        help="seconds between scheduled runs (podium awards); default 60",
    )
    group.addoption(
        "--ratings-dynamodb-local",
        action="store_true",
        default=False,
        help="run the table on Amazon's DynamoDB Local instead of moto (queues stay on moto)",
    )


@pytest.fixture(scope="session")
def ratings_stack(request: pytest.FixtureRequest) -> Iterator[Endpoints]:
    """The local rating service for this test session (state is shared by its tests)."""
    options = {
        "api_key": request.config.getoption("--ratings-api-key"),
        "moderation_key": request.config.getoption("--ratings-moderation-key"),
        "schedule_interval": request.config.getoption("--ratings-schedule-interval"),
        "dynamodb_local": request.config.getoption("--ratings-dynamodb-local"),
    }
    with running_stack(**options) as stack:
        yield endpoints_of(stack)


@pytest.fixture(scope="session")
def ratings_events(ratings_stack: Endpoints) -> StackEvents:
    """The events of the session's stack, kept between tests until a wait takes them."""
    return StackEvents(ratings_stack)


@pytest.fixture
def wait_for_event(ratings_events: StackEvents) -> Callable[..., Detail]:
    """`StackEvents.wait_for_event` of the session's stack: `wait_for_event("game.rated",
    predicate, timeout=10)` returns the event's detail."""
    return ratings_events.wait_for_event
