"""Drives a running server and keeps every exchange, masked, for the corpus."""

from __future__ import annotations

import json
from typing import Any, Optional
from urllib.parse import quote, urlencode

from e2e_helpers import CumulusServer
from exchange import Reply, mask_reply, mask_request, mask_result, run_cli, send, unmask_request
from masking import Masker


class Recorder:
    """Sends requests (and runs command lines) against `server`, recording each exchange."""

    def __init__(self, server: CumulusServer):
        self.server = server
        self.masker = Masker(server.base_url)
        self.exchanges: list[dict[str, Any]] = []
        #: The area the next exchanges belong to (the corpus file they go in).
        self.area = "setup"

    # MARK: - Recording

    def http(
        self, name: str, method: str, target: str, body: Any = None, *, headers: Optional[dict[str, str]] = None,
        sign: Optional[dict[str, Any]] = None, raw: Optional[str] = None,
    ) -> Reply:
        """Sends one request and records it. `body` is sent as compact JSON, `raw` as it is."""
        request: dict[str, Any] = {"method": method, "target": target, "headers": dict(headers or {})}
        if raw is not None:
            request["body"] = raw
        elif body is not None:
            request["body"] = json.dumps(body, separators=(",", ":"), ensure_ascii=False)
        if sign is not None:
            request["sign"] = sign
        masked = mask_request(self.masker, request)
        # What the corpus keeps must send the same request again in this run, and carry no
        # value of this run that a replay could not know.
        assert unmask_request(self.masker, masked) == request, f"{name}: masking the request loses something: {masked}"
        unknown = self.masker.unknown_values(json.dumps(masked, ensure_ascii=False))
        assert not unknown, f"{name}: the request carries values no response handed out: {unknown}"
        reply = send(self.server, request)
        self.exchanges.append({
            "step": len(self.exchanges) + 1, "area": self.area, "name": name, "request": masked,
            "response": mask_reply(self.masker, reply),
        })
        return reply

    def cli(self, name: str, *argv: str, stdin: Optional[str] = None) -> str:
        """Runs `cumulus ARGV` against the server's data directory and records it; its output."""
        masked_argv = [self.masker.mask(argument, learn=False) for argument in argv]
        assert [self.masker.unmask(argument) for argument in masked_argv] == list(argv), masked_argv
        completed = run_cli(self.server, list(argv), stdin)
        self.exchanges.append({
            "step": len(self.exchanges) + 1, "area": self.area, "name": name,
            "cli": {"argv": masked_argv, "stdin": stdin},
            "result": mask_result(self.masker, completed, self.server.data_dir),
        })
        return completed.stdout.strip()

    # MARK: - Shapes of requests

    def admin(self, name: str, method: str, path: str, body: Any = None, *, token: Optional[str] = None, **options: Any) -> Reply:
        """A management API call (`/admin/v1` + `path`) with a bearer token."""
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        if body is not None or "raw" in options:
            headers["Content-Type"] = options.pop("content_type", "application/json")
        headers.update(options.pop("headers", {}))
        return self.http(name, method, "/admin/v1" + path, body, headers=headers, **options)


def query_string(**parameters: Optional[str]) -> str:
    """`?a=b&c=d` of the parameters that are set, every character but letters and digits escaped."""
    given = {key: value for key, value in parameters.items() if value is not None}
    return "?" + urlencode(given, quote_via=quote, safe="") if given else ""
