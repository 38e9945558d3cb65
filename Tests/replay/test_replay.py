"""The replay test: the corpus recorded from an earlier build (record.py) is replayed against a
fresh server of this build, on SQLite and on PostgreSQL, and every answer must be the recorded
one, byte for byte, once ids and times are masked (masking.py). A behaviour change fails with
the first differing exchange."""

from __future__ import annotations

from pathlib import Path

import pytest

from e2e_helpers import build_cumulus
from exchange import BACKENDS, read_corpus
from replay import replay
from replay_server import fresh_server


def corpus(backend: str) -> list[dict]:
    exchanges = read_corpus(backend)
    assert exchanges, f"no {backend} corpus: record one with `python3 Tests/replay/record.py`"
    assert [exchange["step"] for exchange in exchanges] == list(range(1, len(exchanges) + 1)), "the corpus skips or repeats a step"
    return exchanges


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_corpus_covers_the_api_and_the_management_api(backend: str) -> None:
    exchanges = corpus(backend)
    targets = [exchange["request"]["target"] for exchange in exchanges if "request" in exchange]
    assert sum(target.startswith("/database/1/") for target in targets) >= 100
    assert sum(target.startswith("/admin/v1/") for target in targets) >= 100
    statuses = {exchange["response"]["status"] for exchange in exchanges if "response" in exchange}
    assert {200, 201, 204, 206, 303, 400, 401, 403, 404, 405, 409, 421} <= statuses, statuses


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_corpus_replays_byte_identically(backend: str, tmp_path: Path) -> None:
    exchanges = corpus(backend)
    with fresh_server(build_cumulus(), tmp_path, backend) as server:
        difference = replay(server, exchanges)
    if difference is not None:
        pytest.fail(str(difference), pytrace=False)
