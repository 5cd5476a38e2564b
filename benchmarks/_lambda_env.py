"""The built artifact (`make build`), laid out as Lambda runs it, for fresh-process benchmarks.

`built_artifact()` copies `.aws-sam/build` to a temporary directory and makes the copy
read-only, as Lambda's /var/task and /opt are: a process can only use the bytecode the build
shipped, never write its own. Two things are added to the copy:

- where the build holds a compiled extension for arm64 (Lambda's architecture), the same
  version of that distribution for this machine, compiled like `make build` compiles
  (unchecked-hash bytecode), so the copy runs here;
- the runtime's own boto3 (Lambda's /var/runtime), at the layer's boto3 version, after the
  layer on the search path: the layer ships boto3, so the layer's comes first, as on Lambda.

Wheels come from the package index through pip, once per version (kept in build/lambda-env).
Processes run with `python -S -B` and the search path Lambda gives a function: its folder
(/var/task), the layer's python/ folder (/opt/python), then the runtime.
"""

import os
import shutil
import stat
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BUILD = ROOT / ".aws-sam" / "build"
CACHE = ROOT / "build" / "lambda-env"
#: The functions' folders under functions/ and their build folders (template.yaml's ids).
FUNCTIONS = {
    "api": "ApiFunction",
    "games_queue": "GamesQueueFunction",
    "award_podiums": "AwardPodiumsFunction",
    "moderation": "ModerationFunction",
    "moderation_worker": "ModerationWorkerFunction",
}
LAYER = "RatingsLayer"
#: ELF e_machine of this machine's and Lambda's extensions.
X86_64, AARCH64 = 0x3E, 0xB7


@dataclass(frozen=True)
class Artifact:
    """The read-only copy: where each part is, and the search path of a process."""

    root: Path

    def function(self, name: str) -> Path:
        return self.root / FUNCTIONS[name]

    @property
    def layer(self) -> Path:
        return self.root / LAYER / "python"

    @property
    def runtime(self) -> Path:
        return self.root / "runtime"

    def extra(self, name: str) -> Path:
        """A directory added for one comparison (e.g. a tracing library), like another layer."""
        return self.root / "extra" / name

    def search_path(self, function: str | None, extras: Sequence[str] = ()) -> str:
        """Lambda's order: the function, the layer(s), then the runtime's packages."""
        entries = [self.function(function)] if function else []
        entries += [self.layer, *(self.extra(name) for name in extras), self.runtime]
        return os.pathsep.join(map(str, entries))


def command(code: str, *args: str) -> list[str]:
    """Python without site-packages (-S) and without writing bytecode (-B)."""
    return [sys.executable, "-S", "-B", "-c", code, *args]


def pip_target(requirements: Sequence[str], *, deps: bool) -> Path:
    """`pip install --target` of exact requirements for this machine, cached by their names."""
    home = CACHE / "-".join(r.replace("==", "-") for r in requirements)
    if (home / "complete").exists():
        return home / "python"
    shutil.rmtree(home, ignore_errors=True)
    home.mkdir(parents=True)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--disable-pip-version-check",
            "--no-compile",
            "--only-binary=:all:",
            *([] if deps else ["--no-deps"]),
            "--target",
            str(home / "python"),
            *requirements,
        ],
        check=True,
    )
    (home / "complete").write_text("")
    return home / "python"


def distribution(dist_info: Path) -> tuple[str, str]:
    """(name, version) from a .dist-info's METADATA."""
    fields: dict[str, str] = {}
    for line in (dist_info / "METADATA").read_text(errors="replace").splitlines():
        if not line:
            break
        key, _, value = line.partition(":")
        fields.setdefault(key, value.strip())
    return fields["Name"], fields["Version"]


def elf_machine(path: Path) -> int:
    with path.open("rb") as file:
        header = file.read(20)
    return int.from_bytes(header[18:20], "little")


def native_distributions(site: Path) -> dict[Path, set[str]]:
    """Each .dist-info of `site` that installed a compiled extension, with its top-level names."""
    found: dict[Path, set[str]] = {}
    for dist_info in site.glob("*.dist-info"):
        files = [
            line.split(",")[0] for line in (dist_info / "RECORD").read_text().splitlines() if line
        ]
        if any(f.endswith(".so") for f in files):
            tops = {f.split("/")[0] for f in files if not f.startswith("..")}
            found[dist_info] = {top for top in tops if (site / top).exists()}
    return found


