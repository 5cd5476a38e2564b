"""The shape of one warm POST /v1/ladders/backgammon/games, as benchmarks.request_trace traces
it through the Api's real handler: the project's modules it enters and the module-to-module
edges it takes stay within what a newcomer can follow (docs/service-layer.md walks them).

The benchmark runs in a process of its own, as it does for docs/performance.md: in this one,
other tests may have left hooks of the local stack's (infra/) on shared libraries, which the
trace would count as project modules."""

import re
import subprocess
import sys

from benchmarks.request_trace import ROOT

#: 16 and 24 before seasons; bringing each state into its season (`service/seasons.py`) is
#: one module more, entered from the unit of work (docs/service-layer.md, the walk's step 4).
MOST_MODULES = 17
MOST_EDGES = 25


def figure(report: str, name: str) -> int:
    found = re.search(rf"^\s*{name}\s+(\d+)", report, re.MULTILINE)
    assert found is not None, f"no {name!r} in:\n{report}"
    return int(found.group(1))


def test_a_warm_game_request_enters_at_most_17_modules_through_at_most_25_edges() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "benchmarks.request_trace"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    report = run.stdout

    assert "ratings.service.usecases.submit_game" in report  # the walk reached the use case
    assert "ratings.storage.dynamodb.unit_of_work" in report  # and the store
    assert figure(report, "modules entered") <= MOST_MODULES, report
    assert figure(report, "edges") <= MOST_EDGES, report
