"""template.yaml and the code agree: the table the models declare, the environment the code
reads, the handlers and routes that exist, and the queue settings the consumers rely on."""

import ast
import json
import re
from pathlib import Path
from typing import Any

import pytest
from pynamodb.constants import PAY_PER_REQUEST_BILLING_MODE
from support.template import ROOT, ref, resources_of

from ratings.config import ENVIRONMENT, NOT_SET_BY_TEMPLATE, Config
from ratings.lambda_support.routes import MODERATION_ROUTES
from ratings.storage.dynamodb import Leaderboard, RankedByTime, RatingsItem, table_definition
from ratings.storage.dynamodb.stream import FILTER_KINDS
from ratings_local.environments import load_handler_file

#: The variables each function reads beyond the Globals (config.ENVIRONMENT says why).
FUNCTION_ENVIRONMENT = {
    "ApiFunction": set(),
    "GamesQueueFunction": {"RATINGS_GAMES_QUEUE_URL", "RATINGS_GAMES_DLQ_URL"},
    "AwardPodiumsFunction": {
        "RATINGS_PODIUM_QUEUE_URL",
        "RATINGS_PODIUM_DLQ_URL",
        "RATINGS_DRAIN_SECONDS",
    },
    "RefreshStandingsFunction": set(),
    "ModerationFunction": {"RATINGS_MODERATION_JOBS_QUEUE_URL"},
    "ModerationWorkerFunction": {
        "RATINGS_MODERATION_JOBS_QUEUE_URL",
        "RATINGS_MODERATION_JOBS_DLQ_URL",
    },
    "PublishEventsFunction": {"RATINGS_EVENT_BUS_NAME"},
}
#: Which queue feeds which function, and where its poison messages go.
CONSUMERS = {
    "GamesQueue": ("GamesQueueFunction", "GamesDeadLetterQueue"),
    "PodiumQueue": ("AwardPodiumsFunction", "PodiumDeadLetterQueue"),
    "ModerationJobsQueue": ("ModerationWorkerFunction", "ModerationJobsDeadLetterQueue"),
}
#: The Api's catch-alls: every other path reaches it for its 404 (never API Gateway's own).
CATCH_ALL = {"/", "/{proxy+}"}


