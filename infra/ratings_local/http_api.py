"""The local API Gateway: HTTP requests in, REST proxy events to the function of the route
(`ratings_local.routing`: the Api, or Moderation under the moderation key), HTTP out.

The events are what API Gateway's REST API sends a Lambda proxy integration: `resource` the
template's path the request matched (/v1/ladders/{ladder}/players/{player_id}), `path` as the
client sent it (percent-encoded), `pathParameters` decoded, header names as the client wrote
them, the last value of a repeated header or query parameter in `headers` and
`queryStringParameters` and all of them in the `multiValue...` fields, query values decoded
(`+` as a space, as API Gateway decodes them). The body is text, never base64: the API has no
binaryMediaTypes, and API Gateway then reads every body as UTF-8, each byte that is not valid
UTF-8 becoming U+FFFD (the bytes EF BF BD), with `isBase64Encoded` false.

API Gateway's own answers are the template's GatewayResponses, rendered as API Gateway renders
them (`GatewayAnswers`): the API key's 403, and the 502 of a failed invocation (a function
error, a timeout, a result over Lambda's response limit, a malformed proxy response) through
DEFAULT_5XX.

Also serves the local-only routes of api.md: `/_local/endpoints`, `/_local/invoke/{LogicalId}`
`/swagger` and `/openapi.json`.
"""

import base64
import json
import re
import time
import uuid
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime
from functools import cache
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qsl, unquote, urlsplit

from ratings_local.template import DEFAULT_TEMPLATE, read_stack

if TYPE_CHECKING:
    from ratings_local.routing import Routing, Target

#: API Gateway's own payload limit; the Api function enforces the service's 64 KiB.
MAX_PAYLOAD = 10 * 1024 * 1024
JSON: Mapping[str, str] = {"Content-Type": "application/json"}
#: The local stand-in for the deployed moderation credential (a SigV4 signature).
MODERATION_KEY_HEADER = "x-moderation-key"
#: A local-only route's answer: status, headers, body.
LocalAnswer = tuple[int, Mapping[str, str], bytes]
#: Headers as the client sent them: (name, value) pairs, in order, repeats included.
Headers = Iterable[tuple[str, str]]


class ApiRoutes:
    """The REST API's resources, as the template declares them, and which one a path is on."""

    def __init__(self, resources: Iterable[str]) -> None:
        self.resources = sorted(set(resources))
        self._patterns = [(resource, _pattern(resource)) for resource in self.resources]

    def match(self, path: str) -> tuple[str, dict[str, str]]:
        """The resource `path` (percent-encoded, as sent) is on, and its decoded parameters.

        Of the resources that match, the one with the most literal segments wins, as API
        Gateway prefers /a/b over /a/{x}. A path on no resource gets `/{proxy+}` (API
        Gateway answers those itself; here the function answers them).
        """
        best: tuple[int, str, dict[str, str]] | None = None
        for resource, pattern in self._patterns:
            found = pattern.fullmatch(path)
            if found is None:
                continue
            literal = sum(1 for segment in resource.split("/") if not segment.startswith("{"))
            if best is None or literal > best[0]:
                parameters = {name: unquote(value) for name, value in found.groupdict().items()}
                best = (literal, resource, parameters)
        if best is None:
            return "/{proxy+}", {"proxy": unquote(path.lstrip("/"))}
        return best[1], best[2]


def _pattern(resource: str) -> re.Pattern[str]:
    parts = []
    for segment in resource.strip("/").split("/"):
        greedy = re.fullmatch(r"\{(\w+)\+\}", segment)
        single = re.fullmatch(r"\{(\w+)\}", segment)
        if greedy:
            parts.append(f"(?P<{greedy.group(1)}>.+)")
        elif single:
            parts.append(f"(?P<{single.group(1)}>[^/]+)")
        else:
            parts.append(re.escape(segment))
    return re.compile("/" + "/".join(parts))


def proxy_event(
    method: str,
    raw_path: str,
    headers: Headers | Mapping[str, str],
    body: bytes,
    source_ip: str,
    stage: str = "local",
    routes: ApiRoutes | None = None,
) -> dict[str, Any]:
    """An API Gateway REST API (v1) proxy event for one HTTP request."""
    split = urlsplit(raw_path)
    pairs = list(headers.items() if isinstance(headers, Mapping) else headers)
    single_headers: dict[str, str] = {}
    multi_headers: dict[str, list[str]] = {}
    for name, value in pairs:
        single_headers[name] = value
        multi_headers.setdefault(name, []).append(value)
    query: dict[str, list[str]] = {}
    for name, value in parse_qsl(split.query, keep_blank_values=True):
        query.setdefault(name, []).append(value)
    # No binaryMediaTypes: text, what is not UTF-8 replaced, never base64 (module docstring).
    text = body.decode("utf-8", errors="replace") if body else None
    path = split.path or "/"
    resource, parameters = (routes or ApiRoutes([])).match(path)
    now = datetime.now(UTC)
    return {
        "resource": resource,
        "path": path,
        "httpMethod": method,
        "headers": single_headers or None,
        "multiValueHeaders": multi_headers or None,
        "queryStringParameters": {name: values[-1] for name, values in query.items()} or None,
        "multiValueQueryStringParameters": query or None,
        "pathParameters": parameters or None,
        "stageVariables": None,
        "requestContext": {
            "accountId": "123456789012",
            "apiId": "local",
            "domainName": _header(pairs, "host") or "127.0.0.1",
            "domainPrefix": (_header(pairs, "host") or "127").split(".")[0],
            "extendedRequestId": uuid.uuid4().hex[:16],
            "httpMethod": method,
            "path": f"/{stage}{path}",
            "protocol": "HTTP/1.1",
            "requestId": str(uuid.uuid4()),
            "requestTime": now.strftime("%d/%b/%Y:%H:%M:%S +0000"),
            "requestTimeEpoch": int(time.time() * 1000),
            "resourceId": "local",
            "resourcePath": resource,
            "stage": stage,
            "identity": {
                "sourceIp": source_ip,
                "userAgent": _header(pairs, "user-agent"),
                "apiKey": _header(pairs, "x-api-key"),
                "accessKey": None,
                "accountId": None,
                "caller": None,
                "user": None,
                "userArn": None,
            },
        },
        "body": text,
        "isBase64Encoded": False,
    }


