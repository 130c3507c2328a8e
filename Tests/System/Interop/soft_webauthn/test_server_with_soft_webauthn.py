"""A client we did not write drives the real `latchkey serve` over HTTP: soft-webauthn (PyPI) is the
authenticator, urllib the HTTP client. soft-webauthn asserts user presence only (never UV) and makes
ES256 credentials with `none` attestation, so the server runs with --user-verification preferred; a
second server with the default (required) refuses its responses for the missing UV.
"""

import pytest
from soft_webauthn import SoftWebauthnDevice

from soft_webauthn_client import login, register


@pytest.mark.parametrize("server", [("--user-verification", "preferred")], indirect=True)
def test_register_login_read_update_delete(server):
    device = SoftWebauthnDevice()
    status, body = register(server, device, "Grace")
    assert status == 201, body
    token = body["token"]
    assert body["account"]["displayName"] == "Grace"

    status, account = server.call("GET", "/api/account", token=token)
    assert status == 200 and account["credo"] == ""
    status, account = server.call("PATCH", "/api/account", {"displayName": "Grace Hopper", "credo": "It's easier to ask forgiveness."}, token=token)
    assert status == 200 and account["displayName"] == "Grace Hopper"

    status, _ = server.call("POST", "/api/logout", token=token)
    assert status == 204
    status, body = server.call("GET", "/api/account", token=token)
    assert status == 401 and body["error"]["code"] == "not_authenticated"

    status, body = login(server, device)
    assert status == 200, body
    token = body["token"]
    assert body["account"]["credo"] == "It's easier to ask forgiveness."

    status, _ = server.call("DELETE", "/api/account", token=token)
    assert status == 204
    status, body = login(server, device)
    assert status == 404 and body["error"]["code"] == "unknown_credential"


def test_default_server_requires_user_verification(server):
    status, body = register(server, SoftWebauthnDevice(), "Grace")
    assert status == 401
    assert body["error"]["code"] == "user_not_verified"