def functions(template: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return resources_of(template, "AWS::Serverless::Function")


def function_property(template: dict[str, Any], name: str, key: str) -> Any:
    own = functions(template)[name]["Properties"]
    return own.get(key, template["Globals"]["Function"].get(key))


def environment(template: dict[str, Any], name: str) -> dict[str, Any]:
    variables = dict(template["Globals"]["Function"]["Environment"]["Variables"])
    own = functions(template)[name]["Properties"].get("Environment", {}).get("Variables", {})
    variables.update(own)
    return variables


# The table --------------------------------------------------------------------------------


def test_table_keys_indexes_and_ttl_are_the_models(template: dict[str, Any]) -> None:
    table = template["Resources"]["RatingsTable"]["Properties"]
    declared = table_definition()
    attributes = RatingsItem.get_attributes()

    assert [key["AttributeName"] for key in table["KeySchema"]] == list(declared["key"])
    assert [key["KeyType"] for key in table["KeySchema"]] == ["HASH", "RANGE"]
    assert _indexes(table["LocalSecondaryIndexes"]) == declared["local_indexes"]
    assert _indexes(table["GlobalSecondaryIndexes"]) == declared["global_indexes"]
    assert table["TimeToLiveSpecification"] == {
        "AttributeName": declared["ttl_attribute"],
        "Enabled": True,
    }
    # Exactly the key attributes are defined, with the types the models give them.
    key_attributes = {name for keys in _all_keys(declared) for name in keys}
    assert {
        definition["AttributeName"]: definition["AttributeType"]
        for definition in table["AttributeDefinitions"]
    } == {name: attributes[name].attr_type for name in key_attributes}


def test_table_projections_and_billing_are_the_models(template: dict[str, Any]) -> None:
    table = template["Resources"]["RatingsTable"]["Properties"]
    (local,) = table["LocalSecondaryIndexes"]
    (global_,) = table["GlobalSecondaryIndexes"]

    assert local["IndexName"] == RankedByTime.Meta.index_name
    assert local["Projection"] == {"ProjectionType": RankedByTime.Meta.projection.projection_type}
    leaderboard = Leaderboard.Meta.projection
    assert global_["IndexName"] == Leaderboard.Meta.index_name
    assert global_["Projection"] == {
        "ProjectionType": leaderboard.projection_type,
        "NonKeyAttributes": leaderboard.non_key_attributes,
    }
    assert table["BillingMode"] == RatingsItem.Meta.billing_mode == PAY_PER_REQUEST_BILLING_MODE
    assert table["PointInTimeRecoverySpecification"] == {"PointInTimeRecoveryEnabled": True}


def _indexes(indexes: list[dict[str, Any]]) -> dict[str, tuple[str, ...]]:
    return {
        index["IndexName"]: tuple(key["AttributeName"] for key in index["KeySchema"])
        for index in indexes
    }


def _all_keys(declared: Any) -> list[tuple[str, ...]]:
    return [
        tuple(declared["key"]),
        *declared["local_indexes"].values(),
        *declared["global_indexes"].values(),
    ]


# Environment ------------------------------------------------------------------------------


def test_every_variable_the_code_reads_is_set(template: dict[str, Any]) -> None:
    globals_ = set(template["Globals"]["Function"]["Environment"]["Variables"])
    for name, own in FUNCTION_ENVIRONMENT.items():
        assert set(environment(template, name)) >= globals_ | own
    set_somewhere = globals_.union(*FUNCTION_ENVIRONMENT.values())
    assert set(ENVIRONMENT) - NOT_SET_BY_TEMPLATE <= set_somewhere
    # The deployed functions read the layer's own files (RATINGS_LADDERS_FILE: ladders.json).
    for name in FUNCTION_ENVIRONMENT:
        assert not set(environment(template, name)) & NOT_SET_BY_TEMPLATE
    assert set(ENVIRONMENT) >= NOT_SET_BY_TEMPLATE
    assert {"POWERTOOLS_SERVICE_NAME", "POWERTOOLS_METRICS_NAMESPACE"} <= globals_


#: The variables of each function that name a resource or a parameter, and what they name.
NAMED = {
    "GamesQueueFunction": {
        "RATINGS_TABLE": "RatingsTable",
        "RATINGS_GAMES_QUEUE_URL": "GamesQueue",
        "RATINGS_GAMES_DLQ_URL": "GamesDeadLetterQueue",
        "RATINGS_LEADERBOARD_SHARDS": "LeaderboardShards",
        "RATINGS_RETENTION_DAYS": "RetentionDays",
    },
    "AwardPodiumsFunction": {
        "RATINGS_PODIUM_QUEUE_URL": "PodiumQueue",
        "RATINGS_PODIUM_DLQ_URL": "PodiumDeadLetterQueue",
    },
    "ModerationWorkerFunction": {
        "RATINGS_MODERATION_JOBS_QUEUE_URL": "ModerationJobsQueue",
        "RATINGS_MODERATION_JOBS_DLQ_URL": "ModerationJobsDeadLetterQueue",
    },
    "ModerationFunction": {"RATINGS_MODERATION_JOBS_QUEUE_URL": "ModerationJobsQueue"},
    "PublishEventsFunction": {"RATINGS_EVENT_BUS_NAME": "EventBus"},
}


@pytest.mark.parametrize("function", sorted(NAMED))
def test_variables_point_at_the_right_resources(template: dict[str, Any], function: str) -> None:
    variables = environment(template, function)
    assert {name: ref(variables[name]) for name in NAMED[function]} == NAMED[function]


def test_parameter_defaults_are_the_code_defaults(template: dict[str, Any]) -> None:
    defaults = Config(table_name="any")
    parameters = template["Parameters"]

    assert parameters["LeaderboardShards"]["Default"] == defaults.leaderboard_shards
    assert parameters["RetentionDays"]["Default"] == defaults.retention_days
    assert parameters["ExactRankLimit"]["Default"] == defaults.exact_rank_limit
    drain = float(environment(template, "AwardPodiumsFunction")["RATINGS_DRAIN_SECONDS"])
    assert drain == defaults.drain_seconds


# Functions --------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(FUNCTION_ENVIRONMENT))
def test_each_handler_exists(template: dict[str, Any], name: str) -> None:
    code = ROOT / function_property(template, name, "CodeUri")
    module, function = function_property(template, name, "Handler").rsplit(".", 1)
    source = code / f"{module}.py"

    assert source.is_file()
    tree = ast.parse(source.read_text())
    assert function in {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}


def test_every_function_folder_is_deployed(template: dict[str, Any]) -> None:
    deployed = {
        Path(function_property(template, name, "CodeUri")).name for name in functions(template)
    }
    folders = {path.name for path in (ROOT / "functions").iterdir() if path.is_dir()}

    assert folders - {"__pycache__"} == deployed


def test_the_sqs_event_reports_batch_item_failures(template: dict[str, Any]) -> None:
    events = functions(template)["GamesQueueFunction"]["Properties"]["Events"]
    (event,) = events.values()

    assert event["Type"] == "SQS"
    assert ref(event["Properties"]["Queue"]) == "GamesQueue"
    assert event["Properties"]["FunctionResponseTypes"] == ["ReportBatchItemFailures"]


def test_the_stream_event_lets_through_the_kinds_that_make_events(
    template: dict[str, Any],
) -> None:
    """PublishEvents reads the table's stream, resumes from the record it reports, and is
    invoked only for the item kinds `ratings.storage.dynamodb.stream` makes events of."""
    events = functions(template)["PublishEventsFunction"]["Properties"]["Events"]
    (event,) = events.values()
    properties = event["Properties"]

    assert event["Type"] == "DynamoDB"
    assert properties["Stream"] == {"Fn::GetAtt": ["RatingsTable", "StreamArn"]}
    assert properties["FunctionResponseTypes"] == ["ReportBatchItemFailures"]
    assert ref(properties["DestinationConfig"]["OnFailure"]["Destination"]) == (
        "EventsDeadLetterQueue"
    )
    (pattern,) = (json.loads(each["Pattern"]) for each in properties["FilterCriteria"]["Filters"])
    assert pattern == {"dynamodb": {"NewImage": {"kind": {"S": list(FILTER_KINDS)}}}}


def _api_events(template: dict[str, Any], function: str) -> list[dict[str, Any]]:
    events = functions(template)[function]["Properties"]["Events"].values()
    return [event for event in events if event["Type"] == "Api"]


def _served(events: list[dict[str, Any]]) -> set[tuple[str, str]]:
    return {
        (event["Properties"]["Method"].lower(), event["Properties"]["Path"])
        for event in events
        if event["Properties"]["Method"].lower() != "any"
    }


def test_api_events_are_the_routes_of_the_api_function(template: dict[str, Any]) -> None:
    events = _api_events(template, "ApiFunction")
    # Every route's other methods reach the function as well, which answers them 405; so do
    # the moderation routes' (their own methods are the Moderation function's).
    any_method = {
        event["Properties"]["Path"]
        for event in events
        if event["Properties"]["Method"].lower() == "any"
    }
    assert all(ref(event["Properties"]["RestApiId"]) == "RatingsApi" for event in events)

    api = load_handler_file(ROOT / "functions" / "api" / "app.py", "template_check_api")
    in_code = {(method.lower(), path) for path, methods in api.ROUTES.items() for method in methods}

    assert _served(events) == in_code
    assert any_method == set(api.ROUTES) | set(MODERATION_ROUTES) | CATCH_ALL
    assert all(re.fullmatch(r"/v1(/[a-z_]+|/\{[a-z_]+\})+", path) for _method, path in in_code)


def test_moderation_events_are_the_moderation_routes_and_take_a_signature(
    template: dict[str, Any],
) -> None:
    events = _api_events(template, "ModerationFunction")
    moderation = load_handler_file(
        ROOT / "functions" / "moderation" / "app.py", "template_check_api"
    )
    in_code = {
        (method.lower(), path) for path, methods in moderation.ROUTES.items() for method in methods
    }
    shared = {
        (method.lower(), path) for path, methods in MODERATION_ROUTES.items() for method in methods
    }

    assert _served(events) == in_code == shared
    signed = {"Authorizer": "AWS_IAM", "InvokeRole": "NONE"}
    assert all(event["Properties"]["Auth"] == signed for event in events)
    assert all(ref(event["Properties"]["RestApiId"]) == "RatingsApi" for event in events)


# Queues -----------------------------------------------------------------------------------


@pytest.mark.parametrize("queue", sorted(CONSUMERS))
def test_queue_redrive_and_visibility(template: dict[str, Any], queue: str) -> None:
    function, dlq = CONSUMERS[queue]
    properties = template["Resources"][queue]["Properties"]
    dlq_properties = template["Resources"][dlq]["Properties"]
    timeout = function_property(template, function, "Timeout")

    assert properties["RedrivePolicy"]["maxReceiveCount"] == 5
    assert ref(properties["RedrivePolicy"]["deadLetterTargetArn"]) == dlq
    assert properties["VisibilityTimeout"] >= 6 * timeout
    assert dlq_properties["MessageRetentionPeriod"] == 14 * 24 * 3600
    assert properties["MessageRetentionPeriod"] < dlq_properties["MessageRetentionPeriod"]


def test_the_code_is_told_the_shortest_function_timeout(template: dict[str, Any]) -> None:
    """Every AWS call's timeouts and retries are cut to fit RATINGS_FUNCTION_TIMEOUT: it must
    be the Globals Timeout (the Api's), and no function may have less time than that."""
    told = float(
        template["Globals"]["Function"]["Environment"]["Variables"]["RATINGS_FUNCTION_TIMEOUT"]
    )
    timeouts = {name: function_property(template, name, "Timeout") for name in functions(template)}

    assert told == template["Globals"]["Function"]["Timeout"] == timeouts["ApiFunction"]
    assert min(timeouts.values()) == told
    assert told == Config(table_name="any").function_timeout


@pytest.mark.parametrize("queue", sorted(CONSUMERS))
def test_each_consumer_may_send_to_its_own_queue_and_its_dlq(
    template: dict[str, Any], queue: str
) -> None:
    """A message that met contention goes back to its own queue; a poison one to the DLQ."""
    function, dlq = CONSUMERS[queue]
    properties = template["Resources"][function]["Properties"]
    if "Role" in properties:
        role = template["Resources"][properties["Role"]["Fn::GetAtt"][0]]["Properties"]
        statements = [
            statement
            for policy in role["Policies"]
            for statement in policy["PolicyDocument"]["Statement"]
        ]
    else:
        statements = [
            statement
            for policy in properties["Policies"]
            if isinstance(policy, dict) and "Statement" in policy
            for statement in policy["Statement"]
        ]
    targets = [
        str(ref(resource))
        for statement in statements
        if statement["Action"] == "sqs:SendMessage"
        for resource in statement["Resource"]
    ]

    assert sorted(targets) == sorted([queue, dlq])


def test_the_drain_budget_is_well_inside_the_timeout(template: dict[str, Any]) -> None:
    drain = float(environment(template, "AwardPodiumsFunction")["RATINGS_DRAIN_SECONDS"])
    timeout = function_property(template, "AwardPodiumsFunction", "Timeout")

    assert drain <= timeout / 2
