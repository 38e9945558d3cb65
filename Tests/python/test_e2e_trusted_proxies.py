"""`cumulus serve --trusted-proxies 127.0.0.1/32` behind a real nginx, with clients on distinct
127.0.0.x source addresses: every per-client rule follows the client nginx names in
X-Forwarded-For, a forged X-Forwarded-For gains nothing (through nginx, which appends the address
it saw, or sent straight to the server, which trusts only 127.0.0.1), nginx is not held to the
per-client connection cap (300 long polls through it are all held), and the request log names
each client's own address.

The API's request rate is a bucket per container and environment (DESIGN decision 9), shared by
every client on purpose; the per-client limits are anonymous `tokens/create` (20 at once, then
10 a minute) and sign-in throttling, and those are what "one client past its limit" exercises.

nginx is installed with apt-get when missing; the tests are skipped only when it cannot be.
"""

from __future__ import annotations

import re
import select
import shutil
import socket
import subprocess
import time
import uuid
from pathlib import Path
from typing import Any, Iterator, Optional

import pytest
import requests
from requests.adapters import HTTPAdapter

from cloudkit_client import CloudKitClient
from cumulus_deployment import CONTAINER, SCHEMA, USER_NAME, USER_PASSWORD
from cumulus_server import CumulusServer

OPERATOR = "ops"
OPERATOR_PASSWORD = "a long operator passphrase"
LONG_POLLS = 300


def nginx_binary() -> str:
    """nginx, installed with apt-get when missing; skips the module only if it cannot be installed."""
    found = shutil.which("nginx") or (Path("/usr/sbin/nginx").exists() and "/usr/sbin/nginx")
    if found:
        return found
    attempts = []
    for command in (["apt-get", "install", "-y", "-qq", "nginx-light"], ["apt-get", "update", "-qq"],
                    ["apt-get", "install", "-y", "-qq", "nginx-light"]):
        completed = subprocess.run(command, capture_output=True, text=True)
        attempts.append(f"{' '.join(command)}: exit {completed.returncode} {completed.stderr.strip()[-300:]}")
        found = shutil.which("nginx") or (Path("/usr/sbin/nginx").exists() and "/usr/sbin/nginx")
        if found:
            return found
    pytest.skip("nginx is not installed and could not be installed here:\n" + "\n".join(attempts))


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class SourceAddressAdapter(HTTPAdapter):
    """Connects from a given local address, so that each client has an address of its own."""

    def __init__(self, address: str):
        self.address = address
        super().__init__()

    def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
        kwargs["source_address"] = (self.address, 0)
        super().init_poolmanager(*args, **kwargs)


def session_from(address: str) -> requests.Session:
    """A requests session whose connections come from `address` (a 127.0.0.x)."""
    session = requests.Session()
    adapter = SourceAddressAdapter(address)
    session.mount("http://", adapter)
    return session


class Nginx:
    """nginx in the foreground on a free port of 127.0.0.1, proxying to `upstream` as the compose
    file's does: X-Forwarded-For appended, X-Forwarded-Proto set, long reads, no buffering."""

    def __init__(self, binary: str, directory: Path, upstream: int):
        self.port = free_port()
        directory.mkdir(parents=True, exist_ok=True)
        self.directory = directory
        (directory / "nginx.conf").write_text(f"""
worker_processes 1;
worker_rlimit_nofile 8192;
pid {directory}/nginx.pid;
error_log {directory}/error.log warn;
events {{ worker_connections 4096; }}
http {{
    access_log off;
    client_body_temp_path {directory}/body;
    proxy_temp_path {directory}/proxy;
    upstream cumulus {{
        server 127.0.0.1:{upstream};
        keepalive 32;
    }}
    server {{
        listen 127.0.0.1:{self.port};
        client_max_body_size 64m;
        location / {{
            proxy_pass http://cumulus;
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header Host $http_host;
            proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
            proxy_set_header X-Forwarded-Proto $scheme;
            proxy_read_timeout 3600s;
            proxy_buffering off;
        }}
    }}
}}
""")
        self.process = subprocess.Popen(
            [binary, "-p", str(directory), "-c", str(directory / "nginx.conf"), "-g", "daemon off; user root;"],
            stdout=subprocess.DEVNULL, stderr=open(directory / "stderr.log", "wb"))
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"nginx exited: {(directory / 'stderr.log').read_text()} {self.error_log()}")
            try:
                if requests.get(f"http://127.0.0.1:{self.port}/healthz", timeout=2).status_code == 200:
                    break
            except requests.RequestException:
                pass
            time.sleep(0.05)
        else:
            self.stop()
            raise RuntimeError("nginx did not start: " + self.error_log())
        self.base_url = f"http://127.0.0.1:{self.port}"

    def error_log(self) -> str:
        path = self.directory / "error.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)


