"""The local stack's execution environments run a function as Lambda does: concurrent
invocations in separate processes, each environment reused one invocation at a time, its own
variables, a timed-out invocation ended, and the metrics it publishes counted."""

import json
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from ratings_local.environments import FunctionError, split_metrics
from ratings_local.functions import LocalFunction
from ratings_local.template import FunctionSpec

HANDLER = textwrap.dedent(
    """
    import json
    import os
    import time

    invocations = 0  # module state: one per environment, as in Lambda


    def handler(event, context):
        global invocations
        invocations += 1
        if event.get("sleep"):
            time.sleep(event["sleep"])
        if event.get("fail"):
            raise ValueError("asked to fail")
        if event.get("metric"):
            print(json.dumps({
                "_aws": {"Timestamp": 0, "CloudWatchMetrics": [{
                    "Namespace": "T", "Dimensions": [["service"]],
                    "Metrics": [{"Name": event["metric"], "Unit": "Count"}],
                }]},
                "service": "t",
                event["metric"]: [1.0, 2.0],
            }))
        return {
            "pid": os.getpid(),
            "invocations": invocations,
            "variable": os.environ.get("FUNCTION_VARIABLE"),
            "remaining_ms": context.get_remaining_time_in_millis(),
        }
    """
)


@pytest.fixture
def function(tmp_path: Path) -> Iterator[LocalFunction]:
    (tmp_path / "fn").mkdir()
    (tmp_path / "fn" / "app.py").write_text(HANDLER)
    spec = FunctionSpec(
        logical_id="TestFunction",
        code_uri="fn",
        handler="app.handler",
        timeout=2,
        environment={},
        events=(),
    )
    local = LocalFunction(spec, tmp_path, "us-east-1", {"FUNCTION_VARIABLE": "mine"}, 4)
    yield local
    local.stop()


def test_concurrent_invocations_run_at_once_in_separate_environments(
    function: LocalFunction,
) -> None:
    results: list[dict[str, object]] = []

    def invoke() -> None:
        results.append(function.invoke({"sleep": 1.0}))

    started = time.monotonic()
    threads = [threading.Thread(target=invoke) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - started

    assert len({result["pid"] for result in results}) == 4
    # One at a time would take 4 s; at once, 1 s and four cold starts.
    assert elapsed < 3.5, elapsed
    assert function.cold_starts == function.environments == 4


def test_a_warm_environment_is_reused_with_its_state_and_the_function_variables(
    function: LocalFunction,
) -> None:
    first = function.invoke({})
    second = function.invoke({})

    assert first["pid"] == second["pid"]
    assert (first["invocations"], second["invocations"]) == (1, 2)
    assert first["variable"] == "mine"
    assert 0 < int(str(first["remaining_ms"])) <= 2000
    assert function.cold_starts == 1


def test_no_more_environments_than_the_concurrency_allows(function: LocalFunction) -> None:
    threads = [threading.Thread(target=function.invoke, args=({"sleep": 0.3},)) for _ in range(10)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert function.cold_starts == 4


def test_an_invocation_past_the_timeout_is_ended_and_the_next_gets_a_new_environment(
    function: LocalFunction,
) -> None:
    before = function.invoke({})["pid"]

    with pytest.raises(FunctionError) as timed_out:
        function.invoke({"sleep": 5})
    after = function.invoke({})

    assert timed_out.value.error_type == "Sandbox.Timedout"
    assert "Task timed out after 2.00 seconds" in str(timed_out.value)
    assert after["pid"] != before
    assert after["invocations"] == 1


def test_a_handler_error_is_reported_as_lambda_reports_it_and_the_environment_stays(
    function: LocalFunction,
) -> None:
    before = function.invoke({})["pid"]

    with pytest.raises(FunctionError) as failed:
        function.invoke({"fail": True})

    assert (failed.value.error_type, failed.value.error_message) == ("ValueError", "asked to fail")
    assert any("asked to fail" in line for line in failed.value.stack_trace)
    assert function.invoke({})["pid"] == before


def test_the_metrics_an_invocation_publishes_are_counted(function: LocalFunction) -> None:
    invocation = function.invoke_measured({"metric": "GamesRated"})
    function.invoke({"metric": "GamesRated"})

    assert invocation.metrics == {"GamesRated": 3.0}
    assert function.metrics == {"GamesRated": 6.0}


def test_metric_records_are_taken_out_of_what_the_handler_printed() -> None:
    record = {
        "_aws": {"CloudWatchMetrics": [{"Metrics": [{"Name": "A"}, {"Name": "B"}]}]},
        "A": 2.0,
        "B": [1.0, 1.0],
    }
    printed = f'a log line\n{json.dumps(record)}\n{{"_aws": "not a record"}}\n'

    metrics, rest = split_metrics(printed)

    assert metrics == {"A": 2.0, "B": 2.0}
    assert rest == 'a log line\n{"_aws": "not a record"}\n'
