"""Fixtures of the template checks: template.yaml as written, and as CloudFormation after the
SAM transform (offline: managed policy names resolve through a stub, never through IAM)."""

import copy
from typing import Any

import pytest
from samtranslator.translator.transform import transform
from support.template import StubPolicyLoader, parsed_template


@pytest.fixture(scope="session")
def template() -> dict[str, Any]:
    return copy.deepcopy(parsed_template())  # the tests' own copy: the cached one stays as read


@pytest.fixture(scope="session")
def transformed(template: dict[str, Any]) -> dict[str, Any]:
    """The CloudFormation template SAM makes of template.yaml."""
    loader: Any = StubPolicyLoader()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("AWS_DEFAULT_REGION", "us-east-1")  # SAM builds ARNs for a partition
        cloudformation: dict[str, Any] = transform(packaged(template), {}, loader)
    return cloudformation


def packaged(template: dict[str, Any]) -> dict[str, Any]:
    """The template as `sam package` hands it over: local code folders become S3 objects."""
    copied = copy.deepcopy(template)
    for resource in copied["Resources"].values():
        properties = resource.get("Properties", {})
        for key in ("CodeUri", "ContentUri"):
            if isinstance(properties.get(key), str):
                properties[key] = f"s3://artifacts/{properties[key].strip('/')}.zip"
    return copied
