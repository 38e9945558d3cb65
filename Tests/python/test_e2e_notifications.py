"""Subscriptions and the web courier, driven as CloudKit JS drives them, against a real server.

A courier client shaped like CloudKit JS: it GETs `webcourierURL` exactly as `tokens/create`
and `tokens/register` hand it out, with no headers, re-polls 10 ms after every answer, and keeps
only payloads holding `ck.qry`, `ck.fet` or `ck.met`. Query, zone and database subscriptions
must reach it in order, including notifications queued while it was away and across a restart
of the server.
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import subprocess
import threading
import time
import uuid
from pathlib import Path
from typing import Any, Iterator, Optional

import pytest
from urllib.parse import urlsplit

from cloudkit_client import CloudKitClient
from cumulus_deployment import CONTAINER, SCHEMA, USER_NAME, USER_PASSWORD
from cumulus_server import CumulusServer


class CourierClient:
    """Polls one webcourierURL on a thread, as CloudKit JS's notification loop does."""

    def __init__(self, url: str):
        self.url = urlsplit(url)
        self.received: list[dict[str, Any]] = []
        self.empty_answers = 0
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread: Optional[threading.Thread] = None
        self._connection: Optional[http.client.HTTPConnection] = None

    def start(self) -> "CourierClient":
        self._stop.clear()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Goes away as a closed tab does: the waiting poll's connection is closed."""
        self._stop.set()
        with self._lock:
            connection = self._connection
        if connection is not None and connection.sock is not None:
            try:
                connection.sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        if self._thread is not None:
            self._thread.join(timeout=10)

    def _run(self) -> None:
        while not self._stop.is_set():
            connection = http.client.HTTPConnection(self.url.hostname, self.url.port, timeout=40)
            with self._lock:
                self._connection = connection
            try:
                # Exactly the URL handed out, no headers beyond what any fetch sends.
                connection.request("GET", f"{self.url.path}?{self.url.query}")
                response = connection.getresponse()
                body = response.read()
            except (OSError, http.client.HTTPException):
                time.sleep(0.05)
                continue
            finally:
                connection.close()
            if self._stop.is_set():
                break
            if body:
                payload = json.loads(body)
                ck = payload.get("ck", {})
                if any(key in ck for key in ("qry", "fet", "met")):
                    with self._lock:
                        self.received.append(payload)
            else:
                self.empty_answers += 1
            time.sleep(0.01)

    def wait_for(self, count: int, timeout: float = 20) -> list[dict[str, Any]]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                if len(self.received) >= count:
                    return list(self.received)
            time.sleep(0.02)
        with self._lock:
            return list(self.received)


def describe(payload: dict[str, Any]) -> str:
    ck = payload["ck"]
    if "qry" in ck:
        return f"{ck['qry']['sid']} {['', 'create', 'update', 'delete'][ck['qry']['fo']]} {ck['qry']['rid']}"
    if "fet" in ck:
        return f"{ck['fet']['sid']} zone {ck['fet']['zid']}"
    return f"{ck['met']['sid']} database"


