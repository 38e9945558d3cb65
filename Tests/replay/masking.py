"""Masks what differs between two runs of the same scenario: ids, tokens and times.

A value the rules find is replaced by a placeholder numbered by its first appearance in the
run, per kind: the third distinct record change tag is «tag:3» wherever it appears later,
in any response, header or request. Times are not numbered (two events in the same
millisecond would otherwise number differently from run to run): every time is «time».

A value can appear encoded: a web auth token percent-encoded in a URL, or HTML-escaped in a
page. Its placeholder then names the encoding («wat:1|url», «wat:1|html»), so that a replay
puts the value back exactly as the request carried it.

Every rule is listed in RULES with a one-line reason; README.md explains the scheme.
"""

from __future__ import annotations

import html
import re
import time
from dataclasses import dataclass
from typing import Callable, Optional
from urllib.parse import quote, unquote

#: A placeholder in masked text: «kind:number» or «kind:number|encoding», or an unnumbered «kind».
PLACEHOLDER = re.compile(r"«([a-z]+)(?::(\d+))?(?:\|(url|html))?»")

#: What a value may not contain for a rule to take it: a placeholder already put there.
_NOT_MASKED = "(?!«)"


@dataclass(frozen=True)
class Rule:
    """Values matching `pattern` (its group `v`, or the whole match) are of `kind`."""

    kind: str
    pattern: re.Pattern[str]
    why: str
    #: Unnumbered: every match becomes «kind» (times, durations: not reused in requests).
    numbered: bool = True
    #: Takes the value as matched and gives the value itself (e.g. percent-decoded) and its encoding.
    decode: Optional[Callable[[str], tuple[str, Optional[str]]]] = None
    #: A further check on the value (e.g. a number is a time near now).
    accept: Optional[Callable[[str], bool]] = None
    #: Kinds of named groups of the match (other than `v`) that are values of their own, found
    #: later on their own: a management token's id.
    parts: tuple[str, ...] = ()
    #: Requests of the scenario may carry made-up constants of this shape ("f" * 64, a token of
    #: zeros): such a value (see _is_random) is left as it is. Other rules mask every match,
    #: however few distinct characters a short server value happens to have.
    constants: bool = False


def _url_decoded(raw: str) -> tuple[str, Optional[str]]:
    decoded = unquote(raw)
    return (decoded, "url") if decoded != raw else (raw, None)


def _html_decoded(raw: str) -> tuple[str, Optional[str]]:
    decoded = html.unescape(raw)
    return (decoded, "html") if decoded != raw else (raw, None)


def _near_now_ms(text: str) -> bool:
    """An epoch time in milliseconds within a year of now: a time the server stamped."""
    return abs(int(text) - time.time() * 1000) < 366 * 86_400_000


def _near_now_s(text: str) -> bool:
    return abs(int(text) - time.time()) < 366 * 86_400


def _near_now_us(text: str) -> bool:
    return abs(int(text) - time.time() * 1_000_000) < 366 * 86_400_000_000


def _json_string(*keys: str) -> re.Pattern[str]:
    """The string value of any of `keys` in JSON: "key":"value" (the value without escapes)."""
    return re.compile(r'"(?:%s)":\s*"%s(?P<v>[^"\\]+)"' % ("|".join(keys), _NOT_MASKED))


def _json_number(*keys: str) -> re.Pattern[str]:
    return re.compile(r'"(?:%s)":\s*(?P<v>-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?)' % "|".join(keys))


_B = r"(?<![0-9A-Za-z_])"  # no word character before
_E = r"(?![0-9A-Za-z])"  # no word character after

#: The rules, applied in this order to every response (and, to find known values only, to
#: every request). The first rule that takes a value gives it its kind.

#: The cells a request log CSV row has after its request id (its place in the log, reason,
#: credential, user agent, record types, zones and outcomes), to the end of the row.
_CSV_CELLS_AFTER_REQUEST_ID = r'(?:,"(?:[^"\r\n]|"")*")*\r?$'

