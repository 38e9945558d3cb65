"""`GET /metrics` of a real `cumulus serve`: refused without a management token, parsed by
`prometheus_client`'s own text-format parser, and its counters moved by exactly the requests
made between two scrapes."""

from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest
import requests
from prometheus_client.parser import text_string_to_metric_families

from cumulus_server import CumulusServer

CONTAINER = "iCloud.com.example.Metrics"
SCHEMA = """
DEFINE SCHEMA
    RECORD TYPE Note (
        title STRING,
        GRANT WRITE TO "_creator",
        GRANT CREATE TO "_icloud",
        GRANT READ TO "_world"
    );
"""
PASSWORD = "a long passphrase for metrics"

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


@pytest.fixture(scope="module")
def served(cumulus_binary: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[CumulusServer, str, str, str]]:
    workspace = tmp_path_factory.mktemp("metrics")
    with CumulusServer(cumulus_binary, workspace / "data") as server:
        api_token = server.create_container(CONTAINER, SCHEMA, workspace / "schema.ckdb")
        server.cli("users", "add", "--container", CONTAINER, "dana", stdin=PASSWORD + "\n")
        web_auth_token = server.cli("users", "token", "--container", CONTAINER, "dana", stdin=PASSWORD + "\n")
        server.cli("operators", "add", "ops", stdin="a long operator passphrase\n")
        management_token = server.cli("operators", "token", "ops", "--name", "prometheus")
        yield server, management_token, api_token, web_auth_token


def scrape(server: CumulusServer, token: str) -> tuple[Samples, dict[str, str]]:
    """Every sample by name and labels, and every family's type, as prometheus_client reads them."""
    response = requests.get(server.base_url + "/metrics", headers={"Authorization": f"Bearer {token}"}, timeout=10)
    assert response.status_code == 200, response.text
    assert response.headers["Content-Type"] == "text/plain; version=0.0.4; charset=utf-8"
    samples: Samples = {}
    types: dict[str, str] = {}
    for family in text_string_to_metric_families(response.text):
        types[family.name] = family.type
        for sample in family.samples:
            samples[(sample.name, frozenset(sample.labels.items()))] = sample.value
    return samples, types


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


def api_url(server: CumulusServer, database: str, operation: str) -> str:
    return f"{server.base_url}/database/1/{CONTAINER}/development/{database}/{operation}"


def test_metrics_are_refused_without_a_management_token(served) -> None:
    server, _, api_token, web_auth_token = served
    for headers in ({}, {"Authorization": "Bearer not-a-token"}, {"Authorization": f"Bearer {api_token}"},
                    {"Authorization": "Bearer cumulus_mt_0000000000000000_" + "0" * 64}):
        response = requests.get(server.base_url + "/metrics", headers=headers, timeout=10)
        assert response.status_code == 401
        assert response.headers["WWW-Authenticate"] == 'Bearer realm="cumulus"'
        assert "cumulus_http" not in response.text and "process_" not in response.text
    refused = requests.get(server.base_url + "/metrics", params={"ckAPIToken": api_token, "ckWebAuthToken": web_auth_token}, timeout=10)
    assert refused.status_code == 401


def test_counters_move_by_exactly_the_requests_made(served) -> None:
    server, management_token, api_token, web_auth_token = served
    before, types = scrape(server, management_token)
    assert types["cumulus_http_requests"] == "counter"
    assert types["cumulus_http_request_duration_seconds"] == "histogram"
    assert types["process_resident_memory_bytes"] == "gauge"

    for _ in range(4):
        listed = requests.post(api_url(server, "public", "zones/list"), params={"ckAPIToken": api_token}, json={}, timeout=10)
        assert listed.status_code == 200, listed.text
    for _ in range(2):
        refused = requests.post(api_url(server, "public", "zones/list"), params={"ckAPIToken": "0" * 64}, json={}, timeout=10)
        assert refused.status_code == 401
    for index in range(3):
        created = requests.post(
            api_url(server, "private", "records/modify"), params={"ckAPIToken": api_token, "ckWebAuthToken": web_auth_token},
            json={"operations": [{"operationType": "create", "record": {"recordType": "Note", "fields": {"title": {"value": f"n{index}"}}}}]},
            timeout=10)
        assert created.status_code == 200, created.text
        assert "serverErrorCode" not in created.text, created.text
    containers = requests.get(server.base_url + "/admin/v1/containers", headers={"Authorization": f"Bearer {management_token}"}, timeout=10)
    assert containers.status_code == 200

    after, _ = scrape(server, management_token)

    def moved(name: str, **labels: str) -> float:
        return value(after, name, **labels) - value(before, name, **labels)

    zones = {"api": "cloudkit", "operation": "zones/list"}
    modify = {"api": "cloudkit", "operation": "records/modify"}
    assert moved("cumulus_http_requests_total", **zones, status="2xx") == 4
    assert moved("cumulus_http_requests_total", **zones, status="4xx") == 2
    assert moved("cumulus_http_requests_total", **modify, status="2xx") == 3
    assert moved("cumulus_http_requests_total", api="management", operation="containers", status="2xx") == 1
    assert moved("cumulus_http_requests_total", api="server", operation="metrics", status="2xx") == 1  # the first scrape
    assert moved("cumulus_http_request_duration_seconds_count", **zones) == 6
    assert moved("cumulus_http_request_duration_seconds_count", **modify) == 3
    assert moved("cumulus_http_request_duration_seconds_bucket", **zones, le="+Inf") == 6
    assert moved("cumulus_http_request_duration_seconds_sum", **zones) > 0

    # Every operation's histogram holds exactly its requests, its buckets cumulative.
    for (name, labels), count in after.items():
        if name != "cumulus_http_request_duration_seconds_count":
            continue
        by_status = sum(v for (n, l), v in after.items() if n == "cumulus_http_requests_total" and l - {("status", s) for s in ("1xx", "2xx", "3xx", "4xx", "5xx")} == labels)
        assert by_status == count, labels
        buckets = sorted(((float(dict(l)["le"]), v) for (n, l), v in after.items()
                          if n == "cumulus_http_request_duration_seconds_bucket" and l - {("le", dict(l).get("le"))} == labels))
        assert buckets[-1] == (float("inf"), count), labels
        assert all(a[1] <= b[1] for a, b in zip(buckets, buckets[1:])), labels

    # The store's writer grouped at least the three creates.
    assert moved("cumulus_write_groups_total") >= 1
    assert moved("cumulus_write_group_writes_total") >= 3
    assert value(after, "cumulus_sqlite_wal_pages") > 0
    assert value(after, "process_resident_memory_bytes") > 0
    assert value(after, "process_open_fds") > 0
    assert value(after, "process_start_time_seconds") > 1.7e9
    assert value(after, "cumulus_http_connections_open") >= 1
    assert ("cumulus_limits_hit_total", frozenset({("limit", "request_rate")})) in after
