"""Apple's CloudKit JS, unchanged, following a zone's change feed page by page against a real
server: 1.2.0 with fetchChangedRecords (records/changes), 2.6.1 with fetchRecordZoneChanges
(changes/zone). Each record changed after the token comes once across the pages, at its last
change, as with the server's own clients.

Apple's library is not part of this repository and may never be committed to it. Give its
files with CUMULUS_CLOUDKIT_JS_1 (1.2.0) and CUMULUS_CLOUDKIT_JS_2 (2.6.1; public copies of
both are in GitHub repositories); the test of each is skipped without it, and both without
`node`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from cloudkit_client import CloudKitClient
from cumulus_server import CumulusServer

CONTAINER = "iCloud.com.example.FeedJS"
SCHEMA = """DEFINE SCHEMA
  RECORD TYPE Note (
    "___recordID" REFERENCE QUERYABLE,
    title STRING,
    GRANT WRITE TO "_creator",
    GRANT CREATE TO "_icloud",
    GRANT READ TO "_world"
  );
"""
FOLLOW = Path(__file__).parent / "cloudkit_js" / "follow_feed.js"
LIBRARIES = {"1.2.0": "CUMULUS_CLOUDKIT_JS_1", "2.6.1": "CUMULUS_CLOUDKIT_JS_2"}

pytestmark = pytest.mark.skipif(
    not any(os.environ.get(variable) for variable in LIBRARIES.values()),
    reason="Apple's CloudKit JS is not here: set CUMULUS_CLOUDKIT_JS_1 and CUMULUS_CLOUDKIT_JS_2 to its files")


def library(version: str) -> Path:
    path = os.environ.get(LIBRARIES[version])
    if not path or not Path(path).is_file():
        pytest.skip(f"CloudKit JS {version} is not here: set {LIBRARIES[version]} to its file")
    if shutil.which("node") is None:
        pytest.skip("node is not installed")
    return Path(path).resolve()


@pytest.fixture(scope="module")
def feed(cumulus_binary: Path, tmp_path_factory: pytest.TempPathFactory):
    """A server whose public default zone's log, after a token, is a, b, c, a again, d, b again,
    brief created and deleted, and older (from before the token) deleted."""
    workspace = tmp_path_factory.mktemp("feed-js")
    with CumulusServer(cumulus_binary, workspace / "data") as server:
        api_token = server.create_container(CONTAINER, SCHEMA, workspace / "schema.ckdb")
        server.cli("users", "add", "--container", CONTAINER, "writer", stdin="a long passphrase\n")
        web_auth_token = server.cli("users", "token", "--container", CONTAINER, "writer", stdin="a long passphrase\n")
        writer = CloudKitClient(server.base_url, CONTAINER, "development", api_token=api_token, web_auth_token=web_auth_token)

        def write(kind: str, name: str, title: str = "") -> None:
            record = {"recordName": name}
            if kind != "forceDelete":
                record.update(recordType="Note", fields={"title": {"value": title}})
            answer = writer.modify("public", [{"operationType": kind, "record": record}])
            assert "serverErrorCode" not in answer["records"][0], answer

        write("create", "older", "before the token")
        start = writer.post("public", "records/changes", {}).json()["syncToken"]
        for kind, name, title in [
            ("create", "a", "a 1"), ("create", "b", "b 1"), ("create", "c", "c 1"), ("forceUpdate", "a", "a 2"),
            ("create", "d", "d 1"), ("forceUpdate", "b", "b 2"), ("create", "brief", "x"), ("forceDelete", "brief", ""),
            ("forceDelete", "older", ""),
        ]:
            write(kind, name, title)
        yield server, api_token, start


@pytest.mark.parametrize("version", sorted(LIBRARIES))
@pytest.mark.parametrize("limit", [1, 2])
def test_cloudkit_js_follows_the_feed_and_gets_each_record_once(feed, version: str, limit: int) -> None:
    path = library(version)
    server, api_token, start = feed
    for token, expected in [
        (start, ["c", "a", "d", "b", "deleted brief", "deleted older"]),
        (None, ["c", "a", "d", "b", "deleted brief", "deleted older"]),
    ]:
        arguments = [str(path), server.base_url, CONTAINER, api_token, "_defaultZone", str(limit)] + ([token] if token else [])
        completed = subprocess.run(["node", str(FOLLOW), *arguments], capture_output=True, text=True, timeout=120)
        assert completed.returncode == 0, completed.stderr
        followed = json.loads(completed.stdout)
        entries = [entry for page in followed["pages"] for entry in page]
        assert entries == expected, (version, limit, followed["pages"])
