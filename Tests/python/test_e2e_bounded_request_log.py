"""The request log holds its size bound under sustained load: a server started with
`--request-log-max-size 128KiB` (as CUMULUS_REQUEST_LOG_MAX_SIZE) answers a few thousand calls
from several clients, while its `requests.sqlite` is measured; the file never grows past the
bound and a little (what one second's calls add before the log is measured again), the newest
calls are kept and the oldest forgotten."""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from cloudkit_client import CloudKitClient
from cumulus_server import CumulusServer

CONTAINER = "iCloud.com.example.Bounded"
SCHEMA = """DEFINE SCHEMA
  RECORD TYPE Note (
    title STRING QUERYABLE,
    GRANT WRITE TO "_creator",
    GRANT CREATE TO "_icloud",
    GRANT READ TO "_world"
  );
"""
BOUND = 256 * 1024
CLIENTS = 4
CALLS = 1_200
# A successful read: the title is queryable, so a query filtered on it is allowed.
QUERY = {"query": {"recordType": "Note", "filterBy": [
    {"fieldName": "title", "comparator": "EQUALS", "fieldValue": {"value": "none"}}]}, "resultsLimit": 1}


def test_the_request_log_stays_within_its_size_bound_under_load(cumulus_binary: Path, tmp_path: Path) -> None:
    server = CumulusServer(cumulus_binary, tmp_path / "data", environment={"CUMULUS_REQUEST_LOG_MAX_SIZE": "256KiB"})
    with server:
        api_token = server.create_container(CONTAINER, SCHEMA, tmp_path / "schema.ckdb")
        log_file = server.data_dir / "requests.sqlite"
        sizes: list[int] = []
        failures: list[str] = []
        done = threading.Event()

        def measure() -> None:
            while not done.is_set():
                files = [log_file, log_file.with_name(log_file.name + "-wal")]
                sizes.append(sum(file.stat().st_size for file in files if file.exists()))
                done.wait(0.05)

        def load(client_index: int) -> None:
            client = CloudKitClient(server.base_url, CONTAINER, "development", api_token=api_token)
            for call in range(CALLS):
                answer = client.request("POST", "public", "records/query", QUERY)
                if answer.status_code != 200:
                    failures.append(f"{client_index}/{call}: {answer.status_code} {answer.text}")

        measurer = threading.Thread(target=measure)
        measurer.start()
        clients = [threading.Thread(target=load, args=(index,)) for index in range(CLIENTS)]
        for thread in clients:
            thread.start()
        for thread in clients:
            thread.join()
        # One call more a second and a half later, when the log is measured again.
        done.wait(1.5)
        last = CloudKitClient(server.base_url, CONTAINER, "development", api_token=api_token).request(
            "POST", "public", "records/query", QUERY)
        assert last.status_code == 200, last.text
        # The server writes it (and measures the log) within a fifth of a second: read until it is there.
        last_id = last.headers["X-Apple-Request-UUID"]
        for _ in range(50):
            listed = server.cli("logs", "list", "--container", CONTAINER, "--limit", "10000").splitlines()
            if listed and listed[0].endswith(last_id):
                break
            done.wait(0.2)
        done.set()
        measurer.join()

    assert not failures, failures[:3]
    made = CLIENTS * CALLS + 1
    kept = [line for line in listed if "records/query" in line]
    assert listed[0].endswith(last_id), "the newest call is kept"
    assert 0 < len(kept) < made // 2, f"{len(kept)} of {made} calls kept"
    # Every page the log wrote, moved from the write-ahead log into the file: its size is then
    # the most pages the log ever held at once.
    with sqlite3.connect(log_file) as connection:
        assert connection.execute("PRAGMA wal_checkpoint(TRUNCATE)").fetchone()[0] == 0
    stopped = log_file.stat().st_size
    assert stopped <= BOUND, f"requests.sqlite holds {stopped} bytes for a bound of {BOUND}"
    print(f"calls {made}, kept {len(kept)}, requests.sqlite {stopped} bytes after stopping, "
          f"with its write-ahead log at most {max(sizes)} bytes while serving")
