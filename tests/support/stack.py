"""The local stack for tests that drive the whole service: started in this process on free
ports, and everything it changes in the process put back when it stops.

The stack sets process-wide state (AWS endpoint variables, the functions' environment, the
service built once per process), so later tests in the same worker must not see it. Modules
using it are marked `xdist_group("local_stack")` (and `make test` runs with --dist loadgroup).
"""

import os
from collections.abc import Iterator
from contextlib import contextmanager
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
