"""Reading template.yaml: the functions, their triggers, the table and the queues.

The local stack is wired from the template so that what runs locally is what deploys. This
module knows just enough CloudFormation to do that: the short-form intrinsic tags, `Ref`,
`Fn::GetAtt` and `Fn::Sub` over the template's own resources and parameters.
"""

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

Resolver = Callable[[str, str | None], str]
#: The project's template, which `make run` and the tests read.
DEFAULT_TEMPLATE = Path(__file__).resolve().parents[2] / "template.yaml"


class _CfnLoader(yaml.SafeLoader):
    """YAML with CloudFormation's short-form tags (!Ref, !GetAtt, !Sub, ...)."""


def _construct_tag(loader: yaml.SafeLoader, tag_suffix: str, node: yaml.Node) -> Any:
    name = "Ref" if tag_suffix == "Ref" else f"Fn::{tag_suffix}"
    if isinstance(node, yaml.ScalarNode):
        value: Any = loader.construct_scalar(node)
        if name == "Fn::GetAtt" and isinstance(value, str):
            value = value.split(".", 1)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_mapping(node, deep=True)  # type: ignore[arg-type]
    return {name: value}


_CfnLoader.add_multi_constructor("!", _construct_tag)


def load_template(path: Path) -> dict[str, Any]:
    with path.open(encoding="utf-8") as stream:
        document = yaml.load(stream, Loader=_CfnLoader)
    if not isinstance(document, dict):
        raise ValueError(f"{path} is not a CloudFormation template")
    return document


@dataclass(frozen=True)
class FunctionEvent:
    name: str
    kind: str  # "Api" | "SQS" | "Schedule" | "DynamoDB"
    properties: Mapping[str, Any]


@dataclass(frozen=True)
class FunctionSpec:
    logical_id: str
    code_uri: str
    handler: str
    timeout: int
    environment: Mapping[str, Any]
    events: tuple[FunctionEvent, ...]
    memory_size: int = 128
    #: ReservedConcurrentExecutions (None: none reserved).
    reserved_concurrency: int | None = None
    #: EventInvokeConfig of its asynchronous invocations (Lambda's defaults: two retries of
    #: a failed run, a throttled event kept up to 6 hours).
    maximum_retry_attempts: int = 2
    maximum_event_age: float = 21600

    def triggers(self) -> list[str]:
        return sorted({event.kind for event in self.events})

    def api_paths(self) -> list[str]:
        """The resource paths of its Api events, as the template writes them."""
        return sorted({str(e.properties["Path"]) for e in self.events if e.kind == "Api"})


@dataclass(frozen=True)
class QueueSpec:
    logical_id: str
    properties: Mapping[str, Any]


@dataclass(frozen=True)
class TableSpec:
    logical_id: str
    properties: Mapping[str, Any]


@dataclass(frozen=True)
class BusSpec:
    """An EventBridge bus of the template (AWS::Events::EventBus)."""

    logical_id: str
    properties: Mapping[str, Any]


@dataclass(frozen=True)
class StackSpec:
    """What the local stack needs to know of the template."""

    parameters: Mapping[str, Any]
    functions: Mapping[str, FunctionSpec]
    tables: Mapping[str, TableSpec]
    queues: Mapping[str, QueueSpec]
    globals: Mapping[str, Any] = field(default_factory=dict)
    #: The GatewayResponses of the template's API (API Gateway's own answers), by type.
    gateway_responses: Mapping[str, Any] = field(default_factory=dict)
    #: The template's event buses, by logical id.
    buses: Mapping[str, BusSpec] = field(default_factory=dict)


