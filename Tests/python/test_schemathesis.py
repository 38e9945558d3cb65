"""Schemathesis against a server of its own (see schemathesis/run.py): no 5xx and nothing the
OpenAPI documents do not allow, as the world, as a signed-in user and as an operator on the
management API. A small run; raise SCHEMATHESIS_MAX_EXAMPLES for a deeper one, or run
Tests/python/run_schemathesis.sh."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

RUNNER = Path(__file__).resolve().parent / "schemathesis" / "run.py"


def test_schemathesis_finds_no_failure(cumulus_binary: Path) -> None:
    environment = dict(
        os.environ, CUMULUS_BIN=str(cumulus_binary),
        SCHEMATHESIS_MAX_EXAMPLES=os.environ.get("SCHEMATHESIS_MAX_EXAMPLES", "10"), NO_COLOR="1",
    )
    completed = subprocess.run(
        [sys.executable, str(RUNNER)], env=environment, capture_output=True, text=True, timeout=900
    )
    output = completed.stdout + completed.stderr
    assert completed.returncode == 0, output[-8000:]
    # The three runs happened (the world, a signed-in user, an operator on the management API)
    # and each tested something.
    totals = re.findall(r"(\d+) generated, (\d+) passed", output)
    assert len(totals) == 3, output[-8000:]
    assert "Schemathesis as an operator (management token)" in output and "/admin/v1/openapi.json" in output
    assert all(int(generated) > 100 and generated == passed for generated, passed in totals), totals
