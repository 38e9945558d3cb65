"""A console server seeded with the data shape of the console review (console-review.md, "Data
used"), for browser tests that need realistic pages: several users with names, a public zone of
a few hundred notes written, updated and deleted by several users, photos with uploaded assets,
alice's zone Trips shared with bob (read and write, accepted) and carol (read only, invited), a
Journal zone, subscriptions with push tokens and queued notifications, failed requests and a 200
with per-record failures, a deploy to production with records there and changes still pending,
API tokens, server keys and management tokens.

Everything goes through the real interfaces a deployment has: the CloudKit Web Services API
(as each user, with a web auth token, or signed with a server key), the management API
(/admin/v1, with a management token) and the `cumulus` command line. Writes are batched (one
records/modify per 100 records) so the whole seed takes a few seconds.

    def test_something(review, driver):
        pages = review.log_in(driver)
        pages.open(review.console("public/records?type=Note"))
"""

from __future__ import annotations

import struct
import subprocess
import sys
import tempfile
import shutil
import zlib
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import requests

from console_harness import OPERATOR, PASSWORD, ConsoleServer, Pages

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "python"))
from cloudkit_client import CloudKitClient  # noqa: E402

CONTAINER = "iCloud.com.example.Notes"
USER_PASSWORD = "a long passphrase"
#: The app users, as (sign-in name, first name, last name); all but dave write records.
USERS = (("alice", "Alice", "Archer"), ("bob", "Bob", "Baker"), ("carol", "Carol", "Cook"), ("dave", "Dave", "Dunn"))
NOTES = 400
#: A note every PINNED_EVERY is pinned, which alice's query subscription watches.
PINNED_EVERY = 20


@dataclass
class ReviewUser:
    """An app user of the review container."""

    name: str
    full_name: str
    #: The user's record name (`_` and 32 hex digits), as the API and the store name them.
    record_name: str
    #: A web auth token of a session in development.
    web_auth_token: str


@dataclass
class Review:
    """The seeded server and the identifiers a test needs to find the seeded data."""

    server: ConsoleServer
    container: str
    users: dict[str, ReviewUser]
    #: The development API token the seed wrote with (any origin allowed).
    api_token: str
    #: Public database, _defaultZone: names of the notes that still exist, the deleted and the updated ones.
    notes: list[str]
    deleted_notes: list[str]
    updated_notes: list[str]
    folders: list[str]
    photos: list[str]
    #: alice's shared zone and its records.
    trips_zone: str = "Trips"
    trip_root: str = "trip-japan"
    stops: list[str] = field(default_factory=list)
    #: A record of alice's in Trips outside the shared hierarchy (an Entry), which bob does not see.
    trips_private: str = "trips-draft"
    share: str = "share-trips"
    share_short_guid: str = ""
    journal_zone: str = "Journal"
    journal_entries: int = 0
    #: alice's device: its push token has the notifications her subscriptions queued.
    device_push_token: str = ""
    #: bob's device, with his own queue.
    bob_push_token: str = ""
    subscriptions: list[str] = field(default_factory=list)
    #: The records/modify that answered 200 with per-record ACCESS_DENIED failures: its record names.
    partly_failed_records: list[str] = field(default_factory=list)
    #: How many notifications wait for each user's device: {"alice": 27, "bob": 10}.
    queued_notifications: dict[str, int] = field(default_factory=dict)
    production_records: int = 0
    management_tokens: list[str] = field(default_factory=list)
    server_key_ids: list[str] = field(default_factory=list)

    def console(self, path: str, environment: str = "development") -> str:
        """The console path of a page of the review container: console("public/records")."""
        return f"/console/containers/{self.container}/{environment}/{path.lstrip('/')}"

    def log_in(self, driver) -> Pages:
        """Logs the browser in as the operator and returns the page driver."""
        pages = Pages(driver, self.server)
        pages.open("/console/login")
        pages.find("#name").send_keys(OPERATOR)
        pages.find("#password").send_keys(PASSWORD)
        pages.submit("form button[type=submit]")
        return pages


