"""Property-based fuzzing of every route of the OpenAPI document, over HTTP on the local stack.

schemathesis generates requests from the document the Api function serves (/swagger), both
valid by the schema (positive) and invalid (negative); each route of template.yaml must be in
the document. Whatever is sent: never a 5xx, every error in api.md's error body, and a refused
write changes nothing in the table.
"""

import json
import time
import urllib.request
from collections import Counter
from typing import Any

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.schemas import BaseSchema
from support.http import API_KEY, Reply, assert_error
from support.stack import table_digest

from ratings_local.stack import DEFAULT_TEMPLATE, LocalStack
from ratings_local.template import read_stack

pytestmark = [
    pytest.mark.xdist_group("local_stack"),
    pytest.mark.filterwarnings("ignore:No application metrics:UserWarning"),
]

#: Examples per route and generation mode; 2 modes x 9 routes, about 20 s in all.
EXAMPLES = 25


def template_routes() -> list[tuple[str, str]]:
    """(METHOD, path) of each Api event of template.yaml: what deploys."""
    spec = read_stack(DEFAULT_TEMPLATE)
    return sorted(
        (str(event.properties["Method"]).upper(), str(event.properties["Path"]))
        for function in spec.functions.values()
        for event in function.events
        if event.kind == "Api"
    )


ROUTES = template_routes()
LADDERS = ["backgammon", "sedma", "classic"]
#: Requests sent per route, for the run's figures (printed with -s).
SENT: Counter[str] = Counter()
STATUSES: Counter[tuple[str, int]] = Counter()


@pytest.fixture(scope="module")
def api_schema(stack: LocalStack) -> BaseSchema:
    with urllib.request.urlopen(f"{stack.api_url}/swagger?format=json", timeout=30) as response:
        document = json.load(response)
    return schemathesis.openapi.from_dict(document)


def test_the_document_lists_every_deployed_route(api_schema: BaseSchema) -> None:
    documented = sorted(
        (method.upper(), path)
        for path, operations in api_schema.raw_schema["paths"].items()
        for method in operations
    )
    assert documented == ROUTES


@pytest.mark.parametrize(("method", "path"), ROUTES, ids=[f"{m} {p}" for m, p in ROUTES])
def test_fuzzed_requests_never_get_a_5xx(
    stack: LocalStack, api_schema: BaseSchema, method: str, path: str
) -> None:
    operation = api_schema[path][method]
    strategy = st.one_of(
        operation.as_strategy(GenerationMode.POSITIVE),
        operation.as_strategy(GenerationMode.NEGATIVE),
    )
    writes = method == "POST"
    label = f"{method} {path}"
    started = time.monotonic()

    @settings(
        max_examples=2 * EXAMPLES,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(case=strategy, ladder=st.sampled_from([*LADDERS, None]))
    def check(case: Any, ladder: str | None) -> None:
        # Mostly a real ladder, so requests get past the 404 to the parsers; None keeps the
        # generated one. The key is always the right one (test_hostile_http checks keys).
        if ladder is not None and "ladder" in (case.path_parameters or {}):
            case.path_parameters["ladder"] = ladder
        headers = {k: v for k, v in (case.headers or {}).items() if k.lower() != "x-api-key"}
        case.headers = {**headers, "x-api-key": API_KEY}
        before = table_digest(stack) if writes else None
        response = case.call(base_url=stack.api_url, timeout=30)
        SENT[label] += 1
        STATUSES[label, response.status_code] += 1
        reply = Reply(
            response.status_code,
            {name.lower(): ", ".join(values) for name, values in response.headers.items()},
            response.content,
        )
        assert reply.status < 500, f"{case.as_curl_command()}\n-> {reply.status} {reply.raw!r}"
        if reply.status >= 400:
            assert_error(reply)
            if writes:
                assert table_digest(stack) == before, f"refused, yet stored: {reply.raw!r}"
        else:
            assert isinstance(reply.json, dict)

    check()
    statuses = sorted((status, n) for (route, status), n in STATUSES.items() if route == label)
    elapsed = time.monotonic() - started
    print(f"\n{label}: {SENT[label]} requests in {elapsed:.1f} s, statuses {statuses}")
    assert SENT[label] >= EXAMPLES
