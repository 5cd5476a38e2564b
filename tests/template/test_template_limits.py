"""AWS's limits met in the template as SAM transforms it (issue 25): the scheduled functions'
retries and overlap, the consumers' reserved concurrency, the table's throughput ceiling, the
order of the API Gateway account setting, and API Gateway's own answers."""

import json
import re
from typing import Any

import pytest
from support.template import choose, condition_holds, ref, resources_of

#: What Lambda keeps unreserved in every account (reservations may not go below it), and the
#: concurrency limit of an account that never asked for more.
UNRESERVED_MINIMUM = 100
DEFAULT_ACCOUNT_LIMIT = 1000
RESERVED = {"ReserveConcurrency": "true"}
UNRESERVED = {"ReserveConcurrency": "false"}
#: Every gateway response type of API Gateway (its PutGatewayResponse's valid values).
GATEWAY_RESPONSE_TYPES = {
    "ACCESS_DENIED",
    "API_CONFIGURATION_ERROR",
    "AUTHORIZER_CONFIGURATION_ERROR",
    "AUTHORIZER_FAILURE",
    "BAD_REQUEST_BODY",
    "BAD_REQUEST_PARAMETERS",
    "DEFAULT_4XX",
    "DEFAULT_5XX",
    "EXPIRED_TOKEN",
    "INTEGRATION_FAILURE",
    "INTEGRATION_TIMEOUT",
    "INVALID_API_KEY",
    "INVALID_SIGNATURE",
    "MISSING_AUTHENTICATION_TOKEN",
    "QUOTA_EXCEEDED",
    "REQUEST_TOO_LARGE",
    "RESOURCE_NOT_FOUND",
    "THROTTLED",
    "UNAUTHORIZED",
    "UNSUPPORTED_MEDIA_TYPE",
    "WAF_FILTERED",
}
#: The responses that refuse a caller its access: each answers 403 forbidden. UNAUTHORIZED
#: belongs to authorizers (the API has none) but is an auth answer all the same.
DENIALS = (
    "ACCESS_DENIED",
    "EXPIRED_TOKEN",
    "INVALID_API_KEY",
    "INVALID_SIGNATURE",
    "MISSING_AUTHENTICATION_TOKEN",
    "UNAUTHORIZED",
    "WAF_FILTERED",
)
#: The responses a caller of this API can meet, with the status and code each answers.
REACHABLE_RESPONSES = {
    **dict.fromkeys(DENIALS, ("403", "forbidden")),
    "RESOURCE_NOT_FOUND": ("404", "not_found"),
    "REQUEST_TOO_LARGE": ("413", "payload_too_large"),
    "THROTTLED": ("429", "throttled"),
    "QUOTA_EXCEEDED": ("429", "quota_exceeded"),
    "INTEGRATION_FAILURE": ("503", "retry_later"),
    "INTEGRATION_TIMEOUT": ("503", "retry_later"),
    # No status of their own: API Gateway's (a failed function is its 502).
    "DEFAULT_4XX": (None, "bad_request"),
    "DEFAULT_5XX": (None, "internal_error"),
}


