"""`cumulus logs list|show|export` and `cumulus usage` read what real API calls left in the
request log, through the management API (`--server` with a management token) and locally
(`--data-dir`): why a call failed, the API token by name, the user agent, the record types,
and records that failed inside a 200."""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
from pathlib import Path

import pytest
import requests

from cloudkit_client import CloudKitClient
from cumulus_server import CumulusServer

CONTAINER = "iCloud.com.example.Logs"
SCHEMA = """DEFINE SCHEMA
  RECORD TYPE Note (
    title STRING QUERYABLE,
    GRANT WRITE TO "_creator",
    GRANT CREATE TO "_icloud",
    GRANT READ TO "_world"
  );
"""
AGENT = "LogsTest/1.0 (e2e)"


@pytest.fixture(scope="module")
def logged(cumulus_binary: Path, tmp_path_factory: pytest.TempPathFactory):
    """A server whose log holds a refused query, a 200 whose records failed one by one, and a success."""
    workspace = tmp_path_factory.mktemp("logs")
    with CumulusServer(cumulus_binary, workspace / "data") as server:
        server.cli("operators", "add", "ops", stdin="a long operator passphrase\n")
        token = server.cli("operators", "token", "ops", "--name", "laptop")
        server.cli("containers", "create", CONTAINER)
        (workspace / "schema.ckdb").write_text(SCHEMA)
        server.cli("import-schema", "--container", CONTAINER, "--file", str(workspace / "schema.ckdb"))
        api_token = server.cli("tokens", "create", "--container", CONTAINER, "--name", "web", "--allowed-origin", "*")
        tokens = {}
        for name in ("alice", "bob"):
            server.cli("users", "add", "--container", CONTAINER, name, stdin="a long passphrase\n")
            tokens[name] = server.cli("users", "token", "--container", CONTAINER, name, stdin="a long passphrase\n")

        def call(path: str, body: dict, user: str | None = None) -> requests.Response:
            client = CloudKitClient(server.base_url, CONTAINER, "development", api_token=api_token,
                                    web_auth_token=tokens[user] if user else None)
            return client.request("POST", "public", path, body, headers={"User-Agent": AGENT})

        refused = call("records/query", {"query": {"recordType": "Nope"}})
        assert refused.status_code == 400, refused.text
        created = call("records/modify", {"operations": [{"operationType": "create", "record": {
            "recordType": "Note", "recordName": "first", "fields": {"title": {"value": "one"}}}}]}, "alice")
        assert created.status_code == 200, created.text
        # bob may not delete what alice created: one of two records fails inside a 200.
        partial = call("records/modify", {"operations": [
            {"operationType": "forceDelete", "record": {"recordName": "first"}},
            {"operationType": "create", "record": {"recordType": "Note", "recordName": "second", "fields": {"title": {"value": "two"}}}},
        ]}, "bob")
        assert partial.status_code == 200, partial.text
        # The server writes its log in batches; a read through it writes what is buffered, so that
        # the local command line (which reads the files) sees every call too.
        remote(server, token, "logs", "list", "--container", CONTAINER, "--limit", "1")
        yield server, token, {
            "refused": refused.headers["X-Apple-Request-UUID"], "partial": partial.headers["X-Apple-Request-UUID"],
            "refusedReason": refused.json()["reason"], "partialAnswer": partial.json(),
        }


def remote(server: CumulusServer, token: str, *arguments: str) -> str:
    """`cumulus ARGUMENTS --server URL` with only the management token in the environment."""
    environment = {key: value for key, value in os.environ.items() if not key.startswith("CUMULUS_")}
    environment["CUMULUS_MANAGEMENT_TOKEN"] = token
    completed = subprocess.run([str(server.binary), *arguments, "--server", server.base_url], capture_output=True, text=True,
                               timeout=60, env=environment, cwd="/")
    assert completed.returncode == 0, completed.stderr
    return completed.stdout.strip()


def test_logs_show_says_why_a_call_failed_by_request_id(logged) -> None:
    server, token, calls = logged
    shown = remote(server, token, "logs", "show", "--container", CONTAINER, calls["refused"])
    lines = dict(line.split(":", 1) for line in shown.splitlines())
    assert lines["request"].strip() == calls["refused"]
    assert lines["status"].strip() == "400 BAD_REQUEST"
    assert lines["reason"].strip() == calls["refusedReason"] and "Nope" in lines["reason"]
    assert lines["credential"].strip() == "API token web"
    assert lines["user agent"].strip() == AGENT
    assert lines["operation"].strip() == "records/query" and lines["database"].strip() == "public"
    assert lines["access"].strip() == "- (no decision recorded)", "a malformed query is refused before any access check"
    # The same call locally, by its place in the log, which `logs list` gives.
    listed = server.cli("logs", "list", "--container", CONTAINER, "--errors").splitlines()
    refused_line = next(line for line in listed if line.endswith(calls["refused"])).split("\t")
    assert refused_line[2:5] == ["records/query", "public", "400 BAD_REQUEST"]
    assert server.cli("logs", "show", "--container", CONTAINER, "--environment", "development", refused_line[0]) == shown


