"""The commands that give the command line every management action the console and the API
have (zones, records, record types, security, the request log, the audit trail, whether a user
is discoverable…), run against a running server with a management token, as an operator does;
each refused with a bad token, changing nothing."""

from __future__ import annotations

import json
import subprocess
import threading
from pathlib import Path

import pytest
import requests

from cumulus_server import CumulusServer
from test_e2e_remote_cli import ok, run

CONTAINER = "iCloud.com.example.Walk"
SCHEMA = """DEFINE SCHEMA
  RECORD TYPE Note (
    "___recordID" REFERENCE QUERYABLE,
    title STRING QUERYABLE SORTABLE,
    GRANT WRITE TO "_creator",
    GRANT CREATE TO "_icloud",
    GRANT READ TO "_world"
  );
"""
PASSWORD = "a long passphrase for walk"


@pytest.fixture(scope="module")
def walk(cumulus_binary: Path, tmp_path_factory: pytest.TempPathFactory):
    workspace = tmp_path_factory.mktemp("walk")
    with CumulusServer(cumulus_binary, workspace / "data") as server:
        server.cli("operators", "add", "ops", stdin="a long operator passphrase\n")
        token = server.cli("operators", "token", "ops", "--name", "walk")
        ok(server, "containers", "create", CONTAINER, token=token)
        schema = workspace / "schema.ckdb"
        schema.write_text(SCHEMA)
        ok(server, "import-schema", "--container", CONTAINER, "--file", str(schema), token=token)
        ok(server, "users", "add", "--container", CONTAINER, "walker", token=token, stdin=PASSWORD + "\n")
        yield server, token


def as_json(text: str):
    return json.loads(text)


def user_view(server: CumulusServer, token: str, name: str) -> dict:
    answer = requests.get(
        f"{server.base_url}/admin/v1/containers/{CONTAINER}/users", params={"search": name},
        headers={"Authorization": f"Bearer {token}"}, timeout=30)
    assert answer.status_code == 200, answer.text
    return next(user for user in answer.json()["users"] if user["name"] == name)


def test_users_discoverable_turns_discovery_on_and_off(walk) -> None:
    server, token = walk
    assert user_view(server, token, "walker")["discoverable"] is False
    assert ok(server, "users", "discoverable", "--container", CONTAINER, "walker", token=token) == "walker is discoverable"
    assert user_view(server, token, "walker")["discoverable"] is True
    assert ok(server, "users", "discoverable", "--container", CONTAINER, "walker", "--off", token=token) == "walker is no longer discoverable"
    assert user_view(server, token, "walker")["discoverable"] is False
    unknown = run(server, "users", "discoverable", "--container", CONTAINER, "nobody", token=token)
    assert unknown.returncode != 0 and "nobody" in unknown.stderr


def test_zones_and_records_of_a_users_private_database(walk, tmp_path: Path) -> None:
    server, token = walk
    scope = ["--container", CONTAINER, "--database", "private", "--user", "walker"]
    assert ok(server, "zones", "create", *scope, "Trips", token=token) == "Created zone Trips"
    zones = as_json(ok(server, "zones", "list", *scope, token=token))
    assert "Trips" in json.dumps(zones)

    body = tmp_path / "modify.json"
    body.write_text(json.dumps({"operations": [
        {"operationType": "create", "record": {"recordName": f"n{index}", "recordType": "Note",
                                               "fields": {"title": {"value": f"note {index}"}}}}
        for index in range(3)
    ]}))
    saved = as_json(ok(server, "records", "modify", *scope, "--zone", "Trips", "--file", str(body), token=token))
    assert [record["recordName"] for record in saved["records"]] == ["n0", "n1", "n2"]
    found = as_json(ok(server, "records", "query", *scope, "--zone", "Trips", "--record-type", "Note", token=token))
    assert sorted(record["recordName"] for record in found["records"]) == ["n0", "n1", "n2"]
    looked = as_json(ok(server, "records", "lookup", *scope, "--zone", "Trips", "n1", token=token))
    assert looked["records"][0]["fields"]["title"]["value"] == "note 1"
    browsed = as_json(ok(server, "records", "browse", *scope, "--zone", "Trips", "--limit", "2", token=token))
    # By name: a random change tag may hold "n2" too.
    assert [record["recordName"] for record in browsed["records"]] == ["n0", "n1"], browsed
    exported = ok(server, "records", "export", *scope, "--zone", "Trips", "--record-type", "Note", "--format", "csv", token=token)
    assert exported.splitlines()[0].startswith("\"recordName\"") and len(exported.splitlines()) == 4, exported

    assert ok(server, "zones", "delete", *scope, "Trips", token=token) == "Deleted zone Trips"
    assert "Trips" not in json.dumps(as_json(ok(server, "zones", "list", *scope, token=token)))