def read_stack(path: Path) -> StackSpec:
    template = load_template(path)
    resources: Mapping[str, Any] = template.get("Resources", {})
    function_globals = template.get("Globals", {}).get("Function", {})
    parameters = {
        name: spec.get("Default") for name, spec in template.get("Parameters", {}).items()
    }
    functions: dict[str, FunctionSpec] = {}
    tables: dict[str, TableSpec] = {}
    queues: dict[str, QueueSpec] = {}
    gateway_responses: dict[str, Any] = {}
    buses: dict[str, BusSpec] = {}
    for logical_id, resource in resources.items():
        kind = resource.get("Type")
        properties = resource.get("Properties", {})
        if kind == "AWS::Serverless::Function":
            environment = dict(function_globals.get("Environment", {}).get("Variables", {}))
            environment.update(properties.get("Environment", {}).get("Variables", {}))
            events = tuple(
                FunctionEvent(name, event.get("Type"), event.get("Properties", {}))
                for name, event in properties.get("Events", {}).items()
            )
            # Conditions are deployment choices; locally the "true" branch is taken.
            reserved = resolve(properties.get("ReservedConcurrentExecutions"), _no_resource, {})
            invoke_config = properties.get("EventInvokeConfig", {})
            functions[logical_id] = FunctionSpec(
                logical_id=logical_id,
                code_uri=properties.get("CodeUri", function_globals.get("CodeUri", ".")),
                handler=properties.get("Handler", function_globals.get("Handler", "")),
                timeout=int(properties.get("Timeout", function_globals.get("Timeout", 3))),
                environment=environment,
                events=events,
                memory_size=int(
                    properties.get("MemorySize", function_globals.get("MemorySize", 128))
                ),
                reserved_concurrency=None if reserved is None else int(reserved),
                maximum_retry_attempts=int(invoke_config.get("MaximumRetryAttempts", 2)),
                maximum_event_age=int(invoke_config.get("MaximumEventAgeInSeconds", 21600)),
            )
        elif kind == "AWS::Serverless::Api":
            gateway_responses.update(properties.get("GatewayResponses", {}))
        elif kind == "AWS::DynamoDB::Table":
            tables[logical_id] = TableSpec(logical_id, properties)
        elif kind == "AWS::SQS::Queue":
            queues[logical_id] = QueueSpec(logical_id, properties)
        elif kind == "AWS::Events::EventBus":
            buses[logical_id] = BusSpec(logical_id, properties)
    return StackSpec(
        parameters, functions, tables, queues, function_globals, gateway_responses, buses
    )


def _no_resource(name: str, attribute: str | None) -> str:
    raise ValueError(f"{name} is not known here")


def resolve(value: Any, resolver: Resolver, parameters: Mapping[str, Any]) -> Any:
    """`value` with Ref, GetAtt and Sub replaced (resources through `resolver`)."""
    if isinstance(value, list):
        return [resolve(item, resolver, parameters) for item in value]
    if not isinstance(value, dict):
        return value
    if len(value) == 1:
        ((name, argument),) = value.items()
        if name == "Ref":
            if argument in parameters:
                return str(parameters[argument])
            if argument == "AWS::Region":
                return resolver("AWS::Region", None)
            if argument in ("AWS::AccountId", "AWS::StackName", "AWS::Partition"):
                return resolver(argument, None)
            return resolver(argument, None)
        if name == "Fn::GetAtt":
            target, attribute = argument if isinstance(argument, list) else argument.split(".", 1)
            return resolver(target, attribute)
        if name == "Fn::Sub":
            text, variables = (argument, {}) if isinstance(argument, str) else argument
            return _substitute(text, resolver, parameters, variables)
        if name == "Fn::Join":
            separator, items = argument
            return separator.join(str(resolve(item, resolver, parameters)) for item in items)
        if name == "Fn::If":
            # Conditions are deployment choices; locally the "true" branch is taken.
            return resolve(argument[1], resolver, parameters)
    return {key: resolve(item, resolver, parameters) for key, item in value.items()}


def _substitute(
    text: str, resolver: Resolver, parameters: Mapping[str, Any], variables: Mapping[str, Any]
) -> str:
    out = []
    rest = text
    while "${" in rest:
        before, _, after = rest.partition("${")
        name, _, rest = after.partition("}")
        out.append(before)
        if name in variables:
            out.append(str(resolve(variables[name], resolver, parameters)))
        elif name in parameters:
            out.append(str(parameters[name]))
        elif "." in name:
            target, attribute = name.split(".", 1)
            out.append(resolver(target, attribute))
        else:
            out.append(resolver(name, None))
    out.append(rest)
    return "".join(out)
