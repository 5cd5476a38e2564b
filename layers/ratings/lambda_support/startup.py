"""Cold start: the cyclic garbage collector waits until the first invocation is answered.

A cold start creates a few hundred thousand objects that live as long as the container
(modules, classes, botocore's service model) and almost no garbage, yet CPython's collector
walks them again and again while they are being created (what that costs each function as
built: docs/performance.md, "What each cold-start measure is worth").

So in Lambda each handler module calls `pause_collector()` before its imports, and its
entry point is wrapped in `resumes_collector`: once the first invocation has its answer,
everything alive is moved to the permanent generation (`gc.freeze`, so later collections
skip it too) and the collector runs as usual again. The price is that the few reference
cycles that became garbage during start-up are never freed (a few hundred objects,
docs/performance.md).

Outside Lambda (tests, the local stack, tools that import a handler) nothing changes: a
long-lived process that imports a handler and never invokes it must not run without a
collector.
"""

import functools
import gc
import os
from collections.abc import Callable, Mapping
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")

_paused = False


def in_lambda(env: Mapping[str, str] | None = None) -> bool:
    """Whether this process is a Lambda execution environment (Lambda sets the name)."""
    return bool((os.environ if env is None else env).get("AWS_LAMBDA_FUNCTION_NAME"))


def pause_collector(env: Mapping[str, str] | None = None) -> bool:
    """In Lambda, stop automatic collection until `resume_collector`; True if it paused."""
    global _paused
    if _paused or not in_lambda(env) or not gc.isenabled():
        return False
    gc.disable()
    _paused = True
    return True


def resume_collector() -> None:
    """Freeze what start-up built and collect automatically again (once; later calls no-op)."""
    global _paused
    if not _paused:
        return
    _paused = False
    gc.freeze()
    gc.enable()


def resumes_collector[**P, R](handler: Callable[P, R]) -> Callable[P, R]:
    """Wrap an entry point: the collector resumes after its first call, however it ends."""

    @functools.wraps(handler)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return handler(*args, **kwargs)
        finally:
            resume_collector()

    return wrapper
