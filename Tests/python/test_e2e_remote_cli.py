"""`cumulus --server URL` manages a running server through its management API, with the token
in CUMULUS_MANAGEMENT_TOKEN, as an operator does from a laptop against a server in Docker."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
import requests
from cryptography.hazmat.primitives.asymmetric import ec

from cloudkit_client import public_key_pem
from cumulus_server import CumulusServer

CONTAINER = "iCloud.com.example.Remote"


@pytest.fixture(scope="module")
def remote(cumulus_binary: Path, tmp_path_factory: pytest.TempPathFactory):
    data_dir = tmp_path_factory.mktemp("remote") / "data"
    with CumulusServer(cumulus_binary, data_dir) as server:
        server.cli("operators", "add", "ops", stdin="a long operator passphrase\n")
        token = server.cli("operators", "token", "ops", "--name", "laptop")
        yield server, token


def run(server: CumulusServer, *arguments: str, token: str | None, stdin: str | None = None, url: str | None = None):
    """Runs `cumulus ARGUMENTS --server URL` from another directory, with only the token in the environment."""
    environment = {key: value for key, value in os.environ.items() if not key.startswith("CUMULUS_")}
    if token is not None:
        environment["CUMULUS_MANAGEMENT_TOKEN"] = token
    return subprocess.run(
        [str(server.binary), *arguments, "--server", url or server.base_url], input=stdin, capture_output=True, text=True,
        timeout=60, env=environment, cwd="/")


def ok(server: CumulusServer, *arguments: str, token: str, stdin: str | None = None) -> str:
    completed = run(server, *arguments, token=token, stdin=stdin)
    assert completed.returncode == 0, completed.stderr
    return completed.stdout.strip()


def test_every_management_command_runs_against_a_remote_server(remote, tmp_path: Path) -> None:
    server, token = remote
    assert ok(server, "containers", "create", CONTAINER, token=token) == f"Created container {CONTAINER} (development and production)"
    assert any(line.startswith(CONTAINER + "\t") for line in ok(server, "containers", "list", token=token).splitlines())
    # The server itself holds it: the local command line sees it in the data directory.
    assert CONTAINER in server.cli("containers", "list")

    schema = tmp_path / "schema.ckdb"
    schema.write_text("DEFINE SCHEMA\n  CREATE ROLE Editor;\n  RECORD TYPE Note (\n    title STRING QUERYABLE\n  );\n")
    assert ok(server, "validate-schema", "--container", CONTAINER, "--file", str(schema), token=token).startswith("Schema is valid: 1 record types")
    assert "1 record types" in ok(server, "import-schema", "--container", CONTAINER, "--file", str(schema), token=token)
    exported = ok(server, "export-schema", "--container", CONTAINER, token=token)
    assert "RECORD TYPE Note" in exported and "title" in exported
    assert exported == server.cli("export-schema", "--container", CONTAINER)

    dry = ok(server, "deploy", "--container", CONTAINER, "--dry-run", token=token)
    assert "add index QUERYABLE on Note.title" in dry and dry.endswith("nothing was changed.")
    assert "RECORD TYPE Note" not in server.cli("export-schema", "--container", CONTAINER, "--environment", "production")
    assert ok(server, "deploy", "--container", CONTAINER, token=token).endswith(f"changes to production of {CONTAINER}.")
    assert "RECORD TYPE Note" in server.cli("export-schema", "--container", CONTAINER, "--environment", "production")
    assert ok(server, "deploy", "--container", CONTAINER, token=token) == "Production's schema is already development's: nothing to deploy."
    assert ok(server, "reset", "--container", CONTAINER, token=token).startswith(f"Reset development of {CONTAINER}: 0 records")

    api_token = ok(server, "tokens", "create", "--container", CONTAINER, "--name", "web", "--allowed-origin", "https://app.example.com", token=token)
    assert len(api_token) == 64
    listed = ok(server, "tokens", "list", "--container", CONTAINER, token=token)
    assert f"{api_token}\tdevelopment\tweb\torigins: https://app.example.com" in listed
    assert ok(server, "tokens", "revoke", api_token, token=token) == f"Revoked API token {api_token}"
    assert api_token not in server.cli("tokens", "list", "--container", CONTAINER)

    public = tmp_path / "key.pub.pem"
    public.write_text(public_key_pem(ec.generate_private_key(ec.SECP256R1())))
    key_id = ok(server, "keys", "add", "--container", CONTAINER, "--public-key", str(public), token=token)
    assert key_id in ok(server, "keys", "list", "--container", CONTAINER, token=token)
    assert ok(server, "keys", "revoke", key_id, token=token) == f"Revoked server-to-server key {key_id}"

    record_name = ok(server, "users", "add", "--container", CONTAINER, "dana", "--email", "dana@example.com", token=token,
                     stdin="a long passphrase\n")
    assert record_name.startswith("_")
    assert ok(server, "users", "list", "--container", CONTAINER, "--search", "example.com", token=token).startswith(f"{record_name}\tdana\t")
    assert ok(server, "users", "password", "--container", CONTAINER, "dana", token=token, stdin="another passphrase\n").startswith("Set the password")
    assert ok(server, "users", "sign-out", "--container", CONTAINER, "dana", token=token) == "Signed dana out: 0 sessions ended"
    assert ok(server, "users", "roles", "--container", CONTAINER, "dana", "--add", "Editor", token=token) == "dana holds in development: Editor"
    assert server.cli("users", "roles", "--container", CONTAINER, "DANA") == "dana holds in development: Editor"
    assert ok(server, "users", "roles", "--container", CONTAINER, "dana", "--remove", "Editor", token=token) == "dana holds no custom roles in development"
    refused = run(server, "users", "roles", "--container", CONTAINER, "dana", "--add", "Ghost", token=token)
    assert refused.returncode != 0 and "not declared" in refused.stderr
    assert ok(server, "users", "remove", "--container", CONTAINER, "dana", token=token) == f"Removed dana ({record_name})"


def test_a_remote_command_without_a_good_token_is_refused_clearly(remote) -> None:
    server, token = remote
    missing = run(server, "containers", "list", token=None)
    assert missing.returncode != 0 and "CUMULUS_MANAGEMENT_TOKEN" in missing.stderr
    wrong = run(server, "containers", "create", "iCloud.com.example.Never", token="cumulus_mt_0000000000000000_" + "0" * 64)
    assert wrong.returncode != 0 and "management token" in wrong.stderr.lower(), wrong.stderr
    assert "iCloud.com.example.Never" not in server.cli("containers", "list")
    refused = run(server, "containers", "create", "not-a-container", token=token)
    assert refused.returncode != 0 and "iCloud." in refused.stderr
    unreachable = run(server, "containers", "list", token=token, url="http://127.0.0.1:9")
    assert unreachable.returncode != 0 and "Cannot reach http://127.0.0.1:9" in unreachable.stderr
    both = subprocess.run([str(server.binary), "containers", "list", "--server", server.base_url, "--data-dir", "/tmp/x"],
                          capture_output=True, text=True, timeout=60)
    assert both.returncode != 0 and "not both" in both.stderr


def test_the_local_command_lines_changes_to_operators_tokens_and_the_secret_are_in_the_audit_trail(remote) -> None:
    """Review N12: what an incident responder needs most, read as the review did, from the running server."""
    server, token = remote
    server.cli("operators", "add", "eve", stdin="a long passphrase for eve\n")
    spare = server.cli("operators", "token", "eve", "--name", "spare")
    spare_id = spare.split("_")[2]
    server.cli("operators", "password", "eve", stdin="another long passphrase\n")
    server.cli("operators", "revoke-token", spare_id)
    server.cli("operators", "remove", "eve")
    answer = requests.get(f"{server.base_url}/admin/v1/audit?limit=500", headers={"Authorization": f"Bearer {token}"}, timeout=30)
    assert answer.status_code == 200, answer.text
    trail = [(entry["actor"], entry["action"], entry["target"]) for entry in reversed(answer.json()["entries"])]
    ops_token = token.split("_")[2]
    expected = [
        ("local command line", "operator.add", "ops"),
        ("local command line", "management-token.create", f"laptop ({ops_token}) of ops"),
        ("local command line", "operator.add", "eve"),
        ("local command line", "management-token.create", f"spare ({spare_id}) of eve"),
        ("local command line", "operator.password", "eve"),
        ("local command line", "management-token.revoke", spare_id),
        ("local command line", "operator.remove", "eve"),
    ]
    assert [entry for entry in trail if entry[0] == "local command line" and entry[1].startswith(("operator.", "management-token."))] == expected
    # A management token cannot mint another one: a leaked token buys nothing past its revocation.
    minted = requests.post(f"{server.base_url}/admin/v1/management-tokens", json={"name": "persistence"},
                           headers={"Authorization": f"Bearer {token}"}, timeout=30)
    assert minted.status_code == 403 and minted.json()["serverErrorCode"] == "ACCESS_DENIED", minted.text
