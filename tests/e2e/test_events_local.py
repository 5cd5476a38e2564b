"""End to end: the events the local stack publishes, as a backend hears them: in the `events`
queue (read with the pytest plugin's `StackEvents`) and on a webhook, with the table on moto
and on DynamoDB Local (its stream read through each engine's own streams API)."""

import json
import threading
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from support.games import unique
from support.http import Client
from support.stack import ENGINES, running_stack, wait_for

from ratings_local.aws import EVENT_FIELDS
from ratings_local.faults import BusFaults
from ratings_local.pytest_plugin import StackEvents, endpoints_of
from ratings_local.stack import LocalStack

pytestmark = pytest.mark.xdist_group("local_stack")

GAMES = "/v1/ladders/backgammon/games"


class Webhook:
    """A tiny HTTP server that keeps every JSON body POSTed to it; it answers 503 to the
    first POST of an event whose game id starts with "flaky-" (a webhook briefly down)."""

    def __init__(self) -> None:
        self.bodies: list[dict[str, Any]] = []
        self.refused: list[str] = []
        webhook = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                event_id = body["detail"]["event_id"]
                game_id = str((body["detail"].get("game") or {}).get("game_id", ""))
                if game_id.startswith("flaky-") and event_id not in webhook.refused:
                    webhook.refused.append(event_id)
                    self.send_response(503)
                else:
                    webhook.bodies.append(body)
                    self.send_response(204)
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/hook"
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def received(self, event_id: str) -> list[dict[str, Any]]:
        return [body for body in self.bodies if body["detail"]["event_id"] == event_id]

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()


@pytest.fixture(scope="module")
def webhook() -> Iterator[Webhook]:
    hook = Webhook()
    yield hook
    hook.stop()


@pytest.fixture(scope="module", params=ENGINES)
def stack(request: pytest.FixtureRequest, webhook: Webhook) -> Iterator[LocalStack]:
    with running_stack(dynamodb_local=request.param, webhook_url=webhook.url) as local:
        yield local


@pytest.fixture(scope="module")
def events(stack: LocalStack) -> StackEvents:
    return StackEvents(endpoints_of(stack))


def a_game(**fields: Any) -> dict[str, Any]:
    alice, bob = unique("alice"), unique("bob")
    game = {"game_id": unique("g"), "players": [{"id": alice}, {"id": bob}], "winner": alice}
    return {**game, **fields}


def game_id_is(game_id: str) -> Any:
    return lambda detail: detail.get("game", {}).get("game_id") == game_id


def test_a_game_rated_over_http_is_published(client: Client, events: StackEvents) -> None:
    game = a_game(cube=2)
    status, _ = client.call("POST", GAMES, game)
    assert status == 201

    detail = events.wait_for_event("game.rated", game_id_is(game["game_id"]))

    alice, bob = (player["id"] for player in game["players"])
    assert uuid.UUID(detail["event_id"])
    assert (detail["type"], detail["ladder"]) == ("game.rated", "backgammon")
    assert detail["sequences"] == {alice: 1, bob: 1}
    status, stored = client.call("GET", f"{GAMES}/{game['game_id']}")
    assert (status, detail["game"]) == (200, stored)


def test_a_game_sent_over_the_games_queue_is_published(
    stack: LocalStack, client: Client, sqs: Any, events: StackEvents
) -> None:
    game = a_game()
    queue = stack.endpoints()["queues"]["games"]
    sqs.send_message(QueueUrl=queue, MessageBody=json.dumps({**game, "ladder": "backgammon"}))

    detail = events.wait_for_event("game.rated", game_id_is(game["game_id"]), timeout=30)

    alice, bob = (player["id"] for player in game["players"])
    assert detail["sequences"] == {alice: 1, bob: 1}
    status, stored = client.call("GET", f"{GAMES}/{game['game_id']}")
    assert (status, detail["game"]) == (200, stored)


