"""API tokens alone (the world) and with a web auth token (a signed-in user), against a running server."""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, quote, urlsplit

import pytest

from cloudkit_client import WEB_AUTH_TOKEN_HEADER
from cumulus_deployment import Deployment

NOTE = {"recordType": "Item", "fields": {"title": {"value": "from the world"}}}


@pytest.fixture(scope="module")
def public_records(deployment: Deployment) -> dict[str, Any]:
    """Three records in the public database, saved with the server-to-server key."""
    batch = "world-readable"
    operations = [
        {"operationType": "forceReplace", "record": {
            "recordName": f"{batch}-{rank}", "recordType": "Item",
            "fields": {"title": {"value": f"public {rank}"}, "rank": {"value": rank}, "batch": {"value": batch}},
        }}
        for rank in range(3)
    ]
    records = deployment.signed().modify("public", operations)["records"]
    assert all("serverErrorCode" not in record for record in records), records
    return {"batch": batch, "records": records}


def expect_authentication_required(response, deployment: Deployment) -> dict[str, Any]:
    assert response.status_code == 421, response.text
    body = response.json()
    assert body["serverErrorCode"] == "AUTHENTICATION_REQUIRED"
    assert body["uuid"] and body["reason"]
    redirect = urlsplit(body["redirectURL"])
    assert f"{redirect.scheme}://{redirect.netloc}" == deployment.base_url
    assert redirect.path == "/signin"
    assert parse_qs(redirect.query)["ckAPIToken"] == [deployment.api_token]
    return body


# MARK: - The world


def test_world_reads_the_public_database(deployment: Deployment, public_records: dict[str, Any]) -> None:
    world = deployment.world()
    found = world.query("public", {
        "recordType": "Item",
        "filterBy": [{"comparator": "EQUALS", "fieldName": "batch", "fieldValue": {"value": public_records["batch"]}}],
        "sortBy": [{"fieldName": "rank"}],
    })
    assert [record["fields"]["title"]["value"] for record in found["records"]] == ["public 0", "public 1", "public 2"]
    looked_up = world.lookup("public", ["world-readable-1"])["records"]
    assert looked_up[0]["recordChangeTag"] == public_records["records"][1]["recordChangeTag"]
    zones = world.get("public", "zones/list")
    assert zones.status_code == 200
    assert WEB_AUTH_TOKEN_HEADER not in zones.headers


def test_world_write_is_refused_with_a_sign_in_url(deployment: Deployment, batch: str) -> None:
    world = deployment.world()
    response = world.post("public", "records/modify", {"operations": [
        {"operationType": "create", "record": dict(NOTE, recordName=batch)},
    ]})
    expect_authentication_required(response, deployment)
    # Nothing was written.
    assert world.lookup("public", [batch])["records"][0]["serverErrorCode"] == "NOT_FOUND"


@pytest.mark.parametrize("origin", ["https://app.example.com", "https://app.example.com&ckAPIToken=forged#x y"])
def test_sign_in_url_carries_the_origin_as_one_parameter(deployment: Deployment, origin: str) -> None:
    response = deployment.world().post("public", "records/modify", {"operations": []}, headers={"Origin": origin})
    body = expect_authentication_required(response, deployment)
    assert parse_qs(urlsplit(body["redirectURL"]).query) == {"ckAPIToken": [deployment.api_token], "origin": [origin]}
    assert response.headers["Access-Control-Allow-Origin"] == origin


@pytest.mark.parametrize("method,database,subpath", [
    ("GET", "public", "users/caller"),
    ("POST", "public", "users/current"),
    ("GET", "private", "zones/list"),
    ("POST", "private", "records/query"),
])
def test_world_is_asked_to_sign_in(deployment: Deployment, method: str, database: str, subpath: str) -> None:
    body = {"query": {"recordType": "Item"}} if subpath == "records/query" else None
    expect_authentication_required(deployment.world().request(method, database, subpath, body), deployment)


def test_unknown_api_token_is_refused(deployment: Deployment) -> None:
    response = deployment.world(api_token="f" * 64).post("public", "records/query", {"query": {"recordType": "Item"}})
    assert response.status_code == 401, response.text
    assert response.json()["serverErrorCode"] == "AUTHENTICATION_FAILED"


def test_no_credentials_at_all_is_a_bad_request(deployment: Deployment) -> None:
    response = deployment.world(api_token=None).post("public", "records/query", {"query": {"recordType": "Item"}})
    assert response.status_code == 400, response.text
    assert response.json()["serverErrorCode"] == "BAD_REQUEST"


# MARK: - A signed-in user


def test_user_writes_and_gets_rotated_tokens(deployment: Deployment, batch: str) -> None:
    original = deployment.web_auth_token
    user = deployment.user(original)
    response = user.post("public", "records/modify", {"operations": [
        {"operationType": "create", "record": {"recordName": batch, "recordType": "Item",
                                               "fields": {"title": {"value": "mine"}, "batch": {"value": batch}}}},
    ]})
    assert response.status_code == 200, response.text
    record = response.json()["records"][0]
    assert record["recordName"] == batch
    assert record["created"]["userRecordName"] == deployment.user_record_name
    assert record["fields"]["title"] == {"value": "mine", "type": "STRING"}

    rotated = response.headers[WEB_AUTH_TOKEN_HEADER]
    assert rotated and rotated != original
    assert user.web_auth_token == rotated  # the client took it, as CloudKit JS does

    # The rotated token works, and so does the one it replaced.
    update = {"operationType": "update", "record": {
        "recordName": batch, "recordChangeTag": record["recordChangeTag"], "fields": {"title": {"value": "mine, updated"}}}}
    updated = user.post("public", "records/modify", {"operations": [update]})
    assert updated.status_code == 200, updated.text
    assert updated.json()["records"][0]["fields"]["title"]["value"] == "mine, updated"
    again = deployment.user(original).post("public", "records/modify", {"operations": [
        {"operationType": "forceDelete", "record": {"recordName": batch}}]})
    assert again.status_code == 200, again.text
    assert again.json()["records"][0] == {
        "recordName": batch, "deleted": True, "zoneID": record["zoneID"]}


