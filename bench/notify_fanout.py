"""Notification write amplification; see notify-fanout.sh.

Usage: python3 notify_fanout.py BASE CONTAINER API_TOKEN SAVER_WEB_QUERY SPY_WEB_QUERY QUEUE_FILE TOKENS SUBSCRIPTIONS SAVES
Prints a JSON summary.
"""
import http.client
import json
import sqlite3
import statistics
import sys
import time
from urllib.parse import urlsplit

base, container, token, saver, spy, queue_file = sys.argv[1:7]
tokens, subscriptions, saves = (int(value) for value in sys.argv[7:10])
prefix = f"/database/1/{container}/development"
host = urlsplit(base)
connection = http.client.HTTPConnection(host.hostname, host.port, timeout=60)
queue = sqlite3.connect(f"file:{queue_file}?mode=ro", uri=True)


def call(path, body, web):
    connection.request("POST", f"{prefix}/{path}?ckAPIToken={token}&ckWebAuthToken={web}", body=json.dumps(body),
                       headers={"Content-Type": "application/json"})
    response = connection.getresponse()
    return response.status, response.read()


def queued():
    return queue.execute("SELECT count(*) FROM notifications").fetchone()[0]


def save_round(label, count):
    rounds = []
    for index in range(count):
        before = queued()
        began = time.perf_counter()
        status, payload = call("public/records/modify", {"operations": [{"operationType": "create", "record": {
            "recordName": f"{label}-{index}", "recordType": "Folder", "fields": {"title": {"value": f"folder {index}"}}}}]}, saver)
        elapsed = (time.perf_counter() - began) * 1000
        if status != 200:
            raise RuntimeError(f"save: {status} {payload[:300]!r}")
        rounds.append((elapsed, queued() - before))
    times = sorted(elapsed for elapsed, _ in rounds)
    return {"saves": count, "median_ms": round(statistics.median(times), 2), "max_ms": round(times[-1], 2),
            "rows_per_save": sorted({rows for _, rows in rounds})}


summary = {"baseline": save_round("baseline", saves)}
held, refused = 0, {}
for _ in range(tokens):
    status, _ = call("tokens/create", {"apnsEnvironment": "development"}, spy)
    if status == 200:
        held += 1
    else:
        refused[status] = refused.get(status, 0) + 1
for index in range(subscriptions):
    status, payload = call("public/subscriptions/modify", {"operations": [{"operationType": "create", "subscription": {
        "subscriptionID": f"spy-{index}", "subscriptionType": "query", "query": {"recordType": "Folder"}, "firesOn": ["create"]}}]}, spy)
    if status != 200:
        raise RuntimeError(f"subscription: {status} {payload[:300]!r}")
summary["tokens_asked"] = tokens
summary["tokens_created"] = held
summary["tokens_refused"] = refused
summary["subscriptions"] = subscriptions
summary["amplified"] = save_round("amplified", saves)
print(json.dumps(summary, indent=2))