def test_a_refused_game_publishes_nothing(client: Client, events: StackEvents) -> None:
    refused = a_game(winner="nobody-playing")
    status, _ = client.call("POST", GAMES, refused)
    assert status == 400
    marker = a_game()
    assert client.call("POST", GAMES, marker)[0] == 201

    # The stream is read in order: once the later game's event is here, the refused one's
    # would be too.
    events.wait_for_event("game.rated", game_id_is(marker["game_id"]))

    with pytest.raises(AssertionError):
        events.wait_for_event(predicate=game_id_is(refused["game_id"]), timeout=0)


def test_a_retried_game_publishes_nothing_new(client: Client, events: StackEvents) -> None:
    game = a_game()
    status, first = client.call("POST", GAMES, game)
    assert status == 201
    events.wait_for_event("game.rated", game_id_is(game["game_id"]))

    status, again = client.call("POST", GAMES, game)
    assert (status, again) == (200, first)
    marker = a_game()
    assert client.call("POST", GAMES, marker)[0] == 201
    events.wait_for_event("game.rated", game_id_is(marker["game_id"]))

    with pytest.raises(AssertionError):
        events.wait_for_event(predicate=game_id_is(game["game_id"]), timeout=0)


def test_the_queue_and_the_webhook_get_the_same_envelope(
    stack: LocalStack, client: Client, events: StackEvents, webhook: Webhook
) -> None:
    game = a_game()
    assert client.call("POST", GAMES, game)[0] == 201

    envelope = events.wait_for_envelope("game.rated", game_id_is(game["game_id"]))
    hooked = wait_for(lambda: webhook.received(envelope["detail"]["event_id"]), timeout=10)

    assert hooked == [envelope]
    assert list(envelope) == [*EVENT_FIELDS, "resources", "detail"]
    assert (envelope["source"], envelope["detail-type"]) == ("elo-ratings", "game.rated")
    assert envelope["region"] == stack.options.region


def test_a_webhook_that_failed_gets_the_event_again(
    client: Client, events: StackEvents, webhook: Webhook
) -> None:
    game = a_game(game_id=unique("flaky-g"))
    assert client.call("POST", GAMES, game)[0] == 201
    detail = events.wait_for_event("game.rated", game_id_is(game["game_id"]))

    hooked = wait_for(lambda: webhook.received(detail["event_id"]), timeout=15)

    assert detail["event_id"] in webhook.refused
    assert [body["detail"] for body in hooked] == [detail]


def test_every_game_is_published_while_the_bus_throttles(
    stack: LocalStack, client: Client, events: StackEvents
) -> None:
    """The bus refuses whole PutEvents requests and some entries of others (as EventBridge
    answers past the account's rate): the function sends the failed entries again, so every
    stored game's event arrives, each game's with one event_id however often it came, and
    nothing arrives for a game that was not stored."""
    stack.aws.bus_faults = BusFaults(rate=0.7, seed=7)
    try:
        games = [a_game() for _ in range(12)]
        refused = a_game(winner="nobody-playing")
        assert client.call("POST", GAMES, refused)[0] == 400
        for game in games:
            assert client.call("POST", GAMES, game)[0] == 201

        arrived = {
            game["game_id"]: events.wait_for_event(
                "game.rated", game_id_is(game["game_id"]), timeout=30
            )
            for game in games
        }
        injected = dict(stack.aws.bus_faults.injected)
    finally:
        stack.aws.bus_faults = None

    assert set(injected) == {"throttle", "partial"}
    assert all(detail["game"]["game_id"] == game_id for game_id, detail in arrived.items())
    # A game's event that came again (an answer lost after the put) keeps its event_id.
    for game_id, detail in arrived.items():
        again = [
            event["detail"]["event_id"]
            for event in events.unclaimed
            if game_id_is(game_id)(event["detail"])
        ]
        assert set(again) <= {detail["event_id"]}
    with pytest.raises(AssertionError):
        events.wait_for_event(predicate=game_id_is(refused["game_id"]), timeout=0)
