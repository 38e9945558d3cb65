"""Two `cumulus serve` processes on one PostgreSQL database behind nginx: writers spread over both
create, update and delete records in one hot zone and in sixteen zones, while readers follow each
zone's change feed with small pages through either process. Once the writers are done and the
readers have drained, every reader's copy must equal the server's — nothing skipped, nothing
repeated — and equal what the writers were told. The same checker, run against servers that
number changes the naive way (a sequence taken at insert, no lock), must find commits skipped.
Courier polls for one push token waiting on both processes get each of its notifications
exactly once between them, and each process knows how many share the request rates.
"""

from __future__ import annotations

import http.client
import json
import random
import subprocess
import time
import threading
import uuid
from pathlib import Path
from typing import Any, Iterator
from urllib.parse import urlsplit

import pytest
import requests

from cloudkit_client import CloudKitClient, CloudKitError
from cumulus_server import CumulusServer
from postgres_cluster import Nginx, fresh_database

CONTAINER = "iCloud.com.example.ScaleOut"
SCHEMA = """
DEFINE SCHEMA
    RECORD TYPE Item (
        "___recordID" REFERENCE QUERYABLE,
        n INT64 QUERYABLE SORTABLE,
        GRANT WRITE TO "_creator",
        GRANT CREATE TO "_icloud",
        GRANT READ TO "_world"
    );
"""
PASSWORD = "correct horse battery staple"


class ScaleOut:
    def __init__(self, first: CumulusServer, second: CumulusServer, nginx: Nginx, api_token: str):
        self.first, self.second, self.nginx, self.api_token = first, second, nginx, api_token

    def client(self, base_url: str) -> CloudKitClient:
        """A client signed in as alice with a session of its own (web auth tokens rotate per client)."""
        token = self.first.cli("users", "token", "--container", CONTAINER, "alice", stdin=PASSWORD + "\n")
        return CloudKitClient(base_url, CONTAINER, "development", api_token=self.api_token, web_auth_token=token)


def start_scale_out(cumulus_binary: Path, workspace: Path, environment: dict[str, str] | None = None) -> Iterator[ScaleOut]:
    database = fresh_database()
    first = CumulusServer(cumulus_binary, workspace / "first", database_url=database, environment=environment)
    second = CumulusServer(cumulus_binary, workspace / "second", database_url=database, environment=environment)
    with first:
        api_token = first.create_container(CONTAINER, SCHEMA, workspace / "schema.ckdb")
        first.cli("users", "add", "--container", CONTAINER, "alice", stdin=PASSWORD + "\n")
        with second, Nginx(workspace, [first.port, second.port]) as nginx:
            yield ScaleOut(first, second, nginx, api_token)


@pytest.fixture(scope="module")
def scale_out(cumulus_binary: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ScaleOut]:
    yield from start_scale_out(cumulus_binary, tmp_path_factory.mktemp("scale-out"))


@pytest.fixture(scope="module")
def naive_scale_out(cumulus_binary: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ScaleOut]:
    """The same two servers numbering changes the naive way: a sequence taken at insert, no lock."""
    yield from start_scale_out(
        cumulus_binary, tmp_path_factory.mktemp("naive-scale-out"), {"CUMULUS_UNSAFE_NAIVE_CHANGE_NUMBERING": "1"})


def zone_id(name: str) -> dict[str, Any]:
    return {"zoneName": name}


def read_zone(client: CloudKitClient, zone: str, token: str | None, limit: int) -> tuple[list[dict[str, Any]], str, bool]:
    body: dict[str, Any] = {"zoneID": zone_id(zone), "resultsLimit": limit}
    if token:
        body["syncToken"] = token
    answer = client._json(client.post("private", "changes/zone", {"zones": [body]}))["zones"][0]
    return answer["records"], answer["syncToken"], answer["moreComing"]


def follow(records: list[dict[str, Any]], copy: dict[str, str], seen: list[str]) -> None:
    for record in records:
        name = record["recordName"]
        seen.append(name + ":" + ("deleted" if record.get("deleted") else record["recordChangeTag"]))
        if record.get("deleted"):
            copy.pop(name, None)
        else:
            copy[name] = record["recordChangeTag"]


