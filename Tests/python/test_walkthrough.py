"""Runs the commands of the README's curl walk-through against a fresh server, as a newcomer
would paste them, and checks what the document says they answer.

Each command block is preceded by `<!-- walkthrough: NAME -->`, naming the check below that
judges its output (or `skip`, for `cumulus serve`, which the test starts itself). The blocks
run in order in one shell, in the server's folder, with `cumulus` on the PATH and the server's
address in place of http://127.0.0.1:8080. A JSON output shown right after a block, when it
elides nothing, must be exactly what the block prints.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional

import pytest

from cumulus_server import PACKAGE_ROOT, CumulusServer

README = PACKAGE_ROOT / "README.md"
SECTION = "## Walk-through: the API with curl"
DOCUMENTED_BASE = "http://127.0.0.1:8080"

_BLOCK = re.compile(r"(?:<!-- walkthrough: (?P<name>[\w-]+)[^>]*-->\n)?```(?P<language>\w*)\n(?P<code>.*?)```\n", re.S)


@dataclass
class Block:
    name: Optional[str]
    language: str
    code: str
    shown_output: Optional[str] = None


def walkthrough_text() -> str:
    """The walk-through section of the README, up to the next section."""
    text = README.read_text()
    start = text.index(SECTION)
    end = text.find("\n## ", start + len(SECTION))
    return text[start:] if end < 0 else text[start:end + 1]


def parse(text: str) -> list[Block]:
    blocks: list[Block] = []
    for match in _BLOCK.finditer(text):
        block = Block(match["name"], match["language"], match["code"])
        if block.name is None and block.language in ("json", "text") and blocks and blocks[-1].name:
            blocks[-1].shown_output = block.code
        blocks.append(block)
    return blocks


@dataclass
class HTTPOutput:
    status: int
    headers: dict[str, str]
    body: Any


def http(output: str) -> HTTPOutput:
    """The output of `curl -i`."""
    head, _, body = output.replace("\r\n", "\n").partition("\n\n")
    lines = head.splitlines()
    status = int(lines[0].split()[1])
    headers = {name.strip().lower(): value.strip() for name, _, value in (line.partition(":") for line in lines[1:])}
    return HTTPOutput(status, headers, json.loads(body))


class Walkthrough:
    """What the checks learn as the blocks run."""

    def __init__(self, base_url: str):
        self.base_url = base_url
        self.user_record_name = ""


def check_credentials(output: str, state: Walkthrough) -> None:
    state.user_record_name = output.strip().splitlines()[-1]
    assert re.fullmatch(r"_[0-9a-f]{32}", state.user_record_name), output


def check_web_auth_token(output: str, state: Walkthrough) -> None:
    assert output.strip() == ""


def check_world_query(output: str, state: Walkthrough) -> None:
    records = json.loads(output)["records"]
    assert [(record["recordName"], record["fields"]["title"]["value"]) for record in records] == [
        ("query", "Try a query"), ("welcome", "Welcome to Cumulus")]
    assert all(set(record["fields"]) == {"title"} for record in records)


def check_world_write(output: str, state: Walkthrough) -> None:
    response = http(output)
    assert response.status == 421
    assert response.body["serverErrorCode"] == "AUTHENTICATION_REQUIRED"
    assert response.body["reason"] == "Changing records needs a signed-in user"
    assert response.body["redirectURL"].startswith(f"{state.base_url}/signin?ckAPIToken=")


def check_user_write(output: str, state: Walkthrough) -> None:
    response = http(output)
    assert response.status == 200, response.body
    assert response.headers["x-apple-cloudkit-web-auth-token"]
    [record] = response.body["records"]
    assert record["recordName"] == "hello-curl"
    assert record["fields"] == {"tags": {"value": ["curl"], "type": "STRING_LIST"},
                                "title": {"value": "Hello from curl", "type": "STRING"}}
    assert record["created"]["userRecordName"] == state.user_record_name
    assert record["created"]["deviceID"] == "web"


def check_read_back(output: str, state: Walkthrough) -> None:
    [record] = json.loads(output)["records"]
    assert record["recordName"] == "hello-curl" and record["recordType"] == "Note"
    assert record["fields"] == {"tags": {"value": ["curl"], "type": "STRING_LIST"},
                                "title": {"value": "Hello from curl", "type": "STRING"}}


def check_delete(output: str, state: Walkthrough) -> None:
    assert json.loads(output)["records"][0]["deleted"] is True


def check_read_deleted(output: str, state: Walkthrough) -> None:
    assert json.loads(output)["records"][0]["serverErrorCode"] == "NOT_FOUND"


def check_keys(output: str, state: Walkthrough) -> None:
    assert re.fullmatch(r"[0-9a-f]{64}", output.strip()), output


def check_signed_curl(output: str, state: Walkthrough) -> None:
    answer = json.loads(output)
    [record] = answer["records"]
    assert record["fields"]["title"]["value"] == "Export the schema"
    assert answer["continuationMarker"]


def check_signed_python(output: str, state: Walkthrough) -> None:
    assert output.strip() == "200 Export the schema"


CHECKS: dict[str, Callable[[str, Walkthrough], None]] = {
    "credentials": check_credentials,
    "web-auth-token": check_web_auth_token,
    "world-query": check_world_query,
    "world-write": check_world_write,
    "user-write": check_user_write,
    "read-back": check_read_back,
    "delete": check_delete,
    "read-deleted": check_read_deleted,
    "keys": check_keys,
    "signed-curl": check_signed_curl,
    "signed-python": check_signed_python,
}


def test_every_command_block_is_run_and_checked() -> None:
    blocks = parse(walkthrough_text())
    runnable = [block for block in blocks if block.language in ("sh", "bash", "python")]
    assert runnable, "no command blocks found"
    unmarked = [block.code.splitlines()[0] for block in runnable if block.name is None]
    assert not unmarked, f"command blocks without a <!-- walkthrough: NAME --> marker: {unmarked}"
    names = [block.name for block in runnable if block.name != "skip"]
    assert sorted(names) == sorted(CHECKS), "every check runs once and every block has a check"
    assert [block.code.strip() for block in runnable if block.name == "skip"] == ["cumulus serve"]


@pytest.fixture(scope="module")
def walkthrough_server(cumulus_binary: Path, tmp_path_factory: pytest.TempPathFactory):
    folder = tmp_path_factory.mktemp("walkthrough")
    bin_dir = folder / "bin"
    bin_dir.mkdir()
    (bin_dir / "cumulus").symlink_to(cumulus_binary)
    # A first start, as in the document: the demo container is seeded.
    with CumulusServer(cumulus_binary, folder / "data", demo=True) as server:
        assert server.demo_api_token, server.output()
        yield server, folder, bin_dir


def test_walkthrough_commands_do_what_the_document_says(walkthrough_server) -> None:
    server, folder, bin_dir = walkthrough_server
    blocks = [block for block in parse(walkthrough_text()) if block.name and block.name != "skip"]
    script = ["set -eu"]
    for index, block in enumerate(blocks):
        code = block.code.replace(DOCUMENTED_BASE, server.base_url)
        script.append(f"echo '@@@walkthrough {index}@@@'")
        if block.language == "python":
            script.append(f"python3 - <<'WALKTHROUGH_PYTHON'\n{code}WALKTHROUGH_PYTHON")
        else:
            script.append(code)
        script.append("echo")
    environment = dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    environment.pop("CUMULUS_DATA_DIR", None)
    completed = subprocess.run(
        ["bash", "-c", "\n".join(script)], cwd=folder, env=environment, capture_output=True, text=True, timeout=300
    )
    assert completed.returncode == 0, f"{completed.stdout}\n{completed.stderr}"

    outputs = re.split(r"^@@@walkthrough \d+@@@\n", completed.stdout, flags=re.M)[1:]
    assert len(outputs) == len(blocks), completed.stdout
    state = Walkthrough(server.base_url)
    for block, output in zip(blocks, outputs):
        try:
            CHECKS[block.name](output, state)
            if block.shown_output and "…" not in block.shown_output and block.language != "python":
                shown = block.shown_output
                if shown.lstrip().startswith("{"):
                    assert json.loads(output) == json.loads(shown), "the output differs from the one shown"
        except Exception as error:
            raise AssertionError(f"block '{block.name}' printed:\n{output}\nstderr:\n{completed.stderr}") from error
