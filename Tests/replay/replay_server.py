"""A fresh `cumulus serve` with fixed settings, for recording and for replaying."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Iterator, Optional

from e2e_helpers import CumulusServer, fresh_database


#: The server's environment beyond the caller's:
#: - deterministic hashing: /readyz lists a dictionary's keys in hash order, else random per process;
#: - every body that is not empty is a candidate for gzip: a response then carries
#:   `Vary: Accept-Encoding` by its type alone, not by whether its body (whose ids vary in
#:   length) reaches the default 1 KiB.
FIXED_ENVIRONMENT = {"SWIFT_DETERMINISTIC_HASHING": "1", "CUMULUS_GZIP_MIN_BYTES": "1"}


@contextlib.contextmanager
def fresh_server(binary: Path, workspace: Path, backend: str = "sqlite") -> Iterator[CumulusServer]:
    """A server on 127.0.0.1 over a new data directory, without the demo container, whatever
    CUMULUS_* settings the calling shell has (they would change its answers), with the fixed
    environment above. On "postgresql" the server keeps everything in a new database of the
    test cluster (started when the test script has not started one)."""
    database_url: Optional[str] = fresh_database() if backend == "postgresql" else None
    saved = {name: value for name, value in os.environ.items() if name.startswith("CUMULUS_") and name != "CUMULUS_BIN"}
    for name in saved:
        del os.environ[name]
    try:
        with CumulusServer(
            binary, workspace / "data", demo=False, database_url=database_url, environment=FIXED_ENVIRONMENT
        ) as server:
            yield server
    finally:
        os.environ.update(saved)
