"""Fixtures any test directory may ask for: the DynamoDB engines (support.engines). Defined
once here, so that each test worker starts one DynamoDB Local, whichever directories it runs."""

from support.engines import dynamodb_local_url, engine

__all__ = ["dynamodb_local_url", "engine"]  # the shared fixtures, by name