@pytest.fixture(scope="module")
def server(cumulus_binary: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A server of its own, which the test restarts: the shared deployment keeps running."""
    workspace = tmp_path_factory.mktemp("notifications")
    server = CumulusServer(cumulus_binary, workspace / "data", demo=False)
    server.start()
    try:
        api_token = server.create_container(CONTAINER, SCHEMA, workspace / "schema.ckdb")
        server.cli("users", "add", "--container", CONTAINER, USER_NAME, stdin=USER_PASSWORD + "\n")
        web_auth_token = server.cli("users", "token", "--container", CONTAINER, USER_NAME, stdin=USER_PASSWORD + "\n")
        yield {"server": server, "api_token": api_token, "web_auth_token": web_auth_token}
    finally:
        server.stop()


def test_a_cloudkit_js_shaped_courier_client_receives_every_subscription_in_order(server: dict[str, Any]) -> None:
    cumulus: CumulusServer = server["server"]
    user = CloudKitClient(cumulus.base_url, CONTAINER, "development", api_token=server["api_token"],
                          web_auth_token=server["web_auth_token"])
    world = CloudKitClient(cumulus.base_url, CONTAINER, "development", api_token=server["api_token"])

    # tokens/create on the /device/1 path as both libraries call it, then tokens/register as a signed-in user.
    created = world.session.post(
        f"{cumulus.base_url}/device/1/{CONTAINER}/development/tokens/create?ckAPIToken={server['api_token']}",
        data='{"apnsEnvironment":"development","clientId":"' + uuid.uuid4().hex + '"}', headers={"Content-Type": "text/plain"}, timeout=30)
    assert created.status_code == 200, created.text
    apns_token = created.json()["apnsToken"]
    registered = user.post(None, "tokens/register", {"apnsEnvironment": "development", "apnsToken": apns_token})
    assert registered.status_code == 200, registered.text
    assert set(registered.json()) == {"apnsEnvironment", "apnsToken", "webcourierURL"}
    url = registered.json()["webcourierURL"]
    assert url == created.json()["webcourierURL"]

    # A query subscription in the public database, a zone and a database subscription in the private one.
    subscriptions = user.post("public", "subscriptions/modify", {"operations": [{"operationType": "create", "subscription": {
        "subscriptionID": "urgent", "subscriptionType": "query", "firesOn": ["create", "update", "delete"],
        "query": {"recordType": "Item", "filterBy": [{"comparator": "GREATER_THAN", "fieldName": "rank", "fieldValue": {"value": 5}}]},
        "notificationInfo": {"alertBody": "Urgent item", "additionalFields": ["title"]}}}]})
    assert "serverErrorCode" not in subscriptions.json()["subscriptions"][0], subscriptions.text
    zones = user.post("private", "zones/modify", {"operations": [{"operationType": "create", "zone": {"zoneID": {"zoneName": "Work"}}}]})
    assert zones.status_code == 200, zones.text
    private = user.post("private", "subscriptions/modify", {"operations": [
        {"operationType": "create", "subscription": {"subscriptionID": "work", "subscriptionType": "zone", "zoneID": {"zoneName": "Work"}}},
        {"operationType": "create", "subscription": {"subscriptionID": "everything", "subscriptionType": "database"}},
    ]})
    assert all("serverErrorCode" not in entry for entry in private.json()["subscriptions"]), private.text

    def save(database: str, name: str, rank: int, zone: str = "_defaultZone") -> None:
        response = user.post(database, "records/modify", {"zoneID": {"zoneName": zone}, "operations": [{"operationType": "forceReplace", "record": {
            "recordName": name, "recordType": "Item", "fields": {"title": {"value": name}, "rank": {"value": rank}}}}]})
        assert response.status_code == 200 and "serverErrorCode" not in response.json()["records"][0], response.text

    courier = CourierClient(url).start()
    try:
        save("public", "high", 9)
        save("public", "low", 1)  # matches no filter
        save("private", "task", 1, zone="Work")
        save("public", "high", 10)
        courier.wait_for(4)
        time.sleep(0.3)  # nothing more may come
        received = courier.wait_for(5, timeout=0)
    finally:
        courier.stop()
    assert [describe(payload) for payload in received] == [
        "urgent create high", "everything database", "work zone Work", "urgent update high",
    ]
    first = received[0]
    assert first["aps"] == {"alert": {"body": "Urgent item"}}
    assert first["ck"]["qry"]["af"] == {"title": "high"} and first["ck"]["qry"]["dbs"] == 0
    assert first["ck"]["cid"] == CONTAINER and first["ck"]["ckuserid"].startswith("_")
    assert received[2]["ck"]["fet"]["dbs"] == 1 and received[2]["ck"]["fet"]["zoid"] == first["ck"]["ckuserid"]

    # Away: changes are queued, none is dropped; the server restarts in between.
    save("public", "high", 11)
    save("private", "task", 2, zone="Work")
    cumulus.restart()
    user.base_url = cumulus.base_url
    delete = user.post("public", "records/modify", {"operations": [{"operationType": "forceDelete", "record": {"recordName": "high"}}]})
    assert delete.status_code == 200, delete.text

    courier = CourierClient(url).start()
    try:
        courier.wait_for(4)
        time.sleep(0.3)  # nothing more may come
        received = courier.wait_for(5, timeout=0)
    finally:
        courier.stop()
    assert [describe(payload) for payload in received] == [
        "urgent update high", "everything database", "work zone Work", "urgent delete high",
    ]


def test_the_cli_lists_subscriptions_and_shows_the_change_log(server: dict[str, Any]) -> None:
    cumulus: CumulusServer = server["server"]
    listed = cumulus.cli("subscriptions", "list", "--container", CONTAINER).splitlines()
    assert any(line.split("\t")[2:] == ["urgent", "query Item on create,update,delete"] for line in listed), listed
    assert any(line.split("\t")[2] == "work" and line.split("\t")[1].startswith("private of _") for line in listed), listed
    log = [line.split("\t") for line in cumulus.cli("changes", "--container", CONTAINER).splitlines()]
    kinds = [(fields[1], fields[2]) for fields in log if fields[0].isdigit()]
    assert ("deleted", "high") in kinds and ("created", "low") in kinds, kinds
    token = next(fields[1] for fields in log if fields[0] == "syncToken")
    at_end = cumulus.cli("changes", "--container", CONTAINER, "--sync-token", token).splitlines()
    assert at_end[0] == f"syncToken\t{token}"
    assert "reader\t_world" in at_end and any(line.startswith("held\tchange ") for line in at_end), at_end
    # Newest first, searched by name, paged back, with who made each change and through what.
    numbers = [int(fields[0]) for fields in log if fields[0].isdigit()]
    assert numbers == sorted(numbers, reverse=True), numbers
    searched = [line.split("\t") for line in cumulus.cli("changes", "--container", CONTAINER, "--record-name", "high").splitlines()]
    assert [fields[1] for fields in searched if fields[0].isdigit()][0] == "deleted", searched
    assert all(fields[2] == "high" for fields in searched if fields[0].isdigit()), searched
    older = [line.split("\t") for line in cumulus.cli("changes", "--container", CONTAINER, "--before", str(numbers[0])).splitlines()]
    assert [int(fields[0]) for fields in older if fields[0].isdigit()] == numbers[1:], older
    first = [line.split("\t") for line in cumulus.cli("changes", "--container", CONTAINER, "--sync-token", "", "--reader", "_world").splitlines()]
    assert any(fields[0] == "reader" and fields[1] == "_world" for fields in first), first
    user = next(line.split("\t")[0] for line in listed if line.split("\t")[2] == "urgent")
    assert cumulus.cli("subscriptions", "delete", "--container", CONTAINER, "--user", user, "urgent") == f"Deleted subscription urgent of {user}."
    assert "urgent" not in cumulus.cli("subscriptions", "list", "--container", CONTAINER)


def test_the_cli_lists_and_revokes_push_tokens_locally_and_through_a_server(server: dict[str, Any]) -> None:
    cumulus: CumulusServer = server["server"]
    user = CloudKitClient(cumulus.base_url, CONTAINER, "development", api_token=server["api_token"],
                          web_auth_token=server["web_auth_token"])
    created = user.post(None, "tokens/create", {"apnsEnvironment": "development"})
    assert created.status_code == 200, created.text
    apns_token, url = created.json()["apnsToken"], created.json()["webcourierURL"]

    listed = [line.split("\t") for line in cumulus.cli("push-tokens", "list", "--container", CONTAINER, "--user", USER_NAME).splitlines()]
    mine = [fields for fields in listed if apns_token.startswith(fields[2].rstrip("…"))]
    assert len(mine) == 1 and mine[0][1] == USER_NAME and len(mine[0]) == 5, listed
    assert all(apns_token not in fields for fields in listed), "the token itself is never printed"
    token_id = mine[0][0]

    # Through the server's management API, with a management token, as from a laptop.
    cumulus.cli("operators", "add", "courier-ops", stdin="a long operator passphrase\n")
    management = cumulus.cli("operators", "token", "courier-ops", "--name", "push-tokens")
    environment = {key: value for key, value in os.environ.items() if not key.startswith("CUMULUS_")}
    environment["CUMULUS_MANAGEMENT_TOKEN"] = management

    def remote(*arguments: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(cumulus.binary), *arguments, "--server", cumulus.base_url], capture_output=True, text=True,
                              timeout=60, env=environment, cwd="/")

    remotely = remote("push-tokens", "list", "--container", CONTAINER)
    assert remotely.returncode == 0 and token_id in remotely.stdout, remotely.stderr
    assert remote("push-tokens", "revoke", "--container", CONTAINER, "--environment", "production", token_id).returncode != 0
    revoked = remote("push-tokens", "revoke", "--container", CONTAINER, token_id)
    assert revoked.returncode == 0 and revoked.stdout.strip() == f"Revoked push token {token_id}.", revoked.stderr
    assert token_id not in cumulus.cli("push-tokens", "list", "--container", CONTAINER)
    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)
    connection.request("GET", f"{parts.path}?{parts.query}")
    answer = connection.getresponse()
    assert answer.status == 404 and answer.read() == b""
    connection.close()
    with pytest.raises(RuntimeError):
        cumulus.cli("push-tokens", "revoke", "--container", CONTAINER, token_id)
