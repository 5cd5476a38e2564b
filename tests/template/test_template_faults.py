"""The deploy-time faults of issue 12 stay fixed: the schedule pattern, the queues' visibility,
the layer's old versions, who the alarms notify, the API's access log and its limits."""

import re
from itertools import product
from typing import Any

import pytest
from support.template import choose, condition_holds, ref, resources_of

VALID_RATES = (
    "rate(1 minute)",
    "rate(1 hour)",
    "rate(1 day)",
    "rate(2 minutes)",
    "rate(5 minutes)",
    "rate(10 minutes)",
    "rate(12 hours)",
    "rate(365 days)",
)
INVALID_RATES = (
    "rate(1 minutes)",  # EventBridge wants the singular for 1
    "rate(5 minute)",  # and the plural for more
    "rate(0 minutes)",
    "rate(0 minute)",
    "rate(01 minute)",
    "rate(05 minutes)",
    "rate(-5 minutes)",
    "rate(5 seconds)",
    "rate(5  minutes)",
    "rate(5minutes)",
    "rate(1 Minute)",
    "cron(0/5 * * * ? *)",
    "rate(5 minutes) ",
    "",
)
#: Every combination of the parameters that change who is notified.
ALARM_CONFIGURATIONS = [
    {"AlarmTopicArn": arn, "AlarmEmail": email}
    for arn, email in product(
        ("", "arn:aws:sns:eu-west-1:123456789012:on-call"), ("", "ops@example.com")
    )
]


#: The template's parameters that take an EventBridge rate expression.
SCHEDULE_PARAMETERS = ("PodiumScheduleRate", "StandingsScheduleRate")


@pytest.fixture(scope="module", params=SCHEDULE_PARAMETERS)
def schedule_parameter(request: pytest.FixtureRequest) -> str:
    name: str = request.param
    return name


@pytest.fixture(scope="module")
def schedule_pattern(template: dict[str, Any], schedule_parameter: str) -> re.Pattern[str]:
    return re.compile(template["Parameters"][schedule_parameter]["AllowedPattern"])


@pytest.mark.parametrize("rate", VALID_RATES)
def test_the_schedule_pattern_accepts_what_eventbridge_accepts(
    schedule_pattern: re.Pattern[str], rate: str
) -> None:
    # CloudFormation matches AllowedPattern against the whole value.
    assert schedule_pattern.fullmatch(rate)


@pytest.mark.parametrize("rate", INVALID_RATES)
def test_the_schedule_pattern_refuses_what_eventbridge_refuses(
    schedule_pattern: re.Pattern[str], rate: str
) -> None:
    assert not schedule_pattern.fullmatch(rate)


def test_the_default_schedule_is_valid(
    template: dict[str, Any], schedule_parameter: str, schedule_pattern: re.Pattern[str]
) -> None:
    assert schedule_pattern.fullmatch(template["Parameters"][schedule_parameter]["Default"])


def test_every_sqs_trigger_leaves_its_queue_six_timeouts_and_the_batching_window(
    template: dict[str, Any],
) -> None:
    """Lambda's advice: a queue's visibility timeout at least 6 times the function's timeout
    plus its batching window, or messages come back while a batch is still being worked."""
    default_timeout = template["Globals"]["Function"].get("Timeout", 3)
    checked = []
    for name, function in resources_of(template, "AWS::Serverless::Function").items():
        timeout = function["Properties"].get("Timeout", default_timeout)
        for event in function["Properties"].get("Events", {}).values():
            if event["Type"] != "SQS":
                continue
            queue = ref(event["Properties"]["Queue"])
            assert queue is not None
            window = event["Properties"].get("MaximumBatchingWindowInSeconds", 0)
            visibility = template["Resources"][queue]["Properties"]["VisibilityTimeout"]
            assert visibility >= 6 * timeout + window, (name, queue)
            checked.append(queue)
    assert sorted(checked) == ["GamesQueue", "ModerationJobsQueue"]


def test_replaced_layer_versions_are_deleted(
    template: dict[str, Any], transformed: dict[str, Any]
) -> None:
    assert template["Resources"]["RatingsLayer"]["Properties"]["RetentionPolicy"] == "Delete"
    layers = resources_of(transformed, "AWS::Lambda::LayerVersion")
    assert layers
    assert all(layer["DeletionPolicy"] == "Delete" for layer in layers.values())


@pytest.mark.parametrize("parameters", ALARM_CONFIGURATIONS)
def test_every_alarm_notifies_a_topic_that_exists(
    template: dict[str, Any], parameters: dict[str, str]
) -> None:
    topic = _alarm_topic(template, parameters)
    alarms = resources_of(template, "AWS::CloudWatch::Alarm")

    assert len(alarms) == 11
    for name, alarm in alarms.items():
        assert choose(template, alarm["Properties"]["AlarmActions"], parameters) == [topic], name


