"""template.yaml deploys what the issue asks: it lints clean, SAM transforms it, and its
policies, queues, API, schedule, alarms and outputs are as intended."""

import re
from typing import Any

import pytest
import yaml
from cfnlint.api import ManualArgs, lint_file
from support.template import ROOT, TEMPLATE, resources_of

from ratings.lambda_support.routes import MODERATION_ROUTES

FUNCTIONS = (
    "ApiFunction",
    "GamesQueueFunction",
    "AwardPodiumsFunction",
    "RefreshStandingsFunction",
    "ModerationFunction",
    "ModerationWorkerFunction",
    "PublishEventsFunction",
)
DLQS = (
    "GamesDeadLetterQueue",
    "PodiumDeadLetterQueue",
    "ModerationJobsDeadLetterQueue",
    "EventsDeadLetterQueue",
)
#: Actions that name no resource: IAM authorizes them on "*" only, so "*" is their resource.
RESOURCELESS_ACTIONS = {"dynamodb:ListStreams"}
#: How far behind the table the events may fall before the lag alarm (IteratorAge, ms).
EVENTS_LAG_MILLIS = 10 * 60 * 1000


def test_cfn_lint_finds_no_errors_or_warnings() -> None:
    """With the project's .cfnlintrc (the serverless rules appended, the regions)."""
    settings = yaml.safe_load((ROOT / ".cfnlintrc").read_text())
    assert "cfn_lint_serverless.rules" in settings["append_rules"]
    assert "ignore_checks" not in settings  # ignored only per resource, with a reason there
    config = ManualArgs(regions=settings["regions"], append_rules=settings["append_rules"])

    matches = lint_file(TEMPLATE, config=config)

    assert [str(match) for match in matches] == []


def test_sam_transform_makes_cloudformation(transformed: dict[str, Any]) -> None:
    assert "Transform" not in transformed
    kinds = {resource["Type"] for resource in transformed["Resources"].values()}
    assert not {kind for kind in kinds if kind.startswith("AWS::Serverless::")}
    assert {
        "AWS::Lambda::Function",
        "AWS::Lambda::LayerVersion",
        "AWS::Lambda::EventSourceMapping",
        "AWS::ApiGateway::RestApi",
        "AWS::ApiGateway::Stage",
        "AWS::ApiGateway::UsagePlan",
        "AWS::ApiGateway::ApiKey",
        "AWS::Events::Rule",
        "AWS::DynamoDB::Table",
        "AWS::SQS::Queue",
        "AWS::CloudWatch::Alarm",
    } <= kinds
    functions = resources_of(transformed, "AWS::Lambda::Function")
    assert set(functions) == set(FUNCTIONS)
    for function in functions.values():
        properties = function["Properties"]
        assert properties["Runtime"] == "python3.13"
        assert properties["Architectures"] == ["arm64"]
        assert properties["TracingConfig"] == {"Mode": "Active"}
        assert properties["Layers"] == [{"Ref": next(iter(_layers(transformed)))}]


def _layers(transformed: dict[str, Any]) -> dict[str, Any]:
    return resources_of(transformed, "AWS::Lambda::LayerVersion")


def test_the_layer_ships_the_package_and_its_requirements(template: dict[str, Any]) -> None:
    layer = template["Resources"]["RatingsLayer"]

    assert layer["Properties"]["ContentUri"] == "layers/"
    assert layer["Metadata"]["BuildMethod"] == "python3.13"
    requirements = (TEMPLATE.parent / "layers" / "requirements.txt").read_text()
    for package in ("aws-lambda-powertools", "boto3", "pynamodb"):
        assert package in requirements
    assert (TEMPLATE.parent / "layers" / "ratings" / "__init__.py").exists()


def test_policies_grant_no_wildcards(transformed: dict[str, Any]) -> None:
    """Every statement written here or made by a SAM policy template names its actions and
    resources; only AWS managed policies SAM itself attaches (logs, X-Ray) remain broad."""
    statements = []
    for resource in transformed["Resources"].values():
        properties = resource.get("Properties", {})
        if resource["Type"] == "AWS::IAM::ManagedPolicy":
            statements += properties["PolicyDocument"]["Statement"]
        if resource["Type"] == "AWS::IAM::Role":
            for policy in properties.get("Policies", []):
                statements += policy["PolicyDocument"]["Statement"]
    assert statements
    for statement in statements:
        actions = _as_list(statement["Action"])
        resources = _as_list(statement["Resource"])
        assert all(isinstance(action, str) and "*" not in action for action in actions), statement
        if resources == ["*"] and set(actions) <= RESOURCELESS_ACTIONS:
            continue  # no other resource is possible for these
        assert "*" not in resources, statement
        for resource in resources:
            assert not (isinstance(resource, str) and resource.endswith(":*")), statement


