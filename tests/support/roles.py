"""Each function's role in the template as SAM transforms it: every statement of its inline
policies, of the customer managed policies of the template and of the AWS managed policies it
attaches (their documents as moto ships them), with Ref, Fn::GetAtt and Fn::Sub resolved to a
fixed fake account, region and names (the physical name of a resource is its logical id)."""

import json
import re
from collections.abc import Iterator, Mapping
from functools import cache
from typing import Any

from support.iam import UnsupportedPolicy
from support.template import choose, ref, resources_of

PARTITION = "aws"
REGION = "us-east-1"
ACCOUNT = "123456789012"
STACK_NAME = "ratings"
#: What `Ref` answers for the pseudo parameters.
PSEUDO = {
    "AWS::Partition": PARTITION,
    "AWS::Region": REGION,
    "AWS::AccountId": ACCOUNT,
    "AWS::URLSuffix": "amazonaws.com",
    "AWS::StackName": STACK_NAME,
}
#: The label of the table's stream (its ARN's last part: when the stream was enabled).
STREAM_LABEL = "2026-01-01T00:00:00.000"
_AWS_MANAGED = f"arn:{PARTITION}:iam::aws:policy/"
_SUB_NAME = re.compile(r"\$\{([^}!][^}]*)\}")


def function_statements(template: dict[str, Any], function: str) -> list[dict[str, Any]]:
    """Every statement of the policies of `function`'s role, resolved."""
    role = ref(template["Resources"][function]["Properties"]["Role"])
    if role is None or template["Resources"][role]["Type"] != "AWS::IAM::Role":
        raise UnsupportedPolicy(f"{function}'s role is not a role of the template")
    return [
        statement
        for document in _role_documents(template, role)
        for statement in _statements(resolve(template, document))
    ]


def arn_of(template: dict[str, Any], logical_id: str) -> str:
    """What `Fn::GetAtt <logical_id>.Arn` answers, for the kinds of resource the roles name."""
    kind = template["Resources"][logical_id]["Type"]
    if kind == "AWS::DynamoDB::Table":
        return f"arn:{PARTITION}:dynamodb:{REGION}:{ACCOUNT}:table/{logical_id}"
    if kind == "AWS::SQS::Queue":
        return f"arn:{PARTITION}:sqs:{REGION}:{ACCOUNT}:{logical_id}"
    if kind == "AWS::Logs::LogGroup":
        name = resolve(template, template["Resources"][logical_id]["Properties"]["LogGroupName"])
        return f"arn:{PARTITION}:logs:{REGION}:{ACCOUNT}:log-group:{name}:*"
    if kind == "AWS::IAM::Role":
        return f"arn:{PARTITION}:iam::{ACCOUNT}:role/{logical_id}"
    if kind == "AWS::Events::EventBus":
        name = _ref(template, logical_id)
        return f"arn:{PARTITION}:events:{REGION}:{ACCOUNT}:event-bus/{name}"
    raise UnsupportedPolicy(f"the Arn of {logical_id} ({kind})")


def stream_arn_of(template: dict[str, Any], logical_id: str) -> str:
    """What `Fn::GetAtt <logical_id>.StreamArn` answers: the table's stream, which exists only
    when the table declares one."""
    resource = template["Resources"][logical_id]
    if resource["Type"] != "AWS::DynamoDB::Table":
        raise UnsupportedPolicy(f"Fn::GetAtt {logical_id}.StreamArn of no table")
    # Decided for the parameters' defaults, like every Ref here.
    stream = choose(template, resource["Properties"].get("StreamSpecification"), {})
    if stream in (None, {"Ref": "AWS::NoValue"}):
        raise UnsupportedPolicy(f"Fn::GetAtt {logical_id}.StreamArn: the table has no stream")
    return f"{arn_of(template, logical_id)}/stream/{STREAM_LABEL}"


def resolve(template: dict[str, Any], value: Any) -> Any:
    """`value` with its Ref, Fn::GetAtt, Fn::Sub and Fn::Join resolved (any other function
    raises UnsupportedPolicy)."""
    if isinstance(value, list):
        return [resolve(template, item) for item in value]
    if not isinstance(value, dict):
        return value
    if len(value) == 1:
        ((name, argument),) = value.items()
        if name == "Ref":
            return _ref(template, argument)
        if name == "Fn::GetAtt":
            logical_id, attribute = argument if isinstance(argument, list) else argument.split(".")
            return _attribute(template, logical_id, attribute)
        if name == "Fn::Sub":
            return _sub(template, argument)
        if name == "Fn::Join":
            separator, items = argument
            return separator.join(str(item) for item in resolve(template, items))
        if name.startswith("Fn::") or name == "Condition":
            raise UnsupportedPolicy(f"intrinsic function {name} in a policy")
    return {key: resolve(template, item) for key, item in value.items()}


