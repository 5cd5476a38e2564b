"""Lambda execution environments for the local stack: one child process each, as in Lambda.

Lambda runs each concurrent invocation of a function in an execution environment of its own,
a separate process that imports the handler once (the cold start) and then serves one
invocation at a time for as long as it stays warm. The local stack does the same, because
several things the handlers rely on are per-process state that one shared process would mix
up between concurrent invocations:

- Powertools' HTTP resolvers keep the current request on a class attribute
  (`BaseRouter.current_event`), shared by every resolver of a process: two requests at once
  would be answered from each other's event.
- Powertools' `Metrics` instances share one metric set per process, and `log_metrics` flushes
  it: a concurrent invocation's metrics would be published by another's flush, and its
  serialization can meet a set changing size under it.
- Powertools' `Logger` is the standard logger named by the service, with one formatter: the
  keys an invocation appends (the request id, the game id) would stamp another's lines.
- The layer's `wiring` builds one service and one set of clients per process, and the
  service's retry count is read before and after each use case to publish ConflictsRetried:
  with concurrent invocations on one service, each would publish the others' retries too.

botocore clients are thread-safe and could be shared, but nothing would be gained by sharing
only them. So each environment is a process forked from a fork server that has imported the
heavy libraries once (`PRELOAD`): an environment pays the import of its handler and the layer,
and its first clients, which is what a cold start pays. An environment gets the function's
own environment variables, runs one invocation at a time, and is killed when an invocation
outlasts the function's Timeout, as Lambda ends a timed-out invocation; a new one takes its
place on the next invocation. (Being multiprocessing children, environments import the
starting program's main module again: a script that starts a stack does so under
`if __name__ == "__main__":`.)

The metrics a handler prints (CloudWatch's embedded metric format) are what CloudWatch would
receive; each invocation's are summed into `Invocation.metrics` and not printed. Everything
else the handler prints or logs goes to the stack's own output (or nowhere, with
`EnvironmentSpec.print_logs` off), and its size is `Invocation.log_bytes`: what CloudWatch
Logs would ingest besides the metrics.
"""

import contextlib
import importlib.util
import io
import json
import multiprocessing
import os
import signal
import sys
import threading
import time
import traceback
import uuid
import warnings
from collections import defaultdict
from dataclasses import dataclass, field
from multiprocessing.connection import Connection
from types import ModuleType
from typing import Any

#: Imported once by the fork server, before it forks any environment.
PRELOAD = [
    "botocore.session",
    "pynamodb.connection",
    "pynamodb.models",
    "aws_lambda_powertools.event_handler",
    "aws_lambda_powertools.logging",
    "aws_lambda_powertools.metrics",
]
#: Seconds an environment may take to import its handler (Lambda allows 10 s of init).
INIT_TIMEOUT = 30.0
#: Metric totals by name (0 for a metric never published).
Metrics = defaultdict[str, float]
#: The largest response payload Lambda returns from a synchronous invocation (its "6 MB"):
#: the handler's result as the runtime serializes it to JSON, in bytes. A larger one fails
#: the invocation with Function.ResponseSizeTooLarge.
MAX_RESPONSE_BYTES = 6_291_556


class FunctionError(Exception):
    """An invocation failed as Lambda reports it: an error type, a message, a stack trace."""

    def __init__(self, error_type: str, message: str, stack_trace: list[str] | None = None):
        super().__init__(f"{error_type}: {message}")
        self.error_type = error_type
        self.error_message = message
        self.stack_trace = stack_trace or []
        #: What the failed invocation published and logged before it failed.
        self.invocation: Invocation | None = None


@dataclass(frozen=True)
class EnvironmentSpec:
    """What an environment needs to run one function (everything picklable)."""

    function_name: str
    handler_path: str
    handler_attribute: str
    environment: dict[str, str]
    timeout_seconds: int
    memory_mb: int = 512
    region: str = "us-east-1"
    #: Whether what the handler logs is printed (False: only counted).
    print_logs: bool = True


