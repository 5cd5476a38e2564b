"""Reading the runtime lock (layers/requirements.txt, made by `make lock`) and following the
dependencies of pyproject.toml's [project] through it, as the Lambda runtime would resolve them.

Offline: a package's own dependencies come from its installed metadata, which is the locked
version's as long as `test_this_environment_runs_the_locked_versions` passes."""

import tomllib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from importlib import metadata

from packaging.requirements import Requirement
from packaging.utils import NormalizedName, canonicalize_name
from packaging.version import Version

from support.template import ROOT

LOCK = ROOT / "layers" / "requirements.txt"
PYPROJECT = ROOT / "pyproject.toml"
#: The marker values of the runtime the layer is built for (python3.13 on arm64 Linux).
LAMBDA_MARKERS = {
    "implementation_name": "cpython",
    "platform_python_implementation": "CPython",
    "os_name": "posix",
    "sys_platform": "linux",
    "platform_system": "Linux",
    "platform_machine": "aarch64",
    "python_version": "3.13",
    "python_full_version": "3.13.0",
}


@dataclass(frozen=True)
class Pin:
    name: NormalizedName
    version: Version
    hashes: tuple[str, ...]


def read_lock(text: str) -> dict[NormalizedName, Pin]:
    """The pins of a pip-compile output: `name==version \\` lines with `--hash` options."""
    pins: dict[NormalizedName, Pin] = {}
    for line in _logical_lines(text):
        requirement_text, *options = line.split(" --")
        requirement = Requirement(requirement_text)
        (specifier,) = requirement.specifier
        if specifier.operator != "==":
            raise ValueError(f"not a pin: {line!r}")
        name = canonicalize_name(requirement.name)
        hashes = tuple(option.removeprefix("hash=") for option in options if "hash=" in option)
        pins[name] = Pin(name, Version(specifier.version), hashes)
    return pins


def _logical_lines(text: str) -> Iterable[str]:
    joined = text.replace("\\\n", " ")
    for raw in joined.splitlines():
        line = " ".join(raw.split("#", 1)[0].split())
        if line:
            yield line


def declared_dependencies() -> list[Requirement]:
    project = tomllib.loads(PYPROJECT.read_text())["project"]
    return [Requirement(text) for text in project["dependencies"]]


@dataclass(frozen=True)
class Closure:
    """What following the declared dependencies through the lock found."""

    reached: frozenset[NormalizedName]
    problems: tuple[str, ...]


def follow(
    roots: Iterable[Requirement],
    pins: Mapping[NormalizedName, Pin],
    requires_of: Callable[[NormalizedName], list[str]] | None = None,
) -> Closure:
    """Every package the roots need on the runtime, each checked against its pin.
    `requires_of` gives a package's Requires-Dist (by default, the installed metadata)."""
    requires_of = requires_of or _installed_requires
    reached: set[NormalizedName] = set()
    expanded: set[tuple[NormalizedName, str]] = set()
    problems: list[str] = []
    pending = [(requirement, "pyproject.toml") for requirement in roots]
    while pending:
        requirement, wanted_by = pending.pop()
        name = canonicalize_name(requirement.name)
        pin = pins.get(name)
        if pin is None:
            problems.append(f"{requirement} (wanted by {wanted_by}) is not in the lock")
            continue
        if not requirement.specifier.contains(pin.version, prereleases=True):
            problems.append(f"{requirement} (wanted by {wanted_by}) refuses the pin {pin.version}")
        reached.add(name)
        for extra in ("", *sorted(requirement.extras)):
            if (name, extra) in expanded:
                continue
            expanded.add((name, extra))
            for text in requires_of(name):
                dependency = Requirement(text)
                markers = {**LAMBDA_MARKERS, "extra": extra}
                # An extra's pass adds only what the extra adds (the marker names it).
                if dependency.marker is None:
                    needed = extra == ""
                else:
                    needed = dependency.marker.evaluate(markers)
                if needed:
                    pending.append((dependency, f"{name}[{extra}]" if extra else name))
    return Closure(frozenset(reached), tuple(problems))


def _installed_requires(name: NormalizedName) -> list[str]:
    return metadata.requires(name) or []
