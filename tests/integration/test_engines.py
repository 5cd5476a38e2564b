"""The engine fixtures themselves: without DynamoDB Local, its tests fail and say how to install
it; they never skip (a run that skipped them would have proven nothing on the real engine)."""

import textwrap

import pytest
from support.template import ROOT

pytest_plugins = ["pytester"]


def test_without_dynamodb_local_its_tests_fail_with_the_install_command(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RATINGS_DYNAMODB_LOCAL_DIR", str(pytester.path / "not-installed"))
    pytester.makeini(f"[pytest]\npythonpath = {ROOT / 'tests'}\n")
    pytester.makeconftest("from support.engines import dynamodb_local_url, engine  # noqa: F401")
    pytester.makepyfile(
        textwrap.dedent(
            """
            def test_a_storage_test(engine):
                assert engine.name
            """
        )
    )

    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-rfE")

    outcomes = result.parseoutcomes()
    assert outcomes.get("passed") == 1  # moto
    assert outcomes.get("errors") == 1  # DynamoDB Local
    assert "skipped" not in outcomes
    assert result.ret != 0
    result.stdout.fnmatch_lines(["*DynamoDB Local is not installed*make setup-dynamodb-local*"])
