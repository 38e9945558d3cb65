"""One exchange of the corpus: an HTTP request to the server (or a command line run against its
data directory) and what came back, masked; how to send one and how to read and write the corpus.

An HTTP exchange in the corpus (one JSON object a line):

    {"area": "records", "name": "...",
     "request": {"method": "POST", "target": "/database/1/...?ckAPIToken=«apitoken:1»",
                 "headers": {"Content-Type": "text/plain"}, "body": "{...}",
                 "sign": {"key": "«hex:2»", "privateKey": "main"}},
     "response": {"status": 200, "headers": [["cache-control", "no-store"], ...], "body": "{...}"}}

A command line exchange has "cli": {"argv": [...], "stdin": "..."} and "result":
{"exit": 0, "stdout": "...", "stderr": "..."}. Bodies that are not UTF-8 are kept as "bodyBase64".
"""

from __future__ import annotations

import base64
import datetime
import http.client
import json
import os
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

from e2e_helpers import CumulusServer, SigningVariant, load_private_key, sign_request
from masking import Masker

CORPUS = Path(__file__).resolve().parent / "corpus"

#: Fixed P-256 keys, so that a key's id (derived from its public key) is the same every run.
#: Test keys only: they sign requests to throw-away servers.
PRIVATE_KEYS = {
    "main": """-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgpA0Rl1qWcXDIUMU2
rT9lOGEpFIjPuxQ9jRAzVa3kCQKhRANCAAQtuMqJieCcip6FjUgAuWr1HRnwUFbT
UZXkA4LKTLTZYM6ycADOnfr2TDlKFYICJctoudVl8ko2oU+a3vLshS1f
-----END PRIVATE KEY-----
""",
    "other": """-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgF52l8DPNjMKgy3r/
h2H8/uGHdLyWYnlTwz+Yzt31ZDKhRANCAARUEnEc4ulU7soX6h/DCxkBJv+KqMXz
NZO6tLpjEcCycs5dHmZ6BB99YY06yD8tM/zlw2u6o1OqTK0jIA++Whi5
-----END PRIVATE KEY-----
""",
}

#: Response headers left out of the comparison: they describe the connection or the moment,
#: not the answer (the body is compared whole, so its length is too).
IGNORED_RESPONSE_HEADERS = {"date", "content-length", "connection", "keep-alive", "transfer-encoding", "server"}


@dataclass
class Reply:
    """A response as received, before masking."""

    status: int
    headers: list[tuple[str, str]]
    body: bytes

    def header(self, name: str) -> Optional[str]:
        return next((value for key, value in self.headers if key.lower() == name.lower()), None)

    def json(self) -> Any:
        return json.loads(self.body)


def send(server: CumulusServer, request: dict[str, Any]) -> Reply:
    """Sends an unmasked request on a connection of its own, with exactly the headers it names
    (and Host and Content-Length), signing it when it says so."""
    body = _body_bytes(request)
    headers = dict(request.get("headers", {}))
    sign = request.get("sign")
    if sign:
        now = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(minutes=sign.get("dateOffsetMinutes", 0))
        variant = SigningVariant(sign_query=sign.get("signQuery", True))
        key = load_private_key(PRIVATE_KEYS[sign.get("privateKey", "main")])
        headers.update(sign_request(key, sign["key"], body, request["target"], variant, now=now))
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    try:
        connection.putrequest(request["method"], request["target"], skip_accept_encoding=True)
        for name, value in headers.items():
            connection.putheader(name, value)
        if body or request["method"] in ("POST", "PUT", "PATCH"):
            connection.putheader("Content-Length", str(len(body)))
        connection.endheaders(body or None)
        response = connection.getresponse()
        return Reply(response.status, response.getheaders(), response.read())
    finally:
        connection.close()


def run_cli(server: CumulusServer, argv: list[str], stdin: Optional[str]) -> subprocess.CompletedProcess[str]:
    """Runs `cumulus ARGV --data-dir DIR` against the running server's data directory (and its
    database, when it has one)."""
    database = ["--database-url", server.database_url] if server.database_url else []
    return subprocess.run(
        [str(server.binary), *argv, "--data-dir", str(server.data_dir), *database], input=stdin, capture_output=True, text=True,
        timeout=120, env={**os.environ, **server.environment})


