"""`cumulus backup` of a data directory on SQLite while `cumulus serve` runs and several clients
write; the backup, a tar file whose manifest any reader can check, restores into a fresh
directory where every write acknowledged before the backup began is present, every database
passes `PRAGMA integrity_check`, and a server started on it answers. A restore over the
directory of the running server is refused; a backup killed with SIGKILL while clients write
leaves the live data whole."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import subprocess
import tarfile
import threading
from pathlib import Path

from backup_writers import back_up_while_writing, found_of, wait_for, writer
from cloudkit_client import CloudKitClient
from cumulus_deployment import CONTAINER, SCHEMA, USER_NAME, USER_PASSWORD
from cumulus_server import CumulusServer, run_cli

CLIENTS = 4


def test_a_backup_taken_while_clients_write_restores_into_a_fresh_directory_that_serves(cumulus_binary: Path, tmp_path: Path) -> None:
    live = CumulusServer(cumulus_binary, tmp_path / "data")
    live.start()
    restored = CumulusServer(cumulus_binary, tmp_path / "restored")
    try:
        api_token = live.create_container(CONTAINER, SCHEMA, tmp_path / "schema.ckdb")
        live.cli("users", "add", "--container", CONTAINER, USER_NAME, stdin=USER_PASSWORD + "\n")
        backup = tmp_path / "cumulus-backup.tar"
        before, acknowledged = back_up_while_writing(live, api_token, CLIENTS, backup)

        # Any tar reader checks the backup against its manifest, the last member.
        with tarfile.open(backup) as archive:
            members = archive.getmembers()
            assert members[-1].name == "manifest.json"
            manifest = json.load(archive.extractfile(members[-1]))
            assert manifest["format"] == "cumulus-sqlite-backup" and manifest["formatVersion"] == 1
            assert manifest["cumulusVersion"] and manifest["created"] and manifest["assets"] is True
            listed = {entry["path"]: entry for entry in manifest["files"]}
            assert set(listed) == {member.name for member in members[:-1]}
            assert {"cumulus.sqlite", "requests.sqlite", f"containers/{CONTAINER}/development.sqlite"} <= set(listed)
            for member in members[:-1]:
                content = archive.extractfile(member).read()
                assert hashlib.sha256(content).hexdigest() == listed[member.name]["sha256"], member.name
                assert len(content) == listed[member.name]["bytes"]

        # A restore over the directory of the running server is refused.
        refused = subprocess.run(
            [str(cumulus_binary), "restore", "--from", str(backup), "--data-dir", str(live.data_dir)],
            capture_output=True, text=True, timeout=120,
        )
        assert refused.returncode != 0 and "stop it before restoring" in refused.stderr

        said = run_cli(cumulus_binary, ["restore", "--from", str(backup), "--data-dir", str(restored.data_dir)])
        assert "expired" in said
        databases = sorted(restored.data_dir.rglob("*.sqlite"))
        assert len(databases) >= 3
        for database in databases:
            connection = sqlite3.connect(database)
            try:
                assert connection.execute("PRAGMA integrity_check").fetchall() == [("ok",)], database
            finally:
                connection.close()

        restored.start()
        reader = CloudKitClient(restored.base_url, CONTAINER, "development", api_token=api_token)
        wanted = before
        assert set(wanted) - found_of(reader, wanted) == set()
    finally:
        restored.stop()
        live.stop()



def test_a_backup_killed_while_clients_write_leaves_the_live_data_whole(cumulus_binary: Path, tmp_path: Path) -> None:
    live = CumulusServer(cumulus_binary, tmp_path / "data")
    live.start()
    try:
        api_token = live.create_container(CONTAINER, SCHEMA, tmp_path / "schema.ckdb")
        live.cli("users", "add", "--container", CONTAINER, USER_NAME, stdin=USER_PASSWORD + "\n")
        token = live.cli("users", "token", "--container", CONTAINER, USER_NAME, stdin=USER_PASSWORD + "\n")
        acknowledged: list[str] = []
        errors: list[str] = []
        stop = threading.Event()
        client = CloudKitClient(live.base_url, CONTAINER, "development", api_token=api_token, web_auth_token=token)
        thread = threading.Thread(target=writer, args=(client, 0, acknowledged, errors, stop))
        thread.start()
        backup = tmp_path / "killed.tar"
        try:
            wait_for(lambda: len(acknowledged) >= 10, "the client wrote")
            # Killed whenever it gets to: whatever it was doing, it only read the live files.
            process = subprocess.Popen(
                [str(cumulus_binary), "backup", "--to", str(backup), "--data-dir", str(live.data_dir)],
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            )
            count = len(acknowledged)
            wait_for(lambda: len(acknowledged) > count + 5, "the client wrote while the backup ran")
            process.kill()
            process.wait()
            count = len(acknowledged)
            wait_for(lambda: len(acknowledged) > count + 5, "the client wrote after the backup was killed")
        finally:
            stop.set()
            thread.join()
        assert errors == []
        # A killed backup never leaves a file under the name asked for.
        assert not backup.exists() or process.returncode == 0
        for database in sorted(live.data_dir.rglob("*.sqlite")):
            connection = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
            try:
                assert connection.execute("PRAGMA integrity_check").fetchall() == [("ok",)], database
            finally:
                connection.close()
        reader = CloudKitClient(live.base_url, CONTAINER, "development", api_token=api_token)
        found: set[str] = set()
        for start in range(0, len(acknowledged), 200):
            answer = reader.lookup("public", acknowledged[start : start + 200])
            found |= {record["recordName"] for record in answer["records"] if "serverErrorCode" not in record}
        assert set(acknowledged) - found == set()
    finally:
        live.stop()
