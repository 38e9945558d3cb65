"""`cumulus restore` killed with SIGKILL at every step of its swap, over a stopped data
directory: the directory opens afterwards with all of the old data or all of the backup's,
never a mix, every database passes `PRAGMA integrity_check`, and nothing of the restore is
left behind once a store has opened it. The test hook CUMULUS_TEST_RESTORE_KILL_AT makes the
restoring process kill itself at the Nth point of the swap, a real crash of a real process."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
from pathlib import Path

from cloudkit_client import CloudKitClient
from cumulus_deployment import CONTAINER, SCHEMA, USER_NAME, USER_PASSWORD
from cumulus_server import CumulusServer, run_cli

LATER = "iCloud.com.example.Later"


def create(client: CloudKitClient, names: list[str]) -> None:
    operations = [
        {"operationType": "create", "record": {"recordName": name, "recordType": "Item", "fields": {"title": {"value": name}}}}
        for name in names
    ]
    answer = client.modify("public", operations)
    assert all("serverErrorCode" not in record for record in answer["records"]), answer


def present(client: CloudKitClient, names: list[str]) -> set[str]:
    answer = client.lookup("public", names)
    return {record["recordName"] for record in answer["records"] if "serverErrorCode" not in record}


def test_a_restore_killed_at_any_step_leaves_the_old_data_or_completes_to_the_new(cumulus_binary: Path, tmp_path: Path) -> None:
    original = CumulusServer(cumulus_binary, tmp_path / "original")
    original.start()
    try:
        api_token = original.create_container(CONTAINER, SCHEMA, tmp_path / "schema.ckdb")
        original.cli("users", "add", "--container", CONTAINER, USER_NAME, stdin=USER_PASSWORD + "\n")
        token = original.cli("users", "token", "--container", CONTAINER, USER_NAME, stdin=USER_PASSWORD + "\n")
        writer = CloudKitClient(original.base_url, CONTAINER, "development", api_token=api_token, web_auth_token=token)
        kept = [f"kept-{index}" for index in range(5)]
        create(writer, kept)
        backup = tmp_path / "backup.tar"
        original.cli("backup", "--to", str(backup))
        # What only the old data has: records written and a container made after the backup.
        newer = [f"newer-{index}" for index in range(5)]
        create(writer, newer)
        original.cli("containers", "create", LATER)
    finally:
        original.stop()

    outcomes: list[str] = []
    step = 0
    while True:
        data = tmp_path / f"step-{step}"
        shutil.copytree(original.data_dir, data)
        restore = subprocess.run(
            [str(cumulus_binary), "restore", "--from", str(backup), "--data-dir", str(data)],
            capture_output=True, text=True, timeout=120, env={"CUMULUS_TEST_RESTORE_KILL_AT": str(step), "PATH": "/usr/bin:/bin"},
        )
        finished = restore.returncode == 0
        assert finished or restore.returncode == -9, restore.stderr

        # Any command opening the store completes a swap the killed restore had begun.
        containers = run_cli(cumulus_binary, ["containers", "list", "--data-dir", str(data)])
        assert not (data / ".cumulus-restore-swap.json").exists()
        leftovers = [entry.name for entry in data.iterdir() if entry.name.startswith(".cumulus-")]
        for database in sorted(data.rglob("*.sqlite")):
            connection = sqlite3.connect(f"file:{database}?mode=ro", uri=True)
            try:
                assert connection.execute("PRAGMA integrity_check").fetchall() == [("ok",)], database
            finally:
                connection.close()
        server = CumulusServer(cumulus_binary, data)
        server.start()
        try:
            found = present(CloudKitClient(server.base_url, CONTAINER, "development", api_token=api_token), kept + newer)
        finally:
            server.stop()
        # It stopped as a server should on SIGTERM (with no backup schedule to stop).
        assert server.process.returncode == 0, server.output()[-2000:]
        if LATER in containers:
            assert found == set(kept + newer), f"step {step}: the old catalog with {sorted(found)}"
            outcomes.append("old")
            # Killed before its swap, it leaves only what it unpacked, which the next restore clears.
            assert all(name.startswith((".cumulus-restore-", ".cumulus-replaced-")) for name in leftovers), leftovers
        else:
            assert found == set(kept), f"step {step}: the backup's catalog with {sorted(found)}"
            outcomes.append("new")
            assert leftovers == [], leftovers
        if finished:
            break
        step += 1

    # Killed before its marker the restore changed nothing; killed at any later point it was
    # completed; and there were renames to be killed between.
    assert outcomes[0] == "old" and set(outcomes[1:]) == {"new"}, outcomes
    assert len(outcomes) >= 6, outcomes
