"""The answers of the use cases."""

from typing import NamedTuple

from ratings.service.stored import JsonObject


class Submitted(NamedTuple):
    """The answer to a write: the result, and whether this call stored it."""

    result: JsonObject
    created: bool