@dataclass
class Invocation:
    """One invocation's outcome: the handler's result, the metrics it published, and the
    bytes it logged (metrics aside)."""

    result: Any
    metrics: Metrics = field(default_factory=lambda: defaultdict(float))
    log_bytes: int = 0


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


#: Source text for `python -c`, in a fresh interpreter as in a new container: the handler file
#: named by sys.argv[1] loaded the way Lambda loads it (as `module`), and `Context`, a context
#: object with a minute left. It imports nothing of its own, so that what a cold start loads
#: can be timed and listed: the text before it imports importlib.util and sys.
FRESH_HANDLER = """
spec = importlib.util.spec_from_file_location("app", sys.argv[1])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)

class Context:
    function_name = "cold-start"
    memory_limit_in_mb = 512
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:cold-start"
    aws_request_id = "cold-start"
    def get_remaining_time_in_millis(self):
        return 60_000
"""


# The child's side ------------------------------------------------------------------------


class _CountingStream(io.TextIOBase):
    """Standard output as the handler sees it: counted, and passed on unless quiet."""

    def __init__(self, target: Any) -> None:
        self._target = target
        self.bytes = 0

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self.bytes += len(text.encode())
        if self._target is not None:
            self._target.write(text)
        return len(text)

    def flush(self) -> None:
        if self._target is not None:
            self._target.flush()


def _serve(connection: Connection, spec: EnvironmentSpec) -> None:
    """An environment's life: import the handler, then one invocation per message."""
    # Ctrl-C is for the stack, which stops its environments itself.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    os.environ.clear()
    os.environ.update(spec.environment)
    warnings.filterwarnings("ignore", message="No application metrics to publish")
    # Before the handler's import: Powertools' Logger writes to the sys.stdout of that moment.
    output = _CountingStream(sys.stdout if spec.print_logs else None)
    sys.stdout = output
    try:
        handler = _import_handler(spec)
    except BaseException as error:  # Lambda reports an init failure on the invocation
        connection.send(("init_error", _error_of(error, "Runtime.ImportModuleError")))
        return
    connection.send(("ready", None))
    while True:
        try:
            event = connection.recv()
        except (EOFError, OSError):
            return
        if event is None:
            return
        context = LambdaContext(
            spec.function_name, spec.timeout_seconds, spec.region, spec.memory_mb
        )
        output.bytes = 0
        printed = io.StringIO()
        try:
            with contextlib.redirect_stdout(printed):
                outcome: tuple[str, Any] = ("result", handler(event, context))
        except Exception as error:
            outcome = ("error", _error_of(error, type(error).__name__))
        if outcome[0] == "result":
            outcome = _within_response_limit(outcome[1])
        metrics, rest = split_metrics(printed.getvalue())
        if rest:
            output.write(rest)
        output.flush()
        try:
            connection.send((*outcome, metrics, output.bytes))
        except Exception as error:  # a result that cannot be sent back (not picklable)
            failure = _error_of(error, "Runtime.MarshalError")
            connection.send(("error", failure, metrics, output.bytes))


def _within_response_limit(result: Any) -> tuple[str, Any]:
    """The result, or the error Lambda answers in its place when its JSON is over the limit."""
    size = len(json.dumps(result, default=str).encode())
    if size <= MAX_RESPONSE_BYTES:
        return "result", result
    message = (
        f"Response payload size exceeded maximum allowed payload size ({MAX_RESPONSE_BYTES} bytes)."
    )
    return "error", {
        "errorType": "Function.ResponseSizeTooLarge",
        "errorMessage": message,
        "stackTrace": [],
    }


def load_handler_file(path: str | os.PathLike[str], module_name: str = "app") -> ModuleType:
    """The handler file at `path` imported the way Lambda imports it: run once, as a module
    registered in sys.modules under `module_name` (Lambda's is the file's name)."""
    loader_spec = importlib.util.spec_from_file_location(module_name, path)
    if loader_spec is None or loader_spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(loader_spec)
    sys.modules[module_name] = module
    loader_spec.loader.exec_module(module)
    return module


