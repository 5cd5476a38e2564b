"""The local stack for tests that drive the whole service: started in this process on free
ports, and everything it changes in the process put back when it stops; the module-scoped
fixtures its test directories share.

The stack sets process-wide state (AWS endpoint variables, the functions' environment), so
later tests in the same worker must not see it. Modules using it are marked
`xdist_group("local_stack")` (and `make test` runs with --dist loadgroup); a stack whose
table runs on DynamoDB Local is in a group of its own, so that the two engines' runs of a
module can go to two workers.
"""

import hashlib
import json
import time
from collections.abc import Callable, Iterator
from typing import Any

import boto3
import pytest
from hypothesis import HealthCheck, settings

# The plugin's, which a game backend's tests use too: the test directories start theirs with it.
from ratings_local.pytest_plugin import running_stack as running_stack
from ratings_local.stack import LocalStack
from support.http import API_KEY, MODERATION_KEY, Client

#: The engines a stack's table can run on, as fixture parameters: moto, and Amazon's DynamoDB
#: Local (started by the stack; `make setup-dynamodb-local` installs it).
ENGINES = [
    pytest.param(False, id="moto"),
    pytest.param(
        True, id="dynamodb-local", marks=pytest.mark.xdist_group("local_stack_dynamodb_local")
    ),
]


def aws_client(stack: LocalStack, service: str) -> Any:
    """A boto3 client of `service` ("sqs", "dynamodb") where the stack runs it."""
    endpoints = stack.endpoints()
    endpoint = endpoints["dynamodb_endpoint_url" if service == "dynamodb" else "aws_endpoint_url"]
    return boto3.client(
        service,  # type: ignore[call-overload]
        endpoint_url=endpoint,
        region_name=endpoints["region"],
        aws_access_key_id="local",
        aws_secret_access_key="local",
    )


def sqs_client(stack: LocalStack) -> Any:
    """A boto3 SQS client on the stack's emulated AWS."""
    return aws_client(stack, "sqs")


def table_digest(stack: LocalStack) -> tuple[int, str]:
    """How many items the ratings table holds, and a sha256 of all of them."""
    client = aws_client(stack, "dynamodb")
    items: list[str] = []
    pages = client.get_paginator("scan").paginate(TableName=stack.endpoints()["table"])
    for page in pages:
        items.extend(
            json.dumps(item, sort_keys=True, default=bytes.hex) for item in page.get("Items", [])
        )
    items.sort()
    return len(items), hashlib.sha256("\n".join(items).encode()).hexdigest()


def wait_for(condition: Callable[[], Any], timeout: float = 60.0, what: str = "") -> Any:
    """Poll `condition` until it returns something truthy (consumers run in the background)."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"not within {timeout} s: {what or condition}")
        time.sleep(0.2)


# Fixtures of the directories that start a stack per module (each defines its `stack`, or
# imports `keyed_stack`); a conftest or a module imports them by name.


@pytest.fixture(scope="module", params=ENGINES, name="stack")
def keyed_stack(request: pytest.FixtureRequest) -> Iterator[LocalStack]:
    """The module's stack, once per engine, started with support.http's API key and
    moderation key."""
    with running_stack(
        api_key=API_KEY, moderation_key=MODERATION_KEY, dynamodb_local=request.param
    ) as local:
        yield local


@pytest.fixture(scope="module")
def client(stack: LocalStack) -> Client:
    return Client(stack.api_url)


@pytest.fixture(scope="module")
def sqs(stack: LocalStack) -> Any:
    return sqs_client(stack)


def fuzz_settings(examples: int) -> settings:
    """Hypothesis settings for generating requests against a running stack: the same examples
    every run (no database, derandomized), no deadline (a request takes what it takes), and no
    health check (the strategies are meant to make big and mostly invalid inputs)."""
    return settings(
        max_examples=examples,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