def test_roles_attach_only_the_managed_policies_sam_needs(transformed: dict[str, Any]) -> None:
    """The functions' roles: logs and X-Ray. API Gateway's account role: pushing logs only."""
    for name, role in resources_of(transformed, "AWS::IAM::Role").items():
        allowed = (
            {"AmazonAPIGatewayPushToCloudWatchLogs"}
            if name == "ApiGatewayLoggingRoleForAccount"
            else {"AWSLambdaBasicExecutionRole", "AWSXrayWriteOnlyAccess"}
        )
        for arn in role["Properties"].get("ManagedPolicyArns", []):
            if isinstance(arn, dict) and "Ref" in arn:
                continue  # the table policy of this template
            text = arn if isinstance(arn, str) else str(arn)
            assert any(text.endswith(f"/{policy}") or f"/{policy}" in text for policy in allowed), (
                name,
                arn,
            )


def test_table_policy_covers_the_table_and_its_indexes_only(template: dict[str, Any]) -> None:
    (statement,) = template["Resources"]["TableAccessPolicy"]["Properties"]["PolicyDocument"][
        "Statement"
    ]

    assert set(statement["Action"]) == {
        "dynamodb:GetItem",
        "dynamodb:BatchGetItem",
        "dynamodb:Query",
        "dynamodb:PutItem",
        "dynamodb:ConditionCheckItem",
    }
    assert statement["Resource"] == [
        {"Fn::GetAtt": ["RatingsTable", "Arn"]},
        {"Fn::Sub": "${RatingsTable.Arn}/index/ranked_by_time"},
        {"Fn::Sub": "${RatingsTable.Arn}/index/leaderboard"},
    ]


def test_the_api_needs_a_key_and_throttles_per_key(template: dict[str, Any]) -> None:
    api = template["Resources"]["RatingsApi"]["Properties"]

    assert api["Auth"]["ApiKeyRequired"] is True
    usage_plan = api["Auth"]["UsagePlan"]
    assert usage_plan["CreateUsagePlan"] == "PER_API"
    assert set(usage_plan["Throttle"]) == {"RateLimit", "BurstLimit"}
    assert api["StageName"] == {"Ref": "StageName"}
    for response in api["GatewayResponses"].values():
        (body,) = response["ResponseTemplates"].values()
        assert body.startswith('{"error": {"code": "')


@pytest.mark.parametrize(
    ("function_id", "rate"),
    [
        ("AwardPodiumsFunction", "PodiumScheduleRate"),
        ("RefreshStandingsFunction", "StandingsScheduleRate"),
    ],
)
def test_a_schedule_runs_the_function(
    template: dict[str, Any], function_id: str, rate: str
) -> None:
    function = template["Resources"][function_id]["Properties"]
    (event,) = function["Events"].values()

    assert event["Type"] == "Schedule"
    assert event["Properties"]["Schedule"] == {"Ref": rate}
    assert template["Parameters"][rate]["Default"] == "rate(5 minutes)"


def test_the_functions_read_the_exact_rank_limit(template: dict[str, Any]) -> None:
    variables = template["Globals"]["Function"]["Environment"]["Variables"]
    assert variables["RATINGS_EXACT_RANK_LIMIT"] == {"Ref": "ExactRankLimit"}


def test_parameters(template: dict[str, Any]) -> None:
    assert {
        "StageName",
        "LeaderboardShards",
        "RetentionDays",
        "PodiumScheduleRate",
        "TableDeletionProtection",
    } <= set(template["Parameters"])
    table = template["Resources"]["RatingsTable"]["Properties"]
    assert table["DeletionProtectionEnabled"] == {"Fn::If": ["ProtectTable", True, False]}


def test_alarms_watch_each_dlq_and_each_function(template: dict[str, Any]) -> None:
    watched = set()
    for alarm in resources_of(template, "AWS::CloudWatch::Alarm").values():
        properties = alarm["Properties"]
        (dimension,) = properties["Dimensions"]
        target = dimension["Value"]
        target_id = target.get("Ref") or target["Fn::GetAtt"][0]
        watched.add((properties["Namespace"], properties["MetricName"], target_id))
        # Each alarm counts failures (one is enough), except the events' lag, which is an age.
        lag = properties["MetricName"] == "IteratorAge"
        assert properties["Threshold"] == (EVENTS_LAG_MILLIS if lag else 1)
        if lag:  # the oldest record's age, not an average that one stuck shard hides in
            assert properties["Statistic"] == "Maximum"
        assert properties["ComparisonOperator"] == "GreaterThanOrEqualToThreshold"

    assert {("AWS/SQS", "ApproximateNumberOfMessagesVisible", dlq) for dlq in DLQS} <= watched
    # PublishEvents' failures (reported records, or a whole batch) are retried from the
    # stream: they show as the stream's age, and at last in its DLQ.
    stream_read = {"PublishEventsFunction"}
    errors = {("AWS/Lambda", "Errors", function) for function in set(FUNCTIONS) - stream_read}
    assert errors <= watched
    assert {("AWS/Lambda", "IteratorAge", function) for function in stream_read} <= watched