def substitute_native(site: Path) -> list[str]:
    """Replace every distribution with an extension by this machine's wheel of its version."""
    replaced = []
    for dist_info, tops in native_distributions(site).items():
        name, version = distribution(dist_info)
        local = pip_target([f"{name}=={version}"], deps=False)
        for top in tops:
            target = site / top
            shutil.rmtree(target) if target.is_dir() else target.unlink()
        for entry in local.iterdir():
            if entry.name == "bin":
                continue
            copy = shutil.copytree if entry.is_dir() else shutil.copy2
            copy(entry, site / entry.name)
        compile_tree(site, only=[site / e.name for e in local.iterdir() if e.name != "bin"])
        replaced.append(f"{name}=={version}")
    return replaced


def compile_tree(root: Path, only: Sequence[Path] | None = None) -> None:
    """Bytecode as `make build` compiles it: unchecked-hash, so nothing re-checks sources."""
    subprocess.run(
        [
            sys.executable,
            "-m",
            "compileall",
            "-q",
            "-j",
            "0",
            "--invalidation-mode",
            "unchecked-hash",
            *map(str, only if only is not None else [root]),
        ],
        check=True,
        stdout=subprocess.DEVNULL,
    )


def layer_version(site: Path, name: str) -> str:
    matches = [d for d in site.glob("*.dist-info") if distribution(d)[0].lower() == name]
    if not matches:
        raise RuntimeError(f"the layer ships no {name}")
    return distribution(matches[0])[1]


def check_build(build: Path) -> None:
    missing = [name for name in (*FUNCTIONS.values(), LAYER) if not (build / name).is_dir()]
    if missing or not any(build.glob(f"{LAYER}/python/ratings/__pycache__/*.pyc")):
        raise SystemExit(f"no compiled build in {build} ({missing or 'no bytecode'}): make build")
    if sys.version_info[:2] != (3, 13):
        raise SystemExit("the build's bytecode is Python 3.13's: run the benchmark with 3.13")


@contextmanager
def built_artifact(
    build: Path = BUILD, extras: Mapping[str, Sequence[str]] | None = None
) -> Iterator[Artifact]:
    """A read-only copy of `build` that runs here; `extras`: name -> requirements to add."""
    check_build(build)
    with tempfile.TemporaryDirectory(prefix="cold-start-") as temporary:
        artifact = Artifact(Path(temporary) / "build")
        shutil.copytree(build, artifact.root, symlinks=True)
        substitute_native(artifact.layer)
        boto3 = f"boto3=={layer_version(artifact.layer, 'boto3')}"
        shutil.copytree(pip_target([boto3], deps=True), artifact.runtime)
        compile_tree(artifact.runtime)
        for name, requirements in (extras or {}).items():
            shutil.copytree(pip_target(requirements, deps=True), artifact.extra(name))
            compile_tree(artifact.extra(name))
        foreign = [
            so for so in artifact.root.rglob("*.so") if elf_machine(so) != machine_of_python()
        ]
        if foreign:
            raise RuntimeError(f"extensions for another machine remain: {foreign[:3]}")
        set_writable(artifact.root, False)
        try:
            yield artifact
        finally:
            set_writable(artifact.root, True)


def machine_of_python() -> int:
    return elf_machine(Path(os.path.realpath(sys.executable)))


def set_writable(root: Path, writable: bool) -> None:
    bits = stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH
    for path in [root, *root.rglob("*")]:
        if path.is_symlink():
            continue
        mode = path.stat().st_mode
        path.chmod(mode | stat.S_IWUSR if writable else mode & ~bits)


#: What Lambda sets that the functions, Powertools or an AWS SDK look at (besides
#: LAMBDA_TASK_ROOT, the function's folder). Active tracing gives every invocation a trace
#: header; nothing listens at the daemon address here.
LAMBDA_VARIABLES = {
    "AWS_LAMBDA_FUNCTION_NAME": "cold-start",
    "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": "512",
    "AWS_EXECUTION_ENV": "AWS_Lambda_python3.13",
    "_X_AMZN_TRACE_ID": (
        "Root=1-67490000-0123456789abcdef01234567;Parent=0123456789abcdef;Sampled=1"
    ),
    "AWS_XRAY_DAEMON_ADDRESS": "127.0.0.1:2000",
    "AWS_XRAY_CONTEXT_MISSING": "LOG_ERROR",
}
