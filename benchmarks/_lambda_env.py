"""A Lambda-like Python environment for fresh-process benchmarks.

A function in Lambda sees its own code, the layer (the `ratings` package and the packages of
`layers/requirements.txt`) and the runtime's boto3; nothing of a development install. The
project's virtualenv holds much more (moto, Flask, pytest...), and some of it changes what a
cold start does: pynamodb sends signals through blinker when blinker is importable, and the
editable-install finder imports pathlib and importlib.metadata before the first statement.

`packages()` installs the layer's requirements and boto3, at the versions this virtualenv has
(so the figures compare like with like), into `build/lambda-env/<key>/python`, once per set
of versions. `command()` runs Python without `site` (no virtualenv packages) and with the
search path Lambda gives a function: its code, then the layer, then the runtime's packages.
"""

import hashlib
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REQUIREMENTS = ROOT / "layers" / "requirements.txt"
LAYER = ROOT / "layers"
#: What the Lambda runtime provides besides the layer.
RUNTIME_PACKAGES = ("boto3",)


def pinned_versions() -> str:
    """`name==version` of everything installed here except the project itself."""
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "freeze",
            "--exclude-editable",
            "--disable-pip-version-check",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def packages() -> Path:
    """The directory with the layer's requirements and the runtime's packages (built once)."""
    constraints = pinned_versions()
    key = hashlib.sha256(
        (REQUIREMENTS.read_text() + "\0" + constraints + "\0" + " ".join(RUNTIME_PACKAGES)).encode()
    ).hexdigest()[:16]
    home = ROOT / "build" / "lambda-env" / key
    target = home / "python"
    if (home / "complete").exists():
        return target
    home.mkdir(parents=True, exist_ok=True)
    (home / "constraints.txt").write_text(constraints)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--upgrade",
            "--target",
            str(target),
            "--constraint",
            str(home / "constraints.txt"),
            "--requirement",
            str(REQUIREMENTS),
            *RUNTIME_PACKAGES,
        ],
        check=True,
        capture_output=True,
    )
    (home / "complete").write_text("")
    return target


def search_path(function_dir: Path | None, packages_dir: Path) -> str:
    """Lambda's order: the function's code, the layer, then the runtime's packages."""
    entries = [str(function_dir)] if function_dir else []
    entries += [str(LAYER), str(packages_dir)]
    return os.pathsep.join(entries)


def command(code: str, *args: str) -> list[str]:
    """Run `code` without site-packages (`-S`): only PYTHONPATH and the standard library."""
    return [sys.executable, "-S", "-c", code, *args]
