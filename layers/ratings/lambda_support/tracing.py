"""The handlers' Powertools Tracer, without the X-Ray SDK when nothing is traced.

Powertools imports the X-Ray SDK even for a disabled tracer, and outside Lambda the SDK makes
a botocore client for its sampling rules as it loads (about 100 ms here; 15 in Lambda).
Where tracing is off (POWERTOOLS_TRACE_DISABLED, outside Lambda, SAM local) the tracer gets a
provider that does nothing instead. In Lambda with tracing on it is the usual X-Ray tracer,
and botocore (the one library the functions call AWS with) is patched by `trace_aws_sdk`
when the first AWS client is about to be made, not when the handler loads: a route that calls
no AWS service (GET /v1/ladders) never imports botocore.
"""

import os
from collections.abc import AsyncGenerator, Generator, Sequence
from contextlib import asynccontextmanager, contextmanager
from typing import Any

from aws_lambda_powertools import Tracer
from aws_lambda_powertools.tracing.base import BaseProvider, BaseSegment

_TRUE = frozenset({"1", "y", "yes", "t", "true", "on"})


def tracing_enabled(env: os._Environ[str] | dict[str, str] | None = None) -> bool:
    """Whether Powertools would trace here (its rules, without importing the X-Ray SDK)."""
    env = os.environ if env is None else env
    if env.get("POWERTOOLS_TRACE_DISABLED", "false").strip().lower() in _TRUE:
        return False
    in_lambda = bool(env.get("LAMBDA_TASK_ROOT"))
    emulated = bool(env.get("AWS_SAM_LOCAL") or env.get("AWS_CHALICE_CLI_MODE"))
    return in_lambda and not emulated


def make_tracer() -> Tracer:
    if tracing_enabled():
        return Tracer(auto_patch=False)  # botocore: see trace_aws_sdk
    return Tracer(provider=NoTracing(), disabled=True, auto_patch=False)


def trace_aws_sdk() -> None:
    """Where tracing is on, patch botocore so AWS calls become X-Ray subsegments.

    Called before the first client is made; the X-Ray SDK patches a module only once.
    """
    if tracing_enabled():
        from aws_xray_sdk.core import patch

        patch(("botocore",))


class _NoSegment(BaseSegment):
    def close(self, end_time: int | None = None) -> None:
        pass

    def add_subsegment(self, subsegment: Any) -> None:
        pass

    def remove_subsegment(self, subsegment: Any) -> None:
        pass

    def put_annotation(self, key: str, value: Any) -> None:
        pass

    def put_metadata(self, key: str, value: Any, namespace: str = "default") -> None:
        pass

    def add_exception(self, exception: BaseException, stack: Any, remote: bool = False) -> None:
        pass


class NoTracing(BaseProvider):
    """A tracing provider that records nothing."""

    @contextmanager
    def in_subsegment(self, name: Any = None, **kwargs: Any) -> Generator[BaseSegment, None, None]:
        yield _NoSegment()

    @asynccontextmanager
    async def in_subsegment_async(
        self, name: Any = None, **kwargs: Any
    ) -> AsyncGenerator[BaseSegment, None]:
        yield _NoSegment()

    def put_annotation(self, key: str, value: Any) -> None:
        pass

    def put_metadata(self, key: str, value: Any, namespace: str = "default") -> None:
        pass

    def patch(self, modules: Sequence[str]) -> None:
        pass

    def patch_all(self) -> None:
        pass