def check_change_feeds(scale_out: ScaleOut, zones: int, writer_count: int = 6) -> list[str]:
    """Runs writers and readers over both processes, then compares: what differs between each
    reader's copy and the server's, by zone; empty when nothing was skipped or repeated."""
    prefix = uuid.uuid4().hex[:6]
    names = [f"{prefix}-{index}" for index in range(zones)]
    setup = scale_out.client(scale_out.first.base_url)
    setup.post("private", "zones/modify", {"operations": [{"operationType": "create", "zone": {"zoneID": zone_id(name)}} for name in names]})

    writers_done = threading.Event()
    told: dict[str, dict[str, str]] = {name: {} for name in names}
    told_lock = threading.Lock()
    failures: list[str] = []

    def write(number: int) -> None:
        # Every other writer goes straight to one process; the rest through nginx, to both.
        base = [scale_out.first.base_url, scale_out.second.base_url, scale_out.nginx.base_url][number % 3]
        client = scale_out.client(base)
        rng = random.Random(number)
        mine: dict[tuple[str, str], str] = {}
        for step in range(40):
            zone = names[rng.randrange(zones)]
            owned = [key for key in mine if key[0] == zone]
            choice = rng.random()
            try:
                if owned and choice < 0.25:
                    key = rng.choice(owned)
                    client.modify("private", [{"operationType": "forceDelete", "record": {"recordName": key[1]}}], zone_id=zone_id(zone))
                    del mine[key]
                    with told_lock:
                        told[zone].pop(key[1], None)
                    continue
                if owned and choice < 0.6:
                    key = rng.choice(owned)
                    operation = {"operationType": "update", "record": {"recordName": key[1], "recordType": "Item", "recordChangeTag": mine[key], "fields": {"n": {"value": step}}}}
                else:
                    key = (zone, f"w{number}-{step}")
                    operation = {"operationType": "create", "record": {"recordName": key[1], "recordType": "Item", "fields": {"n": {"value": step}}}}
                saved = client.modify("private", [operation], zone_id=zone_id(zone))["records"][0]
                mine[key] = saved["recordChangeTag"]
                with told_lock:
                    told[zone][key[1]] = saved["recordChangeTag"]
            except CloudKitError as error:
                failures.append(f"writer {number}: {error}")

    copies: list[dict[str, dict[str, str]]] = []

    def read(number: int) -> None:
        client = scale_out.client([scale_out.nginx.base_url, scale_out.first.base_url, scale_out.second.base_url][number % 3])
        copy: dict[str, dict[str, str]] = {name: {} for name in names}
        seen: dict[str, list[str]] = {name: [] for name in names}
        tokens: dict[str, str | None] = {name: None for name in names}
        draining = False
        while True:
            progressed = False
            for name in names:
                more = True
                while more:
                    records, tokens[name], more = read_zone(client, name, tokens[name], 3)
                    progressed = progressed or bool(records)
                    follow(records, copy[name], seen[name])
            if draining and not progressed:
                break
            draining = writers_done.is_set()
        copies.append(copy)

    writers = [threading.Thread(target=write, args=(number,)) for number in range(writer_count)]
    readers = [threading.Thread(target=read, args=(number,)) for number in range(3)]
    for thread in writers + readers:
        thread.start()
    for thread in writers:
        thread.join(timeout=600)
    writers_done.set()
    for thread in readers:
        thread.join(timeout=600)

    assert failures == []
    server: dict[str, dict[str, str]] = {}
    for name in names:
        fresh: dict[str, str] = {}
        seen: list[str] = []
        token = None
        more = True
        while more:
            records, token, more = read_zone(setup, name, token, 200)
            follow(records, fresh, seen)
        server[name] = fresh
    assert server == told, "the server's zones differ from what the writers were told"
    assert len(copies) == 3
    problems = []
    for number, copy in enumerate(copies):
        for name in names:
            missing = sorted(set(server[name].items()) - set(copy[name].items()))
            extra = sorted(set(copy[name].items()) - set(server[name].items()))
            if missing or extra:
                problems.append(f"reader {number}, zone {name}: missing {missing}, extra {extra}")
    return problems


@pytest.mark.parametrize("zones", [1, 16])
def test_no_commit_is_skipped_with_writers_in_two_processes(scale_out: ScaleOut, zones: int) -> None:
    assert check_change_feeds(scale_out, zones) == [], "a reader's copy differs from the server's: a change was skipped"


