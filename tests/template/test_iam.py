"""The IAM evaluator the suite authorizes every recorded request with (support.iam), on hand
policies; the roles it reads from the transformed template (support.roles); and why moto's
own evaluator is not the one used (docs/security.md, "How the suite proves every call
allowed"). The requests themselves are in tests/functions/test_iam_calls.py."""

import copy
import json
from typing import Any

import pytest
from moto.iam.access_control import IAMPolicy, PermissionResult
from support.aws_calls import Call, Resources, UnknownRequest, authorizations
from support.iam import Decision, Request, UnsupportedPolicy, evaluate
from support.roles import ACCOUNT, REGION, STREAM_LABEL, function_statements, resolve
from support.template import resources_of

TABLE = f"arn:aws:dynamodb:{REGION}:{ACCOUNT}:table/RatingsTable"
LEADING = "dynamodb:LeadingKeys"
JOB_PUTS = {
    "Effect": "Allow",
    "Action": "dynamodb:PutItem",
    "Resource": TABLE,
    "Condition": {"ForAllValues:StringLike": {LEADING: ["X#*", "N#*"]}},
}


def put(*keys: str) -> Request:
    return Request("dynamodb:PutItem", TABLE, {LEADING: keys})


def decision(statements: list[dict[str, Any]], request: Request) -> Decision:
    return evaluate(statements, request).decision


def test_for_all_values_string_like_holds_only_when_every_leading_key_matches() -> None:
    assert decision([JOB_PUTS], put("X#abc")) is Decision.ALLOWED
    assert decision([JOB_PUTS], put("X#abc", "N#s-1")) is Decision.ALLOWED
    refused = evaluate([JOB_PUTS], put("X#abc", "G#backgammon#g-1"))
    assert refused.decision is Decision.IMPLICIT_DENY  # a failed condition is no explicit deny
    assert "condition" in refused.why
    # AWS's own pitfall, kept: ForAllValues over no value at all holds.
    assert decision([JOB_PUTS], Request("dynamodb:PutItem", TABLE)) is Decision.ALLOWED


def test_for_any_value_and_if_exists() -> None:
    any_game = {**JOB_PUTS, "Condition": {"ForAnyValue:StringEquals": {LEADING: "G#1"}}}
    assert decision([any_game], put("X#1", "G#1")) is Decision.ALLOWED
    assert decision([any_game], put("X#1")) is Decision.IMPLICIT_DENY
    assert decision([any_game], Request("dynamodb:PutItem", TABLE)) is Decision.IMPLICIT_DENY
    region = {"aws:RequestedRegion": "us-east-1"}
    if_exists = {**JOB_PUTS, "Condition": {"StringEqualsIfExists": region}}
    plain = {**JOB_PUTS, "Condition": {"StringEquals": region}}
    negated = {**JOB_PUTS, "Condition": {"StringNotEquals": region}}
    bare = Request("dynamodb:PutItem", TABLE)
    assert decision([if_exists], bare) is Decision.ALLOWED
    assert decision([plain], bare) is Decision.IMPLICIT_DENY
    assert decision([negated], bare) is Decision.ALLOWED  # an absent key matches no value
    elsewhere = Request("dynamodb:PutItem", TABLE, {"aws:requestedregion": ("eu-west-1",)})
    assert decision([if_exists], elsewhere) is Decision.IMPLICIT_DENY  # key names: any case


def test_a_query_of_an_index_needs_the_index_arn() -> None:
    on_table = {"Effect": "Allow", "Action": "dynamodb:Query", "Resource": TABLE}
    on_indexes = {**on_table, "Resource": f"{TABLE}/index/*"}
    query_index = Request("dynamodb:Query", f"{TABLE}/index/ranked_by_time")

    assert decision([on_table], Request("dynamodb:Query", TABLE)) is Decision.ALLOWED
    assert decision([on_table], query_index) is Decision.IMPLICIT_DENY
    assert decision([on_indexes], query_index) is Decision.ALLOWED
    assert decision([on_indexes], Request("dynamodb:Query", TABLE)) is Decision.IMPLICIT_DENY