RULES: list[Rule] = [
    # --- Credentials and handed-out secrets: random by design.
    Rule("mt", re.compile(_B + r"cumulus_mt_(?P<id>[0-9a-f]{16})_[0-9a-f]{64}" + _E),
         "a management token is random; its id (audit entries, listings) is masked with it", parts=("mtid",), constants=True),
    Rule("wat", re.compile(r"(?:ckWebAuthToken|ckSession)=(?P<v>[A-Za-z0-9%+/=_.-]{40,})"),
         "a web auth token in a URL or form is random; it is percent-encoded there", decode=_url_decoded, constants=True),
    Rule("wat", re.compile(r"(?im)^x-apple-cloudkit-(?:web-auth-token|session): (?P<v>\S+)$"),
         "a response hands back a web auth token; whether it is a new one depends on the time since the last (reused for 1 s)",
         numbered=False),
    Rule("wat", re.compile(_B + r"\d+__\d+__[A-Za-z0-9+/]{40,}=*"),
         "a web auth token (format__length__base64) is random: in the sign-in page, JSON, a CLI line", constants=True),
    Rule("csrf", re.compile(r'name="csrfToken" value="(?P<v>[0-9a-f]{64})"'),
         "the CSRF token of a form is random"),
    Rule("nonce", re.compile(r"'nonce-(?P<v>[A-Za-z0-9+/=]+)'|nonce=\"(?P<w>[A-Za-z0-9+/=]+)\""),
         "a page's script nonce (in its Content-Security-Policy and script tag) is random"),
    Rule("cookie", re.compile(r"(?P<n>cumulus_[a-z_]+)=(?P<v>[^;\s\"]{16,})"),
         "a cookie's value (session, CSRF) is random"),
    Rule("apns", _json_string("apnsToken"), "a push token is random"),
    Rule("apns", re.compile(r"[?&]tok=(?P<v>[A-Za-z0-9%+/=_.-]{16,})"),
         "a push token inside the web courier URL is random", decode=_url_decoded),
    Rule("ticket", re.compile(r"/assets/1/(?:upload|download)/(?P<v>[A-Za-z0-9_-]{16,})"),
         "an asset upload or download ticket is random", constants=True),
    Rule("receipt", _json_string("receipt", "wrappingKey", "referenceChecksum"),
         "an asset receipt names a stored blob by a random id"),
    Rule("prefix", re.compile(r"(?<![0-9A-Za-z+/=_-])(?P<v>[0-9A-Za-z+/=_-]{8})(?=…)"),
         "the first 8 characters of a token, shown with an ellipsis (audit targets, push token listings)"),
    Rule("apitoken", _json_string("token", "apiToken", "revoked"),
         "an API token is random; found by its key, so that the corpus reads «apitoken:N»"),
    # --- Ids the server makes up.
    Rule("rid", re.compile(r"(?im)^x-(?:apple-request-uuid|request-id): (?P<v>\S+)$"),
         "a request id is a random per-loop prefix and a counter"),
    Rule("rid", _json_string("uuid", "requestID", "requestId"),
         "a request id in an error body or the request log"),
    Rule("tag", _json_string("recordChangeTag", "zoneChangeTag", "changeTag", "etag"),
         "a change tag mixes a counter with a key drawn at random when the process starts"),
    Rule("sync", _json_string("syncToken", "serverChangeToken", "moreComingToken"),
         "a sync token is sealed with the store's random key"),
    Rule("marker", _json_string("continuationMarker"),
         "a continuation marker is sealed with the store's random key"),
    Rule("pushid", _json_string("id"), "a push token's id (16 random hex digits) and other string ids"),
    Rule("share", _json_string("shortGUID", "shortTokenGuid"), "a share's short GUID is random"),
    Rule("share", re.compile(r"/share/(?P<v>[A-Za-z0-9_-]{8,})"), "a share URL carries its short GUID"),
    Rule("uuid", re.compile(_B + r"[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}" + _E),
         "a UUID (record names the server generates, ids) is random", constants=True),
    Rule("user", re.compile(_B + r"_[0-9a-f]{32}" + _E),
         "a user record name is _ and 32 random hex digits", constants=True),
    Rule("hex", re.compile(_B + r"(?=[0-9]*[a-f])[0-9a-f]{64}" + _E),
         "64 hex digits: API tokens, key ids of random keys, CSRF tokens (a long decimal number is not one)", constants=True),
    Rule("hex", re.compile(_B + r"(?=[0-9]*[a-f])[0-9a-f]{32}" + _E), "32 hex digits: random ids", constants=True),
    Rule("peer", re.compile(r"127\.0\.0\.1:\d+"), "a client's address carries its ephemeral port", numbered=False),
    # --- Times: never reused, so unnumbered.
    Rule("time", re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?"),
         "an ISO 8601 time is when the run happened", numbered=False),
    Rule("time", re.compile(r"(?im)^(?:expires|last-modified): (?P<v>.+)$"),
         "an HTTP date is when the run happened", numbered=False),
    Rule("time", re.compile(_B + r"1\d{15}" + _E), "an epoch time in microseconds", numbered=False, accept=_near_now_us),
    Rule("time", re.compile(_B + r"1\d{12}" + _E), "an epoch time in milliseconds", numbered=False, accept=_near_now_ms),
    Rule("time", re.compile(_B + r"1\d{9}" + _E), "an epoch time in seconds", numbered=False, accept=_near_now_s),
    Rule("size", _json_number("bytesOut"),
         "a logged response's size varies with the lengths of the ids it held (request ids are not fixed-length)", numbered=False),
    Rule("duration", re.compile(r'(?m)"(?P<v>\d+)","\d+","\d+","[0-9a-f]+-[0-9a-f]+"' + _CSV_CELLS_AFTER_REQUEST_ID),
         "a request log CSV row's duration (duration, bytes in, bytes out, request id, then the call's details)", numbered=False),
    Rule("size", re.compile(r'(?m)"(?P<v>\d+)","[0-9a-f]+-[0-9a-f]+"' + _CSV_CELLS_AFTER_REQUEST_ID),
         "a request log CSV row's response size", numbered=False),
    Rule("filesize", _json_number("fileBytes"),
         "an environment file's size follows the storage layout (its tables and pages), not an answer; "
         "a refactor may add a table (the audit outbox did). 0 (PostgreSQL) stays literal",
         numbered=False, accept=lambda text: text != "0"),
    Rule("duration", _json_number("durationMicroseconds", "durationMs", "duration", "elapsed", "elapsedMs", "uptimeSeconds"),
         "how long a request took, or the server has run, varies with the machine", numbered=False),
]


