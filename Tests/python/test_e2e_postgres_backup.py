"""`cumulus backup` of a store on PostgreSQL while `cumulus serve` runs on it and several
clients write: the backup (pg_dump of the store's schemas, one snapshot) restores into a fresh
database where every write acknowledged before the backup began is present, and a server
started on that database answers. A backup killed with SIGKILL while a client writes leaves
the live store whole."""

from __future__ import annotations

import subprocess
import threading
from pathlib import Path

from backup_writers import back_up_while_writing, found_of, start_writers, wait_for
from cloudkit_client import CloudKitClient
from cumulus_deployment import CONTAINER, SCHEMA, USER_NAME, USER_PASSWORD
from cumulus_server import CumulusServer, run_cli
from postgres_cluster import fresh_database

CLIENTS = 4


def test_a_backup_taken_while_clients_write_restores_into_a_fresh_database_that_serves(cumulus_binary: Path, tmp_path: Path) -> None:
    live = CumulusServer(cumulus_binary, tmp_path / "data", database_url=fresh_database())
    live.start()
    restored = CumulusServer(cumulus_binary, tmp_path / "restored", database_url=fresh_database())
    try:
        api_token = live.create_container(CONTAINER, SCHEMA, tmp_path / "schema.ckdb")
        live.cli("users", "add", "--container", CONTAINER, USER_NAME, stdin=USER_PASSWORD + "\n")
        backup = tmp_path / "cumulus-backup.dump"
        before, acknowledged = back_up_while_writing(live, api_token, CLIENTS, backup)
        assert backup.read_bytes()[:5] == b"PGDMP"

        said = run_cli(cumulus_binary, ["restore", "--from", str(backup), "--database-url", restored.database_url, "--data-dir", str(restored.data_dir)])
        assert "expired" in said
        restored.start()
        reader = CloudKitClient(restored.base_url, CONTAINER, "development", api_token=api_token)
        assert set(before) - found_of(reader, before) == set()
        # The restored store serves writes as well as reads.
        writer_token = restored.cli("users", "token", "--container", CONTAINER, USER_NAME, stdin=USER_PASSWORD + "\n")
        client = CloudKitClient(restored.base_url, CONTAINER, "development", api_token=api_token, web_auth_token=writer_token)
        answer = client.modify("public", [{"operationType": "create", "record": {"recordName": "after-restore", "recordType": "Item", "fields": {"title": {"value": "x"}}}}])
        assert "serverErrorCode" not in answer["records"][0], answer
        # And the live store kept every write, before and after the backup.
        everything = [name for names in acknowledged for name in names]
        live_reader = CloudKitClient(live.base_url, CONTAINER, "development", api_token=api_token)
        assert set(everything) - found_of(live_reader, everything) == set()
    finally:
        restored.stop()
        live.stop()


def test_a_backup_killed_while_a_client_writes_leaves_the_live_store_whole(cumulus_binary: Path, tmp_path: Path) -> None:
    live = CumulusServer(cumulus_binary, tmp_path / "data", database_url=fresh_database())
    live.start()
    try:
        api_token = live.create_container(CONTAINER, SCHEMA, tmp_path / "schema.ckdb")
        live.cli("users", "add", "--container", CONTAINER, USER_NAME, stdin=USER_PASSWORD + "\n")
        acknowledged: list[list[str]] = [[]]
        errors: list[str] = []
        stop = threading.Event()
        threads = start_writers(live, api_token, 1, acknowledged, errors, stop)
        backup = tmp_path / "killed.dump"
        try:
            wait_for(lambda: len(acknowledged[0]) >= 10, "the client wrote")
            process = subprocess.Popen(
                [str(cumulus_binary), "backup", "--to", str(backup), "--data-dir", str(live.data_dir), "--database-url", live.database_url],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            )
            count = len(acknowledged[0])
            wait_for(lambda: len(acknowledged[0]) > count + 5, "the client wrote while the backup ran")
            process.kill()
            process.wait()
            count = len(acknowledged[0])
            wait_for(lambda: len(acknowledged[0]) > count + 5, "the client wrote after the backup was killed")
        finally:
            stop.set()
            for thread in threads:
                thread.join()
        assert errors == []
        assert not backup.exists() or process.returncode == 0
        reader = CloudKitClient(live.base_url, CONTAINER, "development", api_token=api_token)
        assert set(acknowledged[0]) - found_of(reader, acknowledged[0]) == set()
    finally:
        live.stop()
