"""The local stack of the reliability suite: one per module, everything put back afterwards,
with failed records coming back within seconds. Its table is on moto; a module parametrizes
`stack` (indirectly, with `support.stack.ENGINES`) to run on DynamoDB Local too."""

from collections.abc import Iterator

import pytest
from support.reliability import REDELIVERY_SECONDS
from support.stack import client, running_stack, sqs, sqs_client

from ratings_local.stack import LocalStack

__all__ = ["client", "sqs"]  # the shared fixtures, by name


@pytest.fixture(scope="module")
def stack(request: pytest.FixtureRequest) -> Iterator[LocalStack]:
    with running_stack(dynamodb_local=getattr(request, "param", False)) as local:
        # The template's 181 s (6x the function timeout) is right for Lambda; a test waits
        # REDELIVERY_SECONDS for a failed record to come back. The redrive policy
        # (maxReceiveCount 5) is kept.
        sqs_client(local).set_queue_attributes(
            QueueUrl=local.endpoints()["queues"]["games"],
            Attributes={"VisibilityTimeout": str(REDELIVERY_SECONDS)},
        )
        yield local