def test_not_action_not_resource_and_wildcards() -> None:
    all_but_delete = {"Effect": "Allow", "NotAction": "dynamodb:Delete*", "Resource": "*"}
    not_this_table = {"Effect": "Allow", "Action": "dynamodb:*", "NotResource": TABLE}
    assert decision([all_but_delete], Request("dynamodb:GetItem", TABLE)) is Decision.ALLOWED
    assert decision([all_but_delete], Request("dynamodb:DeleteItem", TABLE)) is not (
        Decision.ALLOWED
    )
    assert decision([not_this_table], Request("dynamodb:GetItem", TABLE)) is not Decision.ALLOWED
    assert decision([not_this_table], Request("dynamodb:GetItem", TABLE + "2")) is (
        Decision.ALLOWED
    )
    # Actions match in any case; `?` is one character; `.` is a dot, not any character.
    odd_case = {"Effect": "Allow", "Action": "DynamoDB:getitem", "Resource": TABLE[:-1] + "?"}
    assert decision([odd_case], Request("dynamodb:GetItem", TABLE)) is Decision.ALLOWED
    dotted = {**odd_case, "Resource": TABLE.replace("RatingsTable", "Ratings.able")}
    assert decision([dotted], Request("dynamodb:GetItem", TABLE)) is Decision.IMPLICIT_DENY


def test_an_explicit_deny_wins_over_any_allow() -> None:
    allow_all = {"Effect": "Allow", "Action": "*", "Resource": "*"}
    deny_games = {
        "Effect": "Deny",
        "Action": "dynamodb:PutItem",
        "Resource": TABLE,
        "Condition": {"ForAnyValue:StringLike": {LEADING: "G#*"}},
    }

    assert decision([allow_all, deny_games], put("G#1")) is Decision.EXPLICIT_DENY
    assert decision([deny_games, allow_all], put("P#1")) is Decision.ALLOWED
    assert decision([deny_games], put("P#1")) is Decision.IMPLICIT_DENY


@pytest.mark.parametrize("effect", ["Allow", "Deny"])
@pytest.mark.parametrize(
    "condition",
    [
        {"DateGreaterThan": {"aws:CurrentTime": "2026-01-01T00:00:00Z"}},
        {"ForAllValues:StringEqualsIgnoreCase": {LEADING: "x#1"}},
        {"Bool": {"aws:SecureTransport": "true"}},
        {"StringLike": {LEADING: "P#${aws:username}"}},
    ],
)
def test_what_is_not_implemented_fails_closed(effect: str, condition: dict[str, Any]) -> None:
    statement = {"Effect": effect, "Action": "dynamodb:PutItem", "Resource": TABLE}

    with pytest.raises(UnsupportedPolicy):
        evaluate([{**statement, "Condition": condition}], put("X#1"))


def test_an_unknown_operator_fails_even_where_the_statement_does_not_apply() -> None:
    elsewhere = {
        "Effect": "Allow",
        "Action": "sqs:SendMessage",
        "Resource": "*",
        "Condition": {"NumericLessThan": {"aws:MultiFactorAuthAge": "3600"}},
    }

    with pytest.raises(UnsupportedPolicy):
        evaluate([JOB_PUTS, elsewhere], put("X#1"))


def test_a_single_valued_operator_on_several_values_fails_closed() -> None:
    several = {**JOB_PUTS, "Condition": {"StringLike": {LEADING: "X#*"}}}

    assert decision([several], put("X#1")) is Decision.ALLOWED
    with pytest.raises(UnsupportedPolicy):
        evaluate([several], put("X#1", "X#2"))


