"""The table's DynamoDB stream as PublishEventsFunction receives it: a test table with the
stream template.yaml gives RatingsTable, its records read with DynamoDB Streams' own API
(moto's, DynamoDB Local's), dressed as Lambda hands them over, and passed through the event
source mapping's filter as the template writes it."""

import json
from collections.abc import Iterator, Mapping
from datetime import datetime
from functools import cache
from typing import Any

import boto3

from support.template import parsed_template

REGION = "us-east-1"


@cache
def stream_specification() -> dict[str, Any]:
    """RatingsTable's StreamSpecification when the events are published (the default)."""
    declared = parsed_template()["Resources"]["RatingsTable"]["Properties"]["StreamSpecification"]
    condition, published, _not_published = declared["Fn::If"]
    assert condition == "PublishingEvents"
    return dict(published)


def enable_stream(client: Any, table: str) -> str:
    """The table's stream, the template's (ratings_local's create_table makes it; a table
    made otherwise is given it); its ARN."""
    specification = {"StreamEnabled": True, **stream_specification()}
    described = client.describe_table(TableName=table)["Table"]
    if described.get("StreamSpecification") == specification:
        existing: str = described["LatestStreamArn"]
        return existing
    answer = client.update_table(TableName=table, StreamSpecification=specification)
    arn: str = answer["TableDescription"]["LatestStreamArn"]
    return arn


#: Where moto answers DynamoDB Streams. botocore names a stream's account in the endpoint
#: of the calls that take its ARN (https://<account>.streams-ddb...), which moto does not.
MOTO_STREAMS_ENDPOINT = f"https://streams.dynamodb.{REGION}.amazonaws.com"


def streams_client(endpoint_url: str | None) -> Any:
    """A DynamoDB Streams client where the table is (None: moto, in the active mock)."""
    endpoint = endpoint_url or MOTO_STREAMS_ENDPOINT
    return boto3.client("dynamodbstreams", region_name=REGION, endpoint_url=endpoint)


def stream_records(streams: Any, stream_arn: str) -> list[dict[str, Any]]:
    """Every record the stream holds, shard by shard from its oldest, as Lambda hands them to
    the function (ApproximateCreationDateTime in epoch seconds, the stream's ARN on each)."""
    records: list[dict[str, Any]] = []
    for shard in _shards(streams, stream_arn):
        iterator = streams.get_shard_iterator(
            StreamArn=stream_arn, ShardId=shard["ShardId"], ShardIteratorType="TRIM_HORIZON"
        ).get("ShardIterator")
        while iterator:
            answer = streams.get_records(ShardIterator=iterator)
            records.extend(_as_lambda(record, stream_arn) for record in answer["Records"])
            if not answer["Records"]:
                break  # an open shard's iterator never ends: what it holds is read
            iterator = answer.get("NextShardIterator")
    return records


def let_through(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The records the event source mapping's FilterCriteria (template.yaml) passes on."""
    patterns = [json.loads(pattern) for pattern in _filter_patterns()]
    return [record for record in records if any(_matches(p, record) for p in patterns)]


def batches(records: list[dict[str, Any]], size: int = 100) -> Iterator[list[dict[str, Any]]]:
    """The records in the mapping's batches (its BatchSize), in order."""
    for start in range(0, len(records), size):
        yield records[start : start + size]


def stream_event(records: list[dict[str, Any]]) -> dict[str, Any]:
    """The event Lambda invokes the function with for one batch."""
    return {"Records": records}


def _shards(streams: Any, stream_arn: str) -> list[dict[str, Any]]:
    shards: list[dict[str, Any]] = []
    asked: dict[str, Any] = {"StreamArn": stream_arn}
    while True:
        description = streams.describe_stream(**asked)["StreamDescription"]
        shards.extend(description["Shards"])
        last = description.get("LastEvaluatedShardId")
        if not last:
            return shards
        asked["ExclusiveStartShardId"] = last


def _as_lambda(record: Mapping[str, Any], stream_arn: str) -> dict[str, Any]:
    change = dict(record["dynamodb"])
    created = change.get("ApproximateCreationDateTime")
    if isinstance(created, datetime):
        change["ApproximateCreationDateTime"] = created.timestamp()
    return {**record, "dynamodb": change, "eventSourceARN": stream_arn}


@cache
def _filter_patterns() -> tuple[str, ...]:
    function = parsed_template()["Resources"]["PublishEventsFunction"]["Properties"]
    (event,) = function["Events"].values()
    return tuple(each["Pattern"] for each in event["Properties"]["FilterCriteria"]["Filters"])


def _matches(pattern: Any, value: Any) -> bool:
    """EventBridge-style matching as Lambda filters use it: every key of the pattern present,
    and a list of values at a leaf, one of which the value equals."""
    if isinstance(pattern, list):
        return value in pattern
    if not isinstance(pattern, dict) or not isinstance(value, Mapping):
        return False
    return all(key in value and _matches(inner, value[key]) for key, inner in pattern.items())
