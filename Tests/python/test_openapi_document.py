"""Public/openapi.json on its own: its examples match its schemas. (The Swift test
OpenAPIDocumentTests keeps its paths true to the API's route table, WebServices.routeTable; the
end-to-end tests check every response they get against it.)"""

from __future__ import annotations

import json
from typing import Any, Iterator

import jsonschema
import pytest

from cumulus_server import PACKAGE_ROOT

DOCUMENT = json.loads((PACKAGE_ROOT / "Public" / "openapi.json").read_text())


def escape(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def examples(node: Any, pointer: str = "#") -> Iterator[tuple[str, str, Any]]:
    """(where, schema pointer, example) for media-type examples and schema `examples`."""
    if isinstance(node, dict):
        if "schema" in node and "example" in node:
            yield pointer, f"{pointer}/schema", node["example"]
        if isinstance(node.get("examples"), list) and ("type" in node or "properties" in node):
            for index, example in enumerate(node["examples"]):
                yield f"{pointer}/examples/{index}", pointer, example
        for key, value in node.items():
            yield from examples(value, f"{pointer}/{escape(key)}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from examples(value, f"{pointer}/{index}")


EXAMPLES = list(examples(DOCUMENT))


def test_the_document_has_examples() -> None:
    assert len(EXAMPLES) >= 8


@pytest.mark.parametrize("where,schema_pointer,example", EXAMPLES, ids=[where for where, _, _ in EXAMPLES])
def test_example_matches_its_schema(where: str, schema_pointer: str, example: Any) -> None:
    schema = dict(DOCUMENT, **{"$ref": schema_pointer})
    jsonschema.Draft202012Validator(schema).validate(example)


def test_error_codes_and_statuses_are_cloudkits() -> None:
    codes = set(DOCUMENT["components"]["schemas"]["ServerErrorCode"]["enum"])
    assert codes == {
        "ACCESS_DENIED", "ATOMIC_ERROR", "AUTHENTICATION_FAILED", "AUTHENTICATION_REQUIRED", "BAD_REQUEST",
        "CHANGE_TOKEN_EXPIRED", "CONFLICT", "EXISTS", "INTERNAL_ERROR", "NOT_FOUND", "QUOTA_EXCEEDED", "THROTTLED", "TRY_AGAIN_LATER",
        "VALIDATING_REFERENCE_ERROR", "ZONE_NOT_FOUND",
    }
    # Each status names the codes CloudKit documents for it.
    expected = {
        "400": {"BAD_REQUEST", "ATOMIC_ERROR", "CHANGE_TOKEN_EXPIRED"}, "401": {"AUTHENTICATION_FAILED"}, "403": {"ACCESS_DENIED"},
        "404": {"NOT_FOUND", "ZONE_NOT_FOUND"}, "409": {"CONFLICT", "EXISTS"}, "412": {"VALIDATING_REFERENCE_ERROR"},
        "413": {"QUOTA_EXCEEDED"}, "421": {"AUTHENTICATION_REQUIRED"}, "429": {"THROTTLED"},
        "500": {"INTERNAL_ERROR"}, "503": {"TRY_AGAIN_LATER"},
    }
    operation = DOCUMENT["paths"]["/database/1/{container}/{environment}/{database}/records/modify"]["post"]
    for status, codes_for_status in expected.items():
        name = operation["responses"][status]["$ref"].rsplit("/", 1)[1]
        schema = DOCUMENT["components"]["responses"][name]["content"]["application/json"]["schema"]
        found = json.dumps(schema)
        for code in codes - codes_for_status:
            assert f'"{code}"' not in found, (status, code)
        for code in codes_for_status:
            assert f'"{code}"' in found, (status, code)
