"""The local stack of the hostile-input tests: one per module, with an API key configured."""

from collections.abc import Iterator

import pytest
from support.http import API_KEY
from support.stack import running_stack

from ratings_local.stack import LocalStack


@pytest.fixture(scope="module")
def stack() -> Iterator[LocalStack]:
    with running_stack(api_key=API_KEY) as local:
        yield local
