"""A small CloudKit Web Services client, written the way a third party would write one.

It talks to any server that speaks CloudKit Web Services (Apple's, or Cumulus) with
`requests`, and signs server-to-server requests with `cryptography` exactly as Apple's
"Composing Web Service Requests" describes:

    message   = "<ISO 8601 date>:<base64(SHA-256(body))>:<subpath>"
    signature = base64(DER(ECDSA-P256-SHA256(message)))

sent in the headers X-Apple-CloudKit-Request-KeyID, -ISO8601Date and -SignatureV1.

Real clients differ in details, and each can be chosen with `SigningVariant` so tests can
check that a server accepts all of them: the subpath with or without the query string
(CloudKit JS signs the query, MistKit does not), an empty string instead of the hash when
there is no body (MistKit), a raw r||s signature instead of DER, and a fixed date (for stale
or future-dated requests).

    client = CloudKitClient("http://127.0.0.1:8080", "iCloud.com.example.App", "development",
                            key_id=key_id, private_key_pem=pem)
    client.modify("public", [{"operationType": "create",
                              "record": {"recordType": "Note", "fields": {"title": {"value": "Hi"}}}}])
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Mapping, Optional, Sequence
from urllib.parse import quote, urlencode, urlsplit

import requests

from cloudkit_signing import (
    DATE_HEADER,
    EMPTY_BODY_HASH,
    KEY_ID_HEADER,
    SIGNATURE_HEADER,
    WEB_AUTH_TOKEN_HEADER,
    SigningVariant,
    body_hash,
    format_date,
    load_private_key,
    public_key_pem,
    sign_message,
    sign_request,
    signing_message,
)

__all__ = [
    "CloudKitClient",
    "CloudKitError",
    "DATE_HEADER",
    "EMPTY_BODY_HASH",
    "KEY_ID_HEADER",
    "SIGNATURE_HEADER",
    "WEB_AUTH_TOKEN_HEADER",
    "SigningVariant",
    "body_hash",
    "format_date",
    "load_private_key",
    "public_key_pem",
    "sign_message",
    "sign_request",
    "signing_message",
]


class CloudKitError(Exception):
    """A non-2xx answer, with CloudKit's error body when there is one."""

    def __init__(self, response: requests.Response):
        self.status = response.status_code
        try:
            self.body: Any = response.json()
        except ValueError:
            self.body = response.text
        details = self.body if isinstance(self.body, dict) else {}
        self.server_error_code: Optional[str] = details.get("serverErrorCode")
        self.reason: Optional[str] = details.get("reason")
        super().__init__(f"HTTP {self.status} {self.server_error_code}: {self.reason or self.body!r}")