def test_outputs_give_the_api_url_and_every_queue_url(template: dict[str, Any]) -> None:
    outputs = template["Outputs"]

    assert "execute-api" in outputs["ApiUrl"]["Value"]["Fn::Sub"]
    for output, queue in {
        "GamesQueueUrl": "GamesQueue",
        "GamesDeadLetterQueueUrl": "GamesDeadLetterQueue",
        "PodiumQueueUrl": "PodiumQueue",
        "PodiumDeadLetterQueueUrl": "PodiumDeadLetterQueue",
        "ModerationJobsQueueUrl": "ModerationJobsQueue",
        "ModerationJobsDeadLetterQueueUrl": "ModerationJobsDeadLetterQueue",
        "EventsDeadLetterQueueUrl": "EventsDeadLetterQueue",
    }.items():
        assert outputs[output]["Value"] == {"Ref": queue}
    assert outputs["EventBusName"]["Value"] == {"Ref": "EventBus"}
    assert outputs["EventBusArn"]["Value"] == {"Fn::GetAtt": ["EventBus", "Arn"]}
    assert outputs["PublishEventsFunctionName"]["Value"] == {"Ref": "PublishEventsFunction"}


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


# The moderation credential ------------------------------------------------------------------


def _operations(transformed: dict[str, Any]) -> dict[tuple[str, str], dict[str, Any]]:
    """Every method of the deployed REST API, as SAM writes it into the API's definition."""
    (api,) = resources_of(transformed, "AWS::ApiGateway::RestApi").values()
    paths = api["Properties"]["Body"]["paths"]
    return {
        (method.lower(), path): operation
        for path, methods in paths.items()
        for method, operation in methods.items()
    }


def _integrated_function(operation: dict[str, Any]) -> str:
    uri = operation["x-amazon-apigateway-integration"]["uri"]["Fn::Sub"]
    match = re.search(r"\$\{(\w+)\.Arn\}", uri)
    assert match is not None, uri
    return match.group(1)


def test_only_a_signed_request_with_a_key_reaches_the_moderation_function(
    transformed: dict[str, Any],
) -> None:
    """As deployed: each moderation method needs SigV4 (AWS_IAM) besides the API key, so a game
    key alone is refused by API Gateway; every method the Moderation function serves is one of
    them; the game routes (and the moderation paths' other methods) keep the key alone."""
    (api,) = resources_of(transformed, "AWS::ApiGateway::RestApi").values()
    schemes = api["Properties"]["Body"]["components"]["securitySchemes"]
    assert schemes["AWS_IAM"]["x-amazon-apigateway-authtype"] == "awsSigv4"
    assert schemes["api_key"] == {"type": "apiKey", "name": "x-api-key", "in": "header"}
    moderation = {
        (method.lower(), path) for path, methods in MODERATION_ROUTES.items() for method in methods
    }
    operations = _operations(transformed)
    assert moderation <= set(operations)

    for route, operation in operations.items():
        security = operation["security"]
        if route in moderation:
            assert security == [{"AWS_IAM": []}, {"api_key": []}], route
            assert _integrated_function(operation) == "ModerationFunction", route
        else:
            assert security == [{"api_key": []}], route
            assert _integrated_function(operation) == "ApiFunction", route


def test_refused_moderation_requests_are_403_with_the_error_body(template: dict[str, Any]) -> None:
    """Unsigned (a game key alone), badly signed, or signed by an identity without the invoke
    policy: API Gateway answers 403 in the service's error shape."""
    responses = template["Resources"]["RatingsApi"]["Properties"]["GatewayResponses"]
    for name in ("MISSING_AUTHENTICATION_TOKEN", "INVALID_SIGNATURE", "ACCESS_DENIED"):
        assert responses[name]["StatusCode"] == "403", name
        (body,) = responses[name]["ResponseTemplates"].values()
        assert body.startswith('{"error": {"code": "forbidden", "message": '), name


def test_the_invoke_policy_names_exactly_the_moderation_methods(template: dict[str, Any]) -> None:
    """ModerationInvokePolicy, the right a backend's moderation role is given, allows invoking
    the moderation methods and nothing else of the API."""
    (statement,) = template["Resources"]["ModerationInvokePolicy"]["Properties"]["PolicyDocument"][
        "Statement"
    ]
    prefix = "arn:${AWS::Partition}:execute-api:${AWS::Region}:${AWS::AccountId}:"
    allowed = set()
    for resource in statement["Resource"]:
        arn = resource["Fn::Sub"]
        assert arn.startswith(f"{prefix}${{RatingsApi}}/${{StageName}}/"), arn
        method, path = arn.removeprefix(f"{prefix}${{RatingsApi}}/${{StageName}}/").split("/", 1)
        allowed.add((method.lower(), "/" + path))

    assert statement["Effect"] == "Allow"
    assert statement["Action"] == "execute-api:Invoke"
    assert allowed == {
        (method.lower(), re.sub(r"\{[a-z_]+\}", "*", path))
        for path, methods in MODERATION_ROUTES.items()
        for method in methods
    }