def test_a_200_with_failed_records_is_found_by_errors_only_and_shown_with_its_outcomes(logged) -> None:
    server, token, calls = logged
    failed = [entry for entry in calls["partialAnswer"]["records"] if "serverErrorCode" in entry]
    assert len(failed) == 1, calls["partialAnswer"]
    code = failed[0]["serverErrorCode"]
    listed = remote(server, token, "logs", "list", "--container", CONTAINER, "--errors").splitlines()
    partial = next(line for line in listed if line.endswith(calls["partial"])).split("\t")
    assert partial[4] == "200" and partial[5] == f"1 of 2 records: {code}"
    shown = dict(line.split(":", 1) for line in remote(server, token, "logs", "show", "--container", CONTAINER, calls["partial"]).splitlines())
    assert shown["failures"].strip() == f"1 of 2 records: {code}"
    assert shown["results"].strip() == f"1 succeeded, 1 {code} (of 2)"
    assert shown["record types"].strip() == "Note" and shown["zones"].strip() == "_defaultZone"
    assert shown["user"].strip().startswith("bob (_"), shown["user"]
    # The refusal's decision, as the store took it when bob called: the rule and every grant weighed.
    assert shown["access"].strip() == "denied — no grant gives WRITE on Note to _world, _icloud", shown
    assert shown["  asked"].strip().endswith("WRITE a Note record first in zone _defaultZone of the public database"), shown
    weighed = [line.split(":", 1)[1].strip() for line in remote(server, token, "logs", "show", "--container", CONTAINER,
                                                                 calls["partial"]).splitlines() if line.startswith("  weighed:")]
    assert any(line.startswith('no    GRANT WRITE TO "_creator"') and line.endswith("created the record") for line in weighed), weighed
    missing = subprocess.run([str(server.binary), "logs", "show", "--container", CONTAINER, "no-such-request", "--data-dir",
                              str(server.data_dir)], capture_output=True, text=True, timeout=60)
    assert missing.returncode != 0 and "holds no call 'no-such-request'" in missing.stderr


def test_logs_export_carries_the_new_fields_in_csv_and_json_lines(logged) -> None:
    server, token, calls = logged
    rows = list(csv.DictReader(io.StringIO(remote(server, token, "logs", "export", "--container", CONTAINER, "--format", "csv"))))
    by_request = {row["requestID"]: row for row in rows}
    refused, partial = by_request[calls["refused"]], by_request[calls["partial"]]
    assert refused["reason"] == calls["refusedReason"] and refused["credential"] == "API token web" and refused["userAgent"] == AGENT
    assert partial["recordTypes"] == "Note" and partial["zones"] == "_defaultZone" and partial["results"] == "2"
    assert partial["resultFailures"].startswith("1 of 2 records: ") and partial["resultErrors"].endswith("=1")
    lines = [json.loads(line) for line in server.cli("logs", "export", "--container", CONTAINER, "--errors").splitlines()]
    assert [line["requestID"] for line in lines] == [calls["partial"], calls["refused"]]
    assert lines[0]["credential"] == {"kind": "apiToken", "name": "web"} and lines[0]["recordTypes"] == ["Note"]
    assert lines[1]["reason"] == calls["refusedReason"] and lines[1]["userAgent"] == AGENT


def test_usage_gives_the_figures_of_the_usage_page(logged) -> None:
    server, token, _ = logged
    shown = remote(server, token, "usage", "--container", CONTAINER)
    lines = dict(line.split(":", 1) for line in shown.splitlines() if not "\t" in line and ":" in line)
    assert lines["range"].strip() == "hour", shown
    assert lines["requests"].strip() == "3"
    assert lines["errors"].strip() == "1 (33 %)"
    assert lines["busiest second"].strip().endswith("of the limit of 5000"), shown
    operations = [line.split("\t") for line in shown.splitlines() if "\t" in line]
    assert [row[:4] for row in operations] == [
        ["records/modify", "2 requests", "0 errors", "1 with failed records"],
        ["records/query", "1 requests", "1 errors", "0 with failed records"],
    ]
    assert server.cli("usage", "--container", CONTAINER, "--range", "week").splitlines()[0].split() == ["range:", "week"]
    quiet = server.cli("usage", "--container", CONTAINER, "--environment", "production")
    assert "requests:       0" in quiet and "No calls in the last day." in quiet
    wrong = subprocess.run([str(server.binary), "usage", "--container", CONTAINER, "--server", server.base_url],
                           capture_output=True, text=True, timeout=60,
                           env={**{k: v for k, v in os.environ.items() if not k.startswith("CUMULUS_")},
                                "CUMULUS_MANAGEMENT_TOKEN": "cumulus_mt_0000000000000000_" + "0" * 64})
    assert wrong.returncode != 0 and "management token" in wrong.stderr.lower(), wrong.stderr
