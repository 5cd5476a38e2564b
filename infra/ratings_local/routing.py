"""Which function API Gateway hands a request to, read from the template's Api events: the
resource a path is on (the one with the most literal segments, as API Gateway prefers
/a/b over /a/{x}), then the method declared on it, else its ANY.

A method whose event says `Auth: Authorizer: AWS_IAM` takes a SigV4-signed request when
deployed; locally it takes the moderation key instead (`x-moderation-key`), when one is set.
"""

import re
from collections.abc import Iterable
from typing import NamedTuple

from ratings_local.template import FunctionSpec

#: The local stand-in for the deployed moderation credential.
MODERATION_KEY_HEADER = "x-moderation-key"


class Target(NamedTuple):
    """Where a request goes: the function's logical id, and whether the method is signed."""

    logical_id: str
    signed: bool = False


class Routing:
    def __init__(self, functions: Iterable[FunctionSpec]) -> None:
        self._methods: dict[str, dict[str, Target]] = {}
        for function in functions:
            for event in function.events:
                if event.kind != "Api":
                    continue
                path, method = str(event.properties["Path"]), str(event.properties["Method"])
                auth = event.properties.get("Auth") or {}
                signed = auth.get("Authorizer") == "AWS_IAM"
                self._methods.setdefault(path, {})[method.upper()] = Target(
                    function.logical_id, signed
                )
        # Most literal segments first: /v1/ladders/{ladder}/games before /{proxy+}.
        self._resources = sorted(
            ((path, _pattern(path)) for path in self._methods),
            key=lambda entry: -sum(not part.startswith("{") for part in entry[0].split("/")),
        )

    @property
    def functions(self) -> set[str]:
        targets = [target for methods in self._methods.values() for target in methods.values()]
        return {target.logical_id for target in targets}

    def target(self, method: str, path: str) -> Target | None:
        """The function for `method` on `path` (as sent), or None when no resource has it."""
        for resource, pattern in self._resources:
            if pattern.fullmatch(path):
                methods = self._methods[resource]
                found = methods.get(method.upper()) or methods.get("ANY")
                if found is not None:
                    return found
        return None


def _pattern(resource: str) -> re.Pattern[str]:
    parts = []
    for segment in resource.strip("/").split("/"):
        if re.fullmatch(r"\{\w+\+\}", segment):
            parts.append(".+")
        elif re.fullmatch(r"\{\w+\}", segment):
            parts.append("[^/]+")
        else:
            parts.append(re.escape(segment))
    return re.compile("/" + "/".join(parts) if parts != [""] else "/")
