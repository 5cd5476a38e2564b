"""Implementations of the storage port: DynamoDB (pynamodb) and an in-memory fake."""
