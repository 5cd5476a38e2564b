"""Swagger UI over the OpenAPI document, for the local stack's /swagger (never deployed).

The page and its assets come from the swagger-ui-py package (Swagger UI 5, which reads OpenAPI
3.1), served from disk: no CDN, so it works offline. The page loads /openapi.json, whose
`servers` is the local API, so "Try it out" calls the stack itself.
"""

import json
import mimetypes
from functools import cache
from pathlib import Path

import swagger_ui

#: Where the package keeps Swagger UI's built files.
ASSETS = Path(swagger_ui.__file__).resolve().parent / "static"
#: The files the page needs; nothing else of the package's folder is served.
SERVED = ("swagger-ui.css", "index.css", "swagger-ui-bundle.js", "swagger-ui-standalone-preset.js")
PAGE = """<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>{title}</title>
  <link rel="stylesheet" href="/swagger/swagger-ui.css">
  <link rel="stylesheet" href="/swagger/index.css">
</head>
<body>
  <div id="swagger-ui"></div>
  <script src="/swagger/swagger-ui-bundle.js"></script>
  <script src="/swagger/swagger-ui-standalone-preset.js"></script>
  <script>
    window.ui = SwaggerUIBundle({{
      url: {document_url},
      dom_id: "#swagger-ui",
      deepLinking: true,
      persistAuthorization: true,
      presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
      layout: "StandaloneLayout",
    }});
  </script>
</body>
</html>
"""


def page(title: str = "Elo ratings", document_url: str = "/openapi.json") -> bytes:
    return PAGE.format(title=title, document_url=json.dumps(document_url)).encode()


@cache
def asset(name: str) -> tuple[str, bytes] | None:
    """(content type, bytes) of one of Swagger UI's files, or None for any other name."""
    if name not in SERVED:
        return None
    content_type = mimetypes.guess_type(name)[0] or "application/octet-stream"
    return content_type, (ASSETS / name).read_bytes()
