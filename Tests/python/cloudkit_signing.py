"""Server-to-server request signing for CloudKit Web Services, exactly as Apple documents it.

    message   = "<ISO 8601 date>:<base64(SHA-256(body))>:<subpath>"
    signature = base64(DER(ECDSA-P256-SHA256(message)))

sent in the headers X-Apple-CloudKit-Request-KeyID, -ISO8601Date and -SignatureV1.
Needs only `cryptography`, so fixtures can be made without an HTTP library.
"""

from __future__ import annotations

import base64
import datetime
import hashlib
from dataclasses import dataclass
from typing import Optional

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature

KEY_ID_HEADER = "X-Apple-CloudKit-Request-KeyID"
DATE_HEADER = "X-Apple-CloudKit-Request-ISO8601Date"
SIGNATURE_HEADER = "X-Apple-CloudKit-Request-SignatureV1"
WEB_AUTH_TOKEN_HEADER = "X-Apple-CloudKit-Web-Auth-Token"

#: base64(SHA-256(b"")), what most clients sign for a request without a body.
EMPTY_BODY_HASH = "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="


@dataclass(frozen=True)
class SigningVariant:
    """How to sign, covering the ways real clients differ."""

    #: Sign path and query string as sent (CloudKit JS, requests-cloudkit); False signs the bare path (MistKit).
    sign_query: bool = True
    #: For an empty body, sign "" instead of the hash of the empty body (MistKit).
    empty_body_as_empty_string: bool = False
    #: Send the raw 64-byte r||s signature instead of DER.
    raw_signature: bool = False
    #: Use this exact date header instead of the current time (stale- and future-date tests).
    date: Optional[str] = None


def format_date(moment: datetime.datetime) -> str:
    """ISO 8601 in UTC without fractional seconds, as clients send it: 2016-01-25T22:15:43Z."""
    return moment.astimezone(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def body_hash(body: bytes) -> str:
    """base64 (standard alphabet, padded) of the SHA-256 digest of the body bytes."""
    return base64.b64encode(hashlib.sha256(body).digest()).decode("ascii")


def signing_message(date: str, body: bytes, subpath: str, empty_body_as_empty_string: bool = False) -> str:
    """The signed text: "<date>:<base64(SHA-256(body))>:<subpath>"."""
    hashed = "" if (empty_body_as_empty_string and not body) else body_hash(body)
    return f"{date}:{hashed}:{subpath}"


def load_private_key(pem: str | bytes) -> ec.EllipticCurvePrivateKey:
    """Reads a P-256 private key from PEM ("EC PRIVATE KEY" or PKCS#8 "PRIVATE KEY")."""
    key = serialization.load_pem_private_key(pem.encode() if isinstance(pem, str) else pem, password=None)
    if not isinstance(key, ec.EllipticCurvePrivateKey) or not isinstance(key.curve, ec.SECP256R1):
        raise ValueError("server-to-server keys are EC P-256 (prime256v1)")
    return key


def public_key_pem(private_key: ec.EllipticCurvePrivateKey) -> str:
    """The SubjectPublicKeyInfo PEM of the key, as `openssl ec -pubout` prints it."""
    return (
        private_key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode("ascii")
    )


def sign_message(private_key: ec.EllipticCurvePrivateKey, message: str, raw: bool = False) -> str:
    """base64 of the ECDSA P-256 SHA-256 signature of the message: DER, or raw r||s."""
    der = private_key.sign(message.encode("utf-8"), ec.ECDSA(hashes.SHA256()))
    if not raw:
        return base64.b64encode(der).decode("ascii")
    r, s = decode_dss_signature(der)
    return base64.b64encode(r.to_bytes(32, "big") + s.to_bytes(32, "big")).decode("ascii")


def sign_request(
    private_key: ec.EllipticCurvePrivateKey,
    key_id: str,
    body: bytes,
    request_target: str,
    variant: SigningVariant = SigningVariant(),
    now: Optional[datetime.datetime] = None,
) -> dict[str, str]:
    """The three signing headers for a request whose request line carries `request_target`."""
    date = variant.date or format_date(now or datetime.datetime.now(datetime.timezone.utc))
    subpath = request_target if variant.sign_query else request_target.split("?", 1)[0]
    message = signing_message(date, body, subpath, variant.empty_body_as_empty_string)
    return {
        KEY_ID_HEADER: key_id,
        DATE_HEADER: date,
        SIGNATURE_HEADER: sign_message(private_key, message, raw=variant.raw_signature),
    }