@pytest.fixture(scope="module")
def behind_nginx(cumulus_binary: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    binary = nginx_binary()
    workspace = tmp_path_factory.mktemp("proxied")
    server = CumulusServer(cumulus_binary, workspace / "data", demo=False,
                           environment={"CUMULUS_TRUSTED_PROXIES": "127.0.0.1/32"})
    server.start()
    nginx: Optional[Nginx] = None
    try:
        api_token = server.create_container(CONTAINER, SCHEMA, workspace / "schema.ckdb")
        server.cli("users", "add", "--container", CONTAINER, USER_NAME, stdin=USER_PASSWORD + "\n")
        web_auth_token = server.cli("users", "token", "--container", CONTAINER, USER_NAME, stdin=USER_PASSWORD + "\n")
        server.cli("operators", "add", OPERATOR, stdin=OPERATOR_PASSWORD + "\n")
        management_token = server.cli("operators", "token", OPERATOR, "--name", "proxy-test")
        nginx = Nginx(binary, workspace / "nginx", server.port)
        yield {"server": server, "nginx": nginx, "api_token": api_token, "web_auth_token": web_auth_token,
               "management_token": management_token}
    finally:
        if nginx is not None:
            nginx.stop()
        server.stop()


def anonymous_token(base_url: str, api_token: str, session: requests.Session,
                    headers: Optional[dict[str, str]] = None) -> int:
    """One anonymous tokens/create; its status."""
    response = session.post(
        f"{base_url}/database/1/{CONTAINER}/development/tokens/create?ckAPIToken={api_token}",
        data='{"apnsEnvironment":"development"}', headers={"Content-Type": "text/plain", **(headers or {})}, timeout=30)
    assert response.status_code in (200, 429), response.text
    return response.status_code


def request_log(context: dict[str, Any], **filters: str) -> list[dict[str, Any]]:
    response = requests.get(
        f"{context['server'].base_url}/admin/v1/containers/{CONTAINER}/logs", params={"limit": "1000", **filters},
        headers={"Authorization": f"Bearer {context['management_token']}"}, timeout=30)
    assert response.status_code == 200, response.text
    return response.json()["entries"]


def test_one_client_past_its_limit_leaves_another_unaffected_and_forging_gains_nothing(behind_nginx: dict[str, Any]) -> None:
    nginx: Nginx = behind_nginx["nginx"]
    server: CumulusServer = behind_nginx["server"]
    token = behind_nginx["api_token"]
    first, second = session_from("127.0.0.2"), session_from("127.0.0.3")

    # The first client spends its anonymous tokens/create allowance (a burst of 20) through nginx.
    statuses = [anonymous_token(nginx.base_url, token, first) for _ in range(40)]
    assert statuses[:20] == [200] * 20 and 429 in statuses, statuses

    # Forged X-Forwarded-For through nginx: nginx appends 127.0.0.2, the rightmost untrusted address.
    assert anonymous_token(nginx.base_url, token, first, {"X-Forwarded-For": "127.0.0.9"}) == 429
    assert anonymous_token(nginx.base_url, token, first, {"X-Forwarded-For": "127.0.0.9, 127.0.0.1"}) == 429
    # Forged straight to the server: 127.0.0.2 is no trusted proxy, so its header is not read.
    assert anonymous_token(server.base_url, token, first, {"X-Forwarded-For": "127.0.0.10"}) == 429
    assert anonymous_token(server.base_url, token, first, {"X-Forwarded-For": "127.0.0.10", "X-Real-IP": "127.0.0.10"}) == 429

    # Another client behind the same nginx still has its whole allowance.
    assert [anonymous_token(nginx.base_url, token, second) for _ in range(5)] == [200] * 5


def console_login(base_url: str, session: requests.Session, password: str, headers: Optional[dict[str, str]] = None) -> int:
    form = session.get(f"{base_url}/console/login", headers=headers, timeout=30)
    assert form.status_code == 200, form.text
    csrf = re.search(r'name="csrfToken" value="([^"]+)"', form.text)
    assert csrf, form.text
    answer = session.post(
        f"{base_url}/console/login", data={"csrfToken": csrf.group(1), "name": OPERATOR, "password": password},
        headers=headers, allow_redirects=False, timeout=30)
    return answer.status_code


def test_sign_in_throttling_counts_each_client_behind_the_proxy(behind_nginx: dict[str, Any]) -> None:
    nginx: Nginx = behind_nginx["nginx"]
    guesser, owner = session_from("127.0.0.30"), session_from("127.0.0.31")
    statuses = [console_login(nginx.base_url, guesser, "a wrong guess") for _ in range(12)]
    assert statuses[0] == 401 and statuses[-1] == 429, statuses
    assert console_login(nginx.base_url, guesser, OPERATOR_PASSWORD) == 429
    # A forged address through nginx is still the guesser.
    assert console_login(nginx.base_url, guesser, OPERATOR_PASSWORD, {"X-Forwarded-For": "127.0.0.32"}) == 429
    # The operator, from an address of their own behind the same nginx, signs in.
    assert console_login(nginx.base_url, owner, OPERATOR_PASSWORD) == 303


def open_poll(nginx: Nginx, url: str, source: str) -> socket.socket:
    """Sends one courier poll through nginx from `source`, as CloudKit JS does, and leaves it waiting."""
    path = url.split("://", 1)[1].split("/", 1)[1]
    connection = socket.create_connection(("127.0.0.1", nginx.port), timeout=30, source_address=(source, 0))
    connection.sendall(f"GET /{path} HTTP/1.1\r\nHost: 127.0.0.1:{nginx.port}\r\n\r\n".encode())
    return connection


def read_answer(connection: socket.socket) -> tuple[int, bytes]:
    """Reads one HTTP/1.1 answer (nginx sends it with Content-Length or chunked)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = connection.recv(65536)
        if not chunk:
            break
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    status = int(head.split(b" ", 2)[1]) if head else 0
    length = re.search(rb"(?i)\r\ncontent-length: *(\d+)", head)
    chunked = re.search(rb"(?i)\r\ntransfer-encoding: *chunked", head)
    while (length and len(body) < int(length.group(1))) or (chunked and not body.endswith(b"0\r\n\r\n")):
        chunk = connection.recv(65536)
        if not chunk:
            break
        body += chunk
    if chunked:
        decoded, rest = b"", body
        while rest:
            size_line, _, rest = rest.partition(b"\r\n")
            size = int(size_line, 16)
            if size == 0:
                break
            decoded, rest = decoded + rest[:size], rest[size + 2:]
        body = decoded
    return status, body


def test_300_long_polls_through_the_proxy_are_all_held(behind_nginx: dict[str, Any]) -> None:
    nginx: Nginx = behind_nginx["nginx"]
    user = CloudKitClient(nginx.base_url, CONTAINER, "development", api_token=behind_nginx["api_token"],
                          web_auth_token=behind_nginx["web_auth_token"], session=session_from("127.0.0.40"))
    created = user.post(None, "tokens/create", {"apnsEnvironment": "development"})
    assert created.status_code == 200, created.text
    apns_token, url = created.json()["apnsToken"], created.json()["webcourierURL"]
    assert user.post(None, "tokens/register", {"apnsEnvironment": "development", "apnsToken": apns_token}).status_code == 200
    batch = uuid.uuid4().hex
    subscribed = user.post("public", "subscriptions/modify", {"operations": [{"operationType": "create", "subscription": {
        "subscriptionID": f"proxied-{batch}", "subscriptionType": "query", "firesOn": ["create"],
        "query": {"recordType": "Item", "filterBy": [{"comparator": "EQUALS", "fieldName": "batch", "fieldValue": {"value": batch}}]}}}]})
    assert "serverErrorCode" not in subscribed.json()["subscriptions"][0], subscribed.text

    # 300 polls from 30 clients, 10 each: nginx opens 300 connections of its own to the server,
    # more than the 256 one client may hold.
    polls = [open_poll(nginx, url, f"127.0.0.{100 + index % 30}") for index in range(LONG_POLLS)]
    try:
        # Every poll waits: a refused one would have its 503 by the time nginx answers another request.
        assert session_from("127.0.0.41").get(f"{nginx.base_url}/healthz", timeout=30).status_code == 200
        readable, _, _ = select.select(polls, [], [], 1.0)
        assert readable == [], [read_answer(poll) for poll in readable[:3]]

        # One notification per poll: each held poll answers with one.
        for start in range(0, LONG_POLLS, 100):
            saved = user.post("public", "records/modify", {"operations": [
                {"operationType": "create", "record": {"recordType": "Item", "fields": {
                    "title": {"value": f"item {index}"}, "batch": {"value": batch}}}}
                for index in range(start, start + 100)]})
            assert saved.status_code == 200 and all("serverErrorCode" not in r for r in saved.json()["records"]), saved.text
        answers = [read_answer(poll) for poll in polls]
    finally:
        for poll in polls:
            poll.close()
    assert [status for status, _ in answers] == [200] * LONG_POLLS
    assert all(b'"qry"' in body for _, body in answers), [body for _, body in answers if b'"qry"' not in body][:3]
    assert "connections open from" not in behind_nginx["server"].output()


def test_the_request_log_names_each_clients_own_address(behind_nginx: dict[str, Any]) -> None:
    nginx: Nginx = behind_nginx["nginx"]
    server: CumulusServer = behind_nginx["server"]
    for address, forged in (("127.0.0.50", "127.0.0.60"), ("127.0.0.51", "127.0.0.61")):
        client = CloudKitClient(nginx.base_url, CONTAINER, "development", api_token=behind_nginx["api_token"],
                                session=session_from(address))
        answer = client.post("public", "records/query", {"query": {"recordType": "Item"}}, headers={"X-Forwarded-For": forged})
        assert answer.status_code == 200, answer.text
    # And one straight to the server, from an address nginx never used, with a forged header.
    direct = CloudKitClient(server.base_url, CONTAINER, "development", api_token=behind_nginx["api_token"],
                            session=session_from("127.0.0.52"))
    assert direct.post("public", "records/query", {"query": {"recordType": "Item"}},
                       headers={"X-Forwarded-For": "127.0.0.62"}).status_code == 200

    deadline = time.monotonic() + 20
    clients: set[str] = set()
    while time.monotonic() < deadline:
        clients = {entry["client"] for entry in request_log(behind_nginx, operation="records/query")}
        if {"127.0.0.50", "127.0.0.51", "127.0.0.52"} <= clients:
            break
        time.sleep(0.2)
    assert {"127.0.0.50", "127.0.0.51", "127.0.0.52"} <= clients, clients
    assert not clients & {"127.0.0.60", "127.0.0.61", "127.0.0.62", "127.0.0.1"}, clients
    # The earlier tests' clients are there under their own addresses too, never nginx's.
    every = {entry["client"] for entry in request_log(behind_nginx)}
    assert {"127.0.0.2", "127.0.0.3"} <= every and "127.0.0.1" not in every, every
