"""Integration tests of the DynamoDB storage adapter, against moto's in-process DynamoDB.

A package (unlike tests/unit and tests/service) so that its conftest and helper modules have
their own names ("integration.conftest") and never clash with another directory's.
"""