def _body_bytes(message: dict[str, Any]) -> bytes:
    if "bodyBase64" in message:
        return base64.b64decode(message["bodyBase64"])
    return message.get("body", "").encode("utf-8")


# MARK: - Masking whole exchanges


def mask_request(masker: Masker, request: dict[str, Any]) -> dict[str, Any]:
    """A request as the corpus keeps it: values handed out earlier replaced by their placeholders."""
    masked = dict(request)
    masked["target"] = masker.mask(request["target"], learn=False)
    if request.get("headers"):
        masked["headers"] = {name: masker.mask(value, learn=False) for name, value in request["headers"].items()}
    if "body" in request:
        masked["body"] = masker.mask(request["body"], learn=False)
    if request.get("sign"):
        masked["sign"] = dict(request["sign"], key=masker.mask(request["sign"]["key"], learn=False))
    return masked


def unmask_request(masker: Masker, request: dict[str, Any]) -> dict[str, Any]:
    """A corpus request with this run's values put back."""
    plain = dict(request)
    plain["target"] = masker.unmask(request["target"])
    if request.get("headers"):
        plain["headers"] = {name: masker.unmask(value) for name, value in request["headers"].items()}
    if "body" in request:
        plain["body"] = masker.unmask(request["body"])
    if request.get("sign"):
        plain["sign"] = dict(request["sign"], key=masker.unmask(request["sign"]["key"]))
    return plain


def mask_reply(masker: Masker, reply: Reply) -> dict[str, Any]:
    """A response as the corpus keeps it: status, the headers that matter, the body, masked.
    Headers are masked as one text (so header rules see `name: value` lines), in the order
    of their names; the values of a repeated header keep their order."""
    kept = sorted(((name.lower(), value) for name, value in reply.headers if name.lower() not in IGNORED_RESPONSE_HEADERS),
                  key=lambda pair: pair[0])
    header_text = masker.mask("\n".join(f"{name}: {value}" for name, value in kept))
    headers = [line.split(": ", 1) for line in header_text.split("\n")] if kept else []
    masked: dict[str, Any] = {"status": reply.status, "headers": headers}
    try:
        masked["body"] = masker.mask(reply.body.decode("utf-8"))
    except UnicodeDecodeError:
        masked["bodyBase64"] = base64.b64encode(reply.body).decode("ascii")
    return masked


def mask_result(masker: Masker, completed: subprocess.CompletedProcess[str], data_dir: Path) -> dict[str, Any]:
    """A command line's exit status and output, masked (the data directory's path too)."""

    def masked(text: str) -> str:
        return masker.mask(text.replace(str(data_dir), "«datadir»"))

    return {"exit": completed.returncode, "stdout": masked(completed.stdout), "stderr": masked(completed.stderr)}


# MARK: - The corpus files

#: The storage backends a corpus is recorded on, each in a folder of its own: their answers
#: differ in a few places (the size of an environment's SQLite file, for one).
BACKENDS = ("sqlite", "postgresql")


def corpus_files(backend: str) -> list[Path]:
    return sorted((CORPUS / backend).glob("*.jsonl"))


def read_corpus(backend: str) -> list[dict[str, Any]]:
    """Every exchange of a backend's corpus, in the order recorded (by step: areas interleave)."""
    exchanges: list[dict[str, Any]] = []
    for path in corpus_files(backend):
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            if line.strip():
                exchange = json.loads(line)
                exchange["_where"] = f"{backend}/{path.name}:{number}"
                exchanges.append(exchange)
    return sorted(exchanges, key=lambda exchange: exchange["step"])


def write_corpus(backend: str, exchanges: list[dict[str, Any]]) -> None:
    """One file per area, numbered in the order the areas first appear."""
    folder = CORPUS / backend
    folder.mkdir(parents=True, exist_ok=True)
    for old in corpus_files(backend):
        old.unlink()
    areas: dict[str, list[dict[str, Any]]] = {}
    for exchange in exchanges:
        areas.setdefault(exchange["area"], []).append(exchange)
    for index, (area, members) in enumerate(areas.items(), start=1):
        lines = [json.dumps(exchange, ensure_ascii=False, separators=(",", ":")) for exchange in members]
        (folder / f"{index:02d}-{area}.jsonl").write_text("\n".join(lines) + "\n")