def test_motos_evaluator_would_pass_what_aws_refuses() -> None:
    """moto.iam.access_control ignores ForAllValues:StringLike, takes a failed condition for
    an explicit deny and matches actions by case: if it stops doing so, it may replace ours."""

    def moto(statements: list[dict[str, Any]], action: str, keys: str) -> PermissionResult:
        policy = IAMPolicy(json.dumps({"Version": "2012-10-17", "Statement": statements}))
        return policy.is_action_permitted(action, TABLE, incoming_condition_values={LEADING: keys})

    failing_equals = {**JOB_PUTS, "Condition": {"StringEquals": {LEADING: "X#1"}}}
    plain = {"Effect": "Allow", "Action": "dynamodb:PutItem", "Resource": TABLE}
    odd_case = {**plain, "Action": "DynamoDB:putitem"}

    assert moto([JOB_PUTS], "dynamodb:PutItem", "G#1") is PermissionResult.PERMITTED
    assert decision([JOB_PUTS], put("G#1")) is Decision.IMPLICIT_DENY
    assert moto([failing_equals, plain], "dynamodb:PutItem", "G#1") is PermissionResult.DENIED
    assert decision([failing_equals, plain], put("G#1")) is Decision.ALLOWED
    assert moto([odd_case], "dynamodb:PutItem", "G#1") is PermissionResult.NEUTRAL
    assert decision([odd_case], put("G#1")) is Decision.ALLOWED


def test_each_functions_role_resolves_to_arns(transformed: dict[str, Any]) -> None:
    for function in resources_of(transformed, "AWS::Lambda::Function"):
        statements = function_statements(transformed, function)

        resources = [
            resource
            for statement in statements
            for resource in (
                [statement["Resource"]]
                if isinstance(statement["Resource"], str)
                else statement["Resource"]
            )
        ]
        assert resources, function
        assert all(item == "*" or item.startswith("arn:aws:") for item in resources), function
        actions = json.dumps([statement.get("Action") for statement in statements])
        assert "xray:PutTraceSegments" in actions, function  # AWSXrayWriteOnlyAccess, from moto


def test_the_api_role_has_the_shared_table_policy_and_lambdas_basic_logs(
    transformed: dict[str, Any],
) -> None:
    statements = function_statements(transformed, "ApiFunction")

    assert evaluate(statements, Request("dynamodb:Query", f"{TABLE}/index/leaderboard")).allowed
    assert evaluate(statements, Request("logs:PutLogEvents", "arn:aws:logs:x")).allowed
    assert not evaluate(statements, Request("dynamodb:DeleteItem", TABLE)).allowed
    assert not evaluate(statements, Request("sqs:SendMessage", "arn:aws:sqs:x")).allowed


def test_an_intrinsic_function_not_resolved_fails_closed(transformed: dict[str, Any]) -> None:
    with pytest.raises(UnsupportedPolicy):
        resolve(transformed, {"Fn::If": ["HasAlarmTopic", "a", "b"]})
    with pytest.raises(UnsupportedPolicy):
        resolve(transformed, {"Fn::GetAtt": ["RatingsApi", "RootResourceId"]})
    without_stream = copy.deepcopy(transformed)
    del without_stream["Resources"]["RatingsTable"]["Properties"]["StreamSpecification"]
    with pytest.raises(UnsupportedPolicy):
        resolve(without_stream, {"Fn::GetAtt": ["RatingsTable", "StreamArn"]})


def test_the_stream_and_the_bus_resolve_to_their_arns(transformed: dict[str, Any]) -> None:
    stream = resolve(transformed, {"Fn::GetAtt": ["RatingsTable", "StreamArn"]})
    bus = resolve(transformed, {"Fn::GetAtt": ["EventBus", "Arn"]})

    assert stream == f"{TABLE}/stream/{STREAM_LABEL}"
    assert resolve(transformed, {"Ref": "EventBus"}) == "ratings-events"
    assert bus == f"arn:aws:events:{REGION}:{ACCOUNT}:event-bus/ratings-events"


