"""Runs Schemathesis against a Cumulus server's /openapi.json: no 5xx, no undocumented status,
content type or header, no response the document's schemas do not allow.

    python3 Tests/python/schemathesis/run.py [BASE_URL [API_TOKEN [WEB_AUTH_TOKEN [MANAGEMENT_TOKEN]]]]

With no base URL, builds `cumulus`, starts it on a free port of 127.0.0.1 over a temporary data
directory, and makes a container, an API token, a user and a web auth token with the CLI. With a
base URL, the API token must belong to $CUMULUS_CONTAINER (default: the demo container
iCloud.com.example.Notes) in development.

It runs in positive and negative mode: as the world (the API token alone), then, when there is a
web auth token, as a signed-in user, who may write and has a private database, and, when it
started the server, on the management API (/admin/v1/openapi.json) with a management token.
SCHEMATHESIS_MAX_EXAMPLES (default 25) bounds the examples per operation and phase, which keeps a
run to a few minutes. Exits non-zero when Schemathesis finds a failure.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Optional

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from cumulus_server import CumulusServer, build_cumulus  # noqa: E402

CHECKS = ",".join([
    "not_a_server_error",
    "status_code_conformance",
    "content_type_conformance",
    "response_headers_conformance",
    "response_schema_conformance",
])
DEFAULT_CONTAINER = "iCloud.com.example.Notes"
PASSWORD = "schemathesis password"


def run_schemathesis(base_url: str, container: str, api_token: str, web_auth_token: Optional[str], label: str,
                     management_token: Optional[str] = None) -> int:
    environment = dict(os.environ, CUMULUS_CONTAINER=container, CUMULUS_API_TOKEN=api_token,
                       CUMULUS_WEB_AUTH_TOKEN=web_auth_token or "", CUMULUS_MANAGEMENT_TOKEN=management_token or "")
    if management_token:
        config, document = HERE / "schemathesis-management.toml", f"{base_url}/admin/v1/openapi.json"
    else:
        config = HERE / ("schemathesis-user.toml" if web_auth_token else "schemathesis.toml")
        document = f"{base_url}/openapi.json"
    command = [
        sys.executable, "-m", "schemathesis.cli", "--config-file", str(config),
        "run", document, "--url", base_url,
        "--checks", CHECKS, "--mode", "all",
        "--max-examples", os.environ.get("SCHEMATHESIS_MAX_EXAMPLES", "25"),
        "--request-timeout", "20",
        # A poll of a token that exists waits for a notification (30 s): the courier is tested by pytest.
        "--exclude-path", "/webcourier/1/aps",
        "--exclude-path", "/webcourier/1/events",
    ]
    if management_token:
        # Schemathesis reuses ids from earlier answers, and would revoke the very token it runs
        # with (a token may revoke itself); ConsoleTests cover that route.
        command += ["--exclude-path", "/admin/v1/management-tokens/{token}"]
        # The live tail is a stream that lasts as long as its client: a test of its own reads it.
        command += ["--exclude-path", "/admin/v1/containers/{container}/logs/tail"]
    if os.environ.get("SCHEMATHESIS_SEED"):
        command += ["--seed", os.environ["SCHEMATHESIS_SEED"]]
    print(f"\n=== Schemathesis as {label}: {' '.join(command[2:])}", flush=True)
    return subprocess.run(command, env=environment).returncode


def main(arguments: list[str]) -> int:
    container = os.environ.get("CUMULUS_CONTAINER", DEFAULT_CONTAINER)
    if arguments:
        base_url = arguments[0].rstrip("/")
        if len(arguments) < 2:
            print("usage: run_schemathesis.sh [BASE_URL API_TOKEN [WEB_AUTH_TOKEN [MANAGEMENT_TOKEN]]]", file=sys.stderr)
            return 2
        api_token = arguments[1]
        web_auth_token = (arguments[2] or None) if len(arguments) > 2 else None
        management_token = arguments[3] if len(arguments) > 3 else None
        return run_all(base_url, container, api_token, web_auth_token, management_token)

    with tempfile.TemporaryDirectory(prefix="cumulus-schemathesis-") as workspace:
        server = CumulusServer(build_cumulus(), Path(workspace) / "data", demo=True)
        with server:
            container = DEFAULT_CONTAINER
            api_token = server.cli("tokens", "create", "--container", container)
            server.cli("users", "add", "--container", container, "fuzzer", stdin=PASSWORD + "\n")
            web_auth_token = server.cli("users", "token", "--container", container, "fuzzer", stdin=PASSWORD + "\n")
            server.cli("operators", "add", "fuzzer", stdin=PASSWORD + "\n")
            management_token = server.cli("operators", "token", "fuzzer", "--name", "schemathesis")
            status = run_all(server.base_url, container, api_token, web_auth_token, management_token)
            if server.process is not None and server.process.poll() is not None:
                print(f"cumulus serve died during the run:\n{server.output()}", file=sys.stderr)
                return 1
            return status


def run_all(base_url: str, container: str, api_token: str, web_auth_token: Optional[str],
            management_token: Optional[str] = None) -> int:
    failed = run_schemathesis(base_url, container, api_token, None, "the world (API token)")
    if web_auth_token:
        failed |= run_schemathesis(base_url, container, api_token, web_auth_token, "a signed-in user (API token + web auth token)")
    if management_token:
        failed |= run_schemathesis(base_url, container, api_token, None, "an operator (management token)", management_token)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
