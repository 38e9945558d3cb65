"""Checks HTTP responses against Public/openapi.json: the status is documented for the operation,
and a JSON body matches the documented schema (JSON Schema 2020-12, as OpenAPI 3.1 uses).

    document = OpenAPIDocument.load(path)
    document.check(response)          # raises ResponseMismatch

A session hook (`document.hook`) checks every response a test receives, so each end-to-end test
also keeps the document true. Paths the document does not describe are not checked.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Optional
from urllib.parse import urlsplit

import jsonschema
import requests


class ResponseMismatch(AssertionError):
    """A response the OpenAPI document does not allow."""


def _pointer(*keys: str) -> str:
    return "#/" + "/".join(key.replace("~", "~0").replace("/", "~1") for key in keys)


class OpenAPIDocument:
    def __init__(self, document: dict[str, Any]):
        self.document = document
        self._templates = [
            (re.compile("^" + re.sub(r"\\\{[^/]+?\\\}", "[^/]+", re.escape(path)) + "$"), path)
            for path in document["paths"]
        ]
        self.checked = 0

    @classmethod
    def load(cls, path: Path) -> "OpenAPIDocument":
        return cls(json.loads(Path(path).read_text()))

    def template(self, path: str) -> Optional[str]:
        """The documented path template a concrete path matches."""
        for pattern, template in self._templates:
            if pattern.match(path):
                return template
        return None

    def _resolve(self, node: dict[str, Any]) -> dict[str, Any]:
        while "$ref" in node:
            target: Any = self.document
            for key in node["$ref"].removeprefix("#/").split("/"):
                target = target[key.replace("~1", "/").replace("~0", "~")]
            node = target
        return node

    def check(self, response: requests.Response) -> None:
        """Raises ResponseMismatch unless the document allows the response."""
        request = response.request
        path = urlsplit(request.url).path
        template = self.template(path)
        if template is None:
            return
        method = request.method.lower()
        operation = self.document["paths"][template].get(method)
        if operation is None:
            # The server answers 405 for a method the document does not list; not an operation.
            if response.status_code != 405:
                raise ResponseMismatch(f"{request.method} {path}: {response.status_code} for an undocumented method")
            return
        status = str(response.status_code)
        if status not in operation["responses"]:
            raise ResponseMismatch(
                f"{request.method} {template}: status {status} is not documented "
                f"({sorted(operation['responses'])}); body {response.text[:500]}"
            )
        documented = self._resolve(operation["responses"][status])
        content = documented.get("content")
        self.checked += 1
        if not content or not response.content:
            return
        media = response.headers.get("Content-Type", "").split(";")[0].strip()
        if media not in content:
            raise ResponseMismatch(f"{request.method} {template}: content type {media!r} is not documented")
        reference = operation["responses"][status].get("$ref")
        response_pointer = reference or _pointer("paths", template, method, "responses", status)
        schema_pointer = response_pointer + "/" + _pointer("content", media, "schema").removeprefix("#/")
        try:
            body = response.json()
        except ValueError as error:
            raise ResponseMismatch(f"{request.method} {template}: body is not JSON: {error}") from None
        # The whole document is the schema's root, so `#/components/...` references resolve.
        schema = dict(self.document, **{"$ref": schema_pointer})
        validator = jsonschema.Draft202012Validator(schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER)
        errors = sorted(validator.iter_errors(body), key=lambda error: list(error.absolute_path))
        if errors:
            details = "; ".join(f"{list(error.absolute_path)}: {error.message[:300]}" for error in errors[:5])
            raise ResponseMismatch(f"{request.method} {template} {status} violates the document: {details}")

    def hook(self, response: requests.Response, *args: Any, **kwargs: Any) -> requests.Response:
        """A `requests` response hook running `check`."""
        self.check(response)
        return response

