"""Builds `cumulus` and runs `cumulus serve` on 127.0.0.1 for end-to-end tests.

    binary = build_cumulus()
    with CumulusServer(binary, data_dir, demo=False) as server:
        server.cli("containers", "create", "iCloud.com.example.App")
        requests.get(server.base_url + "/healthz")

The server listens on a free port of 127.0.0.1 (it picks one with `--port 0` and prints it);
its output goes to `server.log` in the data directory's parent, which a failing start quotes.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import time
from pathlib import Path
from typing import Optional, Sequence

import requests

#: The package root: Tests/python/../..
PACKAGE_ROOT = Path(__file__).resolve().parents[2]

_LISTENING = re.compile(r"listening on (http://127\.0\.0\.1:(\d+))")
_DEMO_TOKEN = re.compile(r"Its API token \(development\): ([0-9a-f]{64})")


def build_cumulus() -> Path:
    """The `cumulus` executable: $CUMULUS_BIN when set, else built with `swift build --product cumulus`."""
    given = os.environ.get("CUMULUS_BIN")
    if given:
        path = Path(given).resolve()
        if not os.access(path, os.X_OK):
            raise RuntimeError(f"CUMULUS_BIN={given} is not an executable")
        return path
    build = subprocess.run(
        ["swift", "build", "--product", "cumulus"], cwd=PACKAGE_ROOT, capture_output=True, text=True
    )
    if build.returncode != 0:
        raise RuntimeError(f"swift build failed:\n{build.stdout[-4000:]}\n{build.stderr[-4000:]}")
    bin_path = subprocess.run(
        ["swift", "build", "--show-bin-path"], cwd=PACKAGE_ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()
    return Path(bin_path) / "cumulus"


class CumulusServer:
    """One `cumulus serve` process over its own data directory."""

    def __init__(
        self, binary: Path, data_dir: Path, *, demo: bool = False, start_timeout: float = 30.0, database_url: Optional[str] = None,
        environment: Optional[dict[str, str]] = None,
    ):
        #: A PostgreSQL database the server (and `cli`) use instead of SQLite in the data directory.
        self.database_url = database_url
        #: Variables added to the server's environment.
        self.environment = environment or {}
        self.binary = Path(binary)
        self.data_dir = Path(data_dir)
        self.demo = demo
        self.start_timeout = start_timeout
        self.log_path = self.data_dir.parent / f"{self.data_dir.name}-server.log"
        self.process: Optional[subprocess.Popen[bytes]] = None
        self.base_url = ""
        self.port = 0
        #: The demo container's API token, when the server seeded the demo on this start.
        self.demo_api_token: Optional[str] = None

    def start(self, port: int = 0) -> "CumulusServer":
        """Starts the server on `port` (0: a free one)."""
        self.data_dir.mkdir(parents=True, exist_ok=True)
        arguments = [
            str(self.binary), "serve", "--host", "127.0.0.1", "--port", str(port),
            "--data-dir", str(self.data_dir), "--public-dir", str(PACKAGE_ROOT / "Public"),
            "--templates-dir", str(PACKAGE_ROOT / "Templates"),
            "--no-access-log", "--log-level", "warning",
        ]
        if not self.demo:
            arguments.append("--no-demo")
        if self.database_url:
            arguments += ["--database-url", self.database_url]
        log = open(self.log_path, "wb")
        try:
            self.process = subprocess.Popen(
                arguments, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=self.data_dir.parent,
                env={**os.environ, **self.environment},
            )
        finally:
            log.close()
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            output = self.output()
            found = _LISTENING.search(output)
            if found:
                self.base_url, self.port = found.group(1), int(found.group(2))
                token = _DEMO_TOKEN.search(output)
                self.demo_api_token = token.group(1) if token else None
                break
            if self.process.poll() is not None:
                raise RuntimeError(f"cumulus serve exited with {self.process.returncode}:\n{output}")
            time.sleep(0.05)
        else:
            self.stop()
            raise RuntimeError(f"cumulus serve did not start in {self.start_timeout}s:\n{self.output()}")
        # The banner is written once the socket listens; /healthz proves requests are served.
        health = requests.get(self.base_url + "/healthz", timeout=10)
        health.raise_for_status()
        return self

    def output(self) -> str:
        """What the server printed so far."""
        try:
            return self.log_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def stop(self) -> None:
        """Stops the server with SIGTERM (SIGKILL if it does not stop in 15 s)."""
        if self.process is None or self.process.poll() is not None:
            return
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=5)

    def restart(self) -> "CumulusServer":
        """Stops the server and starts it again on the same port and data directory."""
        port = self.port
        self.stop()
        return self.start(port=port)

    def cli(self, *arguments: str, stdin: Optional[str] = None) -> str:
        """Runs `cumulus <arguments> --data-dir <data dir>` and returns its standard output, stripped."""
        database = ["--database-url", self.database_url] if self.database_url else []
        return run_cli(self.binary, [*arguments, "--data-dir", str(self.data_dir), *database], stdin=stdin)

    def create_container(self, container: str, schema: str, schema_file: Path) -> str:
        """Creates `container`, imports `schema` (written to `schema_file` first) and returns a new
        API token of it. Every origin is allowed, an explicit choice, so tests may call as any web page."""
        self.cli("containers", "create", container)
        schema_file.write_text(schema)
        self.cli("import-schema", "--container", container, "--file", str(schema_file))
        return self.cli("tokens", "create", "--container", container, "--allowed-origin", "*")

    def __enter__(self) -> "CumulusServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


def run_cli(binary: Path, arguments: Sequence[str], stdin: Optional[str] = None) -> str:
    completed = subprocess.run(
        [str(binary), *arguments], input=stdin, capture_output=True, text=True, timeout=120
    )
    if completed.returncode != 0:
        raise RuntimeError(f"cumulus {' '.join(arguments)} failed ({completed.returncode}):\n{completed.stderr}")
    return completed.stdout.strip()
