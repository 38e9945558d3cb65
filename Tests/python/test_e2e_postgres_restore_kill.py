"""`cumulus restore` on PostgreSQL killed with SIGKILL, it and its `psql`, while `psql` runs the
restore's script: the script runs in one transaction, so the live store is exactly as before —
a server started on it reads every record, written before the backup or after, and a change
token issued before the restore still works (a restore that completed would have expired it).
A full restore afterwards succeeds.

To kill the script in its middle rather than before or after it, the test holds a lock on a
table of the environment schema created last while the restore runs: the script, having begun
dropping the store's schemas in its transaction, waits on that lock, and is killed waiting."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path
from typing import Any

from backup_writers import wait_for
from cloudkit_client import CloudKitClient
from cumulus_deployment import CONTAINER, SCHEMA, USER_NAME, USER_PASSWORD
from cumulus_server import CumulusServer, run_cli
from postgres_cluster import fresh_database, psql_rows

ZONE = {"zoneName": "Notes"}


def children(pid: int, name: str) -> list[int]:
    """The processes named `name` whose parent is `pid`, from /proc."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry}/stat").read_text()
        except OSError:
            continue
        # `pid (comm) state ppid …`: the name may hold spaces, so it is read between its parentheses.
        comm = stat[stat.index("(") + 1 : stat.rindex(")")]
        ppid = int(stat[stat.rindex(")") + 2 :].split()[1])
        if ppid == pid and comm == name:
            found.append(int(entry))
    return found


def write(client: CloudKitClient, names: list[str]) -> None:
    operations = [
        {"operationType": "create", "record": {"recordName": name, "recordType": "Item", "fields": {"title": {"value": name}}}}
        for name in names
    ]
    answer = client.modify("private", operations, zone_id=ZONE)
    assert all("serverErrorCode" not in record for record in answer["records"]), answer


def changes(client: CloudKitClient, token: str | None) -> Any:
    body: dict[str, Any] = {"zoneID": ZONE}
    if token is not None:
        body["syncToken"] = token
    return client.post("private", "records/changes", body)


def present(client: CloudKitClient, names: list[str]) -> set[str]:
    answer = client.lookup("private", names, zone_id=ZONE)
    return {record["recordName"] for record in answer["records"] if "serverErrorCode" not in record}


def test_a_restore_killed_while_psql_runs_its_script_leaves_the_live_store_as_it_was(cumulus_binary: Path, tmp_path: Path) -> None:
    database = fresh_database()
    live = CumulusServer(cumulus_binary, tmp_path / "data", database_url=database)
    live.start()
    try:
        api_token = live.create_container(CONTAINER, SCHEMA, tmp_path / "schema.ckdb")
        live.cli("users", "add", "--container", CONTAINER, USER_NAME, stdin=USER_PASSWORD + "\n")
        session = live.cli("users", "token", "--container", CONTAINER, USER_NAME, stdin=USER_PASSWORD + "\n")
        client = CloudKitClient(live.base_url, CONTAINER, "development", api_token=api_token, web_auth_token=session)
        created = client.post("private", "zones/modify", {"operations": [{"operationType": "create", "zone": {"zoneID": ZONE}}]})
        assert created.status_code == 200, created.text
        kept = [f"kept-{index}" for index in range(20)]
        write(client, kept)
        backup = tmp_path / "backup.dump"
        live.cli("backup", "--to", str(backup))
        newer = [f"newer-{index}" for index in range(20)]
        write(client, newer)
        answer = changes(client, None)
        assert answer.status_code == 200, answer.text
        token = answer.json()["syncToken"]
    finally:
        live.stop()

    restore_command = [str(cumulus_binary), "restore", "--from", str(backup), "--database-url", database, "--data-dir", str(live.data_dir)]
    (schema,) = psql_rows(database, "SELECT nspname FROM pg_namespace WHERE nspname ~ '^(development|production)_' ORDER BY oid DESC LIMIT 1")
    blocker = subprocess.Popen(["psql", database, "-qAt"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert blocker.stdin is not None and blocker.stdout is not None
        blocker.stdin.write(f"BEGIN; LOCK TABLE {schema}.records IN ACCESS SHARE MODE; SELECT 'locked';\n")
        blocker.stdin.flush()
        assert blocker.stdout.readline().strip() == "locked"

        restore = subprocess.Popen(restore_command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_for(lambda: children(restore.pid, "psql") != [], "the restore ran psql")
        (script,) = children(restore.pid, "psql")
        wait_for(
            lambda: psql_rows(database, "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'psql' AND wait_event_type = 'Lock'") == ["1"],
            "the restore's script waited on the lock, its transaction under way",
        )
        os.kill(restore.pid, signal.SIGKILL)
        os.kill(script, signal.SIGKILL)
        assert restore.wait() == -signal.SIGKILL
        blocker.stdin.write("COMMIT;\n")
        blocker.stdin.close()
        assert blocker.wait() == 0
    finally:
        if blocker.poll() is None:
            blocker.kill()
    # The killed script's session ends without committing, once it finds its client gone.
    wait_for(lambda: psql_rows(database, "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'psql' AND pid <> pg_backend_pid()") == ["0"], "the script's session ended")

    live.start()
    try:
        client = CloudKitClient(live.base_url, CONTAINER, "development", api_token=api_token, web_auth_token=session)
        assert present(client, kept + newer) == set(kept + newer)
        answer = changes(client, token)
        assert answer.status_code == 200, answer.text
        assert answer.json()["records"] == [], "the token issued before reads on where it was"
    finally:
        live.stop()

    # A restore left alone completes: the backup's records alone, and the token expired.
    said = run_cli(cumulus_binary, restore_command[1:])
    assert "expired" in said
    live.start()
    try:
        session = live.cli("users", "token", "--container", CONTAINER, USER_NAME, stdin=USER_PASSWORD + "\n")
        client = CloudKitClient(live.base_url, CONTAINER, "development", api_token=api_token, web_auth_token=session)
        assert present(client, kept + newer) == set(kept)
        answer = changes(client, token)
        assert answer.status_code != 200 and answer.json()["serverErrorCode"] == "CHANGE_TOKEN_EXPIRED", answer.text
    finally:
        live.stop()
