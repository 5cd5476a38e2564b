"""Helpers of the template checks: where things are, and a stub for SAM's policy loader."""

from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "template.yaml"
#: The AWS managed policies SAM may attach by name; the stub answers their ARNs.
MANAGED_POLICIES = (
    "AWSLambdaBasicExecutionRole",
    "AWSLambdaSQSQueueExecutionRole",
    "AWSXrayWriteOnlyAccess",
    "AWSXRayDaemonWriteAccess",
)


class StubPolicyLoader:
    """Stands in for samtranslator's ManagedPolicyLoader, which would ask IAM."""

    def load(self) -> dict[str, str]:
        return {name: f"arn:aws:iam::aws:policy/{name}" for name in MANAGED_POLICIES}


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
