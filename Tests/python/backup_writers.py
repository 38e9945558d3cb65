"""Clients writing while a backup runs, for the backup tests on both backends: each creates
records one by one and notes the ones the server acknowledged."""

from __future__ import annotations

import threading
from pathlib import Path

from cloudkit_client import CloudKitClient
from cumulus_deployment import CONTAINER, USER_NAME, USER_PASSWORD
from cumulus_server import CumulusServer


def writer(client: CloudKitClient, number: int, acknowledged: list[str], errors: list[str], stop: threading.Event) -> None:
    """Creates records one by one until told to stop, noting each the server acknowledged."""
    index = 0
    while not stop.is_set():
        name = f"c{number}-{index}"
        try:
            answer = client.modify(
                "public", [{"operationType": "create", "record": {"recordName": name, "recordType": "Item", "fields": {"title": {"value": name}}}}]
            )
            if "serverErrorCode" in answer["records"][0]:
                errors.append(f"{name}: {answer['records'][0]}")
            else:
                acknowledged.append(name)
        except Exception as error:  # noqa: BLE001 - every failure is reported by the test
            errors.append(f"{name}: {error}")
        index += 1


def wait_for(condition, what: str, polls: int = 6000) -> None:
    """Waits for a condition the writers (or a schedule) bring about in their own time (no
    bound on speed), asking up to `polls` times, a hundredth of a second apart."""
    event = threading.Event()
    for _ in range(polls):
        if condition():
            return
        event.wait(0.01)
    raise AssertionError(f"never happened: {what}")


def found_of(client: CloudKitClient, names: list[str]) -> set[str]:
    """The names among `names` the server has, looked up 200 at a time."""
    found: set[str] = set()
    for start in range(0, len(names), 200):
        answer = client.lookup("public", names[start : start + 200])
        found |= {record["recordName"] for record in answer["records"] if "serverErrorCode" not in record}
    return found


def start_writers(live: CumulusServer, api_token: str, count: int, acknowledged: list[list[str]], errors: list[str], stop: threading.Event):
    """Starts `count` writers, each signed in as the test user with a token of its own."""
    threads = []
    for number in range(count):
        token = live.cli("users", "token", "--container", CONTAINER, USER_NAME, stdin=USER_PASSWORD + "\n")
        client = CloudKitClient(live.base_url, CONTAINER, "development", api_token=api_token, web_auth_token=token)
        thread = threading.Thread(target=writer, args=(client, number, acknowledged[number], errors, stop))
        thread.start()
        threads.append(thread)
    return threads


def back_up_while_writing(live: CumulusServer, api_token: str, clients: int, backup: Path) -> tuple[list[str], list[list[str]]]:
    """Runs `cumulus backup --to backup` while `clients` signed-in writers create records, and
    goes on until each wrote again after it; returns the names acknowledged before the backup
    began, and every name acknowledged, per client. Fails on any refused write and on a backup
    file others may read (it holds the server secret)."""
    acknowledged: list[list[str]] = [[] for _ in range(clients)]
    errors: list[str] = []
    stop = threading.Event()
    threads = start_writers(live, api_token, clients, acknowledged, errors, stop)
    try:
        wait_for(lambda: all(len(names) >= 10 for names in acknowledged), "every client wrote")
        before = [name for names in acknowledged for name in names]
        said = live.cli("backup", "--to", str(backup))
        assert str(backup) in said
        # The clients write on after the backup, and nothing failed meanwhile.
        counts = [len(names) for names in acknowledged]
        wait_for(lambda: all(len(names) > count for names, count in zip(acknowledged, counts)), "clients wrote after the backup")
    finally:
        stop.set()
        for thread in threads:
            thread.join()
    assert errors == []
    assert backup.stat().st_mode & 0o777 == 0o600
    return before, acknowledged
