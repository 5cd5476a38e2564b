"""The `ratings_stack` fixture as a game backend's test suite uses it: a separate pytest run
(in its own process) whose tests rate a game over HTTP, queue a podium and read the results."""

import textwrap

import pytest

pytest_plugins = ["pytester"]

BACKEND_TESTS = textwrap.dedent(
    """
    import json
    import urllib.error
    import urllib.request

    import boto3


    def send(stack, method, path, body=None, key="secret"):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(stack.api_url + path, data=data, method=method)
        request.add_header("content-type", "application/json")
        if key is not None:
            request.add_header("x-api-key", key)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return response.status, json.load(response)
        except urllib.error.HTTPError as error:
            return error.code, json.load(error)


    def test_a_game_is_rated(ratings_stack):
        game = {"game_id": "b-1", "players": [{"id": "ann"}, {"id": "ben"}], "winner": "ann"}
        assert send(ratings_stack, "POST", "/v1/ladders/backgammon/games", game)[0] == 201
        assert send(ratings_stack, "GET", "/v1/ladders/backgammon/players/ann", key=None)[0] == 403
        assert ratings_stack.get("/v1/ladders/backgammon/players/ann")["rating"] == 1516


    def test_the_backend_hears_of_the_rated_game(ratings_stack, wait_for_event):
        rated = wait_for_event("game.rated", lambda detail: detail["game"]["game_id"] == "b-1")
        assert rated["sequences"] == {"ann": 1, "ben": 1}
        assert rated["game"] == ratings_stack.get("/v1/ladders/backgammon/games/b-1")


    def test_the_same_stack_serves_the_session_and_a_podium_is_awarded(ratings_stack):
        sqs = boto3.client(
            "sqs",
            endpoint_url=ratings_stack.aws_endpoint_url,
            region_name=ratings_stack.region,
            aws_access_key_id="local",
            aws_secret_access_key="local",
        )
        podium = {
            "tournament_id": "t-1",
            "ladder": "backgammon",
            "finished_at": "2026-11-29T18:00:00Z",
            "public": True,
            "podium": [{"place": 1, "player_id": "ann"}],
        }
        sqs.send_message(QueueUrl=ratings_stack.queues["podiums"], MessageBody=json.dumps(podium))
        ratings_stack.invoke("AwardPodiumsFunction")
        assert ratings_stack.get("/v1/ladders/backgammon/players/ann")["rating"] == 1516 + 50
    """
)


def test_a_backend_suite_gets_the_stack_from_the_fixture(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_backend=BACKEND_TESTS)

    result = pytester.runpytest_subprocess(
        "-p", "ratings_local.pytest_plugin", "--ratings-api-key", "secret", "-q"
    )

    result.assert_outcomes(passed=3)


ON_DYNAMODB_LOCAL = textwrap.dedent(
    """
    import json
    import urllib.request

    import boto3


    def test_the_table_is_on_dynamodb_local_and_the_queues_on_moto(ratings_stack):
        assert ratings_stack.dynamodb_endpoint_url != ratings_stack.aws_endpoint_url
        game = {"game_id": "d-1", "players": [{"id": "ann"}, {"id": "ben"}], "winner": "ann"}
        request = urllib.request.Request(
            ratings_stack.api_url + "/v1/ladders/backgammon/games",
            data=json.dumps(game).encode(),
            headers={"content-type": "application/json"},
            method="POST",
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            assert response.status == 201
        assert ratings_stack.get("/v1/ladders/backgammon/games/d-1")["winner"] == "ann"

        def client(service, endpoint):
            return boto3.client(
                service, endpoint_url=endpoint, region_name=ratings_stack.region,
                aws_access_key_id="local", aws_secret_access_key="local",
            )

        table = client("dynamodb", ratings_stack.dynamodb_endpoint_url)
        assert table.scan(TableName=ratings_stack.table)["Count"] > 0
        assert client("dynamodb", ratings_stack.aws_endpoint_url).list_tables()["TableNames"] == []
        sqs = client("sqs", ratings_stack.aws_endpoint_url)
        queue = ratings_stack.queues["games"]
        arn = sqs.get_queue_attributes(QueueUrl=queue, AttributeNames=["QueueArn"])
        assert arn["Attributes"]["QueueArn"].endswith(":ratings-local-GamesQueue")


    def test_its_stream_publishes_the_game(wait_for_event):
        rated = wait_for_event("game.rated", lambda detail: detail["game"]["game_id"] == "d-1")
        assert rated["ladder"] == "backgammon"
    """
)


def test_a_backend_suite_can_have_the_table_on_dynamodb_local(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_backend=ON_DYNAMODB_LOCAL)

    result = pytester.runpytest_subprocess(
        "-p", "ratings_local.pytest_plugin", "--ratings-dynamodb-local", "-q"
    )

    result.assert_outcomes(passed=2)


WITH_BOTH_CREDENTIALS = textwrap.dedent(
    """
    import urllib.error

    import pytest


    def test_the_fixture_hands_over_both_credentials(ratings_stack):
        assert (ratings_stack.api_key, ratings_stack.moderation_key) == ("game", "mod")


    def test_a_game_key_alone_is_refused_on_the_moderation_routes(ratings_stack):
        game = {"game_id": "m-1", "players": [{"id": "ann"}, {"id": "ben"}], "winner": "ann"}
        ratings_stack.call("POST", "/v1/ladders/backgammon/games", game)
        sanction = {"sanction_id": "s-1", "player_id": "ann", "refund_days": 0}
        for method, path, body in [
            ("POST", "/v1/players/ann/erasure", None),
            ("POST", "/v1/ladders/backgammon/sanctions", sanction),
        ]:
            with pytest.raises(urllib.error.HTTPError) as refused:
                ratings_stack.call(method, path, body)
            assert refused.value.code == 403
        assert ratings_stack.get("/v1/ladders/backgammon/players/ann")["sanctioned"] is False


    def test_with_the_moderation_credential_a_sanction_is_made(ratings_stack):
        sanction = {"sanction_id": "s-2", "player_id": "ben", "refund_days": 0}
        made = ratings_stack.call(
            "POST", "/v1/ladders/backgammon/sanctions", sanction, moderation=True
        )
        assert made["player_id"] == "ben"
        assert ratings_stack.get("/v1/ladders/backgammon/players/ben")["sanctioned"] is True
    """
)


def test_a_backend_suite_gets_the_game_key_and_the_moderation_credential(
    pytester: pytest.Pytester,
) -> None:
    pytester.makepyfile(test_backend=WITH_BOTH_CREDENTIALS)

    result = pytester.runpytest_subprocess(
        "-p",
        "ratings_local.pytest_plugin",
        "--ratings-api-key",
        "game",
        "--ratings-moderation-key",
        "mod",
        "-q",
    )

    result.assert_outcomes(passed=3)
