"""Replays the corpus against a running server and reports the first exchange whose masked
answer differs, as a readable diff."""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass
from typing import Any, Optional

from e2e_helpers import CumulusServer
from exchange import mask_reply, mask_result, run_cli, send, unmask_request
from masking import Masker


@dataclass
class Difference:
    """The first exchange whose answer differs from the corpus."""

    exchange: dict[str, Any]
    expected: dict[str, Any]
    got: dict[str, Any]

    def __str__(self) -> str:
        exchange = self.exchange
        if "cli" in exchange:
            what = "cumulus " + " ".join(exchange["cli"]["argv"])
        else:
            what = f"{exchange['request']['method']} {exchange['request']['target']}"
        diff = "\n".join(difflib.unified_diff(
            _lines(self.expected), _lines(self.got), "expected (corpus)", "got (this build)", lineterm="", n=4))
        return (f"Exchange {exchange['step']} ({exchange['_where']}, {exchange['area']}: {exchange['name']}) differs:\n"
                f"  {what}\n{diff}")


def replay(server: CumulusServer, exchanges: list[dict[str, Any]]) -> Optional[Difference]:
    """Sends every exchange in order, putting this run's values in place of the placeholders
    its requests carry; None when every masked answer is the recorded one, byte for byte."""
    masker = Masker(server.base_url)
    for exchange in exchanges:
        if "cli" in exchange:
            argv = [masker.unmask(argument) for argument in exchange["cli"]["argv"]]
            got = mask_result(masker, run_cli(server, argv, exchange["cli"].get("stdin")), server.data_dir)
            expected = exchange["result"]
        else:
            got = mask_reply(masker, send(server, unmask_request(masker, exchange["request"])))
            expected = exchange["response"]
        # The exact masked bytes: the same keys, the same order, the same text.
        if json.dumps(got, ensure_ascii=False) != json.dumps(expected, ensure_ascii=False):
            return Difference(exchange, expected, got)
    return None


def _lines(answer: dict[str, Any]) -> list[str]:
    """An answer as lines for a diff: the status (or exit code), headers, then the body, JSON
    indented so that a changed value shows on a line of its own (display only)."""
    lines: list[str] = []
    if "status" in answer:
        lines.append(f"status {answer['status']}")
        lines += [f"{name}: {value}" for name, value in answer["headers"]]
        body = answer.get("body", answer.get("bodyBase64", ""))
    else:
        lines.append(f"exit {answer['exit']}")
        lines += [f"stderr: {line}" for line in answer["stderr"].splitlines()]
        body = answer["stdout"]
    lines.append("")
    return lines + _body_lines(body)


def _body_lines(body: str) -> list[str]:
    # Unquoted placeholders (times, numbers) are quoted so that the body parses for display.
    quoted = re.sub(r'(?<!")(«[^»]*»)(?!")', r'"\1"', body)
    try:
        return json.dumps(json.loads(quoted), indent=2, ensure_ascii=False).splitlines()
    except ValueError:
        return body.splitlines() or [body]
