"""Fixtures of the template checks: template.yaml as written, and as CloudFormation after the
SAM transform (offline: managed policy names resolve through a stub, never through IAM)."""

import copy
from typing import Any

import pytest
from support.template import parsed_template, sam_transform


@pytest.fixture(scope="session")
def template() -> dict[str, Any]:
    return copy.deepcopy(parsed_template())  # the tests' own copy: the cached one stays as read


@pytest.fixture(scope="session")
def transformed(template: dict[str, Any]) -> dict[str, Any]:
    """The CloudFormation template SAM makes of template.yaml."""
    return sam_transform(template)