@cache
def aws_managed_documents() -> Mapping[str, Any]:
    """The AWS managed policies' documents by name, as moto ships them (a large module: read
    on first use)."""
    from moto.iam.aws_managed_policies import aws_managed_policies_data

    loaded: dict[str, Any] = json.loads(aws_managed_policies_data)
    return {name: policy["Document"] for name, policy in loaded.items()}


def _role_documents(template: dict[str, Any], role: str) -> Iterator[Any]:
    properties = template["Resources"][role]["Properties"]
    if "PermissionsBoundary" in properties:
        raise UnsupportedPolicy(f"{role} has a permissions boundary")
    for policy in properties.get("Policies", []):
        yield policy["PolicyDocument"]
    for attached in properties.get("ManagedPolicyArns", []):
        yield _managed_document(template, attached)
    # Policies of the template that name the role themselves.
    for kind in ("AWS::IAM::Policy", "AWS::IAM::ManagedPolicy"):
        for policy in resources_of(template, kind).values():
            if role in (ref(named) for named in policy["Properties"].get("Roles", [])):
                yield policy["Properties"]["PolicyDocument"]


def _managed_document(template: dict[str, Any], attached: Any) -> Any:
    logical_id = ref(attached)
    if logical_id is not None:
        resource = template["Resources"][logical_id]
        if resource["Type"] != "AWS::IAM::ManagedPolicy":
            raise UnsupportedPolicy(f"ManagedPolicyArns names {logical_id}, no managed policy")
        return resource["Properties"]["PolicyDocument"]
    arn = resolve(template, attached)
    if not isinstance(arn, str) or not arn.startswith(_AWS_MANAGED):
        raise UnsupportedPolicy(f"a managed policy outside the template and AWS's: {arn!r}")
    name = arn.rsplit("/", 1)[-1]
    documents = aws_managed_documents()
    if name not in documents:
        raise UnsupportedPolicy(f"the AWS managed policy {name} is not in moto's list")
    return documents[name]


def _statements(document: Mapping[str, Any]) -> list[dict[str, Any]]:
    statements = document["Statement"]
    return [statements] if isinstance(statements, dict) else list(statements)


def _ref(template: dict[str, Any], name: str) -> str:
    if name in PSEUDO:
        return PSEUDO[name]
    if name in template.get("Parameters", {}):
        return str(template["Parameters"][name].get("Default", ""))
    kind = template["Resources"][name]["Type"]
    if kind == "AWS::SQS::Queue":
        return f"https://sqs.{REGION}.amazonaws.com/{ACCOUNT}/{name}"
    if kind == "AWS::IAM::ManagedPolicy":
        return f"arn:{PARTITION}:iam::{ACCOUNT}:policy/{name}"
    if kind in ("AWS::DynamoDB::Table", "AWS::Logs::LogGroup"):
        return name
    if kind == "AWS::Events::EventBus":
        return str(resolve(template, template["Resources"][name]["Properties"]["Name"]))
    raise UnsupportedPolicy(f"Ref of {name} ({kind})")


def _attribute(template: dict[str, Any], logical_id: str, attribute: str) -> str:
    if attribute == "Arn":
        return arn_of(template, logical_id)
    if attribute == "QueueName" and template["Resources"][logical_id]["Type"] == "AWS::SQS::Queue":
        return logical_id
    if attribute == "StreamArn":
        return stream_arn_of(template, logical_id)
    raise UnsupportedPolicy(f"Fn::GetAtt {logical_id}.{attribute}")


def _sub(template: dict[str, Any], argument: Any) -> str:
    text, variables = (argument, {}) if isinstance(argument, str) else argument
    values = {name: resolve(template, value) for name, value in variables.items()}

    def value_of(match: re.Match[str]) -> str:
        name = match.group(1)
        if name in values:
            return str(values[name])
        if "." in name and not name.startswith("AWS::"):
            logical_id, attribute = name.split(".", 1)
            return _attribute(template, logical_id, attribute)
        return _ref(template, name)

    return _SUB_NAME.sub(value_of, text).replace("${!", "${")
