"""Bad input gets CloudKit's error JSON with the right status, never a 5xx; lenient input is accepted."""

from __future__ import annotations

from typing import Any, Optional

import pytest
import requests

from cumulus_deployment import Deployment


def expect_error(response: requests.Response, status: int, code: str, reason_contains: Optional[str] = None) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["Content-Type"].split(";")[0] == "application/json"
    body = response.json()
    assert body["serverErrorCode"] == code
    assert isinstance(body["uuid"], str) and body["uuid"]
    assert isinstance(body["reason"], str) and body["reason"]
    assert response.headers["X-Apple-Request-UUID"] == body["uuid"]
    if reason_contains is not None:
        assert reason_contains in body["reason"]
    return body


@pytest.mark.parametrize("raw", [b"not json", b"{", b'{"query":', b"\xff\xfe", b'{"a":1}}', b"[1,2]", b'"text"', b"null"])
def test_body_that_is_not_a_json_object(deployment: Deployment, raw: bytes) -> None:
    response = deployment.user().post("public", "records/query", None, raw_body=raw)
    expect_error(response, 400, "BAD_REQUEST")


WRONG_TYPES = {
    "operations not an array": ("records/modify", {"operations": "create"}, "operations"),
    "operation not an object": ("records/modify", {"operations": [5]}, "operations[0]"),
    "operationType not a string": ("records/modify", {"operations": [{"operationType": 1, "record": {}}]}, "operationType"),
    "unknown operationType": ("records/modify", {"operations": [{"operationType": "upsert", "record": {"recordName": "a"}}]}, "upsert"),
    "record missing": ("records/modify", {"operations": [{"operationType": "create"}]}, "record"),
    "fields not an object": ("records/modify", {"operations": [{"operationType": "create", "record": {"recordType": "Item", "fields": []}}]}, "fields"),
    "field value not a dictionary": ("records/modify", {"operations": [{"operationType": "create", "record": {"recordType": "Item", "fields": {"title": "bare"}}}]}, "title"),
    "atomic not a boolean": ("records/modify", {"operations": [], "atomic": "sometimes"}, "atomic"),
    "desiredKeys not strings": ("records/query", {"query": {"recordType": "Item"}, "desiredKeys": [1]}, "desiredKeys"),
    "query missing": ("records/query", {}, "query"),
    "recordType not a string": ("records/query", {"query": {"recordType": 5}}, "recordType"),
    "resultsLimit not a number": ("records/query", {"query": {"recordType": "Item"}, "resultsLimit": "many"}, "resultsLimit"),
    "resultsLimit zero": ("records/query", {"query": {"recordType": "Item"}, "resultsLimit": 0}, "resultsLimit"),
    "filterBy not an array": ("records/query", {"query": {"recordType": "Item", "filterBy": {"fieldName": "title"}}}, "filterBy"),
    "filter without value": ("records/query", {"query": {"recordType": "Item", "filterBy": [{"comparator": "EQUALS", "fieldName": "title"}]}}, "fieldValue"),
    "filter without field": ("records/query", {"query": {"recordType": "Item", "filterBy": [{"comparator": "EQUALS", "fieldValue": {"value": "a"}}]}}, "fieldName"),
    "sort on an unknown field": ("records/query", {"query": {"recordType": "Item", "sortBy": [{"fieldName": "nope"}]}}, "nope"),
    "unknown record type": ("records/query", {"query": {"recordType": "Nope"}}, "Nope"),
    "zoneID not an object": ("records/lookup", {"records": [{"recordName": "a"}], "zoneID": "_defaultZone"}, "zoneID"),
    "records not an array": ("records/lookup", {"records": {"recordName": "a"}}, "records"),
    "lookup without recordName": ("records/lookup", {"records": [{"desiredKeys": []}]}, "recordName"),
    "zones missing": ("zones/lookup", {}, "zones"),
}


@pytest.mark.parametrize("subpath,body,mentions", WRONG_TYPES.values(), ids=WRONG_TYPES.keys())
def test_wrong_types_and_missing_keys(deployment: Deployment, subpath: str, body: dict, mentions: str) -> None:
    response = deployment.user().post("public", subpath, body)
    expect_error(response, 400, "BAD_REQUEST", mentions)


def test_value_of_the_wrong_type_is_a_per_record_error(deployment: Deployment, batch: str) -> None:
    response = deployment.user().post("public", "records/modify", {"operations": [{"operationType": "create", "record": {
        "recordName": batch, "recordType": "Item", "fields": {"rank": {"value": "seven"}}}}]})
    assert response.status_code == 200, response.text
    [entry] = response.json()["records"]
    assert entry["recordName"] == batch
    assert entry["serverErrorCode"] == "BAD_REQUEST"
    assert "rank" in entry["reason"] and "INT64" in entry["reason"]


def test_unknown_comparator(deployment: Deployment) -> None:
    response = deployment.world().post("public", "records/query", {"query": {"recordType": "Item", "filterBy": [
        {"comparator": "SOUNDS_LIKE", "fieldName": "title", "fieldValue": {"value": "x"}}]}})
    expect_error(response, 400, "BAD_REQUEST", "SOUNDS_LIKE")


def test_comparator_the_field_is_not_indexed_for(deployment: Deployment) -> None:
    response = deployment.world().post("public", "records/query", {"query": {"recordType": "Item", "filterBy": [
        {"comparator": "EQUALS", "fieldName": "body", "fieldValue": {"value": "x"}}]}})
    expect_error(response, 400, "BAD_REQUEST", "body")


