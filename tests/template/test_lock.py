"""The runtime lock and pyproject.toml agree, and this environment runs the locked versions:
what the tests exercise is what the layer ships (issue 12, "the tested versions")."""

from importlib import metadata

import pytest
from packaging.requirements import Requirement
from packaging.utils import NormalizedName, canonicalize_name
from packaging.version import Version
from support.lockfile import LOCK, Pin, declared_dependencies, follow, read_lock


@pytest.fixture(scope="module")
def pins() -> dict[NormalizedName, Pin]:
    return read_lock(LOCK.read_text())


def test_every_declared_dependency_and_theirs_is_locked_at_a_version_they_allow(
    pins: dict[NormalizedName, Pin],
) -> None:
    closure = follow(declared_dependencies(), pins)

    assert closure.problems == ()


def test_the_lock_holds_nothing_the_declared_dependencies_do_not_need(
    pins: dict[NormalizedName, Pin],
) -> None:
    closure = follow(declared_dependencies(), pins)

    assert set(pins) - closure.reached == set()


def test_every_pin_is_hash_checked(pins: dict[NormalizedName, Pin]) -> None:
    assert pins
    for pin in pins.values():
        assert pin.hashes, pin.name
        assert all(digest.startswith("sha256:") and len(digest) == 71 for digest in pin.hashes)


def test_this_environment_runs_the_locked_versions(pins: dict[NormalizedName, Pin]) -> None:
    installed = {name: Version(metadata.version(name)) for name in pins}

    assert installed == {name: pin.version for name, pin in pins.items()}


# The checks themselves, on a lock and a pyproject that disagree --------------------------

_LOCK = """\
#    pip-compile --generate-hashes
alpha==1.2.0 \\
    --hash=sha256:{a}
    # via elo-ratings (pyproject.toml)
beta==2.0.0 \\
    --hash=sha256:{b} \\
    --hash=sha256:{a}
    # via alpha
gamma==3.0 \\
    --hash=sha256:{b}
    # via alpha
""".format(a="a" * 64, b="b" * 64)
_REQUIRES = {
    "alpha": ["beta>=2", 'gamma; extra == "fast"', 'delta; python_version < "3.8"'],
    "beta": [],
    "gamma": [],
}


def _follow(*roots: str) -> tuple[set[str], tuple[str, ...]]:
    pins = read_lock(_LOCK)
    closure = follow([Requirement(root) for root in roots], pins, _REQUIRES.__getitem__)
    return set(closure.reached), closure.problems


def test_the_lock_is_read_as_pins_with_hashes() -> None:
    pins = read_lock(_LOCK)

    assert {name: str(pin.version) for name, pin in pins.items()} == {
        "alpha": "1.2.0",
        "beta": "2.0.0",
        "gamma": "3.0",
    }
    assert pins[canonicalize_name("beta")].hashes == ("sha256:" + "b" * 64, "sha256:" + "a" * 64)


def test_extras_and_markers_decide_what_is_needed() -> None:
    assert _follow("alpha>=1") == ({"alpha", "beta"}, ())
    assert _follow("alpha[fast]>=1") == ({"alpha", "beta", "gamma"}, ())


def test_a_pin_outside_the_declared_range_is_a_problem() -> None:
    _reached, problems = _follow("alpha>=1.3")

    assert problems == ("alpha>=1.3 (wanted by pyproject.toml) refuses the pin 1.2.0",)


def test_a_declared_dependency_missing_from_the_lock_is_a_problem() -> None:
    _reached, problems = _follow("alpha", "epsilon>=1")

    assert problems == ("epsilon>=1 (wanted by pyproject.toml) is not in the lock",)


def test_a_lock_line_that_is_not_a_pin_is_refused() -> None:
    with pytest.raises(ValueError, match="not a pin"):
        read_lock("alpha>=1.0\n")
