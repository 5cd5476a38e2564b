"""What `make build` leaves in .aws-sam/build is what deploys: the locked versions in the layer,
the ladders file, and every module compiled to bytecode that the zip's timestamps cannot
invalidate.

Checked when a build is there; `make test` builds first and sets RATINGS_REQUIRE_BUILD=1, so
there a missing build fails instead of skipping."""

import importlib.util
import marshal
import os
from pathlib import Path

import pytest
from packaging.utils import canonicalize_name
from packaging.version import Version
from support.lockfile import LOCK, read_lock
from support.template import ROOT

BUILD = ROOT / ".aws-sam" / "build"
LAYER = BUILD / "RatingsLayer" / "python"
FUNCTIONS = ("ApiFunction", "GamesQueueFunction", "AwardPodiumsFunction")
#: A .pyc header's flags (PEP 552): hash-based, and the source is not checked.
HASH_BASED, CHECK_SOURCE = 0b01, 0b10
#: The bytecode magic number of Python 3.13, the runtime's (3571: the release's own).
PYTHON_3_13_MAGIC = (3571).to_bytes(2, "little") + b"\r\n"

pytestmark = pytest.mark.skipif(
    not BUILD.is_dir() and not os.environ.get("RATINGS_REQUIRE_BUILD"),
    reason="no .aws-sam/build: run `make build`",
)


def test_the_layer_ships_the_locked_versions() -> None:
    shipped = {
        canonicalize_name(name): Version(version)
        for name, version in (
            path.name.removesuffix(".dist-info").rsplit("-", 1)
            for path in LAYER.glob("*.dist-info")
        )
    }
    locked = {name: pin.version for name, pin in read_lock(LOCK.read_text()).items()}

    assert shipped == locked
    assert (LAYER / "ratings" / "__init__.py").is_file()


def test_the_layer_holds_only_pure_python_or_arm64_binaries_for_python_3_13() -> None:
    tags = [
        line.removeprefix("Tag:").strip()
        for wheel in LAYER.glob("*.dist-info/WHEEL")
        for line in wheel.read_text().splitlines()
        if line.startswith("Tag:")
    ]
    extensions = [path.name for path in LAYER.rglob("*.so")]

    assert tags  # every installed distribution says what it was built for
    for tag in tags:
        assert tag.endswith("-none-any") or ("cp313" in tag and "aarch64" in tag), tag
    assert all(name.endswith(".cpython-313-aarch64-linux-gnu.so") for name in extensions)


def test_the_layer_ships_the_ladders_file_beside_the_package() -> None:
    # Where ratings.rules.ladder_config looks for it: /opt/python/ratings/ladders.json.
    shipped = LAYER / "ratings" / "ladders.json"

    assert shipped.read_bytes() == (ROOT / "layers" / "ratings" / "ladders.json").read_bytes()


@pytest.mark.parametrize(
    ("artifact", "deployed_at"),
    [(LAYER, "/opt/python"), *((BUILD / name, "/var/task") for name in FUNCTIONS)],
)
def test_every_module_has_unchecked_hash_bytecode(artifact: Path, deployed_at: str) -> None:
    sources = sorted(artifact.rglob("*.py"))
    assert sources
    for source in sources:
        cached = Path(importlib.util.cache_from_source(str(source)))
        assert cached.name.endswith(".cpython-313.pyc"), cached
        data = cached.read_bytes()
        assert data[:4] == PYTHON_3_13_MAGIC, source
        flags = int.from_bytes(data[4:8], "little")
        assert flags & HASH_BASED, source
        assert not flags & CHECK_SOURCE, source
        # The hash is keyed by the magic number, so .venv's Python (3.13 too) computes it.
        assert data[8:16] == importlib.util.source_hash(source.read_bytes()), source
        code = marshal.loads(data[16:])
        assert code.co_filename == f"{deployed_at}/{source.relative_to(artifact)}", source
