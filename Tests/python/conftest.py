"""Fixtures for the end-to-end tests: a real `cumulus serve` on 127.0.0.1, set up with the CLI
as an operator would (a container and its schema, an API token, a server-to-server key, a user),
and clients that talk to it as third parties do.

Every response a client of these fixtures receives is checked against Public/openapi.json.
Set CUMULUS_BIN to a built `cumulus` to skip `swift build --product cumulus`.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Iterator

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from cloudkit_client import public_key_pem
from cumulus_server import PACKAGE_ROOT, CumulusServer, build_cumulus
from cumulus_deployment import CONTAINER, SCHEMA, USER_NAME, USER_PASSWORD, Deployment
from openapi_validation import OpenAPIDocument


@pytest.fixture(scope="session")
def cumulus_binary() -> Path:
    return build_cumulus()


@pytest.fixture(scope="session")
def openapi_document() -> OpenAPIDocument:
    return OpenAPIDocument.load(PACKAGE_ROOT / "Public" / "openapi.json")


@pytest.fixture(scope="session")
def deployment(
    cumulus_binary: Path, openapi_document: OpenAPIDocument, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Deployment]:
    workspace = tmp_path_factory.mktemp("cumulus")
    server = CumulusServer(cumulus_binary, workspace / "data", demo=False)
    server.start()
    try:
        api_token = server.create_container(CONTAINER, SCHEMA, workspace / "schema.ckdb")

        private_key = ec.generate_private_key(ec.SECP256R1())
        public_file = workspace / "eckey.pub.pem"
        public_file.write_text(public_key_pem(private_key))
        key_id = server.cli("keys", "add", "--container", CONTAINER, "--public-key", str(public_file))
        listed = [line.split("\t") for line in server.cli("keys", "list", "--container", CONTAINER).splitlines()]
        key_user = next(fields[3].removeprefix("acts as ") for fields in listed if fields[0] == key_id)
        private_pem = private_key.private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
        ).decode()

        user_record_name = server.cli(
            "users", "add", "--container", CONTAINER, "--email", "alice@example.com", "--first-name", "Alice",
            "--last-name", "Liddell", USER_NAME, stdin=USER_PASSWORD + "\n",
        )
        web_auth_token = server.cli("users", "token", "--container", CONTAINER, USER_NAME, stdin=USER_PASSWORD + "\n")
        deployment = Deployment(
            server=server, container=CONTAINER, api_token=api_token, key_id=key_id, key_user_record_name=key_user,
            private_key_pem=private_pem,
            user_name=USER_NAME, password=USER_PASSWORD, user_record_name=user_record_name,
            web_auth_token=web_auth_token, openapi=openapi_document,
        )
        yield deployment
        for session in deployment.sessions:
            session.close()
    finally:
        server.stop()


@pytest.fixture
def batch() -> str:
    """A value unique to one test, to tag the records it makes and find them again."""
    return uuid.uuid4().hex
