"""Server-to-server keys against a running server: the public database, in every signing variant
clients use, and the signatures that must be refused."""

from __future__ import annotations

import datetime
import json

import pytest
import requests
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from cloudkit_client import (
    SIGNATURE_HEADER,
    SigningVariant,
    format_date,
    load_private_key,
    sign_request,
)
from cumulus_deployment import Deployment

#: What CloudKit JS appends to every URL: a query string, so signing with and without it differ.
CKJS_PARAMS = {"ckjsBuildVersion": "2310ProjectDev27", "ckjsVersion": "2.6.4"}

#: The variants of POST requests (which always have a body).
POST_VARIANTS = {
    "path+query, DER": SigningVariant(sign_query=True, raw_signature=False),
    "path+query, raw": SigningVariant(sign_query=True, raw_signature=True),
    "bare path, DER": SigningVariant(sign_query=False, raw_signature=False),
    "bare path, raw": SigningVariant(sign_query=False, raw_signature=True),
}

#: GET requests have no body: its hash, or the empty string (MistKit), is signed.
GET_VARIANTS = {
    f"{'path+query' if query else 'bare path'}, {'empty string' if empty else 'empty-body hash'}, {'raw' if raw else 'DER'}":
        SigningVariant(sign_query=query, empty_body_as_empty_string=empty, raw_signature=raw)
    for query in (True, False) for empty in (True, False) for raw in (True, False)
}


def expect_authentication_failed(response: requests.Response) -> None:
    assert response.status_code == 401, response.text
    body = response.json()
    assert body["serverErrorCode"] == "AUTHENTICATION_FAILED"
    assert body["uuid"] and body["reason"]
    assert "redirectURL" not in body


@pytest.mark.parametrize("variant", POST_VARIANTS.values(), ids=POST_VARIANTS.keys())
def test_save_query_lookup_delete(deployment: Deployment, batch: str, variant: SigningVariant) -> None:
    client = deployment.signed()

    def post(subpath: str, body: dict) -> dict:
        response = client.post("public", subpath, body, params=CKJS_PARAMS, variant=variant)
        assert response.status_code == 200, response.text
        return response.json()

    # Save five records.
    operations = [
        {"operationType": "create", "record": {
            "recordName": f"{batch}-{rank}", "recordType": "Item",
            "fields": {"title": {"value": f"item {rank}"}, "rank": {"value": rank, "type": "INT64"},
                       "batch": {"value": batch}, "tags": {"value": ["e2e", f"rank-{rank}"]}},
        }}
        for rank in range(5)
    ]
    saved = post("records/modify", {"operations": operations})["records"]
    assert [record["recordName"] for record in saved] == [f"{batch}-{rank}" for rank in range(5)]
    for rank, record in enumerate(saved):
        assert record["recordType"] == "Item"
        assert record["fields"]["rank"] == {"value": rank, "type": "INT64"}
        assert record["fields"]["tags"] == {"value": ["e2e", f"rank-{rank}"], "type": "STRING_LIST"}
        assert record["recordChangeTag"]
        # A key acts as the container's developer, the user `cumulus keys list` names.
        assert record["created"]["userRecordName"] == deployment.key_user_record_name
        assert record["modified"]["userRecordName"] == deployment.key_user_record_name
        assert record["zoneID"]["zoneName"] == "_defaultZone"

    # Query: filter + sort, two at a time.
    query = {
        "recordType": "Item",
        "filterBy": [
            {"comparator": "EQUALS", "fieldName": "batch", "fieldValue": {"value": batch, "type": "STRING"}},
            {"comparator": "GREATER_THAN_OR_EQUALS", "fieldName": "rank", "fieldValue": {"value": 1, "type": "INT64"}},
        ],
        "sortBy": [{"fieldName": "rank", "ascending": False}],
    }
    first = post("records/query", {"query": query, "resultsLimit": 2, "desiredKeys": ["rank"]})
    assert [record["fields"]["rank"]["value"] for record in first["records"]] == [4, 3]
    assert set(first["records"][0]["fields"]) == {"rank"}
    marker = first["continuationMarker"]
    assert isinstance(marker, str) and marker
    second = post("records/query", {"query": query, "resultsLimit": 2, "desiredKeys": ["rank"], "continuationMarker": marker})
    assert [record["fields"]["rank"]["value"] for record in second["records"]] == [2, 1]
    assert "continuationMarker" not in second

    # Look up two records and a missing one.
    looked_up = post("records/lookup", {"records": [
        {"recordName": f"{batch}-0"}, {"recordName": f"{batch}-missing"}, {"recordName": f"{batch}-4"},
    ]})["records"]
    assert looked_up[0]["recordName"] == f"{batch}-0"
    assert looked_up[0]["fields"]["title"] == {"value": "item 0", "type": "STRING"}
    assert looked_up[1] == {"recordName": f"{batch}-missing", "reason": "Record not found", "serverErrorCode": "NOT_FOUND"}
    assert looked_up[2]["fields"]["rank"]["value"] == 4

    # Delete: one with its change tag, the rest with forceDelete.
    deletions = [{"operationType": "delete", "record": {"recordName": saved[0]["recordName"],
                                                         "recordChangeTag": saved[0]["recordChangeTag"]}}]
    deletions += [{"operationType": "forceDelete", "record": {"recordName": f"{batch}-{rank}"}} for rank in range(1, 5)]
    deleted = post("records/modify", {"operations": deletions})["records"]
    assert [(entry["recordName"], entry.get("deleted")) for entry in deleted] == [(f"{batch}-{rank}", True) for rank in range(5)]
    gone = post("records/lookup", {"records": [{"recordName": f"{batch}-{rank}"} for rank in range(5)]})["records"]
    assert {entry["serverErrorCode"] for entry in gone} == {"NOT_FOUND"}
    assert post("records/query", {"query": query})["records"] == []