def test_lambda_may_poll_and_trace_for_each_function(transformed: dict[str, Any]) -> None:
    """What Lambda does with the function's role, not its code, so no recorded request shows
    it: an SQS event source mapping receives, deletes and reads its queue's attributes; a
    DynamoDB stream's mapping describes, lists and reads the stream, and sends what it gives up
    on to its on-failure destination (Lambda's documented needs); active tracing puts segments
    and invocation."""
    needs = {
        function: [
            Request("xray:PutTraceSegments", "*"),
            Request("xray:PutTelemetryRecords", "*"),
        ]
        for function in resources_of(transformed, "AWS::Lambda::Function")
    }
    for mapping in resources_of(transformed, "AWS::Lambda::EventSourceMapping").values():
        properties = mapping["Properties"]
        source = resolve(transformed, properties["EventSourceArn"])
        function = needs[properties["FunctionName"]["Ref"]]
        if ":sqs:" in source:
            for action in ("sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:GetQueueAttributes"):
                function.append(Request(action, source))
        else:
            assert "/stream/" in source, source
            for action in ("DescribeStream", "GetRecords", "GetShardIterator"):
                function.append(Request(f"dynamodb:{action}", source))
            # ListStreams names no resource: IAM authorizes it on "*".
            function.append(Request("dynamodb:ListStreams", "*"))
        destination = properties.get("DestinationConfig", {}).get("OnFailure")
        if destination is not None:
            queue = resolve(transformed, destination["Destination"])
            function.append(Request("sqs:SendMessage", queue))

    denied = [
        f"{function}: {request.describe()}"
        for function, requests in needs.items()
        for request in requests
        if not evaluate(function_statements(transformed, function), request).allowed
    ]

    # Seven functions traced; two queue mappings; the stream's four reads and its destination.
    assert sum(len(requests) for requests in needs.values()) == 2 * 7 + 3 * 2 + 4 + 1
    assert denied == []


def test_requests_are_authorized_per_item_per_table_and_per_index(
    transformed: dict[str, Any],
) -> None:
    queue = "https://sqs.example/jobs"
    resources = Resources(transformed, {"t": "RatingsTable", queue: "ModerationJobsQueue"})

    def asked(service: str, operation: str, params: dict[str, Any]) -> list[tuple[Any, ...]]:
        found = authorizations(
            Call("ModerationWorkerFunction", service, operation, params), resources
        )
        return [(r.action, r.resource.rsplit(":", 1)[-1], *r.context.values()) for r in found]

    def key(pk: str) -> dict[str, Any]:
        return {"pk": {"S": pk}, "sk": {"S": "STATE"}}

    transaction = [
        {"Put": {"TableName": "t", "Item": key("P#1")}},
        {"ConditionCheck": {"TableName": "t", "Key": key("G#1")}},
        {"Delete": {"TableName": "t", "Key": key("L#1")}},
    ]
    assert asked("dynamodb", "TransactWriteItems", {"TransactItems": transaction}) == [
        ("dynamodb:PutItem", "table/RatingsTable", ("P#1",)),
        ("dynamodb:ConditionCheckItem", "table/RatingsTable", ("G#1",)),
        ("dynamodb:DeleteItem", "table/RatingsTable", ("L#1",)),
    ]
    batch = {"RequestItems": {"t": {"Keys": [key("P#1"), key("P#2"), key("P#1")]}}}
    assert asked("dynamodb", "BatchGetItem", batch) == [
        ("dynamodb:BatchGetItem", "table/RatingsTable", ("P#1", "P#2"))
    ]
    query = {
        "TableName": "t",
        "IndexName": "ranked_by_time",
        "KeyConditionExpression": "#0 = :0 AND #1 BETWEEN :1 AND :2",
        "ExpressionAttributeNames": {"#0": "pk", "#1": "ranked_at"},
        "ExpressionAttributeValues": {":0": {"S": "P#1"}, ":1": {"S": "a"}, ":2": {"S": "b"}},
    }
    assert asked("dynamodb", "Query", query) == [
        ("dynamodb:Query", "table/RatingsTable/index/ranked_by_time", ("P#1",))
    ]
    sent = {"QueueUrl": queue, "Entries": []}
    assert asked("sqs", "SendMessageBatch", sent) == [("sqs:SendMessage", "ModerationJobsQueue")]
    unknown: list[tuple[str, str, dict[str, Any]]] = [
        ("sts", "GetCallerIdentity", {}),
        ("sqs", "ListQueues", {}),
        ("sqs", "SendMessage", {"QueueUrl": "https://sqs.example/elsewhere"}),
        ("dynamodb", "ExecuteStatement", {"Statement": "SELECT * FROM t"}),
        ("dynamodb", "Query", {**query, "IndexName": "no_such_index"}),
    ]
    for service, operation, params in unknown:
        with pytest.raises(UnknownRequest):
            asked(service, operation, params)
