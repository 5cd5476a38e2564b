"""Where the functions' clients send their requests: the endpoint variables botocore reads,
with its precedence (AWS_ENDPOINT_URL_<SERVICE>, then AWS_ENDPOINT_URL), so that the local
stack can put the table on DynamoDB Local while the queues stay on moto."""

from collections.abc import Iterator

import pytest

from ratings import wiring
from ratings.config import Config

TABLE_ENGINE = "http://127.0.0.1:8001"
EVERYTHING_ELSE = "http://127.0.0.1:5001"


@pytest.fixture
def endpoints(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"):
        monkeypatch.setenv(name, "testing")
    monkeypatch.setenv("AWS_REGION", "us-east-1")
    monkeypatch.setenv("AWS_ENDPOINT_URL", EVERYTHING_ELSE)
    monkeypatch.setenv("AWS_ENDPOINT_URL_DYNAMODB", TABLE_ENGINE)
    for name in ("AWS_ENDPOINT_URL_SQS", "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    wiring.reset()
    yield
    wiring.reset()


def test_the_table_client_goes_to_the_dynamodb_endpoint_and_sqs_to_the_general_one(
    endpoints: None,
) -> None:
    table_client = wiring.storage().connection.client
    sqs = wiring.sqs_client()

    assert table_client.meta.endpoint_url == TABLE_ENGINE
    assert sqs.meta.endpoint_url == EVERYTHING_ELSE


def test_a_service_specific_endpoint_wins_and_none_is_used_when_told_to_ignore_them() -> None:
    env = {"AWS_ENDPOINT_URL": EVERYTHING_ELSE, "AWS_ENDPOINT_URL_SQS": "http://sqs.local"}

    assert Config.from_env(env).dynamodb_endpoint_url == EVERYTHING_ELSE
    assert Config.from_env(env).sqs_endpoint_url == "http://sqs.local"
    ignored = Config.from_env({**env, "AWS_IGNORE_CONFIGURED_ENDPOINT_URLS": "true"})
    assert (ignored.dynamodb_endpoint_url, ignored.sqs_endpoint_url) == (None, None)
    assert Config.from_env({}).dynamodb_endpoint_url is None