@pytest.mark.parametrize("variant", GET_VARIANTS.values(), ids=GET_VARIANTS.keys())
def test_get_without_body(deployment: Deployment, variant: SigningVariant) -> None:
    response = deployment.signed().get("public", "zones/list", params=CKJS_PARAMS, variant=variant)
    assert response.status_code == 200, response.text
    zones = response.json()["zones"]
    assert [zone["zoneID"]["zoneName"] for zone in zones] == ["_defaultZone"]


def test_get_without_query_string(deployment: Deployment) -> None:
    for variant in GET_VARIANTS.values():
        response = deployment.signed().get("public", "zones/list", variant=variant)
        assert response.status_code == 200, response.text


QUERY_BODY = {"query": {"recordType": "Item"}, "resultsLimit": 1}


def test_wrong_key_is_refused(deployment: Deployment) -> None:
    other = ec.generate_private_key(ec.SECP256R1())
    other_pem = other.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    client = deployment.signed(private_key_pem=other_pem)
    expect_authentication_failed(client.post("public", "records/query", QUERY_BODY))
    expect_authentication_failed(client.get("public", "zones/list"))


def test_unknown_key_id_is_refused(deployment: Deployment) -> None:
    client = deployment.signed(key_id="0" * 64)
    expect_authentication_failed(client.post("public", "records/query", QUERY_BODY))


@pytest.mark.parametrize("minutes", [-11, 11], ids=["stale", "future"])
def test_date_outside_ten_minutes_is_refused(deployment: Deployment, minutes: int) -> None:
    date = format_date(datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(minutes=minutes))
    client = deployment.signed()
    expect_authentication_failed(client.post("public", "records/query", QUERY_BODY, variant=SigningVariant(date=date)))


def test_date_within_ten_minutes_is_accepted(deployment: Deployment) -> None:
    date = format_date(datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(minutes=8))
    response = deployment.signed().post("public", "records/query", QUERY_BODY, variant=SigningVariant(date=date))
    assert response.status_code == 200, response.text


def send_signed(deployment: Deployment, *, signed_target: str, sent_target: str, signed_body: bytes, sent_body: bytes) -> requests.Response:
    """Signs one request and sends another, as a man in the middle would alter it."""
    key = load_private_key(deployment.private_key_pem)
    headers = sign_request(key, deployment.key_id, signed_body, signed_target)
    headers["Content-Type"] = "text/plain"
    return deployment.session().post(deployment.base_url + sent_target, data=sent_body, headers=headers, timeout=30)


def test_tampered_body_is_refused(deployment: Deployment) -> None:
    target = deployment.signed().path("public", "records/query")
    body = json.dumps(QUERY_BODY).encode()
    untouched = send_signed(deployment, signed_target=target, sent_target=target, signed_body=body, sent_body=body)
    assert untouched.status_code == 200, untouched.text
    tampered = body.replace(b'"resultsLimit": 1', b'"resultsLimit": 2')
    assert tampered != body
    expect_authentication_failed(
        send_signed(deployment, signed_target=target, sent_target=target, signed_body=body, sent_body=tampered))


def test_tampered_path_is_refused(deployment: Deployment) -> None:
    client = deployment.signed()
    body = json.dumps({"records": [{"recordName": "x"}]}).encode()
    signed = client.path("public", "records/lookup")
    expect_authentication_failed(send_signed(
        deployment, signed_target=signed, sent_target=client.path("public", "records/query"), signed_body=body, sent_body=body))
    # The query string is covered too when it was signed: altering it breaks both candidates.
    expect_authentication_failed(send_signed(
        deployment, signed_target=signed + "?ckjsVersion=2.6.4", sent_target=signed + "?ckjsVersion=2.6.5",
        signed_body=body, sent_body=body))


def test_missing_signature_header_is_refused(deployment: Deployment) -> None:
    target = deployment.signed().path("public", "records/query")
    body = json.dumps(QUERY_BODY).encode()
    headers = sign_request(load_private_key(deployment.private_key_pem), deployment.key_id, body, target)
    del headers[SIGNATURE_HEADER]
    response = deployment.session().post(deployment.base_url + target, data=body, headers=headers, timeout=30)
    expect_authentication_failed(response)


def test_key_is_for_its_container_and_environment(deployment: Deployment) -> None:
    expect_authentication_failed(deployment.signed(environment="production").post("public", "records/query", QUERY_BODY))
    expect_authentication_failed(deployment.signed(container="iCloud.com.example.Other").post("public", "records/query", QUERY_BODY))


def test_key_is_for_the_public_database_only(deployment: Deployment) -> None:
    response = deployment.signed().get("private", "zones/list")
    assert response.status_code == 403, response.text
    assert response.json()["serverErrorCode"] == "ACCESS_DENIED"


def test_signature_and_api_token_are_not_mixed(deployment: Deployment) -> None:
    response = deployment.signed().post("public", "records/query", QUERY_BODY, params={"ckAPIToken": deployment.api_token})
    assert response.status_code == 400, response.text
    assert response.json()["serverErrorCode"] == "BAD_REQUEST"
