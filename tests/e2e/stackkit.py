"""Helpers of the end-to-end tests: an HTTP client for the local API, and waiting."""

import json
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass
class Client:
    api_url: str
    api_key: str | None = None

    def call(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        data = None if body is None else json.dumps(body).encode()
        headers = {"content-type": "application/json"}
        if self.api_key is not None:
            headers["x-api-key"] = self.api_key
        request = urllib.request.Request(self.api_url + path, data, headers, method=method)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                status, raw = response.status, response.read()
        except urllib.error.HTTPError as error:
            status, raw = error.code, error.read()
        try:
            return status, json.loads(raw)
        except ValueError:
            return status, raw.decode(errors="replace")


def wait_for(condition: Callable[[], Any], timeout: float = 30.0) -> Any:
    """Poll `condition` until it returns something truthy (consumers run in the background)."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"condition not met within {timeout} s")
        time.sleep(0.2)
