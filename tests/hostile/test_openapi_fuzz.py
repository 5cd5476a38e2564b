"""Property-based fuzzing of every operation of the OpenAPI document, over HTTP on the local stack.

schemathesis generates requests from the document the local stack serves (/swagger?format=json,
generated from the service's own declarations), both valid by the schema (positive) and invalid
(negative), and checks each answer against the document: never a 5xx, only documented statuses,
content types and bodies, and negative data refused. Each route of template.yaml must be in the
document, and a refused write changes nothing in the table.

A body valid by the document may be refused only for a rule the document states in words
(distinct players, a winner among them, the played_at window, a reused game_id): positively
generated bodies are measured as sent, then sent again with just those rules met, when every one
must be accepted. Every documented example is accepted as it stands.
"""

import json
import re
import time
import urllib.parse
import urllib.request
import uuid
from collections import Counter
from typing import Any

import pytest
import schemathesis
from hypothesis import given
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.schemas import BaseSchema
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)
from support.http import API_KEY, MODERATION_KEY, Reply, assert_error, send
from support.stack import fuzz_settings, table_digest, wait_for

from ratings.rules import Ladder
from ratings.rules.ladder_config import load_ladders
from ratings_local.stack import DEFAULT_TEMPLATE, LocalStack
from ratings_local.template import read_stack

#: The ladders the stack runs: the layer's own ladders.json.
LADDERS = load_ladders()

pytestmark = [
    pytest.mark.xdist_group("local_stack"),
    pytest.mark.filterwarnings("ignore:No application metrics:UserWarning"),
]

#: Examples per operation and generation mode; 2 modes x 13 operations, about 30 s in all.
EXAMPLES = 15
#: Positively generated bodies per submit operation for the acceptance figures.
BODIES = 30
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    negative_data_rejection,
]
#: The fields of the rules the document states in words, as the refusals name them.
STATED_RULES = re.compile(
    r"^(winner|players\[\d+\]\.id|played_at|sides(\[\d+\]\.(players(\[\d+\]\.id)?|place))?) "
)
#: The stated rule on players[1].id that links made by other requests can break.
SAME_ACCOUNT = "belong to the same account after linking"


def template_routes() -> list[tuple[str, str]]:
    """(METHOD, path) of each Api event of template.yaml: what deploys."""
    spec = read_stack(DEFAULT_TEMPLATE)
    return sorted(
        (str(event.properties["Method"]).upper(), str(event.properties["Path"]))
        for function in spec.functions.values()
        for event in function.events
        if event.kind == "Api" and str(event.properties["Method"]).upper() != "ANY"
    )


@pytest.fixture(scope="module")
def document(stack: LocalStack) -> dict[str, Any]:
    with urllib.request.urlopen(f"{stack.api_url}/swagger?format=json", timeout=30) as response:
        loaded: dict[str, Any] = json.load(response)
    return loaded


@pytest.fixture(scope="module")
def api_schema(document: dict[str, Any]) -> BaseSchema:
    return schemathesis.openapi.from_dict(document)


def operations(document: dict[str, Any]) -> list[tuple[str, str]]:
    return sorted(
        (method.upper(), path) for path, item in document["paths"].items() for method in item
    )


def test_the_document_lists_every_deployed_route(document: dict[str, Any]) -> None:
    # Submit and preview are documented per ladder (each ladder's own body): fold them back.
    ladder_paths = re.compile(r"^/v1/ladders/({})/".format("|".join(LADDERS)))
    documented = {
        (method, ladder_paths.sub("/v1/ladders/{ladder}/", path))
        for method, path in operations(document)
    }
    per_ladder = [path for _, path in operations(document) if ladder_paths.match(path)]

    assert sorted(documented) == template_routes()
    assert len(per_ladder) == 2 * len(LADDERS)


def test_every_documented_example_is_accepted_as_it_stands(
    stack: LocalStack, document: dict[str, Any]
) -> None:
    # First in the module: the fuzzing below may link anon-42 to another account.
    sent = 0
    for path, item in document["paths"].items():
        for method, operation in item.items():
            if "requestBody" not in operation:
                continue
            example = operation["requestBody"]["content"]["application/json"]["example"]
            path = path.replace("{ladder}", "backgammon")
            reply = send(stack.api_url, method.upper(), path, json.dumps(example), MODERATED)
            sent += 1
            assert reply.status in (200, 201, 202), (path, reply.raw)
    assert sent == 2 * len(LADDERS) + 3  # the games, previews, a link, a sanction, a season


#: JSON, with the moderation key (the game routes ignore it).
MODERATED = {"content-type": "application/json", "x-moderation-key": MODERATION_KEY}

OPERATIONS = operations(json.loads((DEFAULT_TEMPLATE.parent / "docs" / "openapi.json").read_text()))


