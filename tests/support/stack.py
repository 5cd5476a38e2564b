"""The local stack for tests that drive the whole service: started in this process on free
ports, and everything it changes in the process put back when it stops.

The stack sets process-wide state (AWS endpoint variables, the functions' environment, the
service built once per process), so later tests in the same worker must not see it. Modules
using it are marked `xdist_group("local_stack")` (and `make test` runs with --dist loadgroup).
"""

import json
import os
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import boto3

from ratings import wiring
from ratings_local.stack import LocalStack, Options


@contextmanager
def running_stack(**options: Any) -> Iterator[LocalStack]:
    """A started LocalStack (`options` as for `Options`, free ports by default)."""
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


def sqs_client(stack: LocalStack) -> Any:
    """A boto3 SQS client on the stack's emulated AWS."""
    endpoints = stack.endpoints()
    return boto3.client(
        "sqs",
        endpoint_url=endpoints["aws_endpoint_url"],
        region_name=endpoints["region"],
        aws_access_key_id="local",
        aws_secret_access_key="local",
    )


@dataclass
class Client:
    """The local API over urllib: (status, JSON body or text) for any request."""

    api_url: str
    api_key: str | None = None

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body).encode()
        headers = {"content-type": "application/json"}
        if self.api_key is not None:
            headers["x-api-key"] = self.api_key
        request = urllib.request.Request(self.api_url + path, data, headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                status, raw = response.status, response.read()
        except urllib.error.HTTPError as error:
            status, raw = error.code, error.read()
        try:
            return status, json.loads(raw)
        except ValueError:
            return status, raw.decode(errors="replace")


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


def queue_depth(sqs: Any, url: str) -> int:
    """Messages in `url`: visible, in flight and delayed."""
    attributes = sqs.get_queue_attributes(
        QueueUrl=url,
        AttributeNames=[
            "ApproximateNumberOfMessages",
            "ApproximateNumberOfMessagesNotVisible",
            "ApproximateNumberOfMessagesDelayed",
        ],
    )["Attributes"]
    return sum(int(value) for value in attributes.values())
