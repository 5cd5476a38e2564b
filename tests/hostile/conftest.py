"""The local stack of the hostile-input tests: one per module, with an API key configured."""

from collections.abc import Iterator

import pytest

from ratings_local.stack import LocalStack

from .hostilekit import running_stack


@pytest.fixture(scope="module")
def stack() -> Iterator[LocalStack]:
    with running_stack() as local:
        yield local
