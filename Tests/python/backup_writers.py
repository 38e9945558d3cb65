"""Clients writing while a backup runs, for the backup tests on both backends: each creates
records one by one and notes the ones the server acknowledged."""

from __future__ import annotations

import threading

from cloudkit_client import CloudKitClient


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


def wait_for(condition, what: str) -> None:
    """Waits for a condition the writers bring about in their own time (no bound on speed)."""
    event = threading.Event()
    for _ in range(6000):
        if condition():
            return
        event.wait(0.01)
    raise AssertionError(f"never happened: {what}")
