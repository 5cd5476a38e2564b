"""The moderation routes on the local stack over HTTP: served by the Moderation function
under the moderation key (the local stand-in for the deployed SigV4 credential), their other
methods answered 405 by the game Api."""

import pytest
from support.games import unique
from support.http import API_KEY, MODERATION_KEY, Client
from support.stack import keyed_stack

from ratings_local.stack import LocalStack

pytestmark = pytest.mark.xdist_group("local_stack")

__all__ = ["keyed_stack"]  # the module's `stack`: both keys, on each engine
SIGNED = {"x-moderation-key": MODERATION_KEY}


@pytest.fixture(scope="module")
def client(stack: LocalStack) -> Client:
    return Client(stack.api_url, api_key=API_KEY)


def test_a_game_key_alone_is_403_on_the_moderation_routes(client: Client) -> None:
    for method in ("POST", "GET"):
        status, body = client.call(method, f"/v1/players/{unique('p')}/erasure")
        assert status == 403
        assert body["error"]["code"] == "forbidden"
        assert "x-moderation-key" in body["error"]["message"]


def test_a_wrong_moderation_key_is_403(client: Client) -> None:
    status, body = client.call(
        "POST", f"/v1/players/{unique('p')}/erasure", headers={"x-moderation-key": "guess"}
    )
    assert (status, body["error"]["code"]) == (403, "forbidden")


def test_the_moderation_key_reaches_the_moderation_function(client: Client) -> None:
    player = unique("p")
    status, body = client.call("POST", f"/v1/players/{player}/erasure", headers=SIGNED)
    assert (status, body["status"], body["player_id"]) == (200, "done", player)
    status, again = client.call("GET", f"/v1/players/{player}/erasure", headers=SIGNED)
    assert (status, again) == (200, body)


def test_the_game_routes_need_no_moderation_key(client: Client) -> None:
    status, _ladders = client.call("GET", "/v1/ladders")
    assert status == 200


def test_other_methods_of_a_moderation_route_are_405_without_the_moderation_key(
    client: Client,
) -> None:
    status, body = client.call("DELETE", f"/v1/players/{unique('p')}/erasure")
    assert (status, body["error"]["code"]) == (405, "method_not_allowed")


def test_the_api_key_is_still_required_with_the_moderation_key(stack: LocalStack) -> None:
    keyless = Client(stack.api_url)
    status, body = keyless.call("POST", f"/v1/players/{unique('p')}/erasure", headers=SIGNED)
    assert (status, body["error"]["code"]) == (403, "forbidden")