def tiny_png(red: int = 0x20, green: int = 0x60, blue: int = 0xD0) -> bytes:
    """A 24×16 PNG of one colour."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    rows = b"".join(b"\x00" + bytes((red, green, blue)) * 24 for _ in range(16))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 24, 16, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def _ok(response: requests.Response) -> dict:
    assert response.status_code == 200, f"{response.request.url}: {response.status_code} {response.text[:500]}"
    return response.json()


def _modify(client: CloudKitClient, database: str, operations: list[dict], zone: str | None = None) -> list[dict]:
    """records/modify in batches of 100; every record must succeed."""
    saved = []
    for start in range(0, len(operations), 100):
        body: dict = {"operations": operations[start:start + 100]}
        if zone:
            body["zoneID"] = {"zoneName": zone}
        records = _ok(client.post(database, "records/modify", body))["records"]
        failed = [record for record in records if "serverErrorCode" in record]
        assert not failed, failed[:3]
        saved += records
    return saved


def _record(name: str, record_type: str, fields: dict, **extra) -> dict:
    return {"operationType": "create", "record": {"recordName": name, "recordType": record_type, "fields": fields, **extra}}


def _upload_asset(client: CloudKitClient, record_name: str, record_type: str, field_name: str, data: bytes) -> dict:
    token = _ok(client.post("public", "assets/upload", {"tokens": [
        {"recordName": record_name, "recordType": record_type, "fieldName": field_name}]}))["tokens"][0]
    uploaded = requests.post(token["url"], data=data, headers={"Content-Type": "application/octet-stream"}, timeout=30)
    assert uploaded.status_code == 200, uploaded.text
    return uploaded.json()["singleFile"]


def _push_token(client: CloudKitClient) -> str:
    created = _ok(client.post(None, "tokens/create", {"apnsEnvironment": "development"}))
    _ok(client.post(None, "tokens/register", {"apnsEnvironment": "development", "apnsToken": created["apnsToken"]}))
    return created["apnsToken"]


def seed_review(server: ConsoleServer) -> Review:
    """Writes the review's data into the running server's demo container."""
    base = server.url
    api_token = server.cli("tokens", "create", "--container", CONTAINER, "--name", "iOS app", "--allowed-origin", "*").strip()
    server.cli("tokens", "create", "--container", CONTAINER, "--name", "Website", "--allowed-origin", "https://notes.example.com")

    users: dict[str, ReviewUser] = {}
    clients: dict[str, CloudKitClient] = {}
    for name, first, last in USERS:
        server.cli("users", "add", "--container", CONTAINER, name, "--first-name", first, "--last-name", last,
                   "--email", f"{name}@example.com", input=USER_PASSWORD + "\n")
        token = server.cli("users", "token", "--container", CONTAINER, name, "--keep-signed-in", input=USER_PASSWORD + "\n").strip()
        client = CloudKitClient(base, CONTAINER, "development", api_token=api_token, web_auth_token=token)
        record_name = _ok(client.post("public", "users/caller", {}))["userRecordName"]
        users[name] = ReviewUser(name, f"{first} {last}", record_name, token)
        clients[name] = client
    alice, bob, carol = clients["alice"], clients["bob"], clients["carol"]

    # Devices and subscriptions first, so the writes below queue notifications.
    alice_device = _push_token(alice)
    bob_device = _push_token(bob)
    _ok(alice.post("public", "subscriptions/modify", {"operations": [{"operationType": "create", "subscription": {
        "subscriptionID": "pinned-notes", "subscriptionType": "query", "firesOn": ["create", "update", "delete"],
        "query": {"recordType": "Note", "filterBy": [
            {"comparator": "EQUALS", "fieldName": "pinned", "fieldValue": {"value": 1}}]},
        "notificationInfo": {"alertBody": "A pinned note changed", "additionalFields": ["title"]}}}]}))
    _ok(alice.post("private", "zones/modify", {"operations": [
        {"operationType": "create", "zone": {"zoneID": {"zoneName": "Trips"}}},
        {"operationType": "create", "zone": {"zoneID": {"zoneName": "Journal"}}}]}))
    _ok(alice.post("private", "subscriptions/modify", {"operations": [
        {"operationType": "create", "subscription": {"subscriptionID": "trips-zone", "subscriptionType": "zone",
                                                      "zoneID": {"zoneName": "Trips"}}},
        {"operationType": "create", "subscription": {"subscriptionID": "alice-private", "subscriptionType": "database"}}]}))
    _ok(bob.post("public", "subscriptions/modify", {"operations": [{"operationType": "create", "subscription": {
        "subscriptionID": "new-folders", "subscriptionType": "query", "firesOn": ["create"],
        "query": {"recordType": "Folder"}}}]}))

    # Public database: folders, then 400 notes by three users with every field type the review used.
    folders = [f"folder-{index:02d}" for index in range(10)]
    _modify(alice, "public", [_record(name, "Folder", {"name": {"value": f"Folder {index}"}}) for index, name in enumerate(folders)])
    writers = [alice, bob, carol]
    notes_by_writer: dict[int, list[dict]] = {0: [], 1: [], 2: []}
    for index in range(NOTES):
        notes_by_writer[index % 3].append(_record(f"note-{index:04d}", "Note", {
            "title": {"value": f"Note {index}"},
            "body": {"value": f"The body of note {index}."},
            "tags": {"value": ["review", f"tag-{index % 7}"]},
            "pinned": {"value": 1 if index % PINNED_EVERY == 0 else 0},
            "folder": {"value": {"recordName": folders[index % 10], "action": "NONE"}},
            "place": {"value": {"latitude": 35.0 + index / 1000, "longitude": 135.0 + index / 1000}},
            "due": {"value": 1_790_000_000_000 + index * 3_600_000, "type": "TIMESTAMP"},
            "rating": {"value": index / 10 + 0.5, "type": "DOUBLE"},
        }))
    for writer, operations in notes_by_writer.items():
        _modify(writers[writer], "public", operations)
    # 20 updated by their writers, 10 deleted.
    updated = [f"note-{index:04d}" for index in range(0, 60, 3)]
    _modify(alice, "public", [{"operationType": "forceUpdate", "record": {"recordName": name, "recordType": "Note", "fields": {
        "title": {"value": f"Note {int(name[5:])} (edited)"}}}} for name in updated])
    deleted = [f"note-{index:04d}" for index in range(300, 330, 3)]
    _modify(alice, "public", [{"operationType": "forceDelete", "record": {"recordName": name}} for name in deleted])

    # Photos with an uploaded PNG, bytes and a DELETE_SELF reference to a note; one comment.
    photos = [f"photo-{index}" for index in range(3)]
    photo_operations = []
    for index, name in enumerate(photos):
        asset = _upload_asset(alice, name, "Photo", "image", tiny_png(0x20 + 60 * index, 0x60, 0xD0 - 60 * index))
        photo_operations.append(_record(name, "Photo", {
            "image": {"value": asset}, "caption": {"value": f"Photo {index}"},
            "thumbprint": {"value": "AAECAwQFBgc=", "type": "BYTES"},
            "note": {"value": {"recordName": f"note-{index * 3:04d}", "action": "DELETE_SELF"}}}))
    _modify(alice, "public", photo_operations)
    _modify(bob, "public", [_record("comment-1", "Comment", {
        "text": {"value": "Nice note"}, "note": {"value": {"recordName": "note-0000", "action": "DELETE_SELF"}}})])

    # A 200 with per-record failures: bob saves two notes of his and edits three of alice's, which only she may write.
    partly = ["note-bob-a", "note-bob-b", "note-0003", "note-0006", "note-0009"]
    answer = _ok(bob.post("public", "records/modify", {"operations": [
        _record("note-bob-a", "Note", {"title": {"value": "Bob's extra note"}}),
        _record("note-bob-b", "Note", {"title": {"value": "Bob's other note"}}),
        *({"operationType": "forceUpdate", "record": {"recordName": name, "recordType": "Note", "fields": {"title": {"value": "Bob was here"}}}}
          for name in partly[2:])]}))
    codes = [record.get("serverErrorCode") for record in answer["records"]]
    assert codes[:2] == [None, None] and all(code for code in codes[2:]), codes

    # Failed requests: malformed JSON, an unknown field in a filter, a bad API token.
    assert alice.post("public", "records/modify", None, raw_body=b"{not json").status_code == 400
    assert alice.post("public", "records/query", {"query": {"recordType": "Note", "filterBy": [
        {"comparator": "EQUALS", "fieldName": "body", "fieldValue": {"value": "x"}}]}}).status_code == 400
    stranger = CloudKitClient(base, CONTAINER, "development", api_token="0" * 64)
    assert stranger.post("public", "records/query", {"query": {"recordType": "Note"}}).status_code == 401

    # alice's zone Trips: a trip, six stops under it, and its share with bob (accepted) and carol (invited).
    stops = [f"stop-{index}" for index in range(6)]
    trip_records = [_record("trip-japan", "Trip", {"title": {"value": "Japan 2027"}})]
    trip_records += [_record(name, "Stop", {"city": {"value": city}, "trip": {"value": {"recordName": "trip-japan", "action": "NONE"}}},
                             parent={"recordName": "trip-japan"})
                     for name, city in zip(stops, ("Tokyo", "Hakone", "Kyoto", "Nara", "Osaka", "Hiroshima"))]
    trip_records.append({"operationType": "create", "record": {
        "recordName": "share-trips", "recordType": "cloudkit.share", "createShortGUID": True, "forRecord": {"recordName": "trip-japan"},
        "publicPermission": "NONE", "fields": {"cloudkit.title": {"value": "Japan 2027", "type": "STRING"}},
        "participants": [
            {"userIdentity": {"userRecordName": users["bob"].record_name}, "permission": "READ_WRITE", "type": "USER"},
            {"userIdentity": {"userRecordName": users["carol"].record_name}, "permission": "READ_ONLY", "type": "USER"}]}})
    saved = _modify(alice, "private", trip_records, zone="Trips")
    short_guid = saved[-1]["shortGUID"]
    accepted = _ok(bob.post("shared", "records/accept", {"shortGUIDs": [{"value": short_guid}]}))
    assert accepted["results"][0]["participantStatus"] == "ACCEPTED", accepted
    # bob writes in the shared zone: a change by a participant.
    trips = {"zoneName": "Trips", "ownerRecordName": users["alice"].record_name}
    _ok(bob.post("shared", "records/modify", {"zoneID": trips, "operations": [
        _record("stop-6", "Stop", {"city": {"value": "Kanazawa"}}, parent={"recordName": "trip-japan"})]}))
    stops.append("stop-6")
    # A draft of alice's in Trips outside the shared hierarchy: hers alone, never bob's.
    _modify(alice, "private", [_record("trips-draft", "Entry", {"text": {"value": "Ideas for next year"}})], zone="Trips")

    # alice's Journal, bob's own private notes.
    journal = 30
    _modify(alice, "private", [_record(f"entry-{index:02d}", "Entry", {
        "text": {"value": f"Day {index}"}, "day": {"value": 1_790_000_000_000 + index * 86_400_000, "type": "TIMESTAMP"}})
        for index in range(journal)], zone="Journal")
    _modify(bob, "private", [_record(f"todo-{index:02d}", "Todo", {"text": {"value": f"Todo {index}"}, "done": {"value": index % 2}})
                             for index in range(12)])

    # Management tokens, made on the command line (a management token may not make another), then a deploy through the API.
    management = [server.cli("operators", "token", OPERATOR, "--name", name).strip().splitlines()[-1].strip()
                  for name in ("laptop", "ci", "backup script")]
    admin = requests.Session()
    admin.headers["Authorization"] = f"Bearer {management[0]}"
    deployed = admin.post(f"{base}/admin/v1/containers/{CONTAINER}/deployment", json={}, timeout=30)
    assert deployed.status_code in (200, 201), deployed.text
    # After the deploy, development moves on: a field and a type production does not have yet.
    _modify(alice, "public", [_record("note-after-deploy", "Note", {"title": {"value": "After the deploy"}, "mood": {"value": "calm"}}),
                              _record("label-1", "Label", {"text": {"value": "urgent"}})])

    # Server keys: one for development, one for production, which writes production's records.
    key_ids = []
    keys_dir = Path(tempfile.mkdtemp(prefix="cumulus-review-keys-"))
    try:
        for environment, name in (("development", "nightly"), ("production", "importer")):
            private_pem = subprocess.run(["openssl", "ecparam", "-name", "prime256v1", "-genkey", "-noout"],
                                         capture_output=True, text=True, check=True).stdout
            public_pem = subprocess.run(["openssl", "ec", "-pubout"], input=private_pem, capture_output=True, text=True,
                                        check=True).stdout
            public_file = keys_dir / f"{name}.pub.pem"
            public_file.write_text(public_pem)
            key_id = server.cli("keys", "add", "--container", CONTAINER, "--environment", environment, "--public-key", str(public_file),
                                "--name", name).strip().split()[-1]
            key_ids.append(key_id)
            if environment == "production":
                production = CloudKitClient(base, CONTAINER, "production", key_id=key_id, private_key_pem=private_pem)
    finally:
        shutil.rmtree(keys_dir, ignore_errors=True)
    production_records = 27
    _modify(production, "public", [_record(f"prod-note-{index:02d}", "Note", {"title": {"value": f"Production note {index}"},
                                                                             "pinned": {"value": 0}})
                                   for index in range(production_records)])

    for name, client in clients.items():
        users[name].web_auth_token = client.web_auth_token  # the latest, after the server rotated it
    queues = admin.get(f"{base}/admin/v1/containers/{CONTAINER}/development/notifications", timeout=30)
    by_record_name = {user.record_name: name for name, user in users.items()}
    queued = {by_record_name[queue["userRecordName"]]: queue["waiting"] for queue in _ok(queues)["queues"]}
    assert queued.get("alice", 0) > 0 and queued.get("bob", 0) > 0, queued
    return Review(
        server=server, container=CONTAINER, users=users, api_token=api_token,
        notes=[f"note-{index:04d}" for index in range(NOTES) if f"note-{index:04d}" not in deleted] + ["note-bob-a", "note-bob-b"],
        deleted_notes=deleted, updated_notes=updated, folders=folders, photos=photos, stops=stops,
        share_short_guid=short_guid, journal_entries=journal, device_push_token=alice_device, bob_push_token=bob_device,
        subscriptions=["pinned-notes", "trips-zone", "alice-private", "new-folders"], partly_failed_records=partly,
        queued_notifications=queued, production_records=production_records, management_tokens=management, server_key_ids=key_ids)


@pytest.fixture(scope="module")
def review(binaries):
    """A running console server (operator admin) seeded with the console review's data shape."""
    data_dir = tempfile.mkdtemp(prefix="cumulus-review-")
    server = ConsoleServer(binaries, data_dir)
    try:
        yield seed_review(server)
    finally:
        server.stop()
        shutil.rmtree(data_dir, ignore_errors=True)
