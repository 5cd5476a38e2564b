"""The PublishEvents parameter (template.yaml): "false" deploys none of the events' parts (the
stream, the function and its mapping, role, logs, DLQ and alarms), yet the bus and its outputs
stay, and nothing deployed refers to what is left out; the default deploys them all."""

import re
from typing import Any

import pytest
from support.template import choose, condition_holds

#: What publishing the events adds to the stack (as SAM transforms it).
EVENTS_PARTS = {
    "PublishEventsFunction",
    "PublishEventsFunctionStream",  # its event source mapping
    "PublishEventsRole",
    "PublishEventsLogGroup",
    "EventsDeadLetterQueue",
    "EventsDeadLetterAlarm",
    "EventsLagAlarm",
}
ALWAYS = {"EventBus"}
NO_VALUE = {"Ref": "AWS::NoValue"}
_SUB_NAME = re.compile(r"\$\{([A-Za-z0-9]+)[.}]")


def deployed(template: dict[str, Any], section: str, parameters: dict[str, str]) -> dict[str, Any]:
    """The resources (or outputs) deployed with these parameters, every `Fn::If` decided."""
    return {
        name: choose(template, declared, parameters)
        for name, declared in template.get(section, {}).items()
        if "Condition" not in declared
        or condition_holds(template, declared["Condition"], parameters)
    }


def referred(value: Any) -> set[str]:
    """The logical ids `value` names (Ref, Fn::GetAtt, Fn::Sub's ${...})."""
    if isinstance(value, list):
        return set().union(*(referred(item) for item in value))
    if not isinstance(value, dict):
        return set()
    names: set[str] = set()
    for key, inner in value.items():
        if key == "Ref" and isinstance(inner, str):
            names.add(inner)
        elif key == "Fn::GetAtt":
            names.add(inner[0] if isinstance(inner, list) else inner.split(".")[0])
        elif key == "Fn::Sub":
            text, variables = (inner, {}) if isinstance(inner, str) else inner
            names |= set(_SUB_NAME.findall(text)) - set(variables)  # its own variables aside
            names |= referred(list(variables.values()))
        elif key == "DependsOn":
            names |= {inner} if isinstance(inner, str) else set(inner)
        else:
            names |= referred(inner)
    return names


@pytest.mark.parametrize("publish", ["true", "false"])
def test_the_events_parts_are_deployed_only_when_published_and_the_bus_always(
    template: dict[str, Any], transformed: dict[str, Any], publish: str
) -> None:
    parameters = {"PublishEvents": publish}
    resources = deployed(transformed, "Resources", parameters)
    outputs = deployed(transformed, "Outputs", parameters)
    stream = resources["RatingsTable"]["Properties"].get("StreamSpecification", NO_VALUE)

    assert set(resources) >= ALWAYS
    assert {"EventBusName", "EventBusArn"} <= set(outputs)
    if publish == "true":
        assert set(resources) >= EVENTS_PARTS
        assert stream == {"StreamViewType": "NEW_AND_OLD_IMAGES"}
        assert {"EventsDeadLetterQueueUrl", "PublishEventsFunctionName"} <= set(outputs)
    else:
        assert set(resources) & EVENTS_PARTS == set()
        assert stream == NO_VALUE
        assert {"EventsDeadLetterQueueUrl", "PublishEventsFunctionName"} & set(outputs) == set()
    # The default is to publish them.
    assert condition_holds(template, "PublishingEvents", {}) is True


@pytest.mark.parametrize("publish", ["true", "false"])
def test_nothing_deployed_refers_to_a_resource_left_out(
    transformed: dict[str, Any], publish: str
) -> None:
    parameters = {"PublishEvents": publish}
    resources = deployed(transformed, "Resources", parameters)
    outputs = deployed(transformed, "Outputs", parameters)
    known = set(resources) | set(transformed.get("Parameters", {}))

    dangling = {
        (name, target)
        for name, declared in {**resources, **outputs}.items()
        for target in referred(declared)
        if not target.startswith("AWS::") and target not in known
    }

    assert dangling == set()
