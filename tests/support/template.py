"""template.yaml: where things are, the template as written and as SAM transforms it (with a
stub for SAM's policy loader), and the template's resources, references and conditions read
the way CloudFormation does."""

import copy
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from samtranslator.translator.transform import transform
from samtranslator.yaml_helper import yaml_parse

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "template.yaml"
#: The AWS managed policies SAM may attach by name; the stub answers their ARNs.
MANAGED_POLICIES = (
    "AWSLambdaBasicExecutionRole",
    "AWSLambdaSQSQueueExecutionRole",
    "AWSXrayWriteOnlyAccess",
    "AWSXRayDaemonWriteAccess",
)


@cache
def parsed_template() -> dict[str, Any]:
    """template.yaml as written (the intrinsic functions as SAM reads them), read once."""
    parsed: dict[str, Any] = yaml_parse(TEMPLATE.read_text())
    return parsed


class StubPolicyLoader:
    """Stands in for samtranslator's ManagedPolicyLoader, which would ask IAM."""

    def load(self) -> dict[str, str]:
        return {name: f"arn:aws:iam::aws:policy/{name}" for name in MANAGED_POLICIES}


def sam_transform(template: dict[str, Any]) -> dict[str, Any]:
    """The CloudFormation template SAM makes of `template` (offline: managed policy names
    resolve through the stub, never through IAM)."""
    loader: Any = StubPolicyLoader()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("AWS_DEFAULT_REGION", "us-east-1")  # SAM builds ARNs for a partition
        cloudformation: dict[str, Any] = transform(packaged(template), {}, loader)
    return cloudformation


@cache
def transformed_template() -> dict[str, Any]:
    """template.yaml as SAM transforms it, made once per process: copy it to change it."""
    return sam_transform(copy.deepcopy(parsed_template()))


def packaged(template: dict[str, Any]) -> dict[str, Any]:
    """The template as `sam package` hands it over: local code folders become S3 objects."""
    copied = copy.deepcopy(template)
    for resource in copied["Resources"].values():
        properties = resource.get("Properties", {})
        for key in ("CodeUri", "ContentUri"):
            if isinstance(properties.get(key), str):
                properties[key] = f"s3://artifacts/{properties[key].strip('/')}.zip"
    return copied


def resources_of(template: dict[str, Any], kind: str) -> dict[str, dict[str, Any]]:
    """The template's resources of one type, by logical id."""
    return {
        name: resource
        for name, resource in template["Resources"].items()
        if resource["Type"] == kind
    }


def ref(value: Any) -> str | None:
    """The logical id a `!Ref` / `!GetAtt` points at, if `value` is one."""
    if isinstance(value, dict):
        if "Ref" in value:
            return str(value["Ref"])
        if "Fn::GetAtt" in value:
            target = value["Fn::GetAtt"]
            return str(target[0] if isinstance(target, list) else target.split(".")[0])
    return None


def condition_holds(template: dict[str, Any], name: str, parameters: dict[str, str]) -> bool:
    """Whether the template's condition `name` is true for these parameter values (defaults
    for the others). Knows the functions this template's conditions use."""
    return bool(_evaluate(template, template["Conditions"][name], parameters))


def choose(template: dict[str, Any], value: Any, parameters: dict[str, str]) -> Any:
    """`value` with every `Fn::If` decided for these parameter values."""
    if isinstance(value, list):
        return [choose(template, item, parameters) for item in value]
    if isinstance(value, dict):
        if set(value) == {"Fn::If"}:
            condition, if_true, if_false = value["Fn::If"]
            holds = condition_holds(template, condition, parameters)
            return choose(template, if_true if holds else if_false, parameters)
        return {key: choose(template, item, parameters) for key, item in value.items()}
    return value


def _evaluate(template: dict[str, Any], value: Any, parameters: dict[str, str]) -> Any:
    if not isinstance(value, dict):
        return value
    ((function, argument),) = value.items()
    if function == "Ref":
        if argument in parameters:
            return parameters[argument]
        return str(template["Parameters"][argument].get("Default", ""))
    if function == "Condition":
        return condition_holds(template, argument, parameters)
    if function == "Fn::Equals":
        left, right = (_evaluate(template, item, parameters) for item in argument)
        return str(left) == str(right)
    if function == "Fn::Not":
        (inner,) = argument
        return not _evaluate(template, inner, parameters)
    if function == "Fn::And":
        return all(_evaluate(template, item, parameters) for item in argument)
    if function == "Fn::Or":
        return any(_evaluate(template, item, parameters) for item in argument)
    raise ValueError(f"unknown condition function {function}")
