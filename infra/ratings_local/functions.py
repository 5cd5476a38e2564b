"""Running the template's functions in this process, the way Lambda would.

Each function gets a pool of "containers": separate imports of its handler module, so two
concurrent invocations never share a resolver or processor, and the first invocation of each
container pays the import, as a cold start does. The shared layer (`ratings`) is imported once.

One thing separate imports cannot separate: Powertools' HTTP resolvers keep the current
request on a class attribute (`BaseRouter.current_event`), shared by every resolver in the
process. Lambda runs each invocation in its own process, so this never bites there; here it
would answer one request with another's body. A function with an Api event therefore runs
one invocation at a time (`max_concurrency=1`); the HTTP server still accepts requests
concurrently and they queue for the function.
"""

import importlib.util
import sys
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from ratings_local.template import FunctionSpec

Handler = Callable[[dict[str, Any], Any], Any]


@dataclass
class LambdaContext:
    """The parts of Lambda's context object that handlers and Powertools read."""

    function_name: str
    timeout_seconds: int
    region: str = "us-east-1"
    memory_limit_in_mb: int = 512
    function_version: str = "$LATEST"
    aws_request_id: str = field(default_factory=lambda: str(uuid.uuid4()))
    started: float = field(default_factory=time.monotonic)

    @property
    def invoked_function_arn(self) -> str:
        return f"arn:aws:lambda:{self.region}:123456789012:function:{self.function_name}"

    @property
    def log_group_name(self) -> str:
        return f"/aws/lambda/{self.function_name}"

    @property
    def log_stream_name(self) -> str:
        return "local"

    def get_remaining_time_in_millis(self) -> int:
        left = self.timeout_seconds - (time.monotonic() - self.started)
        return max(0, int(left * 1000))


class LocalFunction:
    """One function of the template, invocable concurrently."""

    def __init__(
        self, spec: FunctionSpec, root: Path, region: str, max_concurrency: int | None = None
    ):
        self.spec = spec
        self._region = region
        module_name, _, self._attribute = spec.handler.rpartition(".")
        self._path = root / spec.code_uri / (module_name.replace(".", "/") + ".py")
        if not self._path.is_file():
            raise FileNotFoundError(f"{spec.logical_id}: handler file {self._path} not found")
        self._idle: list[Handler] = []
        self._containers = 0
        self._lock = threading.Lock()
        if max_concurrency is None:
            max_concurrency = 1 if "Api" in spec.triggers() else 8
        self.max_concurrency = max_concurrency
        self._slots = threading.Semaphore(max_concurrency)

    @property
    def logical_id(self) -> str:
        return self.spec.logical_id

    def _new_container(self) -> Handler:
        with self._lock:
            self._containers += 1
            number = self._containers
        name = f"_local_{self.logical_id}_{number}"
        loader_spec = importlib.util.spec_from_file_location(name, self._path)
        if loader_spec is None or loader_spec.loader is None:
            raise ImportError(f"cannot load {self._path}")
        module: ModuleType = importlib.util.module_from_spec(loader_spec)
        sys.modules[name] = module
        loader_spec.loader.exec_module(module)
        handler: Handler = getattr(module, self._attribute)
        return handler

    def warm(self) -> None:
        """Load one container now (in the caller's thread), so that the libraries the handler
        imports are imported once, before invocations on several threads could race for it."""
        handler = self._new_container()
        with self._lock:
            self._idle.append(handler)

    def invoke(self, event: dict[str, Any]) -> Any:
        """Run the handler once on `event` in an idle container (or a new one)."""
        with self._slots:
            with self._lock:
                handler = self._idle.pop() if self._idle else None
            if handler is None:
                handler = self._new_container()
            try:
                context = LambdaContext(self.logical_id, self.spec.timeout, self._region)
                return handler(event, context)
            finally:
                with self._lock:
                    self._idle.append(handler)
