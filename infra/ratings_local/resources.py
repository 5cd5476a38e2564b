"""Creating the template's table(s), event buses and queues locally, and resolving references.

Queues are created dead-letter queues first so redrive policies can point at them; the table
gets its keys, indexes, stream and TTL exactly as the template declares them, on whichever
engine runs it (moto, DynamoDB Local: only the endpoint differs); the tests create their tables
with the same `create_table`. The buses are on moto, beside the queues. A stream's ARN is the
one the engine gave it (DynamoDB Local's name its own region and account, not the stack's).
"""

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import boto3

from ratings_local.template import StackSpec, resolve

if TYPE_CHECKING:
    from mypy_boto3_dynamodb import DynamoDBClient

ACCOUNT_ID = "123456789012"


@dataclass
class CreatedResources:
    """Physical names of what was created, by logical id."""

    region: str
    tables: dict[str, str] = field(default_factory=dict)
    queue_urls: dict[str, str] = field(default_factory=dict)
    queue_arns: dict[str, str] = field(default_factory=dict)
    functions: dict[str, str] = field(default_factory=dict)
    #: The table's stream ARN (LatestStreamArn), for the tables that have a stream.
    stream_arns: dict[str, str] = field(default_factory=dict)
    #: Event bus names and ARNs, by logical id.
    bus_names: dict[str, str] = field(default_factory=dict)
    bus_arns: dict[str, str] = field(default_factory=dict)

    def resolver(self, logical_id: str, attribute: str | None) -> str:
        """The local value of `Ref logical_id` or `GetAtt logical_id.attribute`."""
        if logical_id == "AWS::Region":
            return self.region
        if logical_id == "AWS::AccountId":
            return ACCOUNT_ID
        if logical_id == "AWS::StackName":
            return "ratings-local"
        if logical_id == "AWS::Partition":
            return "aws"
        if logical_id in self.tables:
            name = self.tables[logical_id]
            if attribute == "StreamArn":
                return self.stream_arns[logical_id]
            if attribute == "Arn":
                return f"arn:aws:dynamodb:{self.region}:{ACCOUNT_ID}:table/{name}"
            return name
        if logical_id in self.queue_urls:
            if attribute == "Arn":
                return self.queue_arns[logical_id]
            if attribute == "QueueName":
                return self.queue_urls[logical_id].rsplit("/", 1)[-1]
            return self.queue_urls[logical_id]
        if logical_id in self.bus_names:
            if attribute == "Arn":
                return self.bus_arns[logical_id]
            return self.bus_names[logical_id]
        if logical_id in self.functions:
            return self.functions[logical_id]
        # Anything else (the API, alarms, roles) has no local counterpart.
        return f"local-{logical_id}"


def create_resources(
    spec: StackSpec, sqs_endpoint_url: str, dynamodb_endpoint_url: str, region: str
) -> CreatedResources:
    """The template's tables at `dynamodb_endpoint_url`, its buses and queues at
    `sqs_endpoint_url`."""
    created = CreatedResources(region=region)
    created.functions = {logical_id: logical_id for logical_id in spec.functions}
    dynamodb = boto3.client("dynamodb", endpoint_url=dynamodb_endpoint_url, region_name=region)
    sqs = boto3.client("sqs", endpoint_url=sqs_endpoint_url, region_name=region)

    for logical_id in spec.tables:
        properties = template_table(spec, logical_id, region)
        name = properties.get("TableName") or f"ratings-local-{logical_id}"
        created.tables[logical_id] = name
        create_table(dynamodb, name, properties)
        stream_arn = dynamodb.describe_table(TableName=name)["Table"].get("LatestStreamArn")
        if stream_arn:
            created.stream_arns[logical_id] = stream_arn

    events = boto3.client("events", endpoint_url=sqs_endpoint_url, region_name=region)
    for logical_id, bus in spec.buses.items():
        properties = resolve(dict(bus.properties), created.resolver, spec.parameters)
        name = properties.get("Name") or f"ratings-local-{logical_id}"
        created.bus_names[logical_id] = name
        created.bus_arns[logical_id] = events.create_event_bus(Name=name)["EventBusArn"]

    # Dead-letter queues first: the others' redrive policies refer to them.
    ordered = sorted(spec.queues.items(), key=lambda entry: "RedrivePolicy" in entry[1].properties)
    for logical_id, queue in ordered:
        properties = resolve(dict(queue.properties), created.resolver, spec.parameters)
        name = properties.get("QueueName") or f"ratings-local-{logical_id}"
        attributes = {
            key: _attribute_text(value)
            for key, value in properties.items()
            if key not in ("QueueName", "Tags", "KmsMasterKeyId", "SqsManagedSseEnabled")
        }
        url = sqs.create_queue(QueueName=name, Attributes=attributes)["QueueUrl"]
        created.queue_urls[logical_id] = url
        created.queue_arns[logical_id] = sqs.get_queue_attributes(
            QueueUrl=url, AttributeNames=["QueueArn"]
        )["Attributes"]["QueueArn"]
    return created


