"""Change-feed throughput and courier latency; see sync-feed.sh.

Usage: python3 sync_feed.py BASE CONTAINER API_TOKEN WEB_AUTH_TOKEN_QUERY SERVER_PID RECORDS ROUNDS WAITERS CHANGES SUBSCRIBERS_FILE
Prints a JSON summary.
"""
import asyncio
import http.client
import json
import resource
import statistics
import sys
import time
from urllib.parse import quote, urlsplit

base, container, token, web, pid = sys.argv[1:6]
records, rounds, waiters, changes = (int(value) for value in sys.argv[6:10])
with open(sys.argv[10]) as lines:
    subscribers = [line.strip() for line in lines if line.strip()]
database = f"/database/1/{container}/development/public"
host = urlsplit(base)
connection = http.client.HTTPConnection(host.hostname, host.port, timeout=60)


try:
    # The reader's parsing is part of what is timed: orjson's costs a fraction of json's.
    import orjson
    parse = orjson.loads
except ImportError:
    parse = json.loads


def call(operation, body, signed_in=True, path=None, as_user=None):
    user = quote(as_user, safe="") if as_user else web
    target = (path or f"{database}/{operation}") + f"?ckAPIToken={token}" + (f"&ckWebAuthToken={user}" if signed_in else "")
    connection.request("POST", target, body=json.dumps(body), headers={"Content-Type": "application/json"})
    response = connection.getresponse()
    payload = response.read()
    if response.status != 200:
        raise RuntimeError(f"{operation}: {response.status} {payload[:300]!r}")
    return parse(payload)


def server_cpu_seconds():
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / 100


# 1. Seed, then read the feed.
for start in range(0, records, 200):
    call("records/modify", {"operations": [
        {"operationType": "forceReplace", "record": {"recordName": f"r{index}", "recordType": "Feed",
                                                     "fields": {"title": {"value": f"record {index}"}, "rank": {"value": index}}}}
        for index in range(start, min(start + 200, records))]})
feed = []
for _ in range(rounds):
    cpu_before, client_before, began, seen, sync_token = server_cpu_seconds(), time.process_time(), time.perf_counter(), 0, None
    while True:
        zone = {"zoneID": {"zoneName": "_defaultZone"}, "resultsLimit": 200}
        if sync_token:
            zone["syncToken"] = sync_token
        answer = call("changes/zone", {"zones": [zone]}, signed_in=False)["zones"][0]
        seen += len(answer["records"])
        sync_token = answer["syncToken"]
        if not answer["moreComing"]:
            break
    elapsed, cpu, client_cpu = time.perf_counter() - began, server_cpu_seconds() - cpu_before, time.process_time() - client_before
    assert seen == records, (seen, records)
    feed.append({"records": seen, "seconds": round(elapsed, 3), "records_per_s": round(seen / elapsed),
                 "server_cpu_us_per_record": round(cpu / seen * 1e6, 2), "reader_cpu_us_per_record": round(client_cpu / seen * 1e6, 2)})

# 2. Courier latency: WAITERS push tokens, shared out among the subscribers (a user holds at
# most 20), each subscriber with one query subscription.
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, waiters + 256)), hard))
tokens = []
for index in range(waiters):
    subscriber = subscribers[index % len(subscribers)]
    created = call("tokens/create", {"apnsEnvironment": "development"}, path=f"/database/1/{container}/development/tokens/create",
                   as_user=subscriber)
    tokens.append(created["webcourierURL"])
for subscriber in subscribers:
    call("subscriptions/modify", {"operations": [{"operationType": "create", "subscription": {
        "subscriptionID": "feed", "subscriptionType": "query", "query": {"recordType": "Feed"}, "firesOn": ["update"]}}]},
        as_user=subscriber)


async def poll(url, parked, delivered):
    target = urlsplit(url)
    reader, writer = await asyncio.open_connection(target.hostname, target.port)
    try:
        request = f"GET {target.path}?{target.query} HTTP/1.1\r\nHost: {target.hostname}\r\n\r\n".encode()
        while True:
            writer.write(request)
            await writer.drain()
            parked.set()
            head = await reader.readuntil(b"\r\n\r\n")
            # The time the answer arrived, taken before anything else is read or parsed, so
            # that the client's own work on a thousand answers is not counted.
            arrived = time.perf_counter()
            length = int(next(line.split(b":")[1] for line in head.split(b"\r\n") if line.lower().startswith(b"content-length")))
            body = await reader.readexactly(length)
            if body:
                delivered.append((arrived, head, body))
                return
    finally:
        writer.close()


async def one_change(index):
    delivered = []
    parked = [asyncio.Event() for _ in tokens]
    tasks = [asyncio.create_task(poll(url, parked[i], delivered)) for i, url in enumerate(tokens)]
    for event in parked:
        await event.wait()
    await asyncio.sleep(0.5)  # every poll reached the server and waits
    sent = time.perf_counter()
    await asyncio.to_thread(call, "records/modify", {"operations": [{"operationType": "forceReplace", "record": {
        "recordName": "r0", "recordType": "Feed", "fields": {"title": {"value": f"change {index}"}, "rank": {"value": 0}}}}]})
    await asyncio.wait_for(asyncio.gather(*tasks), timeout=60)
    for _, head, body in delivered:
        payload = json.loads(body)
        if "ck" not in payload:
            raise RuntimeError(f"not a notification: {head!r} {body[:300]!r}")
        assert payload["ck"]["qry"]["rid"] == "r0"
    assert len(delivered) == len(tokens)
    return [(at - sent) * 1000 for at, _, _ in delivered]


async def courier():
    latencies = []
    for index in range(changes):
        latencies += await one_change(index)
    return latencies


try:
    # The client's own event loop is part of what is timed: uvloop's costs a fraction of asyncio's.
    import uvloop
    latencies = sorted(uvloop.run(courier()))
    client_loop = "uvloop"
except ImportError:
    latencies = sorted(asyncio.run(courier()))
    client_loop = "asyncio"
print(json.dumps({
    "feed": feed,
    "feed_median_records_per_s": statistics.median(round_["records_per_s"] for round_ in feed),
    "courier": {"client_loop": client_loop, "waiters": waiters, "subscribers": len(subscribers), "changes": changes, "deliveries": len(latencies),
                "p50_ms": round(latencies[len(latencies) // 2], 1), "p99_ms": round(latencies[int(len(latencies) * 0.99)], 1),
                "max_ms": round(latencies[-1], 1)},
}, indent=2))
