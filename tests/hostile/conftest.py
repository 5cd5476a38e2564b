"""The local stack of the hostile-input tests: one per module, with an API key and a
moderation key configured."""

from collections.abc import Iterator

import pytest
from support.http import API_KEY, MODERATION_KEY
from support.stack import running_stack

from ratings_local.stack import LocalStack


@pytest.fixture(scope="module")
def stack() -> Iterator[LocalStack]:
    with running_stack(api_key=API_KEY, moderation_key=MODERATION_KEY) as local:
        yield local
