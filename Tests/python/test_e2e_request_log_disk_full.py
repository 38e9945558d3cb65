"""The API keeps answering while the request log's disk is full: the data directory is a
size-limited file system (a 16 MiB tmpfs), filled to the last byte, and four clients read. Every
read is answered; the server says once that the log left calls out; what needs room (an
environment opened for the first time) is refused with CloudKit's QUOTA_EXCEEDED, not a 500; and
when room is made again, calls are logged again.

Mounting a file system needs the right to (root in a container that allows it). Where the machine
refuses, the test skips; `RequestLogBoundsTests` makes the disk full by SQLite's page limit."""

from __future__ import annotations

import errno
import json
import subprocess
import threading
from pathlib import Path

import pytest

from cloudkit_client import CloudKitClient
from cumulus_server import CumulusServer

CONTAINER = "iCloud.com.example.FullDisk"
SCHEMA = """DEFINE SCHEMA
  RECORD TYPE Note (
    title STRING QUERYABLE,
    body STRING,
    GRANT WRITE TO "_creator",
    GRANT CREATE TO "_icloud",
    GRANT READ TO "_world"
  );
"""
CLIENTS = 4
READS = 1_000
QUERY = {"query": {"recordType": "Note", "filterBy": [
    {"fieldName": "title", "comparator": "EQUALS", "fieldValue": {"value": "kept"}}]}, "resultsLimit": 5}


@pytest.fixture
def small_volume(tmp_path: Path):
    """A 16 MiB tmpfs, unmounted afterwards; skips where mounting is not allowed."""
    volume = tmp_path / "volume"
    volume.mkdir()
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(volume)], capture_output=True, text=True)
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a size-limited file system here ({mounted.stderr.strip()}); "
                    "RequestLogBoundsTests fills the log by SQLite's page limit instead")
    volume.chmod(0o700)
    try:
        yield volume
    finally:
        subprocess.run(["umount", "-l", str(volume)], check=False)


def fill(volume: Path) -> Path:
    """Writes a file into `volume` until the file system has no byte left; returns it."""
    filler = volume / "filler"
    chunk = b"\0" * (64 << 10)
    with open(filler, "wb", buffering=0) as output:
        while True:
            try:
                output.write(chunk)
            except OSError as error:
                assert error.errno == errno.ENOSPC, error
                break
        for size in (4096, 512, 1):
            while True:
                try:
                    output.write(b"\0" * size)
                except OSError:
                    break
    return filler


def test_the_api_answers_while_the_request_logs_disk_is_full(cumulus_binary: Path, tmp_path: Path, small_volume: Path) -> None:
    server = CumulusServer(cumulus_binary, small_volume)
    with server:
        api_token = server.create_container(CONTAINER, SCHEMA, tmp_path / "schema.ckdb")
        client = CloudKitClient(server.base_url, CONTAINER, "development", api_token=api_token)
        # The world may only read: the records are made by the operator's command line.
        body = tmp_path / "create.json"
        body.write_text(json.dumps({"operations": [
            {"operationType": "create", "record": {"recordType": "Note", "recordName": f"kept-{index}",
                                                     "fields": {"title": {"value": "kept"}}}} for index in range(5)]}))
        server.cli("records", "modify", "--container", CONTAINER, "--file", str(body))
        # The server opens the environment (its files made) while there is room.
        assert client.request("POST", "public", "records/lookup", {"records": [{"recordName": "kept-0"}]}).status_code == 200
        production_token = server.cli("tokens", "create", "--container", CONTAINER, "--environment", "production")
        # The command line made production's files (the server has not opened them): gone, the
        # server's first read there must make them, which needs room.
        for made in (small_volume / "containers" / CONTAINER).glob("production.sqlite*"):
            made.unlink()
        filler = fill(small_volume)

        failures: list[str] = []

        def read(client_index: int) -> None:
            reader = CloudKitClient(server.base_url, CONTAINER, "development", api_token=api_token)
            for call in range(READS):
                if call % 2:
                    answer = reader.request("POST", "public", "records/lookup", {"records": [{"recordName": "kept-1"}]})
                else:
                    answer = reader.request("POST", "public", "records/query", QUERY)
                if answer.status_code != 200:
                    failures.append(f"{client_index}/{call}: {answer.status_code} {answer.text[:200]}")

        readers = [threading.Thread(target=read, args=(index,)) for index in range(CLIENTS)]
        for thread in readers:
            thread.start()
        for thread in readers:
            thread.join()
        assert not failures, failures[:3]
        found = client.request("POST", "public", "records/query", QUERY).json()
        assert sorted(record["recordName"] for record in found["records"]) == [f"kept-{index}" for index in range(5)]

        # The log could not keep those calls, and says so once (not once per call).
        # The log writes its calls in batches a moment later: wait for its word.
        for _ in range(100):
            output = server.output()
            if "the request log could not write its calls" in output:
                break
            threading.Event().wait(0.1)
        warned = output.count("the request log could not write its calls")
        assert warned == 1, output[-2000:]
        assert "full" in output, output[-2000:]
        assert server.process is not None and server.process.poll() is None, "the server is still running"

        # What needs room is refused as a full store is, never a 500: here the first read of an
        # environment whose files are not made yet.
        production = CloudKitClient(server.base_url, CONTAINER, "production", api_token=production_token)
        unopened = production.request("POST", "public", "records/lookup", {"records": [{"recordName": "kept-0"}]})
        assert unopened.status_code != 500 and unopened.json().get("serverErrorCode") == "QUOTA_EXCEEDED", unopened.text

        # Room again: the log keeps calls again.
        filler.unlink()
        again = client.request("POST", "public", "records/lookup", {"records": [{"recordName": "kept-2"}]})
        assert again.status_code == 200
        request_id = again.headers["X-Apple-Request-UUID"]
        listed = ""
        for _ in range(50):
            listed = server.cli("logs", "list", "--container", CONTAINER, "--limit", "20")
            if request_id in listed:
                break
            threading.Event().wait(0.2)
        assert request_id in listed, listed
