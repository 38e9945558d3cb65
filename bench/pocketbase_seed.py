"""Gives Cumulus and PocketBase the same records for bench/pocketbase.sh.

Cumulus: records/modify in batches of 200, as a signed-in user, records note-0 … note-(N-1).
PocketBase: as the superuser, the `notes` collection (title, body, count, an index on count,
open list, view and create rules), then one POST per record with id noteNNNNNNNNNNN.
Both: count = N, the same title and body.

Usage: python3 pocketbase_seed.py COUNT CUMULUS_MODIFY_BASE POCKETBASE_URL EMAIL PASSWORD WORKDIR
"""
import http.client
import json
import sys
import urllib.parse

count, cumulus_base, pocketbase_url, email, password = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
TITLE = "A moderately long note title for benchmarking"
BODY = "lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore"


def connection(url):
    parts = urllib.parse.urlsplit(url)
    return http.client.HTTPConnection(parts.hostname, parts.port, timeout=30), parts


def request(conn, method, path, body=None, headers=None):
    data = json.dumps(body).encode() if body is not None else None
    conn.request(method, path, body=data, headers={"Content-Type": "application/json", **(headers or {})})
    response = conn.getresponse()
    text = response.read()
    if response.status >= 300:
        raise SystemExit(f"{method} {path} answered {response.status}: {text[:500]!r}")
    return json.loads(text) if text else None


# Cumulus
conn, parts = connection(cumulus_base)
for start in range(0, count, 200):
    operations = [{"operationType": "create", "record": {"recordName": f"note-{n}", "recordType": "Note", "fields": {
        "title": {"value": TITLE}, "body": {"value": BODY}, "count": {"value": n}}}} for n in range(start, min(start + 200, count))]
    reply = request(conn, "POST", f"{parts.path}/records/modify?{parts.query}", {"operations": operations, "desiredKeys": []})
    failed = [r for r in reply["records"] if "serverErrorCode" in r]
    if failed:
        raise SystemExit(f"Cumulus refused records: {failed[:3]}")

# PocketBase
conn, _ = connection(pocketbase_url)
token = request(conn, "POST", "/api/collections/_superusers/auth-with-password", {"identity": email, "password": password})["token"]
request(conn, "POST", "/api/collections", {
    "name": "notes", "type": "base", "listRule": "", "viewRule": "", "createRule": "",
    "fields": [{"name": "title", "type": "text"}, {"name": "body", "type": "text"}, {"name": "count", "type": "number"}],
    "indexes": ["CREATE INDEX idx_notes_count ON notes (count)"],
}, {"Authorization": token})
for n in range(count):
    request(conn, "POST", "/api/collections/notes/records", {"id": f"note{n:011d}", "title": TITLE, "body": BODY, "count": n},
            {"Authorization": token})
print(f"seeded {count} records on each server")
