"""Answers of the REST functions (the game Api, Moderation) in api.md's shapes: a JSON body
with its status, and an error as api.md's error body (Retry-After when retrying may help)."""

from typing import Any

from aws_lambda_powertools.event_handler import Response, content_types

from ratings.lambda_support.problems import Problem

JsonObject = dict[str, Any]


def json_response(status: int, body: JsonObject) -> Response[JsonObject]:
    return Response(status_code=status, content_type=content_types.APPLICATION_JSON, body=body)


def problem_response(
    problem: Problem, headers: dict[str, str] | None = None
) -> Response[JsonObject]:
    sent = dict(headers or {})
    if problem.retryable:
        sent["Retry-After"] = "1"
    return Response(
        status_code=problem.status,
        content_type=content_types.APPLICATION_JSON,
        body=problem.body(),
        headers=sent or None,
    )
