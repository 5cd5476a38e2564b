"""Every AWS request each function makes is one its role allows on AWS. No emulator enforces
IAM: here every request a handler makes (recorded at botocore, across each scenario below) is
authorized the way AWS authorizes it, against that function's role in the template as SAM
transforms it (support.aws_calls, support.roles, support.iam; docs/security.md, "How the
suite proves every call allowed"). moto answers the requests: what matters is what is asked.
"""

import copy
import json
from collections.abc import Iterator
from types import ModuleType

import pytest
from support.aws_calls import (
    CallRecorder,
    RecordedFunction,
    Resources,
    denied_calls,
    recording,
    requested,
)
from support.call_scenarios import (
    API,
    GAMES_QUEUE,
    MODERATION,
    PODIUMS,
    PUBLISH,
    REFRESH,
    SCENARIOS,
    TABLE,
    WORKER,
    Driven,
    events,
    reads,
    sanctions,
)
from support.handlers import Api, Stack
from support.roles import arn_of
from support.template import resources_of, transformed_template

pytestmark = pytest.mark.filterwarnings("ignore:No application metrics:UserWarning")
#: The requests are the code's, whichever engine answers them: moto's is the fast one.
ON_MOTO = pytest.mark.parametrize("table_engine", ["moto"], indirect=True)


# Tests ----------------------------------------------------------------------------------------


@pytest.fixture
def recorder() -> Iterator[CallRecorder]:
    with recording() as recorder:
        yield recorder


@pytest.fixture
def driven(
    stack: Stack,
    functions: dict[str, ModuleType],
    recorder: CallRecorder,
    monkeypatch: pytest.MonkeyPatch,
) -> Driven:
    def handler(folder: str, function: str) -> RecordedFunction:
        return recorder.handler(functions[folder], function)

    return Driven(
        stack,
        monkeypatch,
        Api(handler("api", API)),
        Api(handler("moderation", MODERATION)),
        handler("games_queue", GAMES_QUEUE),
        handler("award_podiums", PODIUMS),
        handler("refresh_standings", REFRESH),
        handler("moderation_worker", WORKER),
        handler("publish_events", PUBLISH),
    )


@pytest.fixture
def resources(stack: Stack) -> Resources:
    """The stack's table and queues, as the template's resources."""
    names = {
        stack.table: TABLE,
        stack.games_url: "GamesQueue",
        stack.games_dlq_url: "GamesDeadLetterQueue",
        stack.podium_url: "PodiumQueue",
        stack.podium_dlq_url: "PodiumDeadLetterQueue",
        stack.jobs_url: "ModerationJobsQueue",
        stack.jobs_dlq_url: "ModerationJobsDeadLetterQueue",
        stack.bus: "EventBus",
    }
    return Resources(transformed_template(), names)


def arn(resource: str) -> str:
    """The ARN of a logical id, or of `<logical id>/index/<index>`."""
    logical_id, _, index = resource.partition("/")
    return arn_of(transformed_template(), logical_id) + (f"/{index}" if index else "")


@ON_MOTO
@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_every_request_a_function_makes_is_allowed_by_its_role(
    scenario: str, driven: Driven, recorder: CallRecorder, resources: Resources
) -> None:
    run, functions, expected = SCENARIOS[scenario]

    run(driven)

    assert {call.function for call in recorder.calls} == functions
    made = requested(recorder.calls, resources)
    missing = {(f, action, arn(resource)) for f, action, resource in expected} - made
    assert missing == set(), "the scenario no longer reaches these requests"
    assert denied_calls(transformed_template(), recorder.calls, resources) == []


def test_the_scenarios_drive_every_function_of_the_template() -> None:
    driven = set().union(*(functions for _, functions, _ in SCENARIOS.values()))

    assert driven == set(resources_of(transformed_template(), "AWS::Lambda::Function"))


@ON_MOTO
def test_a_permission_taken_from_a_role_is_reported_denied(
    driven: Driven, recorder: CallRecorder, resources: Resources
) -> None:
    sanctions(driven)
    reads(driven)  # the links' condition checks
    table = arn(TABLE)
    changed = copy.deepcopy(transformed_template())
    shared = changed["Resources"]["TableAccessPolicy"]["Properties"]["PolicyDocument"]
    shared["Statement"][0]["Action"].remove("dynamodb:ConditionCheckItem")
    worker = changed["Resources"]["ModerationWorkerRole"]["Properties"]["Policies"][0]
    statements = worker["PolicyDocument"]["Statement"]
    statements[:] = [s for s in statements if "ranked_by_time" not in json.dumps(s["Resource"])]
    moderation = changed["Resources"]["ModerationFunctionRole"]["Properties"]["Policies"]
    (put,) = [s for s in moderation[0]["PolicyDocument"]["Statement"] if "Condition" in s]
    put["Condition"]["ForAllValues:StringLike"]["dynamodb:LeadingKeys"].remove("P#*")

    denied = denied_calls(changed, recorder.calls, resources)

    prefixes = (
        f"ApiFunction: dynamodb:ConditionCheckItem on {table}, dynamodb:LeadingKeys",
        f"ModerationWorkerFunction: dynamodb:Query on {table}/index/ranked_by_time, "
        "dynamodb:LeadingKeys ['P#",
        f"ModerationFunction: dynamodb:PutItem on {table}, dynamodb:LeadingKeys ['P#",
    )
    for prefix in prefixes:
        assert [line for line in denied if line.startswith(prefix)], (prefix, denied)
    assert [line for line in denied if not line.startswith(prefixes)] == []
    (refused_put, *_) = [line for line in denied if line.startswith(prefixes[2])]
    assert refused_put.endswith("fails)")


@ON_MOTO
def test_a_permission_taken_from_the_events_role_is_reported_denied(
    driven: Driven, recorder: CallRecorder, resources: Resources
) -> None:
    """PublishEventsRole without events:PutEvents, and with its reads no longer allowed on a
    season's partition (S#): the bus's puts and the season's read are reported, nothing else."""
    events(driven)
    changed = copy.deepcopy(transformed_template())
    (policy,) = changed["Resources"]["PublishEventsRole"]["Properties"]["Policies"]
    statements = policy["PolicyDocument"]["Statement"]
    statements[:] = [s for s in statements if s["Action"] != "events:PutEvents"]
    (reads_statement,) = [s for s in statements if "Condition" in s]
    reads_statement["Condition"]["ForAllValues:StringLike"]["dynamodb:LeadingKeys"].remove("S#*")

    denied = denied_calls(changed, recorder.calls, resources)

    bus = arn("EventBus")
    prefixes = (
        f"{PUBLISH}: events:PutEvents on {bus} implicitly denied (no statement allows it)",
        f"{PUBLISH}: dynamodb:GetItem on {arn(TABLE)}, dynamodb:LeadingKeys ['S#",
    )
    for prefix in prefixes:
        assert [line for line in denied if line.startswith(prefix)], (prefix, denied)
    assert [line for line in denied if not line.startswith(prefixes)] == []
    assert denied_calls(transformed_template(), recorder.calls, resources) == []


@pytest.mark.parametrize("table_engine", ["dynamodb_local"], indirect=True)
def test_every_event_is_made_from_dynamodb_locals_stream(driven: Driven) -> None:
    """The events scenario with the table on Amazon's engine: its stream records (their
    images, old ones included, and their kinds) make every type of event, and PublishEvents
    puts them all on the bus (the scenario's own checks)."""
    run, _functions, _expected = SCENARIOS["events"]

    run(driven)
