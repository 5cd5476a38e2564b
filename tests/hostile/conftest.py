"""The local stack of the hostile-input tests: one per module and engine (the table on moto,
then on DynamoDB Local), with an API key and a moderation key configured."""

from support.stack import keyed_stack

__all__ = ["keyed_stack"]  # the shared fixture `stack`, by name
