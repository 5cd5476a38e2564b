"""The local API Gateway: HTTP requests in, REST proxy events to the function of the route
(`ratings_local.routing`: the Api, or Moderation under the moderation key), HTTP out.

Also serves the local-only routes of api.md: `/_local/endpoints`, `/_local/invoke/{LogicalId}`
`/swagger` and `/openapi.json`.
"""

import base64
import json
import time
import uuid
from collections.abc import Callable, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from ratings_local.routing import MODERATION_KEY_HEADER, Routing, Target

#: API Gateway's own payload limit; the Api function enforces the service's 64 KiB.
MAX_PAYLOAD = 10 * 1024 * 1024
JSON: Mapping[str, str] = {"Content-Type": "application/json"}
#: A local-only route's answer: status, headers, body.
LocalAnswer = tuple[int, Mapping[str, str], bytes]


def proxy_event(
    method: str,
    raw_path: str,
    headers: Mapping[str, str],
    body: bytes,
    source_ip: str,
    stage: str = "local",
) -> dict[str, Any]:
    """An API Gateway REST API (v1) proxy event for one HTTP request."""
    split = urlsplit(raw_path)
    query = parse_qs(split.query, keep_blank_values=True)
    single_headers = dict(headers)
    multi_headers: dict[str, list[str]] = {}
    for name, value in headers.items():
        multi_headers.setdefault(name, []).append(value)
    text: str | None = None
    encoded = False
    if body:
        try:
            text = body.decode("utf-8")
        except UnicodeDecodeError:
            text, encoded = base64.b64encode(body).decode(), True
    request_id = str(uuid.uuid4())
    path = split.path or "/"
    return {
        "resource": path,
        "path": path,
        "httpMethod": method,
        "headers": single_headers or None,
        "multiValueHeaders": multi_headers or None,
        "queryStringParameters": {key: values[-1] for key, values in query.items()} or None,
        "multiValueQueryStringParameters": query or None,
        "pathParameters": None,
        "stageVariables": None,
        "requestContext": {
            "accountId": "123456789012",
            "apiId": "local",
            "domainName": headers.get("Host", "127.0.0.1"),
            "httpMethod": method,
            "path": f"/{stage}{path}",
            "protocol": "HTTP/1.1",
            "requestId": request_id,
            "requestTimeEpoch": int(time.time() * 1000),
            "resourcePath": path,
            "stage": stage,
            "identity": {"sourceIp": source_ip, "apiKey": headers.get("x-api-key")},
        },
        "body": text,
        "isBase64Encoded": encoded,
    }


class LocalApiServer(ThreadingHTTPServer):
    """Threaded: concurrent requests run concurrently, as Lambda would run them."""

    daemon_threads = True

    def __init__(
        self,
        address: tuple[str, int],
        invoke_api: Callable[[Target, dict[str, Any]], Any],
        local_routes: Callable[[str, str, bytes], LocalAnswer | None],
        api_key: str | None,
        routing: Routing,
        moderation_key: str | None = None,
    ) -> None:
        super().__init__(address, _Handler)
        self.invoke_api = invoke_api
        self.local_routes = local_routes
        self.api_key = api_key
        self.routing = routing
        self.moderation_key = moderation_key


class _Handler(BaseHTTPRequestHandler):
    server: LocalApiServer
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        pass  # the stack prints one line per request of its own choosing: none

    def _respond(self, status: int, headers: Mapping[str, str], body: bytes) -> None:
        self.send_response(status)
        for name, value in headers.items():
            if name.lower() not in ("content-length", "connection", "transfer-encoding"):
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _error(self, status: int, code: str, message: str) -> None:
        body = json.dumps({"error": {"code": code, "message": message}}).encode()
        self._respond(status, JSON, body)

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """http.server's own refusals (a malformed request line, headers too long) as JSON."""
        self.close_connection = True
        codes = {400: "invalid_request", 414: "uri_too_long", 431: "headers_too_large"}
        text = message or self.responses.get(code, ("error",))[0]
        self._error(code, codes.get(code, "bad_request" if code < 500 else "internal_error"), text)

    def __getattr__(self, name: str) -> Any:
        # http.server answers a method without a do_<METHOD> with an HTML 501; every method
        # (TRACE, CONNECT, made-up ones) goes to the Api instead: 405 on a known route.
        if name.startswith("do_"):
            return self._handle
        raise AttributeError(name)

    def _handle(self) -> None:
        length_header = self.headers.get("Content-Length", "0")
        try:
            length = int(length_header)
        except ValueError:
            self._error(400, "invalid_request", "Content-Length must be an integer")
            return
        if length > MAX_PAYLOAD:
            self.close_connection = True
            self._error(413, "payload_too_large", "request bodies are limited to 10 MiB")
            return
        body = self.rfile.read(length) if length > 0 else b""
        local = self.server.local_routes(self.command, self.path, body)
        if local is not None:
            self._respond(*local)
            return
        lowered = {name.lower(): value for name, value in self.headers.items()}
        if self.server.api_key is not None and lowered.get("x-api-key") != self.server.api_key:
            self._error(403, "forbidden", "send a valid API key in the x-api-key header")
            return
        target = self.server.routing.target(self.command, urlsplit(self.path).path or "/")
        if target is None:
            self._error(404, "not_found", f"no route {self.command} {self.path}")
            return
        key = self.server.moderation_key
        if target.signed and key is not None and lowered.get(MODERATION_KEY_HEADER) != key:
            message = f"this route takes the moderation key in the {MODERATION_KEY_HEADER} header"
            self._error(403, "forbidden", message)
            return
        event = proxy_event(self.command, self.path, lowered, body, self.client_address[0])
        try:
            response = self.server.invoke_api(target, event)
        except Exception as error:  # the function crashed: API Gateway answers 502
            self._error(502, "bad_gateway", f"the Api function failed: {type(error).__name__}")
            return
        self._send_proxy_response(response)

    def _send_proxy_response(self, response: Any) -> None:
        if not isinstance(response, dict) or "statusCode" not in response:
            self._error(502, "bad_gateway", "the Api function returned no proxy response")
            return
        headers = dict(response.get("headers") or {})
        for name, values in (response.get("multiValueHeaders") or {}).items():
            if values:
                headers[name] = ", ".join(str(value) for value in values)
        body = response.get("body") or ""
        payload = base64.b64decode(body) if response.get("isBase64Encoded") else body.encode()
        self._respond(int(response["statusCode"]), headers, payload)
