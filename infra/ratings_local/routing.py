"""Which function API Gateway hands a request to, read from the template's Api events: the
resource a path is on (`http_api.ApiRoutes`: the most literal segments win, as API Gateway
prefers /a/b over /a/{x}), then the method declared on it, else its ANY.

A method whose event says `Auth: Authorizer: AWS_IAM` takes a SigV4-signed request when
deployed; locally it takes the moderation key instead (`http_api.MODERATION_KEY_HEADER`), when
the stack has one.
"""

from collections.abc import Iterable
from typing import NamedTuple

from ratings_local.http_api import ApiRoutes
from ratings_local.template import FunctionSpec


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
        #: The API's resources, which the events name (`resource`, `pathParameters`).
        self.routes = ApiRoutes(self._methods)

    @property
    def functions(self) -> set[str]:
        targets = [target for methods in self._methods.values() for target in methods.values()]
        return {target.logical_id for target in targets}

    def target(self, method: str, path: str) -> Target | None:
        """The function for `method` on `path` (as sent), or None when no resource has it."""
        resource, _parameters = self.routes.match(path)
        methods = self._methods.get(resource, {})
        return methods.get(method.upper()) or methods.get("ANY")