def test_record_types_and_security_one_change_at_a_time(walk) -> None:
    server, token = walk
    target = ["--container", CONTAINER]
    assert ok(server, "record-types", "create", *target, "Trip", token=token) == "Created record type Trip"
    ok(server, "record-types", "add-field", *target, "Trip", "place", "STRING", "--index", "QUERYABLE", token=token)
    ok(server, "record-types", "add-field", *target, "Trip", "days", "INT64", token=token)
    ok(server, "record-types", "indexes", *target, "Trip", "place", "--index", "QUERYABLE", "--index", "SORTABLE", token=token)
    ok(server, "record-types", "indexes", *target, "Trip", "--set", "days=QUERYABLE", token=token)
    exported = ok(server, "export-schema", *target, token=token)
    assert "RECORD TYPE Trip" in exported
    assert "place" in exported and "days" in exported and "SORTABLE" in exported, exported

    assert ok(server, "security", "create-role", *target, "Planner", token=token) == "Created role Planner"
    ok(server, "security", "grants", *target, "Trip", "--grant", "Planner=CREATE,READ", "--grant", "_world=READ", token=token)
    security = json.dumps(as_json(ok(server, "security", "show", *target, token=token)))
    assert "Planner" in security
    def simulate(permission: str) -> dict:
        return as_json(ok(server, "security", "simulate", *target, "--subject", "walker", "--permission", permission,
                          "--record-type", "Trip", token=token))

    assert simulate("CREATE")["allowed"] is False, "walker does not hold Planner yet"
    ok(server, "users", "roles", *target, "walker", "--add", "Planner", token=token)
    assert simulate("CREATE")["allowed"] is True
    assert ok(server, "security", "delete-role", *target, "Planner", token=token) == "Deleted role Planner"
    assert "Planner" not in json.dumps(as_json(ok(server, "security", "show", *target, token=token)))


def test_the_container_its_lifecycle_and_the_operators_trail(walk) -> None:
    server, token = walk
    shown = as_json(ok(server, "containers", "show", CONTAINER, token=token))
    assert CONTAINER in json.dumps(shown)
    preview = as_json(ok(server, "reset", "--container", CONTAINER, "--dry-run", token=token))
    assert "records" in json.dumps(preview)
    assert "Note" in ok(server, "export-schema", "--container", CONTAINER, token=token), "a dry run resets nothing"
    ok(server, "deploy", "--container", CONTAINER, token=token)
    deployments = json.dumps(as_json(ok(server, "deployments", "--container", CONTAINER, token=token)))
    assert "Note" in deployments, deployments[:500]
    trail = as_json(ok(server, "audit", "--container", CONTAINER, "--action", "schema.deploy", token=token))["entries"]
    assert len(trail) == 1 and trail[0]["operator"] == "ops" and trail[0]["environment"] == "production", trail
    assert isinstance(as_json(ok(server, "sign-in-attacks", token=token)), dict)
    notifications = ok(server, "notifications", "--container", CONTAINER, token=token)
    assert "No push tokens held in development" in notifications, notifications