@pytest.mark.parametrize(("method", "path"), OPERATIONS, ids=[f"{m} {p}" for m, p in OPERATIONS])
def test_every_answer_conforms_to_the_document(
    stack: LocalStack, api_schema: BaseSchema, method: str, path: str
) -> None:
    operation = api_schema[path][method]
    writes = method == "POST"
    statuses: Counter[int] = Counter()
    started = time.monotonic()

    @fuzz_settings(2 * EXAMPLES)
    @given(
        case=st.one_of(
            operation.as_strategy(GenerationMode.POSITIVE),
            operation.as_strategy(GenerationMode.NEGATIVE),
        )
    )
    def check(case: Any) -> None:
        # The keys are always the right ones (test_hostile_http and test_moderation_local
        # check keys).
        keys = {"x-api-key": API_KEY, "x-moderation-key": MODERATION_KEY}
        headers = {k: v for k, v in (case.headers or {}).items() if k.lower() not in keys}
        case.headers = {**headers, **keys}
        before = table_digest(stack) if writes else None
        response = case.call(base_url=stack.api_url, timeout=30)
        statuses[response.status_code] += 1
        case.validate_response(response, checks=CHECKS)
        reply = Reply(
            response.status_code,
            {name.lower(): ", ".join(values) for name, values in response.headers.items()},
            response.content,
        )
        if reply.status >= 400:
            assert_error(reply)
            if writes:
                assert table_digest(stack) == before, f"refused, yet stored: {reply.raw!r}"
        elif reply.status == 202 and path.endswith("/sanctions"):
            settle(stack, response.json())
        elif reply.status == 202 and path.endswith("/erasure"):
            # An accepted erasure's job also writes in the background.
            erasure = (
                f"/v1/players/{urllib.parse.quote(response.json()['player_id'], safe='')}/erasure"
            )
            wait_for(
                lambda: (
                    send(stack.api_url, "GET", erasure, headers=MODERATED).json["status"] == "done"
                ),
                what=f"erasure {erasure!r} done",
            )

    check()
    elapsed = time.monotonic() - started
    print(f"\n{method} {path}: {sum(statuses.values())} requests in {elapsed:.1f} s, {statuses}")
    assert sum(statuses.values()) >= EXAMPLES


def settle(stack: LocalStack, sanction: dict[str, Any]) -> None:
    """Wait until an accepted sanction's refunds are paid: its job writes to the table in the
    background, which the next case's "refused, yet stored" check must not see."""
    path = f"/v1/ladders/{sanction['ladder']}/sanctions/{sanction['sanction_id']}"
    wait_for(
        lambda: send(stack.api_url, "GET", path, headers=MODERATED).json["status"] == "done",
        what=f"sanction {sanction['sanction_id']!r} done",
    )


def _meet_the_stated_rules(
    body: dict[str, Any], ladder: Ladder, *, linked: bool = False
) -> dict[str, Any]:
    """`body` with only the rules the document states in words made to hold. `linked`: the
    ids were answered to belong to one account (other fuzzed requests link ids)."""
    met: dict[str, Any] = json.loads(json.dumps(body))
    if "game_id" in met:
        met["game_id"] = f"fuzz-{uuid.uuid4().hex}"  # a reused id with other content is 409
    met["played_at"] = None  # the time of receipt: inside the window
    if "sides" in met:  # the ladder's shape: its sides of its players each, places 1, 2, ...
        given_sides = met["sides"]
        count = min(max(len(given_sides), ladder.sides.min), ladder.sides.max)
        size = ladder.players_per_side.min  # every side the same: sedma's equal sides
        given = [player for side in given_sides for player in side["players"]]
        seen: set[str] = set()
        sides = []
        for number in range(count):
            players = []
            for _ in range(size):
                player = json.loads(json.dumps(given[len(seen) % len(given)]))
                if player["id"] in seen or (linked and seen):
                    player["id"] = f"fuzz-{uuid.uuid4().hex}"
                seen.add(player["id"])
                players.append(player)
            sides.append({"players": players, "place": number + 1})
        met["sides"] = sides
        return met
    first, second = met["players"]
    if first["id"] == second["id"]:
        second["id"] = first["id"][:100] + "-2"
    if linked:
        second["id"] = f"fuzz-{uuid.uuid4().hex}"
    met["winner"] = first["id"]
    met["played_at"] = None  # the time of receipt: inside the window
    return met


@pytest.mark.parametrize("kind", ["games", "preview"])
@pytest.mark.parametrize("ladder", sorted(LADDERS))
def test_bodies_valid_by_the_document_are_refused_only_for_stated_rules(
    stack: LocalStack, api_schema: BaseSchema, ladder: str, kind: str
) -> None:
    path = f"/v1/ladders/{ladder}/{kind}"
    operation = api_schema[path]["POST"]
    as_sent: Counter[str] = Counter()
    rules_met: Counter[str] = Counter()

    @fuzz_settings(BODIES)
    @given(case=operation.as_strategy(GenerationMode.POSITIVE))
    def check(case: Any) -> None:
        body = case.body
        reply = send(stack.api_url, "POST", path, json.dumps(body))
        if reply.status in (200, 201):
            as_sent["accepted"] += 1
        else:
            message = assert_error(reply)
            named = reply.status == 400 and STATED_RULES.match(message)
            conflict = reply.status == 409 and reply.json["error"]["code"] == "game_conflict"
            assert named or conflict, f"{json.dumps(body)}\n-> {reply.status} {message}"
            as_sent["refused for a stated rule"] += 1
        again = send(
            stack.api_url, "POST", path, json.dumps(_meet_the_stated_rules(body, LADDERS[ladder]))
        )
        if again.status == 400 and SAME_ACCOUNT in again.json["error"]["message"]:
            met = _meet_the_stated_rules(body, LADDERS[ladder], linked=True)
            again = send(stack.api_url, "POST", path, json.dumps(met))
        rules_met["accepted" if again.status in (200, 201) else f"refused {again.raw!r}"] += 1

    check()
    total = sum(rules_met.values())
    print(f"\n{path}: as generated {dict(as_sent)}; with the stated rules met {dict(rules_met)}")
    assert total >= BODIES // 2
    assert rules_met["accepted"] == total, rules_met