@dataclass
class CloudKitClient:
    """A client for one container and environment.

    Authenticates with a server-to-server key (`key_id` + `private_key_pem`), or with an API
    token and optionally a web auth token (never both, as CloudKit requires). A web auth token
    returned by the server in X-Apple-CloudKit-Web-Auth-Token replaces the current one, as
    CloudKit JS does.
    """

    base_url: str
    container: str
    environment: str
    key_id: Optional[str] = None
    private_key_pem: Optional[str] = None
    api_token: Optional[str] = None
    web_auth_token: Optional[str] = None
    session: requests.Session = field(default_factory=requests.Session)
    timeout: float = 30.0

    def __post_init__(self) -> None:
        if (self.key_id is None) != (self.private_key_pem is None):
            raise ValueError("server-to-server signing needs both key_id and private_key_pem")
        if self.key_id is not None and self.api_token is not None:
            raise ValueError("use either a server-to-server key or an API token, not both")
        self._private_key = load_private_key(self.private_key_pem) if self.private_key_pem else None

    def path(self, database: Optional[str], subpath: str) -> str:
        """/database/1/<container>/<environment>[/<database>]/<subpath>"""
        parts = ["", "database", "1", self.container, self.environment]
        if database is not None:
            parts.append(database)
        return "/".join(parts) + "/" + subpath.lstrip("/")

    def request(
        self,
        method: str,
        database: Optional[str],
        subpath: str,
        body: Any = None,
        *,
        params: Optional[Mapping[str, str]] = None,
        variant: SigningVariant = SigningVariant(),
        raw_body: Optional[bytes] = None,
        headers: Optional[Mapping[str, str]] = None,
    ) -> requests.Response:
        """Sends one request and returns the response, whatever its status.

        `body` is encoded as compact JSON; `raw_body` sends bytes as they are (for malformed-body
        tests). Query parameters are percent-encoded with nothing left unescaped, so a web auth
        token's + / = travel as %2B %2F %3D, as Apple's documentation asks.
        """
        if raw_body is not None:
            payload = raw_body
        elif body is not None:
            payload = json.dumps(body, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode("utf-8")
        else:
            payload = b""

        query: dict[str, str] = {}
        if self.api_token is not None:
            query["ckAPIToken"] = self.api_token
        if self.web_auth_token is not None:
            query["ckWebAuthToken"] = self.web_auth_token
        query.update(params or {})
        url = self.base_url.rstrip("/") + self.path(database, subpath)
        if query:
            url += "?" + urlencode(query, quote_via=quote, safe="")

        all_headers = {"Content-Type": "text/plain"}
        all_headers.update(headers or {})
        prepared = self.session.prepare_request(
            requests.Request(method, url, data=payload if payload else None, headers=all_headers)
        )
        if self._private_key is not None:
            # Sign the request target exactly as it will go on the request line.
            sent = urlsplit(prepared.url)
            target = sent.path + (f"?{sent.query}" if sent.query else "")
            prepared.headers.update(sign_request(self._private_key, self.key_id, payload, target, variant))

        response = self.session.send(prepared, timeout=self.timeout)
        rotated = response.headers.get(WEB_AUTH_TOKEN_HEADER)
        if rotated and self.web_auth_token is not None:
            self.web_auth_token = rotated
        return response

    def post(self, database: Optional[str], subpath: str, body: Any, **options: Any) -> requests.Response:
        """POST a JSON body to /database/1/<container>/<environment>/<database>/<subpath>."""
        return self.request("POST", database, subpath, body, **options)

    def get(self, database: Optional[str], subpath: str, **options: Any) -> requests.Response:
        """GET /database/1/<container>/<environment>/<database>/<subpath> (no body)."""
        return self.request("GET", database, subpath, None, **options)

    def _json(self, response: requests.Response) -> Any:
        if not 200 <= response.status_code < 300:
            raise CloudKitError(response)
        return response.json()

    def modify(
        self,
        database: str,
        operations: Sequence[Mapping[str, Any]],
        *,
        zone_id: Optional[Mapping[str, Any]] = None,
        atomic: Optional[bool] = None,
        desired_keys: Optional[Sequence[str]] = None,
        numbers_as_strings: Optional[bool] = None,
    ) -> Any:
        """records/modify; returns the JSON answer or raises CloudKitError."""
        body: dict[str, Any] = {"operations": list(operations)}
        if zone_id is not None:
            body["zoneID"] = dict(zone_id)
        if atomic is not None:
            body["atomic"] = atomic
        if desired_keys is not None:
            body["desiredKeys"] = list(desired_keys)
        if numbers_as_strings is not None:
            body["numbersAsStrings"] = numbers_as_strings
        return self._json(self.post(database, "records/modify", body))

    def query(
        self,
        database: str,
        query: Mapping[str, Any],
        *,
        zone_id: Optional[Mapping[str, Any]] = None,
        results_limit: Optional[int] = None,
        continuation_marker: Optional[str] = None,
        desired_keys: Optional[Sequence[str]] = None,
        zone_wide: Optional[bool] = None,
    ) -> Any:
        """records/query; returns the JSON answer or raises CloudKitError."""
        body: dict[str, Any] = {"query": dict(query)}
        if zone_id is not None:
            body["zoneID"] = dict(zone_id)
        if results_limit is not None:
            body["resultsLimit"] = results_limit
        if continuation_marker is not None:
            body["continuationMarker"] = continuation_marker
        if desired_keys is not None:
            body["desiredKeys"] = list(desired_keys)
        if zone_wide is not None:
            body["zoneWide"] = zone_wide
        return self._json(self.post(database, "records/query", body))

    def lookup(
        self,
        database: str,
        record_names: Sequence[str],
        *,
        zone_id: Optional[Mapping[str, Any]] = None,
        desired_keys: Optional[Sequence[str]] = None,
    ) -> Any:
        """records/lookup; returns the JSON answer or raises CloudKitError."""
        body: dict[str, Any] = {"records": [{"recordName": name} for name in record_names]}
        if zone_id is not None:
            body["zoneID"] = dict(zone_id)
        if desired_keys is not None:
            body["desiredKeys"] = list(desired_keys)
        return self._json(self.post(database, "records/lookup", body))
