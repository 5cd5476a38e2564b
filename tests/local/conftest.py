"""Fixtures for the local stack's tests: the emulated AWS on a free port."""

from collections.abc import Iterator

import boto3
import pytest

from ratings_local.aws import EmulatedAws


@pytest.fixture
def aws_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "local")
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", "local")
    monkeypatch.setenv("AWS_DEFAULT_REGION", "us-east-1")
    monkeypatch.delenv("AWS_ENDPOINT_URL", raising=False)


@pytest.fixture
def emulated_aws(aws_env: None) -> Iterator[str]:
    aws = EmulatedAws()
    url = aws.start()
    yield url
    aws.stop()


@pytest.fixture
def dynamodb(emulated_aws: str):  # type: ignore[no-untyped-def]
    return boto3.client("dynamodb", endpoint_url=emulated_aws, region_name="us-east-1")
