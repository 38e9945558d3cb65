"""PostgreSQL and nginx for the scale-out tests: a fresh database on the test script's throw-away
cluster (or on one started for this run with the same script), and nginx in front of several
`cumulus serve` processes, all on 127.0.0.1.
"""

from __future__ import annotations

import os
import socket
import subprocess
import time
import uuid
from pathlib import Path
from typing import Optional, Sequence

from cumulus_server import PACKAGE_ROOT

_server_url: Optional[str] = None


def server_url() -> str:
    """The cluster's URL: $CUMULUS_TEST_POSTGRES_URL, else a cluster started for this process."""
    global _server_url
    if _server_url is None:
        _server_url = os.environ.get("CUMULUS_TEST_POSTGRES_URL") or subprocess.run(
            ["bash", str(PACKAGE_ROOT / "scripts" / "test-postgres.sh"), str(os.getpid())],
            capture_output=True, text=True, check=True,
        ).stdout.strip()
    return _server_url


def fresh_database() -> str:
    """The URL of a new, empty database on the cluster."""
    base = server_url()
    name = "e2e_" + uuid.uuid4().hex
    subprocess.run(["psql", base, "-qc", f"CREATE DATABASE {name}"], check=True, capture_output=True)
    return base.rsplit("/", 1)[0] + "/" + name


def psql_rows(url: str, sql: str) -> list[str]:
    """The rows `sql` returns on the database at `url`, one line each, columns split by `|`."""
    completed = subprocess.run(["psql", url, "-qAt", "-c", sql], capture_output=True, text=True, check=True)
    return [line for line in completed.stdout.splitlines() if line]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class Nginx:
    """nginx balancing over `upstreams`, as the compose file's `postgres` profile runs it:
    keep-alive to the servers, long reads for long-polls, no buffering for event streams."""

    def __init__(self, workspace: Path, upstreams: Sequence[int]):
        self.workspace = workspace
        self.port = free_port()
        servers = "\n".join(f"        server 127.0.0.1:{port};" for port in upstreams)
        temp = workspace / "nginx-temp"
        temp.mkdir(parents=True, exist_ok=True)
        self.config = workspace / "nginx.conf"
        self.config.write_text(f"""
worker_processes 1;
daemon off;
pid {workspace}/nginx.pid;
error_log {workspace}/nginx-error.log warn;
events {{ worker_connections 512; }}
http {{
    access_log off;
    client_body_temp_path {temp}/body;
    proxy_temp_path {temp}/proxy;
    fastcgi_temp_path {temp}/fastcgi;
    uwsgi_temp_path {temp}/uwsgi;
    scgi_temp_path {temp}/scgi;
    upstream cumulus {{
{servers}
        keepalive 32;
    }}
    server {{
        listen 127.0.0.1:{self.port};
        location / {{
            proxy_pass http://cumulus;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $http_host;
            proxy_read_timeout 3600s;
            proxy_buffering off;
        }}
    }}
}}
""")
        self.process: Optional[subprocess.Popen[bytes]] = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> "Nginx":
        self.process = subprocess.Popen(
            ["nginx", "-c", str(self.config), "-p", str(self.workspace)],
            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT,
        )
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return self
            except OSError:
                if self.process.poll() is not None:
                    raise RuntimeError("nginx exited: " + (self.workspace / "nginx-error.log").read_text(errors="replace"))
                time.sleep(0.05)
        raise RuntimeError("nginx did not start")

    def __exit__(self, *exc: object) -> None:
        if self.process is not None:
            self.process.terminate()
            self.process.wait(timeout=10)
