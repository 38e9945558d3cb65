"""`cumulus migrate-store`: a server on SQLite hands a client sync tokens over HTTP and is stopped;
its data directory is copied into PostgreSQL; a server on PostgreSQL then continues those tokens
over HTTP: the client gets only what changed after them, with no "token expired", and stays
signed in.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path
from typing import Any

from cloudkit_client import CloudKitClient
from cumulus_server import CumulusServer
from postgres_cluster import fresh_database
from test_e2e_postgres_scaleout import PASSWORD, SCHEMA

CONTAINER = "iCloud.com.example.Moving"


def zone_changes(client: CloudKitClient, token: str | None) -> tuple[list[str], str]:
    body: dict[str, Any] = {"zoneID": {"zoneName": "_defaultZone"}}
    if token:
        body["syncToken"] = token
    answer = client._json(client.post("private", "changes/zone", {"zones": [body]}))["zones"][0]
    assert "serverErrorCode" not in answer, answer
    names = [("deleted " if record.get("deleted") else "") + record["recordName"] for record in answer["records"]]
    return names, answer["syncToken"]


def save(client: CloudKitClient, operations: list[dict[str, Any]]) -> None:
    answer = client._json(client.post("private", "records/modify", {"operations": operations}))
    assert all("serverErrorCode" not in record for record in answer["records"]), answer


def create(name: str, n: int) -> dict[str, Any]:
    return {"operationType": "create", "record": {"recordName": name, "recordType": "Item", "fields": {"n": {"value": n}}}}


def test_a_token_from_the_sqlite_server_continues_on_postgresql(cumulus_binary: Path, tmp_path: Path) -> None:
    sqlite = CumulusServer(cumulus_binary, tmp_path / "data")
    with sqlite:
        api_token = sqlite.create_container(CONTAINER, SCHEMA, tmp_path / "schema.ckdb")
        sqlite.cli("users", "add", "--container", CONTAINER, "alice", stdin=PASSWORD + "\n")
        web_auth_token = sqlite.cli("users", "token", "--container", CONTAINER, "alice", stdin=PASSWORD + "\n")
        client = CloudKitClient(sqlite.base_url, CONTAINER, "development", api_token=api_token, web_auth_token=web_auth_token)
        save(client, [create(f"item-{index}", index) for index in range(5)])
        names, first_token = zone_changes(client, None)
        assert names == [f"item-{index}" for index in range(5)]
        save(client, [create("item-5", 5), {"operationType": "forceDelete", "record": {"recordName": "item-0"}}])
        names, token = zone_changes(client, first_token)
        assert names == ["item-5", "deleted item-0"]
        web_auth_token = client.web_auth_token
        trash = json.loads(sqlite.cli("trash", "list", "--container", CONTAINER, "--database", "private", "--user", "alice"))
        assert [record["recordName"] for record in trash["records"]] == ["item-0"]

    database = fresh_database()
    url = database.replace("cumulus@", "cumulus:pw-m0ving@")
    migrated = subprocess.run(
        [str(cumulus_binary), "migrate-store", "--from", str(tmp_path / "data"), "--to", url],
        capture_output=True, text=True, timeout=300,
    )
    assert migrated.returncode == 0, migrated.stderr
    assert "pw-m0ving" not in migrated.stdout + migrated.stderr
    assert re.search(rf"{re.escape(CONTAINER)} development: \d+ zones, 5 records", migrated.stdout), migrated.stdout
    assert "every table's rows and checksum match" in migrated.stdout

    again = subprocess.run(
        [str(cumulus_binary), "migrate-store", "--from", str(tmp_path / "data"), "--to", url],
        capture_output=True, text=True, timeout=300,
    )
    assert again.returncode != 0 and "already holds a store" in again.stderr and "pw-m0ving" not in again.stderr

    postgres = CumulusServer(cumulus_binary, tmp_path / "postgres-data", database_url=database)
    with postgres:
        client = CloudKitClient(postgres.base_url, CONTAINER, "development", api_token=api_token, web_auth_token=web_auth_token)
        # The tokens continue: the same answer as on SQLite, then only what changed since.
        names, _ = zone_changes(client, first_token)
        assert names == ["item-5", "deleted item-0"]
        save(client, [create("item-6", 6)])
        names, latest = zone_changes(client, token)
        assert names == ["item-6"]
        assert zone_changes(client, latest)[0] == []
        # The trash came along, as it was listed on SQLite, and restores on PostgreSQL.
        place = ["--container", CONTAINER, "--database", "private", "--user", "alice"]
        assert json.loads(postgres.cli("trash", "list", *place)) == trash
        restored = json.loads(postgres.cli("trash", "restore", *place, "--record", "item-0"))
        assert restored["restored"] == 1, restored
        assert zone_changes(client, latest)[0] == ["item-0"]
