"""Request/response pairs from the CloudKit Web Services reference, sent to a running server."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest
import requests

from cumulus_deployment import Deployment


def test_create_with_empty_desired_keys_echoes_no_fields(deployment: Deployment, batch: str) -> None:
    # Reference §2.1: a create with desiredKeys [] answers system fields only.
    response = deployment.user().post("public", "records/modify", {
        "operations": [{"operationType": "create", "record": {
            "recordType": "Item", "fields": {"title": {"value": "Mona Lisa"}, "batch": {"value": batch}}}}],
        "desiredKeys": [],
    })
    assert response.status_code == 200, response.text
    [record] = response.json()["records"]
    assert "fields" not in record
    assert {"recordName", "recordChangeTag", "created", "modified"} <= set(record)
    assert isinstance(record["recordName"], str) and len(record["recordName"]) >= 32  # generated: a UUID
    assert isinstance(record["recordChangeTag"], str) and record["recordChangeTag"]
    for stamp in (record["created"], record["modified"]):
        assert set(stamp) == {"timestamp", "userRecordName", "deviceID"}
        assert isinstance(stamp["timestamp"], int) and stamp["timestamp"] > 1_600_000_000_000  # milliseconds
        assert stamp["userRecordName"] == deployment.user_record_name
    # The fields were saved all the same.
    [saved] = deployment.world().lookup("public", [record["recordName"]])["records"]
    assert saved["fields"]["title"] == {"value": "Mona Lisa", "type": "STRING"}


def test_per_operation_desired_keys(deployment: Deployment, batch: str) -> None:
    response = deployment.user().modify("public", [
        {"operationType": "create", "desiredKeys": ["title"], "record": {
            "recordType": "Item", "fields": {"title": {"value": "a"}, "batch": {"value": batch}}}},
        {"operationType": "create", "record": {
            "recordType": "Item", "fields": {"title": {"value": "b"}, "batch": {"value": batch}}}},
    ], desired_keys=[])
    first, second = response["records"]
    assert set(first["fields"]) == {"title"}
    assert "fields" not in second


def test_lookup_of_a_missing_record(deployment: Deployment) -> None:
    # Reference §2.3: HTTP 200 with an error entry in place of the record.
    response = deployment.world().post("public", "records/lookup", {"records": [{"recordName": "x"}]})
    assert response.status_code == 200
    assert response.json() == {"records": [{"recordName": "x", "reason": "Record not found", "serverErrorCode": "NOT_FOUND"}]}


def test_create_existing_record_is_a_per_record_error(deployment: Deployment, batch: str) -> None:
    user = deployment.user()
    operation = {"operationType": "create", "record": {"recordName": batch, "recordType": "Item"}}
    assert "serverErrorCode" not in user.modify("public", [operation])["records"][0]
    [entry] = user.modify("public", [operation])["records"]
    assert entry["recordName"] == batch
    assert entry["serverErrorCode"] in {"CONFLICT", "EXISTS"}


def test_stale_change_tag_is_a_conflict_with_the_server_record(deployment: Deployment, batch: str) -> None:
    user = deployment.user()
    [created] = user.modify("public", [{"operationType": "create", "record": {
        "recordName": batch, "recordType": "Item", "fields": {"title": {"value": "v1"}}}}])["records"]
    update = {"recordName": batch, "recordChangeTag": created["recordChangeTag"], "fields": {"title": {"value": "v2"}}}
    [updated] = user.modify("public", [{"operationType": "update", "record": update}])["records"]
    assert updated["recordChangeTag"] != created["recordChangeTag"]
    [conflict] = user.modify("public", [{"operationType": "update", "record": update}])["records"]
    assert conflict["serverErrorCode"] == "CONFLICT"
    assert conflict["serverRecord"]["fields"]["title"]["value"] == "v2"


def test_zones_modify_lookup_and_list(deployment: Deployment, batch: str) -> None:
    # Reference §2.7.
    user = deployment.user()
    name = f"Zone{batch[:8]}"
    create = {"operations": [{"operationType": "create", "zone": {"zoneID": {"zoneName": name}}}]}
    response = user.post("private", "zones/modify", create)
    assert response.status_code == 200, response.text
    [zone] = response.json()["zones"]
    assert zone["zoneID"] == {"zoneName": name, "ownerRecordName": deployment.user_record_name, "zoneType": "REGULAR_CUSTOM_ZONE"}
    assert isinstance(zone["syncToken"], str) and zone["syncToken"]
    assert zone["atomic"] is True

    [again] = user.post("private", "zones/modify", create).json()["zones"]
    assert again["serverErrorCode"] == "EXISTS"
    assert again["zoneID"]["zoneName"] == name

    lookup = user.post("private", "zones/lookup", {"zones": [{"zoneName": name}, {"zoneName": "Nope"}]}).json()["zones"]
    assert lookup[0]["zoneID"]["zoneName"] == name
    assert lookup[1]["zoneID"]["zoneName"] == "Nope"
    assert lookup[1]["serverErrorCode"] == "ZONE_NOT_FOUND"

    for method in ("GET", "POST"):
        listed = user.request(method, "private", "zones/list").json()["zones"]
        assert {"_defaultZone", name} <= {entry["zoneID"]["zoneName"] for entry in listed}

    deleted = user.post("private", "zones/modify", {"operations": [
        {"operationType": "delete", "zone": {"zoneID": {"zoneName": name}}}]}).json()["zones"]
    assert deleted == [{"zoneID": zone["zoneID"], "deleted": True}]


def test_custom_zones_are_refused_in_the_public_database(deployment: Deployment) -> None:
    response = deployment.user().post("public", "zones/modify", {"operations": [
        {"operationType": "create", "zone": {"zoneID": {"zoneName": "Nope"}}}]})
    assert response.status_code == 400, response.text
    assert response.json()["serverErrorCode"] == "BAD_REQUEST"


TOKEN_PATHS = {
    "documented (no database)": "/database/1/{container}/{environment}/tokens/{action}",
    "with a database (MistKit)": "/database/1/{container}/{environment}/public/tokens/{action}",
    "device module (CloudKit JS)": "/device/1/{container}/{environment}/tokens/{action}",
}


@pytest.mark.parametrize("template", TOKEN_PATHS.values(), ids=TOKEN_PATHS.keys())
def test_tokens_create_and_register(deployment: Deployment, template: str) -> None:
    session = deployment.session()

    def post(action: str, body: dict) -> requests.Response:
        path = template.format(container=deployment.container, environment=deployment.environment, action=action)
        return session.post(f"{deployment.base_url}{path}?ckAPIToken={deployment.api_token}", json=body, timeout=30)

    response = post("create", {"apnsEnvironment": "development"})
    assert response.status_code == 200, response.text
    body = response.json()
    assert set(body) == {"apnsEnvironment", "apnsToken", "webcourierURL"}
    assert body["apnsEnvironment"] == "development"
    token = body["apnsToken"]
    assert isinstance(token, str) and len(token) >= 16

    # Reference §8.2: ".../aps?tok=<apnsToken>&ttl=43200", here on this server.
    url = urlsplit(body["webcourierURL"])
    assert f"{url.scheme}://{url.netloc}" == deployment.base_url
    assert url.path == "/webcourier/1/aps"
    assert parse_qs(url.query) == {"tok": [token], "ttl": ["43200"]}

    # Answered like tokens/create (reference §14): CloudKit JS 2 replaces what it holds with it.
    registered = post("register", {"apnsEnvironment": "development", "apnsToken": token})
    assert registered.status_code == 200, registered.text
    assert registered.json() == body

    missing = post("register", {"apnsEnvironment": "development"})
    assert missing.status_code == 400
    assert missing.json()["serverErrorCode"] == "BAD_REQUEST"


def test_tokens_create_defaults_to_the_paths_environment(deployment: Deployment) -> None:
    response = deployment.world().post(None, "tokens/create", None)
    assert response.status_code == 200, response.text
    assert response.json()["apnsEnvironment"] == "development"


def test_courier_refuses_an_unknown_token(deployment: Deployment) -> None:
    response = deployment.session().get(f"{deployment.base_url}/webcourier/1/aps", params={"tok": "unknown", "ttl": "43200"}, timeout=30)
    # No JSON: CloudKit JS 2 would hand any JSON to the app as a notification.
    assert response.status_code == 404
    assert response.content == b""


def test_openapi_document_is_served(deployment: Deployment) -> None:
    response = deployment.session().get(f"{deployment.base_url}/openapi.json", timeout=30)
    assert response.status_code == 200
    assert response.headers["Content-Type"].split(";")[0] == "application/json"
    assert response.json() == deployment.openapi.document


def test_healthz(deployment: Deployment) -> None:
    response = deployment.session().get(f"{deployment.base_url}/healthz", timeout=30)
    assert response.status_code == 200
    body = response.json()
    assert body["status"] == "ok" and isinstance(body["uptimeSeconds"], int)