def test_the_checker_catches_the_naive_numbering_skipping_commits(naive_scale_out: ScaleOut) -> None:
    # A skip needs a reader to page past a sequence whose transaction has not committed yet:
    # likely in every run of a hot zone, certain in none, so a few rounds are allowed.
    rounds = [check_change_feeds(naive_scale_out, 1, writer_count=12)]
    while not rounds[-1] and len(rounds) < 6:
        rounds.append(check_change_feeds(naive_scale_out, 1, writer_count=12))
    assert rounds[-1], f"the checker found no skipped commit in {len(rounds)} rounds of the naive numbering"
    print(f"the naive numbering lost commits to readers in round {len(rounds)}: {rounds[-1][:3]}")




def register_push_token(scale_out: ScaleOut, user: CloudKitClient) -> str:
    """Creates a push token through the first process and registers it for `user`: its courier URL."""
    first = scale_out.first
    created = user.session.post(
        f"{first.base_url}/device/1/{CONTAINER}/development/tokens/create?ckAPIToken={scale_out.api_token}",
        data='{"apnsEnvironment":"development","clientId":"' + uuid.uuid4().hex + '"}', headers={"Content-Type": "text/plain"}, timeout=30)
    assert created.status_code == 200, created.text
    registered = user.post(None, "tokens/register", {"apnsEnvironment": "development", "apnsToken": created.json()["apnsToken"]})
    assert registered.status_code == 200, registered.text
    return registered.json()["webcourierURL"]


def test_a_courier_poll_on_one_process_gets_a_change_written_through_the_other(scale_out: ScaleOut) -> None:
    from test_e2e_notifications import CourierClient

    first, second = scale_out.first, scale_out.second
    user = scale_out.client(first.base_url)
    url = register_push_token(scale_out, user)
    assert url.startswith(first.base_url), "the courier URL names the process that handed it out"
    zone = "courier-" + uuid.uuid4().hex[:6]
    user.post("private", "zones/modify", {"operations": [{"operationType": "create", "zone": {"zoneID": zone_id(zone)}}]})
    subscribed = user.post("private", "subscriptions/modify", {"operations": [
        {"operationType": "create", "subscription": {"subscriptionID": zone, "subscriptionType": "zone", "zoneID": zone_id(zone)}}]})
    assert "serverErrorCode" not in subscribed.json()["subscriptions"][0], subscribed.text

    courier = CourierClient(url).start()
    waits: list[float] = []
    try:
        writer = scale_out.client(second.base_url)
        for number in range(30):
            time.sleep(0.2)  # the poll is waiting on the first process again
            sent = time.monotonic()
            writer.modify("private", [{"operationType": "create", "record": {"recordType": "Item", "fields": {"n": {"value": number}}}}], zone_id=zone_id(zone))
            deadline = sent + 20
            while len(courier.received) <= number and time.monotonic() < deadline:
                time.sleep(0.001)
            waits.append(time.monotonic() - sent)
        received = list(courier.received)
    finally:
        courier.stop()
    assert len(received) == 30 and all(notification["ck"]["fet"]["zid"] == zone for notification in received), received
    waits.sort()
    # Reported, not asserted: a shared machine's timings are no test. The wait includes the
    # write's own round trip through the second process.
    print(f"changes through the second process reached the first's courier poll after "
          f"{waits[len(waits) // 2] * 1000:.0f} ms median, {waits[-1] * 1000:.0f} ms at worst of {len(waits)}")


