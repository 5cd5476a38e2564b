"""Every AWS request a function's code makes, recorded at botocore (which both boto3 and
pynamodb go through), and each request as the authorizations AWS makes for it: the IAM
action, the resource's ARN and the condition keys (docs/security.md, "How the suite proves
every call allowed")."""

import copy
import re
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

import pytest
from botocore.client import BaseClient

from support.iam import Request, evaluate
from support.roles import arn_of, function_statements

#: DynamoDB operations on one table (or one of its indexes), authorized as themselves.
_ONE_TABLE = {"GetItem", "PutItem", "UpdateItem", "DeleteItem", "Query", "Scan", "DescribeTable"}
#: The IAM action of each kind of item of a transaction.
_TRANSACTION_ACTIONS = {
    "Put": "PutItem",
    "Update": "UpdateItem",
    "Delete": "DeleteItem",
    "ConditionCheck": "ConditionCheckItem",
    "Get": "GetItem",
}
#: SQS's batch operations, authorized as the single operation.
_SQS_BATCHES = {
    "SendMessageBatch": "SendMessage",
    "DeleteMessageBatch": "DeleteMessage",
    "ChangeMessageVisibilityBatch": "ChangeMessageVisibility",
}
_LEADING_KEYS = "dynamodb:LeadingKeys"
_EQUALITY = re.compile(r"([#\w.:-]+)\s*=\s*(:[\w-]+)")


class UnknownRequest(ValueError):
    """A request this module cannot map to its authorizations: it is never taken as allowed."""


@dataclass(frozen=True)
class Call:
    """One AWS request: the function (logical id) whose invocation made it, and the request."""

    function: str
    service: str
    operation: str
    params: dict[str, Any]


@dataclass
class CallRecorder:
    """The requests made while a recorded function's handler runs (the test's own are not)."""

    calls: list[Call] = field(default_factory=list)
    function: str | None = None

    @contextmanager
    def running(self, function: str) -> Iterator[None]:
        """Requests made in the block are `function`'s."""
        previous, self.function = self.function, function
        try:
            yield
        finally:
            self.function = previous

    def handler(self, module: ModuleType, function: str) -> "RecordedFunction":
        """The handler module, with its lambda_handler recorded as `function`'s."""
        return RecordedFunction(module, self, function)

    def record(self, client: BaseClient, operation: str, params: Mapping[str, Any]) -> None:
        if self.function is not None:
            service = client.meta.service_model.service_name
            self.calls.append(Call(self.function, service, operation, copy.deepcopy(dict(params))))


class RecordedFunction(ModuleType):
    """A function's module whose `lambda_handler` records the requests it makes; everything
    else is the module's."""

    def __init__(self, module: ModuleType, recorder: CallRecorder, function: str) -> None:
        super().__init__(module.__name__, module.__doc__)
        self._module = module
        self._recorder = recorder
        self._function = function

    def lambda_handler(self, event: dict[str, Any], context: Any) -> Any:
        with self._recorder.running(self._function):
            return self._module.lambda_handler(event, context)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._module, name)


@contextmanager
def recording() -> Iterator[CallRecorder]:
    """A recorder of every botocore request made in the block, whichever client makes it."""
    recorder = CallRecorder()
    original: Callable[..., Any] = BaseClient._make_api_call  # type: ignore[attr-defined]

    def make_api_call(client: BaseClient, operation: str, params: dict[str, Any]) -> Any:
        recorder.record(client, operation, params)
        return original(client, operation, params)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(BaseClient, "_make_api_call", make_api_call)
        yield recorder


@dataclass(frozen=True)
class Resources:
    """The template's resources the calls name: each table name and queue URL the test's stack
    gave them, with the logical id it stands for."""

    template: dict[str, Any]
    by_name: Mapping[str, str]

    def arn(self, name: str) -> str:
        if name not in self.by_name:
            raise UnknownRequest(f"{name!r} is no table, queue or bus of the template")
        return arn_of(self.template, self.by_name[name])

    def partition_key(self, name: str, index: str | None) -> str:
        """The partition key attribute of the table `name`, or of its index."""
        properties = self.template["Resources"][self.by_name[name]]["Properties"]
        schemas = {None: properties["KeySchema"]}
        for kind in ("GlobalSecondaryIndexes", "LocalSecondaryIndexes"):
            for declared in properties.get(kind, []):
                schemas[declared["IndexName"]] = declared["KeySchema"]
        if index not in schemas:
            raise UnknownRequest(f"{index!r} is no index of {self.by_name[name]}")
        (attribute,) = (key["AttributeName"] for key in schemas[index] if key["KeyType"] == "HASH")
        return str(attribute)


