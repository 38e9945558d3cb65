#!/usr/bin/env python3
"""Signs server-to-server requests with Python's `cryptography` for cross-implementation tests.

Prints one JSON object: a fresh P-256 public key (PEM), the instant to verify at, and cases,
each with the headers, body and request target a server would receive and whether a correct
verifier must accept it. The Swift test suite runs this and checks its verifier agrees.

    python3 Tests/python/sign_fixture.py > fixture.json
"""

from __future__ import annotations

import base64
import json
import sys
from typing import Any

from cryptography.hazmat.primitives.asymmetric import ec

from cloudkit_signing import SigningVariant, public_key_pem, sign_request, signing_message

#: The instant every case is signed at (the date of Apple's documentation example).
SIGNED_AT = "2016-01-25T22:15:43Z"
KEY_ID = "a" * 64
PATH = "/database/1/iCloud.com.example.MyApp/development/public/records/query"
QUERY = "?ckjsBuildVersion=2310ProjectDev27&ckjsVersion=2.6.4"
BODY = b'{"query":{"recordType":"Articles"}}'


def case(
    name: str,
    key: ec.EllipticCurvePrivateKey,
    *,
    accept: bool,
    body: bytes = BODY,
    target: str = PATH + QUERY,
    variant: SigningVariant = SigningVariant(date=SIGNED_AT),
    sent_body: bytes | None = None,
    sent_target: str | None = None,
    sent_date: str | None = None,
) -> dict[str, Any]:
    """Signs (body, target) with `variant`, then describes what is sent, which may differ."""
    headers = sign_request(key, KEY_ID, body, target, variant)
    subpath = target if variant.sign_query else target.split("?", 1)[0]
    return {
        "name": name,
        "accept": accept,
        "message": signing_message(headers["X-Apple-CloudKit-Request-ISO8601Date"], body, subpath,
                                   variant.empty_body_as_empty_string),
        "keyID": headers["X-Apple-CloudKit-Request-KeyID"],
        "dateHeader": sent_date or headers["X-Apple-CloudKit-Request-ISO8601Date"],
        "signatureHeader": headers["X-Apple-CloudKit-Request-SignatureV1"],
        "bodyBase64": base64.b64encode(body if sent_body is None else sent_body).decode("ascii"),
        "requestTarget": target if sent_target is None else sent_target,
    }


def fixture() -> dict[str, Any]:
    key = ec.generate_private_key(ec.SECP256R1())
    other = ec.generate_private_key(ec.SECP256R1())
    fractional = "2016-01-25T22:15:43.512Z"
    cases = [
        case("documentation vector, DER", key, accept=True, target=PATH),
        case("path and query signed", key, accept=True),
        case("bare path signed, query sent", key, accept=True, variant=SigningVariant(date=SIGNED_AT, sign_query=False)),
        case("raw r||s signature", key, accept=True, variant=SigningVariant(date=SIGNED_AT, raw_signature=True)),
        case("raw signature, bare path", key, accept=True,
             variant=SigningVariant(date=SIGNED_AT, raw_signature=True, sign_query=False)),
        case("empty body, hash of empty body", key, accept=True, body=b""),
        case("empty body, empty string for the hash", key, accept=True, body=b"",
             variant=SigningVariant(date=SIGNED_AT, empty_body_as_empty_string=True)),
        case("empty body, empty string, bare path", key, accept=True, body=b"",
             variant=SigningVariant(date=SIGNED_AT, empty_body_as_empty_string=True, sign_query=False)),
        case("fractional seconds", key, accept=True, variant=SigningVariant(date=fractional)),
        case("non-ASCII body", key, accept=True, body='{"title":"café ☕"}'.encode("utf-8")),
        case("tampered body", key, accept=False, sent_body=b'{"query":{"recordType":"Secrets"}}'),
        case("tampered path", key, accept=False, sent_target=PATH.replace("public", "private") + QUERY),
        case("tampered query", key, accept=False, sent_target=PATH + "?ckjsVersion=evil"),
        case("bare path signed, another path sent", key, accept=False, target=PATH,
             sent_target=PATH.replace("records/query", "records/modify") + QUERY),
        case("tampered date", key, accept=False, sent_date="2016-01-25T22:15:44Z"),
        case("signed by another key", other, accept=False),
        case("empty string instead of the hash of a non-empty body", key, accept=False,
             variant=SigningVariant(date=SIGNED_AT, empty_body_as_empty_string=True), body=b"", sent_body=BODY),
    ]
    return {"publicKeyPEM": public_key_pem(key), "verifyAt": SIGNED_AT, "cases": cases}


if __name__ == "__main__":
    json.dump(fixture(), sys.stdout, indent=1)
    sys.stdout.write("\n")
