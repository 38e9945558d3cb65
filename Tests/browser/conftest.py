"""Harness for the browser tests of Cumulus sign-in.

What runs, all on 127.0.0.1:
- an "app" site (Python's http.server on a free port): the opener page and a sign-in callback
  that records what it receives; its origin is what the API tokens allow;
- `cumulus serve` on a free port (--port 0, the bound port read from its banner) with a fresh
  data directory, the repository's Templates/ and Public/;
- headless Chromium driven through chromedriver by Selenium.

The data directory is seeded by the ConsoleFixture executable (Tests/ConsoleFixture): a
container, a user and two API tokens, one with a sign-in callback; the same executable checks
that a web auth token the browser received is accepted by the store.

Needs: chromium and chromium-driver (Debian packages), `pip install -r requirements.txt`, and
a Swift toolchain to build the package (or CUMULUS_BIN_DIR pointing at built binaries).
"""

import json
import os
import re
import select
import shutil
import socket
import subprocess
import tempfile
import threading
import time
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import quote

import pytest

ROOT = Path(__file__).resolve().parents[2]
SITE = Path(__file__).resolve().parent / "site"


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="session")
def binaries():
    """The directory holding the built `cumulus` and `ConsoleFixture` executables."""
    given = os.environ.get("CUMULUS_BIN_DIR")
    if given:
        return Path(given)
    for product in ("cumulus", "ConsoleFixture"):
        subprocess.run(["swift", "build", "--product", product], cwd=ROOT, check=True)
    path = subprocess.run(["swift", "build", "--show-bin-path"], cwd=ROOT, check=True, capture_output=True, text=True)
    return Path(path.stdout.strip())


class AppSite:
    """The app's own web site, on its own origin."""

    def __init__(self):
        self.callbacks = []
        site = self

        class Handler(SimpleHTTPRequestHandler):
            def __init__(self, *args, **kwargs):
                super().__init__(*args, directory=str(SITE), **kwargs)

            def do_GET(self):
                if self.path.startswith("/callback"):
                    site.callbacks.append(self.path)
                    body = b"<!DOCTYPE html><title>Callback</title><p id='done'>received</p>"
                    self.send_response(200)
                    self.send_header("Content-Type", "text/html; charset=utf-8")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                else:
                    super().do_GET()

            def log_message(self, *args):
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", free_port()), Handler)
        self.origin = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def app_site():
    site = AppSite()
    yield site
    site.close()


class Cumulus:
    """A running `cumulus serve` and the data it was seeded with."""

    def __init__(self, binaries, data_dir, app_site):
        self.binaries = binaries
        self.data_dir = data_dir
        seeded = subprocess.run(
            [str(binaries / "ConsoleFixture"), "seed", data_dir, app_site.origin, f"{app_site.origin}/callback?state=xyz"],
            check=True, capture_output=True, text=True)
        self.seed = json.loads(seeded.stdout)
        self.process = subprocess.Popen(
            [str(binaries / "cumulus"), "serve", "--host", "127.0.0.1", "--port", "0", "--data-dir", data_dir,
             "--templates-dir", str(ROOT / "Templates"), "--public-dir", str(ROOT / "Public"), "--no-access-log",
             "--event-loops", "1", "--workers", "4"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.url = self._read_listening_url()

    def _read_listening_url(self):
        deadline = time.monotonic() + 30
        seen = ""
        while time.monotonic() < deadline:
            ready, _, _ = select.select([self.process.stdout], [], [], 0.5)
            if ready:
                line = self.process.stdout.readline()
                seen += line
                match = re.search(r"listening on (http://127\.0\.0\.1:\d+)", line)
                if match:
                    return match.group(1)
            if self.process.poll() is not None:
                break
        self.stop()
        raise RuntimeError(f"cumulus serve did not start:\n{seen}")

    def sign_in_url(self, token_key, origin=None):
        url = f"{self.url}/signin?ckAPIToken={self.seed[token_key]}"
        if origin:
            url += "&origin=" + quote(origin, safe="")
        return url

    def accepts(self, web_auth_token):
        """Whether the store accepts the token for the seeded container."""
        result = subprocess.run(
            [str(self.binaries / "ConsoleFixture"), "verify", self.data_dir, self.seed["container"], web_auth_token],
            capture_output=True, text=True)
        return result.returncode == 0

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()


@pytest.fixture(scope="module")
def cumulus(binaries, app_site):
    data_dir = tempfile.mkdtemp(prefix="cumulus-browser-")
    server = Cumulus(binaries, data_dir, app_site)
    yield server
    server.stop()
    shutil.rmtree(data_dir, ignore_errors=True)


@pytest.fixture(scope="module")
def driver():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = shutil.which("chromium") or "/usr/bin/chromium"
    for argument in (
        "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-popup-blocking",
        "--window-size=1100,900", "--no-first-run", "--disable-extensions", "--disable-sync",
        "--disable-background-networking", "--disable-component-update", "--disable-domain-reliability",
        # Nothing but loopback resolves: the browser cannot reach any other host.
        "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
    ):
        options.add_argument(argument)
    service = Service(executable_path=shutil.which("chromedriver") or "/usr/bin/chromedriver")
    browser = webdriver.Chrome(options=options, service=service)
    browser.set_page_load_timeout(30)
    yield browser
    browser.quit()


# The console review's data shape, for the tests that ask for the `review` fixture.
from review_fixture import review  # noqa: E402,F401