def _is_random(value: str) -> bool:
    """False for a constant the scenario made up ("f" * 64, a token of zeros): few distinct
    characters, or one repeated 16 times in a row, which random hex or base64 never shows."""
    return len(set(value)) >= 8 and re.search(r"(.)\1{15}", value) is None


class Masker:
    """Masks the values of one run, numbering each by its first appearance."""

    def __init__(self, base_url: str):
        #: The server's address: its port differs between runs.
        self.base_url = base_url
        #: A value → its placeholder's name ("tag:3").
        self.names: dict[str, str] = {}
        #: A placeholder's name → its value.
        self.values: dict[str, str] = {}
        self._counts: dict[str, int] = {}

    # MARK: - Masking

    def mask(self, text: str, learn: bool = True) -> str:
        """`text` with every value the rules find replaced by its placeholder. `learn`: new
        values get new placeholders (responses); else only values seen before are masked
        (requests, which only carry back what responses handed out)."""
        text = text.replace(self.base_url, "«base»")
        for rule in RULES:
            text = self._apply(rule, text, learn)
        return self._mask_known(text)

    def _apply(self, rule: Rule, text: str, learn: bool) -> str:
        if not rule.numbered and not learn:
            return text  # a request's times are the client's own, and sent as they are
        pieces: list[str] = []
        position = 0
        for match in rule.pattern.finditer(text):
            group = next((name for name in ("v", "w") if match.groupdict().get(name) is not None), 0)
            start, end = match.span(group)
            raw = match.group(group)
            if "«" in raw or (rule.accept is not None and not rule.accept(raw)):
                continue
            if rule.constants and not _is_random(raw):
                continue  # a constant the scenario chose (a fake token of zeros), sent as it is
            if learn:
                for kind, part in zip(rule.parts, (match.group(name) for name in rule.pattern.groupindex if name not in ("v", "w"))):
                    if part not in self.names:
                        self._name(kind, part)
            if not rule.numbered:
                placeholder = f"«{rule.kind}»"
            else:
                value, encoding = rule.decode(raw) if rule.decode else (raw, None)
                name = self.names.get(value)
                if name is None:
                    if not learn:
                        continue
                    name = self._name(rule.kind, value)
                placeholder = f"«{name}|{encoding}»" if encoding else f"«{name}»"
            pieces.append(text[position:start])
            pieces.append(placeholder)
            position = end
        pieces.append(text[position:])
        return "".join(pieces)

    def _name(self, kind: str, value: str) -> str:
        self._counts[kind] = self._counts.get(kind, 0) + 1
        name = f"{kind}:{self._counts[kind]}"
        self.names[value] = name
        self.values[name] = value
        return name

    def _mask_known(self, text: str) -> str:
        """Values seen before, wherever else they appear: in a reason, a URL, a CLI line."""
        for value, name in sorted(self.names.items(), key=lambda item: -len(item[0])):
            if len(value) < 8:
                continue
            if value in text:
                text = text.replace(value, f"«{name}»")
            encoded = quote(value, safe="")
            if encoded != value and encoded in text:
                text = text.replace(encoded, f"«{name}|url»")
            escaped = html.escape(value)
            if escaped != value and escaped in text:
                text = text.replace(escaped, f"«{name}|html»")
        return text

    def unknown_values(self, text: str) -> list[str]:
        """Values in `text` the numbered rules would mask but no earlier response handed out:
        a request carrying one could not be replayed (checked while recording)."""
        found = []
        for rule in RULES:
            if not rule.numbered:
                continue
            for match in rule.pattern.finditer(text):
                group = next((name for name in ("v", "w") if match.groupdict().get(name) is not None), 0)
                raw = match.group(group)
                if "«" in raw or (rule.accept is not None and not rule.accept(raw)) or (rule.constants and not _is_random(raw)):
                    continue
                value = rule.decode(raw)[0] if rule.decode else raw
                if value not in self.names:
                    found.append(f"{value} ({rule.kind})")
        return found

    # MARK: - Unmasking

    def unmask(self, text: str) -> str:
        """`text` with every placeholder replaced by this run's value (encoded as it names)."""

        def value(match: re.Match[str]) -> str:
            kind, number, encoding = match.groups()
            if kind == "base":
                return self.base_url
            if number is None:
                raise KeyError(f"«{kind}» stands for no one value and cannot be sent")
            name = f"{kind}:{number}"
            if name not in self.values:
                raise KeyError(f"«{name}» was not handed out by any earlier response of this run")
            found = self.values[name]
            if encoding == "url":
                return quote(found, safe="")
            if encoding == "html":
                return html.escape(found)
            return found

        return PLACEHOLDER.sub(value, text)
