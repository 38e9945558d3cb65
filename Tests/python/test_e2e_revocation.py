"""Credentials revoked with the command line stop working at once in the running server."""

from __future__ import annotations

from cryptography.hazmat.primitives.asymmetric import ec

from cloudkit_client import public_key_pem
from cumulus_deployment import Deployment
from test_e2e_tokens import expect_authentication_required

LOOKUP = {"records": [{"recordName": "nothing-here"}]}


def test_a_revoked_api_token_is_refused_on_the_next_request(deployment: Deployment) -> None:
    token = deployment.server.cli("tokens", "create", "--container", deployment.container, "--name", "to revoke")
    client = deployment.world(api_token=token)
    assert client.post("public", "records/lookup", LOOKUP).status_code == 200
    listed = deployment.server.cli("tokens", "list", "--container", deployment.container)
    assert any(line.startswith(token + "\t") and "to revoke" in line for line in listed.splitlines())

    deployment.server.cli("tokens", "revoke", token)
    refused = client.post("public", "records/lookup", LOOKUP)
    assert refused.status_code == 401, refused.text
    assert refused.json()["serverErrorCode"] == "AUTHENTICATION_FAILED"
    assert token not in deployment.server.cli("tokens", "list", "--container", deployment.container)


def test_a_revoked_server_key_is_refused_on_the_next_request(deployment: Deployment, tmp_path) -> None:
    private_key = ec.generate_private_key(ec.SECP256R1())
    public_file = tmp_path / "revoked.pub.pem"
    public_file.write_text(public_key_pem(private_key))
    key_id = deployment.server.cli("keys", "add", "--container", deployment.container, "--public-key", str(public_file))
    from cryptography.hazmat.primitives import serialization

    pem = private_key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    signed = deployment.signed(private_key_pem=pem, key_id=key_id)
    assert signed.post("public", "records/lookup", LOOKUP).status_code == 200

    deployment.server.cli("keys", "revoke", key_id)
    refused = signed.post("public", "records/lookup", LOOKUP)
    assert refused.status_code == 401, refused.text
    assert refused.json()["serverErrorCode"] == "AUTHENTICATION_FAILED"


def test_users_signed_out_re_passworded_or_removed_need_to_sign_in_again(deployment: Deployment) -> None:
    name, password = "revocable", "a revocable password"
    record_name = deployment.server.cli("users", "add", "--container", deployment.container, name, stdin=password + "\n")
    token = deployment.server.cli("users", "token", "--container", deployment.container, name, stdin=password + "\n")
    user = deployment.user(web_auth_token=token)
    assert user.post("private", "zones/list", {}).status_code == 200

    # sign-out ends every session at once: the next request gets 421 and the sign-in URL.
    deployment.server.cli("users", "sign-out", "--container", deployment.container, name)
    expect_authentication_required(user.post("private", "zones/list", {}), deployment)

    # A new password ends sessions opened before it; the old password no longer signs in.
    token = deployment.server.cli("users", "token", "--container", deployment.container, name, stdin=password + "\n")
    assert deployment.user(web_auth_token=token).post("private", "zones/list", {}).status_code == 200
    deployment.server.cli("users", "password", "--container", deployment.container, name, stdin="a brand new password\n")
    expect_authentication_required(deployment.user(web_auth_token=token).post("private", "zones/list", {}), deployment)

    # Removing the user ends their sessions and takes them off the list.
    token = deployment.server.cli("users", "token", "--container", deployment.container, name, stdin="a brand new password\n")
    deployment.server.cli("users", "remove", "--container", deployment.container, record_name)
    expect_authentication_required(deployment.user(web_auth_token=token).post("private", "zones/list", {}), deployment)
    assert record_name not in deployment.server.cli("users", "list", "--container", deployment.container)
