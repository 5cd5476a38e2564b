"""The failures the emulated AWS can inject: into DynamoDB requests (`EmulatedAws.faults`):
throttling, a transaction conflict, an internal error before or after the request ran, each
answered as DynamoDB answers it; and into EventBridge's PutEvents (`EmulatedAws.bus_faults`):
the bus throttling a whole request, or some of its entries, as EventBridge answers it."""

import json
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

#: The failures `FaultPlan` can inject into DynamoDB requests.
FAULT_KINDS = ("throttle", "conflict", "internal", "internal_after")


@dataclass
class FaultPlan:
    """Transient DynamoDB failures to inject at random requests (tests and fault drills).

    - throttle: ProvisionedThroughputExceededException, nothing done;
    - conflict: a TransactWriteItems cancelled with TransactionConflict, nothing done;
    - internal: InternalServerError, nothing done;
    - internal_after: the request IS carried out, then answered InternalServerError, so the
      caller cannot know whether it landed (the case exactly-once has to survive).
    """

    rate: float
    kinds: tuple[str, ...] = FAULT_KINDS
    seed: int = 0
    injected: dict[str, int] = field(default_factory=dict)
    _rng: random.Random = field(init=False, repr=False)

    def __post_init__(self) -> None:
        unknown = set(self.kinds) - set(FAULT_KINDS)
        if unknown or not 0 <= self.rate <= 1:
            raise ValueError(f"faults: rate in [0, 1], kinds among {FAULT_KINDS}")
        self._rng = random.Random(self.seed)

    def draw(self, operation: str) -> str | None:
        if self._rng.random() >= self.rate:
            return None
        kinds = [k for k in self.kinds if k != "conflict" or operation == "TransactWriteItems"]
        kind = self._rng.choice(kinds) if kinds else None
        if kind is not None:
            self.injected[kind] = self.injected.get(kind, 0) + 1
        return kind


def fault_response(kind: str, start_response: Callable[..., Any]) -> list[bytes]:
    error: dict[str, Any]
    if kind == "throttle":
        status, error = (
            "400 Bad Request",
            {
                "__type": "com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException",
                "message": "injected: throughput exceeded",
            },
        )
    elif kind == "conflict":
        status, error = (
            "400 Bad Request",
            {
                "__type": "com.amazonaws.dynamodb.v20120810#TransactionCanceledException",
                "message": "Transaction cancelled, please refer cancellation reasons for specific "
                "reasons [TransactionConflict]",
                "CancellationReasons": [{"Code": "TransactionConflict", "Message": "injected"}],
            },
        )
    else:
        status, error = (
            "500 Internal Server Error",
            {
                "__type": "com.amazonaws.dynamodb.v20120810#InternalServerError",
                "message": "injected: internal server error",
            },
        )
    body = json.dumps(error).encode()
    start_response(
        status,
        [("Content-Type", "application/x-amz-json-1.0"), ("Content-Length", str(len(body)))],
    )
    return [body]


#: The failures `BusFaults` can inject into PutEvents.
BUS_FAULT_KINDS = ("throttle", "partial")


@dataclass
class BusFaults:
    """EventBridge throttling to inject at random PutEvents requests.

    - throttle: the whole request refused with ThrottlingException (400), nothing put;
    - partial: the request answered 200 with some entries failed (`ErrorCode`
      ThrottlingException, counted in FailedEntryCount) and only the others put, which is how
      EventBridge reports entries past the account's rate.
    """

    rate: float
    kinds: tuple[str, ...] = BUS_FAULT_KINDS
    seed: int = 0
    injected: dict[str, int] = field(default_factory=dict)
    #: Entries refused in partial answers, in all.
    entries_refused: int = 0
    _rng: random.Random = field(init=False, repr=False)

    def __post_init__(self) -> None:
        unknown = set(self.kinds) - set(BUS_FAULT_KINDS)
        if unknown or not 0 <= self.rate <= 1:
            raise ValueError(f"bus faults: rate in [0, 1], kinds among {BUS_FAULT_KINDS}")
        self._rng = random.Random(self.seed)

    def draw(self) -> str | None:
        if self._rng.random() >= self.rate:
            return None
        kind = self._rng.choice(self.kinds)
        self.injected[kind] = self.injected.get(kind, 0) + 1
        return kind

    def refused(self, entries: int) -> list[int]:
        """The positions of a partial answer's failed entries: at least one."""
        chosen = [position for position in range(entries) if self._rng.random() < 0.5]
        chosen = chosen or [self._rng.randrange(entries)]
        self.entries_refused += len(chosen)
        return chosen


def throttled_response(start_response: Callable[..., Any]) -> list[bytes]:
    """EventBridge's answer to a request refused as a whole for its rate."""
    body = json.dumps(
        {"__type": "ThrottlingException", "message": "injected: rate exceeded"}
    ).encode()
    start_response(
        "400 Bad Request",
        [("Content-Type", "application/x-amz-json-1.1"), ("Content-Length", str(len(body)))],
    )
    return [body]


def partial_response(
    answered: dict[str, Any], refused: list[int], total: int, start_response: Callable[..., Any]
) -> list[bytes]:
    """The answer to a PutEvents of `total` entries of which `refused` were not put: moto's
    answer for the others (`answered`, in their order) with the refused ones in their places."""
    put = iter(answered.get("Entries", []))
    entries = [
        {"ErrorCode": "ThrottlingException", "ErrorMessage": "injected: rate exceeded"}
        if position in refused
        else next(put)
        for position in range(total)
    ]
    failed = sum(1 for entry in entries if "ErrorCode" in entry)
    body = json.dumps({"FailedEntryCount": failed, "Entries": entries}).encode()
    start_response(
        "200 OK",
        [("Content-Type", "application/x-amz-json-1.1"), ("Content-Length", str(len(body)))],
    )
    return [body]
