"""Unit tests of the signing a CloudKit client does; no server needed."""

from __future__ import annotations

import base64
import datetime
import re

import pytest
import requests
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

import sign_fixture
from cloudkit_client import (
    DATE_HEADER,
    EMPTY_BODY_HASH,
    KEY_ID_HEADER,
    SIGNATURE_HEADER,
    CloudKitClient,
    CloudKitError,
    SigningVariant,
    body_hash,
    format_date,
    public_key_pem,
    sign_message,
    sign_request,
    signing_message,
)

# The worked example of the reference, section 7.2.
VECTOR_BODY = b'{"query":{"recordType":"Articles"}}'
VECTOR_DATE = "2016-01-25T22:15:43Z"
VECTOR_PATH = "/database/1/iCloud.com.example.MyApp/development/public/records/query"
VECTOR_MESSAGE = (
    "2016-01-25T22:15:43Z:myo0gwOwdHvOIytyaMEjp577DdcjNefQtaApbQMzs3o="
    ":/database/1/iCloud.com.example.MyApp/development/public/records/query"
)


@pytest.fixture(scope="module")
def key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


def verify(key: ec.EllipticCurvePrivateKey, signature_b64: str, message: str) -> None:
    """Raises InvalidSignature unless the DER or raw signature verifies."""
    signature = base64.b64decode(signature_b64)
    if len(signature) == 64:
        signature = encode_dss_signature(int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big"))
    key.public_key().verify(signature, message.encode("utf-8"), ec.ECDSA(hashes.SHA256()))


def test_body_hash_matches_the_reference() -> None:
    assert body_hash(VECTOR_BODY) == "myo0gwOwdHvOIytyaMEjp577DdcjNefQtaApbQMzs3o="
    assert body_hash(b"") == EMPTY_BODY_HASH == "47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="


def test_message_matches_the_reference_vector() -> None:
    assert signing_message(VECTOR_DATE, VECTOR_BODY, VECTOR_PATH) == VECTOR_MESSAGE


def test_empty_body_variants() -> None:
    assert signing_message(VECTOR_DATE, b"", "/p") == f"{VECTOR_DATE}:{EMPTY_BODY_HASH}:/p"
    assert signing_message(VECTOR_DATE, b"", "/p", empty_body_as_empty_string=True) == f"{VECTOR_DATE}::/p"
    # The empty-string form applies only when there is no body.
    assert signing_message(VECTOR_DATE, b"x", "/p", empty_body_as_empty_string=True) == (
        f"{VECTOR_DATE}:{body_hash(b'x')}:/p"
    )


def test_date_is_utc_whole_seconds() -> None:
    moment = datetime.datetime(2016, 1, 25, 23, 15, 43, 987000, tzinfo=datetime.timezone(datetime.timedelta(hours=1)))
    assert format_date(moment) == "2016-01-25T22:15:43Z"


def test_der_signature_verifies(key: ec.EllipticCurvePrivateKey) -> None:
    signature = sign_message(key, VECTOR_MESSAGE)
    assert base64.b64decode(signature)[0] == 0x30  # a DER SEQUENCE
    verify(key, signature, VECTOR_MESSAGE)
    with pytest.raises(InvalidSignature):
        verify(key, signature, VECTOR_MESSAGE + "x")


def test_raw_signature_verifies(key: ec.EllipticCurvePrivateKey) -> None:
    signature = sign_message(key, VECTOR_MESSAGE, raw=True)
    assert len(base64.b64decode(signature)) == 64
    verify(key, signature, VECTOR_MESSAGE)


def test_sign_request_headers(key: ec.EllipticCurvePrivateKey) -> None:
    target = VECTOR_PATH + "?ckjsVersion=2.6.4"
    headers = sign_request(key, "k" * 64, VECTOR_BODY, target, SigningVariant(date=VECTOR_DATE))
    assert headers[KEY_ID_HEADER] == "k" * 64
    assert headers[DATE_HEADER] == VECTOR_DATE
    verify(key, headers[SIGNATURE_HEADER], signing_message(VECTOR_DATE, VECTOR_BODY, target))

    bare = sign_request(key, "k", VECTOR_BODY, target, SigningVariant(date=VECTOR_DATE, sign_query=False))
    verify(key, bare[SIGNATURE_HEADER], VECTOR_MESSAGE)

    now = sign_request(key, "k", b"", VECTOR_PATH)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", now[DATE_HEADER])


def test_public_key_pem_is_spki(key: ec.EllipticCurvePrivateKey) -> None:
    pem = public_key_pem(key)
    assert pem.startswith("-----BEGIN PUBLIC KEY-----\n")
    assert pem.rstrip().endswith("-----END PUBLIC KEY-----")


class RecordingAdapter(requests.adapters.BaseAdapter):
    """Answers every request with a canned response and keeps what was sent."""

    def __init__(self, status: int = 200, body: bytes = b'{"records":[]}', headers: dict[str, str] | None = None):
        super().__init__()
        self.sent: list[requests.PreparedRequest] = []
        self.status, self.body, self.headers = status, body, headers or {}

    def send(self, request, **kwargs):  # noqa: ANN001 - the requests adapter signature
        self.sent.append(request)
        response = requests.Response()
        response.status_code = self.status
        response._content = self.body
        response.headers.update(self.headers)
        response.url = request.url
        response.request = request
        return response

    def close(self) -> None:
        pass


def client_with(adapter: RecordingAdapter, **options) -> CloudKitClient:
    session = requests.Session()
    session.mount("http://", adapter)
    return CloudKitClient("http://server.test", "iCloud.com.example.MyApp", "development", session=session, **options)


def test_client_signs_what_it_sends(key: ec.EllipticCurvePrivateKey) -> None:
    adapter = RecordingAdapter()
    client = client_with(adapter, key_id="k" * 64, private_key_pem=private_pem(key))
    client.query("public", {"recordType": "Articles"}, results_limit=10)
    sent = adapter.sent[0]
    assert sent.method == "POST"
    assert sent.path_url == VECTOR_PATH
    assert sent.body == b'{"query":{"recordType":"Articles"},"resultsLimit":10}'
    assert sent.headers["Content-Type"] == "text/plain"
    verify(key, sent.headers[SIGNATURE_HEADER], signing_message(sent.headers[DATE_HEADER], sent.body, VECTOR_PATH))


def test_client_signs_the_query_string_as_encoded(key: ec.EllipticCurvePrivateKey) -> None:
    adapter = RecordingAdapter()
    client = client_with(adapter, key_id="k", private_key_pem=private_pem(key))
    client.get("public", "zones/list", params={"ckjsVersion": "2.6.4", "odd": "a+b/c=d"})
    sent = adapter.sent[0]
    assert sent.path_url == "/database/1/iCloud.com.example.MyApp/development/public/zones/list?ckjsVersion=2.6.4&odd=a%2Bb%2Fc%3Dd"
    assert sent.body is None
    verify(key, sent.headers[SIGNATURE_HEADER], signing_message(sent.headers[DATE_HEADER], b"", sent.path_url))


def test_client_variants(key: ec.EllipticCurvePrivateKey) -> None:
    adapter = RecordingAdapter()
    client = client_with(adapter, key_id="k", private_key_pem=private_pem(key))
    variant = SigningVariant(sign_query=False, empty_body_as_empty_string=True, raw_signature=True, date="2001-01-01T00:00:00Z")
    client.get("public", "zones/list", params={"x": "1"}, variant=variant)
    sent = adapter.sent[0]
    assert sent.headers[DATE_HEADER] == "2001-01-01T00:00:00Z"
    assert len(base64.b64decode(sent.headers[SIGNATURE_HEADER])) == 64
    verify(key, sent.headers[SIGNATURE_HEADER],
           "2001-01-01T00:00:00Z::/database/1/iCloud.com.example.MyApp/development/public/zones/list")


def test_client_with_tokens_encodes_and_rotates_them() -> None:
    adapter = RecordingAdapter(headers={"X-Apple-CloudKit-Web-Auth-Token": "158__54__new"})
    client = client_with(adapter, api_token="a" * 64, web_auth_token="158__54__ab+c/d=")
    client.lookup("private", ["r1"])
    sent = adapter.sent[0]
    assert sent.path_url.endswith(f"/private/records/lookup?ckAPIToken={'a' * 64}&ckWebAuthToken=158__54__ab%2Bc%2Fd%3D")
    assert SIGNATURE_HEADER not in sent.headers
    assert client.web_auth_token == "158__54__new"


def test_client_raises_cloudkit_errors() -> None:
    adapter = RecordingAdapter(401, b'{"uuid":"u","serverErrorCode":"AUTHENTICATION_FAILED","reason":"bad signature"}')
    client = client_with(adapter, api_token="t")
    with pytest.raises(CloudKitError) as raised:
        client.modify("public", [])
    assert raised.value.status == 401
    assert raised.value.server_error_code == "AUTHENTICATION_FAILED"
    assert raised.value.reason == "bad signature"


def test_client_refuses_mixed_authentication(key: ec.EllipticCurvePrivateKey) -> None:
    with pytest.raises(ValueError):
        CloudKitClient("http://x", "c", "development", key_id="k", private_key_pem=private_pem(key), api_token="t")
    with pytest.raises(ValueError):
        CloudKitClient("http://x", "c", "development", key_id="k")


def test_fixture_cases_verify_as_labelled() -> None:
    fixture = sign_fixture.fixture()
    from cryptography.hazmat.primitives.serialization import load_pem_public_key

    public = load_pem_public_key(fixture["publicKeyPEM"].encode())
    for case in fixture["cases"]:
        if not case["accept"]:
            continue
        signature = base64.b64decode(case["signatureHeader"])
        if len(signature) == 64:
            signature = encode_dss_signature(int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:], "big"))
        public.verify(signature, case["message"].encode(), ec.ECDSA(hashes.SHA256()))
    assert {case["name"] for case in fixture["cases"] if not case["accept"]} >= {
        "tampered body", "tampered path", "tampered date", "signed by another key",
    }


def private_pem(key: ec.EllipticCurvePrivateKey) -> str:
    from cryptography.hazmat.primitives import serialization

    return key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