def test_user_cannot_change_records_of_others(deployment: Deployment, public_records: dict[str, Any]) -> None:
    response = deployment.user().post("public", "records/modify", {"operations": [
        {"operationType": "forceUpdate", "record": {"recordName": "world-readable-0", "fields": {"title": {"value": "mine now"}}}},
    ]})
    assert response.status_code == 200, response.text
    entry = response.json()["records"][0]
    assert entry["serverErrorCode"] == "ACCESS_DENIED"
    assert entry["recordName"] == "world-readable-0"


def test_web_auth_token_in_the_header(deployment: Deployment) -> None:
    client = deployment.world()
    response = client.get("public", "users/current", headers={WEB_AUTH_TOKEN_HEADER: deployment.web_auth_token})
    assert response.status_code == 200, response.text
    assert response.json()["userRecordName"] == deployment.user_record_name


def test_web_auth_token_percent_encoding(deployment: Deployment) -> None:
    # Apple's documentation asks for + / = to be encoded; CloudKit JS encodes everything.
    token = deployment.web_auth_token
    assert set(token) - set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_") == set()
    assert len(token) >= 100
    path = deployment.world().path("public", "users/current")
    for encoded in (quote(token, safe=""), token.replace("+", "%2B").replace("/", "%2F").replace("=", "%3D")):
        url = f"{deployment.base_url}{path}?ckAPIToken={deployment.api_token}&ckWebAuthToken={encoded}"
        response = deployment.session().get(url, timeout=30)
        assert response.status_code == 200, response.text


def test_forged_web_auth_token_asks_to_sign_in_again(deployment: Deployment) -> None:
    # 421, not 401: CloudKit JS recovers from a bad session only through AUTHENTICATION_REQUIRED.
    token = deployment.web_auth_token
    forged = token[:-2] + ("AA" if not token.endswith("AA") else "BB")
    response = deployment.user(forged).get("public", "users/caller")
    expect_authentication_required(response, deployment)


@pytest.mark.parametrize("method", ["GET", "POST"])
def test_users_caller_answers_both_shapes(deployment: Deployment, method: str) -> None:
    response = deployment.user().request(method, "public", "users/caller", {} if method == "POST" else None)
    assert response.status_code == 200, response.text
    body = response.json()
    identity = {
        "userRecordName": deployment.user_record_name,
        "lookupInfo": {"userRecordName": deployment.user_record_name, "emailAddress": "alice@example.com"},
        "nameComponents": {"givenName": "Alice", "familyName": "Liddell"},
    }
    # The identity at the top level (as some clients read it) and as users[0] (as Apple documents it).
    assert {key: body[key] for key in identity} == identity
    assert body["users"] == [identity]
    assert response.headers[WEB_AUTH_TOKEN_HEADER]


def test_users_current(deployment: Deployment) -> None:
    response = deployment.user().get("public", "users/current")
    assert response.status_code == 200, response.text
    assert response.json() == {"userRecordName": deployment.user_record_name, "firstName": "Alice", "lastName": "Liddell"}


def test_private_database_is_the_users(deployment: Deployment, batch: str) -> None:
    user = deployment.user()
    zone = {"zoneName": f"Z{batch}"}
    created = user.post("private", "zones/modify", {"operations": [{"operationType": "create", "zone": {"zoneID": zone}}]})
    assert created.status_code == 200, created.text
    assert created.json()["zones"][0]["zoneID"] == dict(zone, ownerRecordName=deployment.user_record_name, zoneType="REGULAR_CUSTOM_ZONE")

    saved = user.modify("private", [
        {"operationType": "create", "record": {"recordName": "secret", "recordType": "Item",
                                               "fields": {"title": {"value": "private note"}, "rank": {"value": 7}}}},
    ], zone_id=zone)
    assert saved["records"][0]["zoneID"]["zoneName"] == zone["zoneName"]
    found = user.query("private", {"recordType": "Item", "sortBy": [{"fieldName": "rank"}]}, zone_id=zone)
    assert [record["fields"]["title"]["value"] for record in found["records"]] == ["private note"]

    # The world is asked to sign in; the key is denied; the public database does not have it.
    world = deployment.world()
    expect_authentication_required(world.post("private", "records/lookup", {"records": [{"recordName": "secret"}], "zoneID": zone}), deployment)
    denied = deployment.signed().post("private", "records/lookup", {"records": [{"recordName": "secret"}], "zoneID": zone})
    assert denied.status_code == 403, denied.text
    assert denied.json()["serverErrorCode"] == "ACCESS_DENIED"
    assert world.lookup("public", ["secret"])["records"][0]["serverErrorCode"] == "NOT_FOUND"

    removed = user.post("private", "zones/modify", {"operations": [{"operationType": "delete", "zone": {"zoneID": zone}}]})
    assert removed.json()["zones"][0]["deleted"] is True
