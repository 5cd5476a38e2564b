"""Local transaction latency: TransactWriteItems at 1,000 and at 50,000 items in the table.

Runs the emulated AWS the local stack uses (moto's server, serialized, fast transactions) and,
for comparison in the same run, stock moto's TransactWriteItems on the same server. Prints the
mean latency per transaction at both sizes and the 50,000/1,000 ratio (target <= 1.5x).

    python -m benchmarks.local_transactions [--stock-repeats N]
"""

import argparse
import os
import statistics
import time
from typing import Any

import boto3
from moto.dynamodb.models import DynamoDBBackend

from ratings_local.aws import EmulatedAws, transact_write_items

SIZES = (1_000, 50_000)
TABLE = "bench"


def fill(client: Any, start: int, stop: int) -> None:
    batch = []
    for number in range(start, stop):
        item = {"pk": {"S": f"P#{number}"}, "sk": {"S": "STATE"}, "rating": {"N": "1500"}}
        batch.append({"PutRequest": {"Item": item}})
        if len(batch) == 25:
            client.batch_write_item(RequestItems={TABLE: batch})
            batch = []
    if batch:
        client.batch_write_item(RequestItems={TABLE: batch})


def transaction(number: int) -> list[dict[str, Any]]:
    """The shape of rating one game: two conditional state writes, two events, one game."""
    game = f"g-{number}-{time.perf_counter_ns()}"
    return [
        {
            "Put": {
                "TableName": TABLE,
                "Item": {"pk": {"S": f"G#{game}"}, "sk": {"S": "GAME"}},
                "ConditionExpression": "attribute_not_exists(pk)",
            }
        },
        *(
            {
                "Update": {
                    "TableName": TABLE,
                    "Key": {"pk": {"S": f"P#{player}"}, "sk": {"S": "STATE"}},
                    "UpdateExpression": "SET rating = rating + :d",
                    "ConditionExpression": "attribute_exists(pk)",
                    "ExpressionAttributeValues": {":d": {"N": "1"}},
                }
            }
            for player in (1, 2)
        ),
        *(
            {"Put": {"TableName": TABLE, "Item": {"pk": {"S": f"P#{p}"}, "sk": {"S": f"E#{game}"}}}}
            for p in (1, 2)
        ),
    ]


def mean_latency(client: Any, repeats: int) -> float:
    samples = []
    for number in range(repeats):
        started = time.perf_counter()
        client.transact_write_items(TransactItems=transaction(number))
        samples.append(time.perf_counter() - started)
    return statistics.mean(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=200, help="transactions per size")
    parser.add_argument("--stock-repeats", type=int, default=3, help="stock moto, per size")
    args = parser.parse_args()
    os.environ.setdefault("AWS_ACCESS_KEY_ID", "bench")
    os.environ.setdefault("AWS_SECRET_ACCESS_KEY", "bench")
    stock = DynamoDBBackend.transact_write_items  # moto's own, before the stack replaces it
    aws = EmulatedAws()
    url = aws.start()
    client = boto3.client("dynamodb", endpoint_url=url, region_name="us-east-1")
    client.create_table(
        TableName=TABLE,
        AttributeDefinitions=[
            {"AttributeName": "pk", "AttributeType": "S"},
            {"AttributeName": "sk", "AttributeType": "S"},
        ],
        KeySchema=[
            {"AttributeName": "pk", "KeyType": "HASH"},
            {"AttributeName": "sk", "KeyType": "RANGE"},
        ],
        BillingMode="PAY_PER_REQUEST",
    )
    implementations = {"local stack": transact_write_items, "stock moto": stock}
    repeats = {"local stack": args.repeats, "stock moto": args.stock_repeats}
    results: dict[str, dict[int, float]] = {name: {} for name in implementations}
    filled = 0
    for size in SIZES:
        fill(client, filled, size)
        filled = size
        for name, implementation in implementations.items():
            DynamoDBBackend.transact_write_items = implementation  # type: ignore[method-assign]
            results[name][size] = mean_latency(client, repeats[name])
        DynamoDBBackend.transact_write_items = transact_write_items  # type: ignore[method-assign]
    aws.stop()
    print("TransactWriteItems latency (5 items per transaction, mean)")
    print(f"{'implementation':<14} {'1,000 items':>12} {'50,000 items':>13} {'ratio':>7}")
    for name, by_size in results.items():
        if len(by_size) < len(SIZES):
            print(f"{name:<14} (not measured)")
            continue
        small, large = (by_size[size] for size in SIZES)
        print(f"{name:<14} {small * 1000:>9.2f} ms {large * 1000:>10.2f} ms {large / small:>6.2f}x")
    print("target: local stack ratio <= 1.5x")


if __name__ == "__main__":
    main()