def test_courier_polls_for_one_token_on_both_processes_get_every_notification_exactly_once(scale_out: ScaleOut) -> None:
    """Polls for one push token wait on both processes at once while many notifications are
    queued for it: each process claims entries for its own polls, and no entry reaches two."""
    first, second = scale_out.first, scale_out.second
    user = scale_out.client(first.base_url)
    courier = urlsplit(register_push_token(scale_out, user))
    zone = "claims-" + uuid.uuid4().hex[:6]
    user.post("private", "zones/modify", {"operations": [{"operationType": "create", "zone": {"zoneID": zone_id(zone)}}]})
    subscribed = user.post("private", "subscriptions/modify", {"operations": [
        {"operationType": "create", "subscription": {"subscriptionID": zone, "subscriptionType": "zone", "zoneID": zone_id(zone)}}]})
    assert "serverErrorCode" not in subscribed.json()["subscriptions"][0], subscribed.text

    received: list[tuple[int, str]] = []
    received_lock = threading.Lock()
    stop = threading.Event()
    failures: list[str] = []

    def poll(port: int) -> None:
        # The same courier URL, asked of one process directly, again at once after every answer.
        while not stop.is_set():
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=40)
            try:
                connection.request("GET", f"{courier.path}?{courier.query}")
                response = connection.getresponse()
                body = response.read()
                if response.status != 200:
                    failures.append(f"poll on {port}: {response.status} {body!r}")
                    return
            except (OSError, http.client.HTTPException) as error:
                failures.append(f"poll on {port}: {error}")
                return
            finally:
                connection.close()
            if body:
                payload = json.loads(body)
                if payload["ck"].get("fet", {}).get("zid") != zone:
                    failures.append(f"poll on {port} got another zone's notification: {payload}")
                with received_lock:
                    received.append((port, payload["ck"]["nid"]))

    pollers = [threading.Thread(target=poll, args=(port,), daemon=True) for port in [first.port, second.port] * 4]
    for thread in pollers:
        thread.start()

    count = 120
    written: list[str] = []

    def write(base_url: str, numbers: range) -> None:
        writer = scale_out.client(base_url)
        for number in numbers:
            try:
                saved = writer.modify("private", [{"operationType": "create", "record": {"recordType": "Item", "fields": {"n": {"value": number}}}}],
                                      zone_id=zone_id(zone))
                written.append(saved["records"][0]["recordName"])
            except CloudKitError as error:
                failures.append(f"writer: {error}")

    writers = [threading.Thread(target=write, args=(base, range(start, count, 2)))
               for start, base in enumerate([first.base_url, second.base_url])]
    for thread in writers:
        thread.start()
    for thread in writers:
        thread.join(timeout=120)
    assert failures == [] and len(written) == count, failures

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        with received_lock:
            if len(received) >= count:
                break
        time.sleep(0.05)
    # Long enough for a second copy of an entry, if any process were to hand one out, to arrive.
    time.sleep(1)
    stop.set()
    with received_lock:
        delivered = list(received)
    ids = [nid for _, nid in delivered]
    duplicates = sorted({nid for nid in ids if ids.count(nid) > 1})
    assert duplicates == [], f"{len(duplicates)} notifications were delivered more than once"
    assert len(ids) == count, f"{count - len(ids)} notifications were never delivered"
    assert failures == [], failures
    by_process = {port: sum(1 for p, _ in delivered if p == port) for port in (first.port, second.port)}
    print(f"{count} notifications for one token, delivered once each: {by_process[first.port]} by the first process, "
          f"{by_process[second.port]} by the second")


def test_each_process_counts_both_and_one_stopped_cleanly_leaves_the_whole_rate_to_the_other(scale_out: ScaleOut) -> None:
    """Each process beats into the catalog and shares every request rate with the processes whose
    beat is recent; commands run meanwhile never count, and a server that stops deletes its row."""
    first, second = scale_out.first, scale_out.second
    database = first.database_url
    assert database is not None

    def processes() -> list[str]:
        rows = subprocess.run(["psql", database, "-Atc", "SELECT pid FROM catalog.processes ORDER BY pid"],
                              check=True, capture_output=True, text=True).stdout.split()
        return sorted(rows)

    def readiness(server: CumulusServer) -> dict[str, Any]:
        answer = requests.get(server.base_url + "/readyz", timeout=10)
        assert answer.status_code == 200, answer.text
        return answer.json()

    def wait_for_count(server: CumulusServer, count: int) -> None:
        deadline = time.monotonic() + 30
        while readiness(server)["processes"] != count:
            assert time.monotonic() < deadline, f"{server.base_url} never counted {count} processes: {readiness(server)}"
            time.sleep(0.2)

    # Every earlier test ran commands (`users token`) against the same database: none has a row.
    assert first.process is not None and second.process is not None
    assert processes() == sorted([str(first.process.pid), str(second.process.pid)])
    wait_for_count(first, 2)
    wait_for_count(second, 2)

    second.stop()
    try:
        assert processes() == [str(first.process.pid)], "a clean shutdown deletes the process's row"
        wait_for_count(first, 1)
    finally:
        second.start(port=second.port)