def _import_handler(spec: EnvironmentSpec) -> Any:
    module = load_handler_file(spec.handler_path, f"_local_{spec.function_name}")
    return getattr(module, spec.handler_attribute)


def _error_of(error: BaseException, error_type: str) -> dict[str, Any]:
    return {
        "errorType": error_type,
        "errorMessage": str(error),
        "stackTrace": traceback.format_exception(error),
    }


def split_metrics(printed: str) -> tuple[Metrics, str]:
    """The metrics of the embedded-metric-format records in `printed`, summed by name, and
    the rest of what was printed."""
    metrics: Metrics = defaultdict(float)
    rest = []
    for line in printed.splitlines(keepends=True):
        record = _emf_record(line)
        if record is None:
            rest.append(line)
            continue
        for directive in record["_aws"].get("CloudWatchMetrics", []):
            for metric in directive.get("Metrics", []):
                value = record.get(metric.get("Name"))
                values = value if isinstance(value, list) else [value]
                metrics[metric["Name"]] += sum(v for v in values if isinstance(v, int | float))
    return metrics, "".join(rest)


def _emf_record(line: str) -> dict[str, Any] | None:
    if '"_aws"' not in line:
        return None
    try:
        record = json.loads(line)
    except ValueError:
        return None
    if isinstance(record, dict) and isinstance(record.get("_aws"), dict):
        return record
    return None


# The stack's side ------------------------------------------------------------------------

_context_lock = threading.Lock()


def _process_context() -> Any:
    """The fork server's context, its preload set before it first starts."""
    with _context_lock:
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(PRELOAD)
        return context


class ExecutionEnvironment:
    """One environment (a child process) of one function: `invoke` runs one invocation."""

    def __init__(self, spec: EnvironmentSpec, number: int) -> None:
        self.spec = spec
        context = _process_context()
        ours, theirs = context.Pipe()
        self._connection: Connection = ours
        self._process = context.Process(
            target=_serve,
            args=(theirs, spec),
            name=f"{spec.function_name}-{number}",
            daemon=True,
        )
        self._process.start()
        theirs.close()
        self._init_error: dict[str, Any] | None = None
        if not self._connection.poll(INIT_TIMEOUT):
            self.stop()
            raise FunctionError("Runtime.InitTimeout", f"no answer within {INIT_TIMEOUT} s")
        try:
            kind, detail = self._connection.recv()
        except EOFError:
            self.stop()
            raise FunctionError("Runtime.ExitError", "the environment exited at init") from None
        if kind == "init_error":
            self._init_error = detail
        #: False once the environment cannot serve again (a timeout, a crash, an init error).
        self.usable = kind == "ready"

    def invoke(self, event: Any) -> Invocation:
        if self._init_error is not None:
            error = self._init_error
            raise FunctionError(error["errorType"], error["errorMessage"], error["stackTrace"])
        try:
            self._connection.send(event)
        except (OSError, ValueError) as error:
            self.usable = False
            raise FunctionError("Runtime.ExitError", f"the environment is gone: {error}") from None
        if not self._connection.poll(self.spec.timeout_seconds):
            self.usable = False
            self.stop()
            raise FunctionError(
                "Sandbox.Timedout", f"Task timed out after {self.spec.timeout_seconds:.2f} seconds"
            )
        try:
            kind, value, metrics, log_bytes = self._connection.recv()
        except EOFError:
            self.usable = False
            self._process.join(1)
            code = self._process.exitcode
            raise FunctionError(
                "Runtime.ExitError", f"the environment exited (code {code})"
            ) from None
        if kind == "error":
            failure = FunctionError(value["errorType"], value["errorMessage"], value["stackTrace"])
            failure.invocation = Invocation(None, metrics, log_bytes)
            raise failure
        return Invocation(value, metrics, log_bytes)

    def stop(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            self._connection.send(None)
        self._process.join(0.5)
        if self._process.is_alive():
            self._process.kill()
            self._process.join(2)
        self._connection.close()
