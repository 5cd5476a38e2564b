"""What importing a handler costs: a cold start loads only what every request needs.

Measured in a fresh interpreter, like a new Lambda container: no client is made and no AWS
SDK session exists until a request needs one, the X-Ray SDK stays out while nothing is traced,
and the OpenAPI document's models load only for /swagger.
"""

import json
import subprocess
import sys

import pytest

from .lambdakit import ROOT

IMPORT_AND_REPORT = """
import importlib.util, json, sys
spec = importlib.util.spec_from_file_location("handler", sys.argv[1])
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
print(json.dumps(sorted(sys.modules)))
"""
#: Loaded by the first request that needs them, never by the import.
DEFERRED = {
    "boto3",  # the SQS client of the queue functions
    "botocore.session",  # any AWS client
    "pynamodb",  # the table, when the service is built
    "aws_xray_sdk.core",  # only where tracing is on
    "aws_lambda_powertools.event_handler.openapi.models",  # only for /swagger
}
#: The queue functions have no use for pydantic at all.
NOT_FOR_QUEUES = {"pydantic"}


@pytest.mark.parametrize("function", ["api", "games_queue", "award_podiums"])
def test_importing_a_handler_defers_clients_and_heavy_modules(function: str) -> None:
    env = {"PATH": "", "POWERTOOLS_SERVICE_NAME": "elo-ratings", "AWS_DEFAULT_REGION": "us-east-1"}
    path = ROOT / "functions" / function / "app.py"

    result = subprocess.run(
        [sys.executable, "-c", IMPORT_AND_REPORT, str(path)],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )

    loaded = set(json.loads(result.stdout))
    unwanted = DEFERRED | (NOT_FOR_QUEUES if function != "api" else set())
    assert loaded & unwanted == set()