@pytest.mark.parametrize("parameters", ALARM_CONFIGURATIONS)
def test_the_alarm_email_subscribes_to_the_alarms_topic(
    template: dict[str, Any], parameters: dict[str, str]
) -> None:
    subscription = template["Resources"]["AlarmEmailSubscription"]
    subscribed = condition_holds(template, subscription["Condition"], parameters)

    assert subscribed == bool(parameters["AlarmEmail"])
    properties = choose(template, subscription["Properties"], parameters)
    assert properties["TopicArn"] == _alarm_topic(template, parameters)
    assert properties["Endpoint"] == {"Ref": "AlarmEmail"}
    assert properties["Protocol"] == "email"


def _alarm_topic(template: dict[str, Any], parameters: dict[str, str]) -> Any:
    """What the alarms should notify: the given topic, else the stack's own, which exists."""
    if parameters["AlarmTopicArn"]:
        return {"Ref": "AlarmTopicArn"}
    topic = template["Resources"]["AlarmTopic"]
    assert topic["Type"] == "AWS::SNS::Topic"
    assert condition_holds(template, topic["Condition"], parameters)
    return {"Ref": "AlarmTopic"}


def test_by_default_the_stack_makes_the_alarm_topic(template: dict[str, Any]) -> None:
    assert template["Parameters"]["AlarmTopicArn"]["Default"] == ""
    assert condition_holds(template, "MakeAlarmTopic", {})
    assert not condition_holds(template, "MakeAlarmTopic", ALARM_CONFIGURATIONS[-1])


def test_the_api_writes_an_access_log_that_is_kept_and_names_no_key(
    template: dict[str, Any],
) -> None:
    setting = template["Resources"]["RatingsApi"]["Properties"]["AccessLogSetting"]
    destination = setting["DestinationArn"]["Fn::Sub"]
    log_group = template["Resources"]["ApiAccessLogGroup"]

    # API Gateway wants the log group's ARN without the ":*" that GetAtt Arn ends with.
    assert destination.endswith(":log-group:${ApiAccessLogGroup}")
    assert log_group["Type"] == "AWS::Logs::LogGroup"
    assert log_group["Properties"]["RetentionInDays"] == {"Ref": "LogRetentionDays"}
    fields = re.findall(r'"(\w+)":"(\$context\.[\w.]+)"', setting["Format"])
    assert {"requestId", "apiKeyId", "status", "resourcePath"} <= {name for name, _ in fields}
    # Who signed a moderation request (empty for a game key's request).
    assert ("caller", "$context.identity.userArn") in fields
    assert "$context.identity.apiKey" not in {variable for _, variable in fields}


def test_each_key_has_a_throttle_and_a_quota_and_the_stage_its_own_limit(
    template: dict[str, Any], transformed: dict[str, Any]
) -> None:
    api = template["Resources"]["RatingsApi"]["Properties"]
    usage_plan = api["Auth"]["UsagePlan"]
    (method_settings,) = api["MethodSettings"]

    # A usage plan's throttle and quota apply to each key on their own.
    assert usage_plan["Throttle"] == {
        "RateLimit": {"Ref": "ApiKeyRateLimit"},
        "BurstLimit": {"Ref": "ApiKeyBurstLimit"},
    }
    assert usage_plan["Quota"] == {"Limit": {"Ref": "ApiKeyDailyQuota"}, "Period": "DAY"}
    # Stage method throttling covers every key together: separate parameters.
    assert method_settings["ThrottlingRateLimit"] == {"Ref": "ApiStageRateLimit"}
    assert method_settings["ThrottlingBurstLimit"] == {"Ref": "ApiStageBurstLimit"}
    parameters = template["Parameters"]
    assert parameters["ApiStageRateLimit"]["Default"] >= parameters["ApiKeyRateLimit"]["Default"]
    assert parameters["ApiStageBurstLimit"]["Default"] >= parameters["ApiKeyBurstLimit"]["Default"]
    (plan,) = resources_of(transformed, "AWS::ApiGateway::UsagePlan").values()
    assert set(plan["Properties"]) >= {"Throttle", "Quota", "ApiStages"}


@pytest.mark.parametrize("kind", ["THROTTLED", "INTEGRATION_TIMEOUT", "INTEGRATION_FAILURE"])
def test_the_gateways_own_retry_answers_say_when_to_retry(
    template: dict[str, Any], kind: str
) -> None:
    """The function's 503 carries Retry-After; so do API Gateway's own 429 and 503 (a function
    that still timed out, or could not be invoked), so one client rule serves them all."""
    response = template["Resources"]["RatingsApi"]["Properties"]["GatewayResponses"][kind]

    assert response["StatusCode"] in ("429", "503")
    assert response["ResponseParameters"]["Headers"] == {"Retry-After": "'1'"}