def create_table(
    dynamodb: "DynamoDBClient", name: str, properties: Mapping[str, Any], *, stream: bool = True
) -> None:
    """Create table `name` on any engine (moto, DynamoDB Local) exactly as the template's
    resolved `properties` declare it: keys, attribute definitions, indexes and their
    projections, billing, its stream, then its TTL. The tests make their tables with it too,
    most without the stream (`stream=False`): only the events read it, and moto's stock
    TransactWriteItems copies a table's stream records with the table at every transaction
    (a game costs 3 to 5 times as much after a few hundred; the local stack's transactions
    copy nothing, `ratings_local.aws`)."""
    request = _table_request(name, properties)
    if not stream:
        request.pop("StreamSpecification", None)
    dynamodb.create_table(**request)
    # TTL can be set on an ACTIVE table only (both local engines create it ACTIVE at once).
    dynamodb.get_waiter("table_exists").wait(
        TableName=name, WaiterConfig={"Delay": 1, "MaxAttempts": 30}
    )
    ttl = properties.get("TimeToLiveSpecification")
    if ttl and _truthy(ttl.get("Enabled")):
        dynamodb.update_time_to_live(
            TableName=name,
            TimeToLiveSpecification={"AttributeName": ttl["AttributeName"], "Enabled": True},
        )


def template_table(spec: StackSpec, logical_id: str, region: str = "us-east-1") -> dict[str, Any]:
    """The table `logical_id`'s properties with its intrinsic functions resolved."""
    resolver = CreatedResources(region=region).resolver
    return dict(resolve(dict(spec.tables[logical_id].properties), resolver, spec.parameters))


def _table_request(name: str, properties: Mapping[str, Any]) -> dict[str, Any]:
    request: dict[str, Any] = {
        "TableName": name,
        "AttributeDefinitions": properties["AttributeDefinitions"],
        "KeySchema": properties["KeySchema"],
        "BillingMode": properties.get("BillingMode", "PAY_PER_REQUEST"),
    }
    if properties.get("LocalSecondaryIndexes"):
        request["LocalSecondaryIndexes"] = properties["LocalSecondaryIndexes"]
    if properties.get("GlobalSecondaryIndexes"):
        # The on-demand ceiling is a deployment's cost limit, not emulated here (throttling
        # is what the fault injection does, `ratings_local.faults`).
        request["GlobalSecondaryIndexes"] = [
            {
                key: value
                for key, value in index.items()
                if key not in ("ContributorInsightsSpecification", "OnDemandThroughput")
            }
            for index in properties["GlobalSecondaryIndexes"]
        ]
    stream = properties.get("StreamSpecification")
    if stream and stream.get("StreamViewType"):
        request["StreamSpecification"] = {
            "StreamEnabled": True,
            "StreamViewType": stream["StreamViewType"],
        }
    if request["BillingMode"] == "PROVISIONED":
        request["ProvisionedThroughput"] = properties["ProvisionedThroughput"]
    return request


def _attribute_text(value: Any) -> str:
    if isinstance(value, dict):
        return json.dumps(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _truthy(value: Any) -> bool:
    return value is True or str(value).lower() == "true"
