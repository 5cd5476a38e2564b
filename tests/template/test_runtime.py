"""The Lambda runtime: one Python for every function, the layer, the build and the tests, and
far enough from AWS's deprecation of it that no deployer is surprised.

AWS's dates are the ones cfn-lint ships (cfnlint/data/AdditionalSpecs/LmbdRuntimeLifecycle.json,
kept up to date with each cfn-lint release). After a runtime's deprecation date AWS stops
patching it, then blocks creating functions on it, then updating them: a stack whose runtime is
due within six months fails here, while there is still time to move."""

import json
import sys
from datetime import UTC, date, datetime, timedelta
from importlib import resources
from typing import Any

import pytest
from support.template import resources_of

#: How long before a runtime's deprecation date this check starts failing.
WARNING_AHEAD = timedelta(days=183)


def lifecycle() -> dict[str, dict[str, Any]]:
    """AWS's runtime dates, as cfn-lint ships them: runtime -> deprecated, create-block..."""
    data = resources.files("cfnlint") / "data" / "AdditionalSpecs" / "LmbdRuntimeLifecycle.json"
    dates: dict[str, dict[str, Any]] = json.loads(data.read_text())
    return dates


def runtime_problem(runtime: str, today: date) -> str | None:
    """Why `runtime` may not be deployed on `today`, or None when it may."""
    dates = lifecycle().get(runtime)
    if dates is None:
        return f"{runtime} is not a runtime AWS lists (cfn-lint's lifecycle data)"
    deprecated = date.fromisoformat(dates["deprecated"])
    if today + WARNING_AHEAD >= deprecated:
        return (
            f"{runtime} is deprecated by AWS on {deprecated} (function creation blocked on "
            f"{dates['create-block']}, updates on {dates['update-block']}): less than "
            f"{WARNING_AHEAD.days} days from {today}; move to {dates['successor']}"
        )
    return None


def runtimes_of(transformed: dict[str, Any]) -> set[str]:
    functions = resources_of(transformed, "AWS::Lambda::Function").values()
    layers = resources_of(transformed, "AWS::Lambda::LayerVersion").values()
    return {function["Properties"]["Runtime"] for function in functions} | {
        runtime for layer in layers for runtime in layer["Properties"]["CompatibleRuntimes"]
    }


def test_every_function_and_the_layer_run_one_runtime_the_build_and_tests_use(
    template: dict[str, Any], transformed: dict[str, Any]
) -> None:
    (runtime,) = runtimes_of(transformed)
    layer = template["Resources"]["RatingsLayer"]

    assert layer["Metadata"]["BuildMethod"] == runtime
    # .venv (tests, mypy's target) and the bytecode of the build are this Python.
    assert runtime == f"python{sys.version_info.major}.{sys.version_info.minor}"


def test_the_runtime_is_more_than_six_months_from_its_deprecation(
    transformed: dict[str, Any],
) -> None:
    today = datetime.now(UTC).date()
    problems = [runtime_problem(runtime, today) for runtime in sorted(runtimes_of(transformed))]

    assert [problem for problem in problems if problem] == []


@pytest.mark.parametrize(
    ("runtime", "today", "due"),
    [
        # python3.11 is deprecated on 2027-06-30: the check fails from 183 days before.
        ("python3.11", date(2026, 12, 5), False),
        ("python3.11", date(2026, 12, 28), False),
        ("python3.11", date(2026, 12, 29), True),
        ("python3.13", date(2026, 12, 5), False),
        ("python3.13", date(2029, 1, 1), True),
        ("python9.99", date(2026, 12, 5), True),
    ],
)
def test_the_check_fails_six_months_before_the_deprecation_date(
    runtime: str, today: date, due: bool
) -> None:
    assert (runtime_problem(runtime, today) is not None) is due