def _functions(transformed: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return resources_of(transformed, "AWS::Lambda::Function")


def _reserved(
    template: dict[str, Any], function: dict[str, Any], parameters: dict[str, str]
) -> Any:
    reservation = function["Properties"].get("ReservedConcurrentExecutions")
    value = choose(template, reservation, parameters)
    return None if value == {"Ref": "AWS::NoValue"} else value


def _scheduled(transformed: dict[str, Any]) -> set[str]:
    """The functions an EventBridge rule invokes."""
    return {
        str(ref(target["Arn"]))
        for rule in resources_of(transformed, "AWS::Events::Rule").values()
        for target in rule["Properties"]["Targets"]
    }


def test_scheduled_functions_are_never_retried_and_never_run_twice_at_once(
    transformed: dict[str, Any],
) -> None:
    """EventBridge invokes them asynchronously: without a config Lambda retries a failed run
    twice, and keeps a throttled event up to 6 hours; RefreshStandings may outlast its rate."""
    scheduled = _scheduled(transformed)
    configs = {
        ref(config["Properties"]["FunctionName"]): config["Properties"]
        for config in resources_of(transformed, "AWS::Lambda::EventInvokeConfig").values()
    }

    assert scheduled == {"AwardPodiumsFunction", "RefreshStandingsFunction"}
    for name in scheduled:
        assert configs[name]["MaximumRetryAttempts"] == 0, name
        # 60 s is the least Lambda takes; a throttled event is dropped after it.
        assert configs[name]["MaximumEventAgeInSeconds"] == 60, name
        function = _functions(transformed)[name]
        assert _reserved(transformed, function, RESERVED) == 1, name


def test_every_queue_consumer_has_its_mapping_maximum_reserved(
    transformed: dict[str, Any],
) -> None:
    """A mapping's MaximumConcurrency above the function's reservation is throttled, and a
    throttled batch counts toward the queue's maxReceiveCount."""
    functions = _functions(transformed)
    mappings = _mappings(transformed, "AWS::SQS::Queue")

    checked = []
    for mapping in mappings:
        name = str(ref(mapping["Properties"]["FunctionName"]))
        maximum = mapping["Properties"]["ScalingConfig"]["MaximumConcurrency"]
        reserved = _reserved(transformed, functions[name], RESERVED)
        assert reserved is not None, name
        assert maximum <= reserved, name
        checked.append(name)
    assert sorted(checked) == ["GamesQueueFunction", "ModerationWorkerFunction"]


def test_the_stream_consumer_reads_each_shard_in_order_with_no_reservation(
    transformed: dict[str, Any],
) -> None:
    """A stream mapping has no MaximumConcurrency: Lambda runs one batch per shard times its
    ParallelizationFactor at once. 1 keeps each item's changes in order; and a reservation
    below the shard count would only throttle batches into retries (the events late)."""
    functions = _functions(transformed)
    mappings = _mappings(transformed, "AWS::DynamoDB::Table")

    checked = []
    for mapping in mappings:
        properties = mapping["Properties"]
        name = str(ref(properties["FunctionName"]))
        assert "ScalingConfig" not in properties, name
        assert properties["ParallelizationFactor"] == 1, name
        assert _reserved(transformed, functions[name], RESERVED) is None, name
        checked.append(name)
    assert checked == ["PublishEventsFunction"]
    # Every mapping reads a queue or the table's stream: none escapes both tests.
    assert len(resources_of(transformed, "AWS::Lambda::EventSourceMapping")) == 3


def _mappings(transformed: dict[str, Any], source_kind: str) -> list[dict[str, Any]]:
    """The event source mappings whose source is a resource of `source_kind`."""
    return [
        mapping
        for mapping in resources_of(transformed, "AWS::Lambda::EventSourceMapping").values()
        if transformed["Resources"][str(ref(mapping["Properties"]["EventSourceArn"]))]["Type"]
        == source_kind
    ]


def test_the_reserved_sum_is_stated_and_leaves_the_api_its_share(
    template: dict[str, Any], transformed: dict[str, Any]
) -> None:
    functions = _functions(transformed)
    reserved = {
        name: _reserved(transformed, function, RESERVED) for name, function in functions.items()
    }
    total = sum(value for value in reserved.values() if value is not None)
    description = template["Parameters"]["ReserveConcurrency"]["Description"]
    stated = re.search(r"\((\d+) in\s+all", description)

    assert stated is not None
    assert int(stated.group(1)) == total == 14
    # The functions that answer callers share what is left: nothing is reserved for them.
    assert reserved["ApiFunction"] is None
    assert reserved["ModerationFunction"] is None
    assert DEFAULT_ACCOUNT_LIMIT - total >= UNRESERVED_MINIMUM


def test_an_account_with_a_low_limit_can_turn_every_reservation_off(
    template: dict[str, Any], transformed: dict[str, Any]
) -> None:
    assert template["Parameters"]["ReserveConcurrency"]["Default"] == "true"
    for name, function in _functions(transformed).items():
        assert _reserved(transformed, function, UNRESERVED) is None, name


@pytest.mark.parametrize(
    ("reads", "writes"), [("0", "0"), ("400", "0"), ("0", "100"), ("400", "100")]
)
def test_the_table_and_its_index_have_the_same_throughput_ceiling(
    transformed: dict[str, Any], reads: str, writes: str
) -> None:
    parameters = {"TableMaxReadRequestUnits": reads, "TableMaxWriteRequestUnits": writes}
    (table,) = resources_of(transformed, "AWS::DynamoDB::Table").values()
    properties = table["Properties"]
    expected = {}
    if reads != "0":
        expected["MaxReadRequestUnits"] = {"Ref": "TableMaxReadRequestUnits"}
    if writes != "0":
        expected["MaxWriteRequestUnits"] = {"Ref": "TableMaxWriteRequestUnits"}

    assert properties["BillingMode"] == "PAY_PER_REQUEST"
    holders = [properties, *properties["GlobalSecondaryIndexes"]]
    for holder in holders:
        ceiling = _without_no_value(choose(transformed, holder["OnDemandThroughput"], parameters))
        assert ceiling == (expected or None)


def test_by_default_the_table_has_no_ceiling(template: dict[str, Any]) -> None:
    for name in ("TableMaxReadRequestUnits", "TableMaxWriteRequestUnits"):
        assert template["Parameters"][name]["Default"] == 0
        assert template["Parameters"][name]["MinValue"] == 0
    assert not condition_holds(template, "HasTableMaxThroughput", {})


def _without_no_value(value: Any) -> Any:
    """`value` as CloudFormation reads it: AWS::NoValue removes a property."""
    if value == {"Ref": "AWS::NoValue"}:
        return None
    if isinstance(value, dict):
        kept = {key: _without_no_value(item) for key, item in value.items()}
        return {key: item for key, item in kept.items() if item is not None}
    return value


LOGGING_ROLE_CASES = [
    {"ApiGatewayLoggingRole": "true", "ApiGatewayLoggingRoleArn": ""},
    {
        "ApiGatewayLoggingRole": "true",
        "ApiGatewayLoggingRoleArn": "arn:aws:iam::123456789012:role/apigateway-logs",
    },
    {"ApiGatewayLoggingRole": "false", "ApiGatewayLoggingRoleArn": ""},
]


@pytest.mark.parametrize("parameters", LOGGING_ROLE_CASES)
def test_the_account_setting_is_made_in_an_order_a_first_deploy_survives(
    transformed: dict[str, Any], parameters: dict[str, str]
) -> None:
    resources = _present(transformed, parameters)
    setting = parameters["ApiGatewayLoggingRole"] == "true"
    own_role = setting and not parameters["ApiGatewayLoggingRoleArn"]
    (stage_name,) = resources_of(resources_dict(resources), "AWS::ApiGateway::Stage")

    assert ("ApiGatewayAccount" in resources) == setting
    assert ("ApiGatewayLoggingRoleForAccount" in resources) == own_role
    # The stage's access log needs the setting: the stage comes after it.
    assert ("ApiGatewayAccount" in _after(resources, stage_name)) == setting
    if not setting:
        return
    account = resources["ApiGatewayAccount"]
    role = choose(transformed, account["Properties"]["CloudWatchRoleArn"], parameters)
    if own_role:
        assert ref(role) == "ApiGatewayLoggingRoleForAccount"
    else:
        assert role == {"Ref": "ApiGatewayLoggingRoleArn"}
    earlier = _after(resources, "ApiGatewayAccount")
    # An API Gateway resource exists first (an account that never had one refuses the
    # setting), one that waits for nothing of the API and lets no request in.
    first = resources["ApiGatewayFirstResource"]
    assert first["Type"] == "AWS::ApiGateway::ApiKey"
    assert first["Properties"]["Enabled"] is False
    assert "ApiGatewayFirstResource" in earlier
    assert "RatingsApi" not in _after(resources, "ApiGatewayFirstResource")
    for key in resources_of(resources_dict(resources), "AWS::ApiGateway::UsagePlanKey").values():
        assert ref(key["Properties"]["KeyId"]) != "ApiGatewayFirstResource"
    if own_role:
        # IAM has spread a role Lambda could assume, made after the logging role.
        assert {"ApiGatewayLoggingRoleForAccount", "GamesQueueFunction"} <= earlier
        assert "RatingsTable" in _after(resources, "GamesQueueRole")


def resources_dict(resources: dict[str, dict[str, Any]]) -> dict[str, Any]:
    return {"Resources": resources}


def _present(template: dict[str, Any], parameters: dict[str, str]) -> dict[str, dict[str, Any]]:
    """The resources deployed with these parameters, with every `Fn::If` decided."""
    return {
        name: choose(template, resource, parameters)
        for name, resource in template["Resources"].items()
        if "Condition" not in resource
        or condition_holds(template, resource["Condition"], parameters)
    }


def _after(resources: dict[str, dict[str, Any]], name: str) -> set[str]:
    """Every resource `name` waits for, through references and DependsOn."""
    seen: set[str] = set()
    waiting = [name]
    while waiting:
        for found in _references(resources[waiting.pop()]):
            if found in resources and found not in seen:
                seen.add(found)
                waiting.append(found)
    return seen


def _references(value: Any) -> set[str]:
    found: set[str] = set()
    if isinstance(value, list):
        for item in value:
            found |= _references(item)
    elif isinstance(value, dict):
        for key, item in value.items():
            if key == "DependsOn":
                found |= {item} if isinstance(item, str) else set(item)
            elif key in ("Ref", "Fn::GetAtt") and ref({key: item}):
                found.add(str(ref({key: item})))
            elif key == "Fn::Sub":
                text = item if isinstance(item, str) else item[0]
                found |= {name.split(".")[0] for name in re.findall(r"\$\{([^}!]+)\}", text)}
                found |= _references(item if isinstance(item, list) else [])
            else:
                found |= _references(item)
    return found


def _gateway_responses(transformed: dict[str, Any]) -> dict[str, dict[str, Any]]:
    api = transformed["Resources"]["RatingsApi"]["Properties"]["Body"]
    responses: dict[str, dict[str, Any]] = api["x-amazon-apigateway-gateway-responses"]
    return responses


def _rendered(response: dict[str, Any]) -> Any:
    """The body API Gateway sends: the template with its message variable filled in."""
    template = response["responseTemplates"]["application/json"]
    body = template.replace("$context.error.messageString", json.dumps("API Gateway's message"))
    return json.loads(body)


def test_every_gateway_response_is_one_api_gateway_has(transformed: dict[str, Any]) -> None:
    assert set(_gateway_responses(transformed)) <= GATEWAY_RESPONSE_TYPES


@pytest.mark.parametrize("kind", sorted(REACHABLE_RESPONSES))
def test_every_answer_a_caller_can_meet_has_the_error_body_and_a_fitting_code(
    transformed: dict[str, Any], kind: str
) -> None:
    status, code = REACHABLE_RESPONSES[kind]
    response = _gateway_responses(transformed)[kind]
    body = _rendered(response)

    assert response.get("statusCode") == status
    assert set(body) == {"error"}
    assert set(body["error"]) == {"code", "message"}
    assert body["error"]["code"] == code
    assert isinstance(body["error"]["message"], str)
    assert body["error"]["message"]


def test_the_throttled_answer_names_every_throttle_not_only_the_key(
    transformed: dict[str, Any],
) -> None:
    message = _rendered(_gateway_responses(transformed)["THROTTLED"])["error"]["message"]

    assert "API key" in message
    assert "account" in message
    assert "retry" in message


def test_the_responses_left_to_the_defaults_cannot_be_met(transformed: dict[str, Any]) -> None:
    """Authorizers, request validators, binary media types and compressed payloads are what
    the unconfigured types answer; the API uses none of them."""
    left = GATEWAY_RESPONSE_TYPES - set(_gateway_responses(transformed))
    api = transformed["Resources"]["RatingsApi"]["Properties"]
    methods = [
        method
        for path in api["Body"]["paths"].values()
        for method in path.values()
        if isinstance(method, dict)
    ]

    assert left == {
        "API_CONFIGURATION_ERROR",
        "AUTHORIZER_CONFIGURATION_ERROR",
        "AUTHORIZER_FAILURE",
        "BAD_REQUEST_BODY",
        "BAD_REQUEST_PARAMETERS",
        "UNSUPPORTED_MEDIA_TYPE",
    }
    assert not resources_of(transformed, "AWS::ApiGateway::Authorizer")
    assert not resources_of(transformed, "AWS::ApiGateway::RequestValidator")
    assert "x-amazon-apigateway-request-validators" not in api["Body"]
    assert "x-amazon-apigateway-binary-media-types" not in api["Body"]
    assert "BinaryMediaTypes" not in api
    assert "MinimumCompressionSize" not in api
    for method in methods:
        integration = method["x-amazon-apigateway-integration"]
        assert integration["type"] == "aws_proxy"
        # AWS_IAM (sigv4) or the API key alone: no custom or Cognito authorizer.
        for requirement in method.get("security", []):
            assert set(requirement) <= {"AWS_IAM", "api_key"}