def requested(calls: list[Call], resources: Resources) -> set[tuple[str, str, str]]:
    """(function, action, resource ARN) of every authorization the calls need."""
    return {
        (call.function, request.action, request.resource)
        for call in calls
        for request in authorizations(call, resources)
    }


def denied_calls(template: dict[str, Any], calls: list[Call], resources: Resources) -> list[str]:
    """Each authorization of the calls that the function's role in `template` (transformed)
    does not allow, once: the function, the action, the resource, the condition keys, why."""
    statements: dict[str, list[dict[str, Any]]] = {}
    denied: list[str] = []
    for call in calls:
        if call.function not in statements:
            statements[call.function] = function_statements(template, call.function)
        for request in authorizations(call, resources):
            verdict = evaluate(statements[call.function], request)
            line = f"{call.function}: {request.describe()} {verdict.decision.value} ({verdict.why})"
            if not verdict.allowed and line not in denied:
                denied.append(line)
    return denied


def authorizations(call: Call, resources: Resources) -> list[Request]:
    """The authorizations AWS makes for `call` (one per item of a transaction, one per table
    of a batch); UnknownRequest for a request this module does not know how AWS authorizes."""
    if call.service == "dynamodb":
        return _dynamodb(call.operation, call.params, resources)
    if call.service == "sqs":
        if "QueueUrl" not in call.params:
            raise UnknownRequest(f"sqs {call.operation} names no queue")
        action = "sqs:" + _SQS_BATCHES.get(call.operation, call.operation)
        return [Request(action, resources.arn(call.params["QueueUrl"]))]
    if call.service == "events" and call.operation == "PutEvents":
        # Authorized on each entry's bus (an entry naming none goes to the account's
        # default bus, no resource of the template).
        buses = dict.fromkeys(
            entry.get("EventBusName", "default") for entry in call.params["Entries"]
        )
        return [Request("events:PutEvents", resources.arn(bus)) for bus in buses]
    raise UnknownRequest(f"{call.service} {call.operation}: no service this test evaluates")


def _dynamodb(operation: str, params: Mapping[str, Any], resources: Resources) -> list[Request]:
    if operation in _ONE_TABLE:
        return [_item_request(operation, params, resources)]
    if operation in ("TransactWriteItems", "TransactGetItems"):
        requests = []
        for item in params["TransactItems"]:
            ((kind, request),) = item.items()
            requests.append(_item_request(_TRANSACTION_ACTIONS[kind], request, resources))
        return requests
    if operation in ("BatchGetItem", "BatchWriteItem"):
        requests = []
        for table, asked in params["RequestItems"].items():
            if operation == "BatchGetItem":
                keys = asked["Keys"]
            else:  # each write is {"PutRequest": {"Item": ...}} or {"DeleteRequest": {"Key": ...}}
                keys = [
                    next(iter(request.values())) for write in asked for request in write.values()
                ]
            values = _leading(keys, resources.partition_key(table, None))
            action = f"dynamodb:{operation}"
            requests.append(Request(action, resources.arn(table), {_LEADING_KEYS: values}))
        return requests
    raise UnknownRequest(f"dynamodb {operation}: not an operation this test evaluates")


def _item_request(operation: str, params: Mapping[str, Any], resources: Resources) -> Request:
    """One table's (or index's) authorization, with the partition key values it touches."""
    table = params["TableName"]
    index = params.get("IndexName")
    resource = resources.arn(table) + (f"/index/{index}" if index else "")
    key_name = resources.partition_key(table, index)
    context: dict[str, tuple[str, ...]] = {}
    if "Key" in params or "Item" in params:
        context[_LEADING_KEYS] = _leading([params.get("Key", params.get("Item"))], key_name)
    elif operation == "Query":
        context[_LEADING_KEYS] = (_queried_partition(params, key_name),)
    elif operation not in ("Scan", "DescribeTable"):
        raise UnknownRequest(f"dynamodb {operation} with no key: {params}")
    return Request(f"dynamodb:{operation}", resource, context)


def _leading(items: list[Mapping[str, Any]], key_name: str) -> tuple[str, ...]:
    values = []
    for item in items:
        (value,) = item[key_name].values()  # {"S": ...}: the type does not matter here
        values.append(str(value))
    return tuple(dict.fromkeys(values))


def _queried_partition(params: Mapping[str, Any], key_name: str) -> str:
    """The partition key value of a Query's key condition (`#name = :value` or
    `name = :value`, names and values from the request's placeholders)."""
    names = params.get("ExpressionAttributeNames", {})
    for name, placeholder in _EQUALITY.findall(params["KeyConditionExpression"]):
        if names.get(name, name) == key_name:
            (value,) = params["ExpressionAttributeValues"][placeholder].values()
            return str(value)
    raise UnknownRequest(f"no partition key in the key condition of {params}")