def test_the_request_log_listed_exported_and_followed(walk) -> None:
    server, token = walk
    api_token = ok(server, "tokens", "create", "--container", CONTAINER, "--name", "walk-log", token=token)
    lines: list[str] = []
    tail = subprocess.Popen(
        [str(server.binary), "logs", "tail", "--container", CONTAINER, "--operation", "zones/list", "--count", "1",
         "--server", server.base_url],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={"CUMULUS_MANAGEMENT_TOKEN": token, "PATH": "/usr/bin:/bin"})
    reader = threading.Thread(target=lambda: lines.extend(tail.stdout.readlines()))
    reader.start()
    # Calls until the tail has seen one (it may connect after the first).
    for _ in range(100):
        requests.get(f"{server.base_url}/database/1/{CONTAINER}/development/public/zones/list",
                     params={"ckAPIToken": api_token}, timeout=30)
        reader.join(timeout=0.2)
        if not reader.is_alive():
            break
    tail.wait(timeout=30)
    assert tail.returncode == 0, tail.stderr.read()
    assert json.loads(lines[0])["operation"] == "zones/list", lines

    listed = ok(server, "logs", "list", "--container", CONTAINER, "--operation", "zones/list", "--limit", "5", token=token)
    assert listed.splitlines() and all(line.split("\t")[2] == "zones/list" for line in listed.splitlines()), listed
    exported = ok(server, "logs", "export", "--container", CONTAINER, "--operation", "zones/list", token=token)
    assert all(json.loads(line)["operation"] == "zones/list" for line in exported.splitlines()) and exported
    with pytest.raises(RuntimeError, match="follows a running server"):
        server.cli("logs", "tail", "--container", CONTAINER)


NEW_COMMANDS = [
    ["containers", "show", CONTAINER],
    ["deployments", "--container", CONTAINER],
    ["audit"],
    ["sign-in-attacks"],
    ["reset", "--container", CONTAINER, "--dry-run"],
    ["users", "discoverable", "--container", CONTAINER, "walker"],
    ["notifications", "--container", CONTAINER],
    ["zones", "list", "--container", CONTAINER, "--database", "private", "--user", "walker"],
    ["zones", "create", "--container", CONTAINER, "--database", "private", "--user", "walker", "Refused"],
    ["zones", "delete", "--container", CONTAINER, "--database", "private", "--user", "walker", "Refused"],
    ["records", "query", "--container", CONTAINER, "--record-type", "Note"],
    ["records", "lookup", "--container", CONTAINER, "n1"],
    ["records", "browse", "--container", CONTAINER],
    ["records", "export", "--container", CONTAINER, "--record-type", "Note"],
    ["record-types", "create", "--container", CONTAINER, "Refused"],
    ["record-types", "add-field", "--container", CONTAINER, "Note", "refused", "STRING"],
    ["record-types", "indexes", "--container", CONTAINER, "Note", "title"],
    ["record-types", "indexes", "--container", CONTAINER, "Note", "--set", "title="],
    ["security", "show", "--container", CONTAINER],
    ["security", "grants", "--container", CONTAINER, "Note"],
    ["security", "create-role", "--container", CONTAINER, "Refused"],
    ["security", "delete-role", "--container", CONTAINER, "Refused"],
    ["security", "simulate", "--container", CONTAINER, "--subject", "_world", "--permission", "READ", "--record-type", "Note"],
    ["logs", "list", "--container", CONTAINER],
    ["logs", "export", "--container", CONTAINER],
    ["logs", "tail", "--container", CONTAINER, "--count", "1"],
]


@pytest.mark.parametrize("arguments", NEW_COMMANDS, ids=lambda arguments: " ".join(arguments[:2]))
def test_each_new_command_is_refused_with_a_bad_management_token(walk, arguments: list[str]) -> None:
    server, token = walk
    schema_before = ok(server, "export-schema", "--container", CONTAINER, token=token)
    walker_before = user_view(server, token, "walker")["discoverable"]
    refused = run(server, *arguments, token="not-a-management-token")
    assert refused.returncode != 0, refused.stdout
    assert "management token" in refused.stderr.lower(), refused.stderr
    assert refused.stdout == ""
    assert ok(server, "export-schema", "--container", CONTAINER, token=token) == schema_before, "nothing changed"
    assert user_view(server, token, "walker")["discoverable"] == walker_before
