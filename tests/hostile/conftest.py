"""The local stack of the hostile-input tests: one per module and engine (the table on moto,
then on DynamoDB Local), with an API key and a moderation key configured."""

from collections.abc import Iterator

import pytest
from support.http import API_KEY, MODERATION_KEY
from support.stack import ENGINES, running_stack

from ratings_local.stack import LocalStack


@pytest.fixture(scope="module", params=ENGINES)
def stack(request: pytest.FixtureRequest) -> Iterator[LocalStack]:
    with running_stack(
        api_key=API_KEY, moderation_key=MODERATION_KEY, dynamodb_local=request.param
    ) as local:
        yield local
