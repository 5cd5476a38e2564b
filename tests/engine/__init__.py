"""Tests on Amazon's DynamoDB Local of what moto does not show: the engine refuses what
DynamoDB refuses, and contends as DynamoDB does.

A package, so that its conftest and helper modules have names of their own.
"""