def test_201_operations_are_refused_whole(deployment: Deployment, batch: str) -> None:
    operations = [{"operationType": "create", "record": {"recordName": f"{batch}-{index}", "recordType": "Item"}} for index in range(201)]
    user = deployment.user()
    expect_error(user.post("public", "records/modify", {"operations": operations}), 400, "BAD_REQUEST", "200")
    assert user.lookup("public", [f"{batch}-0"])["records"][0]["serverErrorCode"] == "NOT_FOUND"
    # 200 is the limit, not over it.
    saved = user.modify("public", operations[:200], desired_keys=[])["records"]
    assert len(saved) == 200 and all("serverErrorCode" not in entry for entry in saved)
    user.modify("public", [{"operationType": "forceDelete", "record": {"recordName": entry["recordName"]}} for entry in saved])


def test_201_lookups_are_refused(deployment: Deployment) -> None:
    response = deployment.world().post("public", "records/lookup", {"records": [{"recordName": f"r{i}"} for i in range(201)]})
    expect_error(response, 400, "BAD_REQUEST")


def test_record_over_one_megabyte_is_a_per_record_quota_error(deployment: Deployment, batch: str) -> None:
    user = deployment.user()
    large = "x" * (1024 * 1024 + 1)
    response = user.post("public", "records/modify", {"atomic": False, "operations": [
        {"operationType": "create", "record": {"recordName": f"{batch}-large", "recordType": "Item", "fields": {"body": {"value": large}}}},
        {"operationType": "create", "record": {"recordName": f"{batch}-small", "recordType": "Item", "fields": {"body": {"value": "small"}}}},
    ]})
    assert response.status_code == 200, response.text[:500]
    large_entry, small_entry = response.json()["records"]
    assert large_entry["recordName"] == f"{batch}-large"
    assert large_entry["serverErrorCode"] == "QUOTA_EXCEEDED"
    # The public database is never atomic: the other record was saved.
    assert small_entry["recordName"] == f"{batch}-small" and "serverErrorCode" not in small_entry
    assert user.lookup("public", [f"{batch}-large"])["records"][0]["serverErrorCode"] == "NOT_FOUND"


PATHS = {
    "unknown container": ("/database/1/iCloud.com.example.Unknown/development/public/records/query", 401, "AUTHENTICATION_FAILED"),
    "malformed container": ("/database/1/com.example.NoPrefix/development/public/records/query", 400, "BAD_REQUEST"),
    "unknown environment": ("/database/1/{container}/staging/public/records/query", 400, "BAD_REQUEST"),
    "other environment": ("/database/1/{container}/production/public/records/query", 401, "AUTHENTICATION_FAILED"),
    "unknown database": ("/database/1/{container}/development/everyone/records/query", 400, "BAD_REQUEST"),
    "unknown endpoint": ("/database/1/{container}/development/public/records/teleport", 404, "NOT_FOUND"),
    "unknown version": ("/database/2/{container}/development/public/records/query", 404, "NOT_FOUND"),
}


@pytest.mark.parametrize("template,status,code", PATHS.values(), ids=PATHS.keys())
def test_wrong_paths(deployment: Deployment, template: str, status: int, code: str) -> None:
    path = template.format(container=deployment.container)
    response = deployment.session().post(
        f"{deployment.base_url}{path}?ckAPIToken={deployment.api_token}", data=b'{"query":{"recordType":"Item"}}', timeout=30)
    assert response.status_code == status, response.text
    body = response.json()
    assert body["serverErrorCode"] == code
    assert body["uuid"] and body["reason"]


def test_wrong_method(deployment: Deployment) -> None:
    response = deployment.world().get("public", "records/query")
    assert response.status_code == 405
    assert "POST" in response.headers["Allow"]


def test_nulls_read_as_absent_and_unknown_keys_are_ignored(deployment: Deployment) -> None:
    response = deployment.world().post("public", "records/query", {
        "query": {"recordType": "Item", "filterBy": None, "sortBy": [{"fieldName": "rank", "ascending": None, "relativeLocation": None}]},
        "zoneID": None, "resultsLimit": None, "continuationMarker": None, "desiredKeys": None, "zoneWide": None,
        "numbersAsStrings": None, "someFutureKey": {"nested": [1, 2]},
    }, params={"ckjsVersion": "2.6.4", "ckjsBuildVersion": "x"})
    assert response.status_code == 200, response.text
    assert isinstance(response.json()["records"], list)


def test_numbers_as_strings(deployment: Deployment, batch: str) -> None:
    user = deployment.user()
    [record] = user.modify("public", [{"operationType": "create", "record": {
        "recordName": batch, "recordType": "Item", "fields": {"rank": {"value": "9007199254740993", "type": "INT64"}}}}],
        numbers_as_strings=True)["records"]
    assert record["fields"]["rank"] == {"value": "9007199254740993", "type": "INT64"}
    assert isinstance(record["created"]["timestamp"], str)
    [plain] = user.lookup("public", [batch])["records"]
    assert plain["fields"]["rank"] == {"value": 9007199254740993, "type": "INT64"}


def test_content_type_does_not_matter(deployment: Deployment) -> None:
    for content_type in ("text/plain", "application/json", "application/json; charset=utf-8", "application/x-www-form-urlencoded"):
        response = deployment.world().post("public", "records/query", {"query": {"recordType": "Item"}, "resultsLimit": 1},
                                           headers={"Content-Type": content_type})
        assert response.status_code == 200, (content_type, response.text)
