#!/usr/bin/env python3
"""Records the replay corpus: starts a fresh `cumulus serve` (as the end-to-end tests do), runs
the scenario against it and writes every exchange, masked, to corpus/<backend>/*.jsonl, once
on SQLite and once on PostgreSQL (a throw-away cluster, or $CUMULUS_TEST_POSTGRES_URL's).

    python3 Tests/replay/record.py            # both backends, with .build/debug/cumulus
    python3 Tests/replay/record.py sqlite     # one backend
    CUMULUS_BIN=path/to/cumulus python3 Tests/replay/record.py

Record from the build whose behaviour the corpus is to pin (before a refactor), then replay
it with test_replay.py after. See README.md.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from exchange import BACKENDS, write_corpus  # noqa: E402
from recorder import Recorder  # noqa: E402
from scenario import Scenario  # noqa: E402
from replay_server import fresh_server  # noqa: E402


def main() -> int:
    binary = Path(os.environ.get("CUMULUS_BIN") or Path(__file__).resolve().parents[2] / ".build" / "debug" / "cumulus")
    if not os.access(binary, os.X_OK):
        print(f"No cumulus executable at {binary}: build with `swift build` or set CUMULUS_BIN.", file=sys.stderr)
        return 1
    backends = sys.argv[1:] or list(BACKENDS)
    for backend in backends:
        if backend not in BACKENDS:
            print(f"Unknown backend {backend}: use {' or '.join(BACKENDS)}", file=sys.stderr)
            return 2
        started = time.monotonic()
        with tempfile.TemporaryDirectory(prefix="cumulus-replay-") as workspace, \
                fresh_server(binary, Path(workspace), backend) as server:
            recorder = Recorder(server)
            Scenario(recorder).run()
        write_corpus(backend, recorder.exchanges)
        areas: dict[str, int] = {}
        for exchange in recorder.exchanges:
            areas[exchange["area"]] = areas.get(exchange["area"], 0) + 1
        print(f"{backend}: {len(recorder.exchanges)} exchanges ({time.monotonic() - started:.1f} s)")
        print("  " + ", ".join(f"{area} {count}" for area, count in areas.items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
