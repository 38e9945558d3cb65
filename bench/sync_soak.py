"""The change feed under concurrent writers, over HTTP: WRITERS threads replace and delete
records of a pool in the public database's default zone for DURATION seconds, as the signed-in
bench user, while a reader follows `records/changes` with small pages; then the reader catches
up once more and its copy must equal what a full query of the server returns.

Usage: python3 sync_soak.py BASE_URL API_TOKEN WEB_AUTH_TOKEN_QUERY DURATION_S WRITERS
Prints a JSON summary; exits 1 when the copies differ.
"""
import json
import random
import sys
import threading
import time
import urllib.request

base, token, web, duration, writers = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), int(sys.argv[5])
POOL = 500
PAGE = 50


def call(operation, body, signed_in=False):
    url = f"{base}/{operation}?ckAPIToken={token}" + (f"&ckWebAuthToken={web}" if signed_in else "")
    request = urllib.request.Request(url, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read())


stop = time.monotonic() + duration
counts = {"replaced": 0, "deleted": 0, "errors": 0}
lock = threading.Lock()


def write(seed):
    generator = random.Random(seed)
    while time.monotonic() < stop:
        name = f"soak-{generator.randrange(POOL)}"
        if generator.random() < 0.25:
            operation = {"operationType": "forceDelete", "record": {"recordName": name}}
            kind = "deleted"
        else:
            operation = {"operationType": "forceReplace", "record": {
                "recordName": name, "recordType": "Soak", "fields": {"title": {"value": f"{seed}-{generator.random()}"}}}}
            kind = "replaced"
        try:
            answer = call("records/modify", {"operations": [operation]}, signed_in=True)
            failed = "serverErrorCode" in answer["records"][0] and answer["records"][0]["serverErrorCode"] != "NOT_FOUND"
        except Exception:
            failed = True
        with lock:
            counts["errors" if failed else kind] += 1


def follow(state):
    """Reads pages until moreComing is false; returns how many pages."""
    pages = 0
    while True:
        body = {"resultsLimit": PAGE}
        if state["token"]:
            body["syncToken"] = state["token"]
        answer = call("records/changes", body)
        pages += 1
        for record in answer["records"]:
            if record.get("deleted"):
                state["copy"].pop(record["recordName"], None)
            else:
                state["copy"][record["recordName"]] = record["fields"]["title"]["value"]
        state["token"] = answer["syncToken"]
        if not answer["moreComing"]:
            return pages


threads = [threading.Thread(target=write, args=(seed,)) for seed in range(writers)]
for thread in threads:
    thread.start()
state = {"token": None, "copy": {}}
pages = follows = 0
while any(thread.is_alive() for thread in threads):
    pages += follow(state)
    follows += 1
for thread in threads:
    thread.join()
pages += follow(state)

server, marker = {}, None
while True:
    body = {"query": {"recordType": "Soak"}, "resultsLimit": 200}
    if marker:
        body["continuationMarker"] = marker
    answer = call("records/query", body)
    for record in answer["records"]:
        server[record["recordName"]] = record["fields"]["title"]["value"]
    marker = answer.get("continuationMarker")
    if not marker:
        break

missing = sorted(set(server) - set(state["copy"]))
extra = sorted(set(state["copy"]) - set(server))
stale = sorted(name for name in set(server) & set(state["copy"]) if server[name] != state["copy"][name])
summary = dict(counts, seconds=duration, writers=writers, reader_pages=pages, reader_follows=follows,
               server_records=len(server), reader_records=len(state["copy"]), missing=len(missing), extra=len(extra), stale=len(stale))
print(json.dumps(summary))
sys.exit(0 if not (missing or extra or stale) and counts["errors"] == 0 else 1)