def _header(pairs: Iterable[tuple[str, str]], name: str) -> str | None:
    """The last value of header `name`, whatever its case."""
    found = None
    for key, value in pairs:
        if key.lower() == name:
            found = value
    return found


class GatewayAnswers:
    """API Gateway's own answers, from the template's GatewayResponses: the type's status
    (else the one API Gateway gives it), headers, and body template with
    `$context.error.messageString` filled in (API Gateway's message, quoted as JSON)."""

    def __init__(self, responses: Mapping[str, Any]) -> None:
        self._responses = responses

    def answer(self, kind: str, status: int, message: str) -> LocalAnswer:
        fallback = "DEFAULT_4XX" if status < 500 else "DEFAULT_5XX"
        response = self._responses.get(kind) or self._responses.get(fallback) or {}
        headers = {
            name: str(value).strip("'")
            for name, value in response.get("ResponseParameters", {}).get("Headers", {}).items()
        }
        template = response.get("ResponseTemplates", {}).get("application/json")
        quoted = json.dumps(message)
        body = template.replace("$context.error.messageString", quoted) if template else None
        return (
            int(response.get("StatusCode", status)),
            {**JSON, **headers},
            (body or json.dumps({"message": message})).encode(),
        )


@cache
def template_answers() -> GatewayAnswers:
    """The project template's answers, read once."""
    return GatewayAnswers(read_stack(DEFAULT_TEMPLATE).gateway_responses)


class LocalApiServer(ThreadingHTTPServer):
    """Threaded: concurrent requests are concurrent invocations, as API Gateway makes them."""

    daemon_threads = True
    # socketserver's default backlog is 5: a burst of concurrent clients on a busy machine can
    # overflow it, and a connection the kernel then drops is reset under the client (API
    # Gateway would answer it). A test run saw such a reset in a 16-client burst.
    request_queue_size = 128

    def __init__(
        self,
        address: tuple[str, int],
        invoke_api: "Callable[[Target, dict[str, Any]], Any]",
        local_routes: Callable[[str, str, bytes], LocalAnswer | None],
        api_key: str | None,
        routing: "Routing",
        moderation_key: str | None = None,
        answers: GatewayAnswers | None = None,
    ) -> None:
        super().__init__(address, _Handler)
        self.answers = answers or template_answers()
        self.invoke_api = invoke_api
        self.local_routes = local_routes
        self.api_key = api_key
        self.routing = routing
        self.routes = routing.routes
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
        sent = list(self.headers.items())  # names as the client wrote them
        if self.server.api_key is not None and _header(sent, "x-api-key") != self.server.api_key:
            self._respond(*self.server.answers.answer("INVALID_API_KEY", 403, "Forbidden"))
            return
        target = self.server.routing.target(self.command, urlsplit(self.path).path or "/")
        if target is None:
            self._error(404, "not_found", f"no route {self.command} {self.path}")
            return
        key = self.server.moderation_key
        if target.signed and key is not None and _header(sent, MODERATION_KEY_HEADER) != key:
            message = f"this route takes the moderation key in the {MODERATION_KEY_HEADER} header"
            self._error(403, "forbidden", message)
            return
        event = proxy_event(
            self.command, self.path, sent, body, self.client_address[0], routes=self.server.routes
        )
        try:
            response = self.server.invoke_api(target, event)
        except Exception as error:  # the invocation failed (or timed out): API Gateway answers 502
            print(f"[api] {self.command} {self.path}: the invocation failed: {error}", flush=True)
            self._internal_error()
            return
        self._send_proxy_response(response)

    def _internal_error(self) -> None:
        """A function error or a malformed proxy response: API Gateway's 502, DEFAULT_5XX."""
        self._respond(*self.server.answers.answer("DEFAULT_5XX", 502, "Internal server error"))

    def _send_proxy_response(self, response: Any) -> None:
        if not isinstance(response, dict) or "statusCode" not in response:
            print(f"[api] {self.command} {self.path}: malformed proxy response", flush=True)
            self._internal_error()
            return
        headers = dict(response.get("headers") or {})
        for name, values in (response.get("multiValueHeaders") or {}).items():
            if values:
                headers[name] = ", ".join(str(value) for value in values)
        body = response.get("body") or ""
        payload = base64.b64decode(body) if response.get("isBase64Encoded") else body.encode()
        self._respond(int(response["statusCode"]), headers, payload)
