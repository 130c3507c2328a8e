"""A client we did not write drives the real `latchkey serve` over HTTP: soft-webauthn (PyPI) is the
authenticator, urllib the HTTP client. soft-webauthn asserts user presence only (never UV) and makes
ES256 credentials with `none` attestation, so the server runs with --user-verification preferred; a
second server with the default (required) refuses its responses for the missing UV.
"""
import pathlib
import sys
from base64 import urlsafe_b64decode, urlsafe_b64encode

import pytest
from soft_webauthn import SoftWebauthnDevice

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "Support"))
from latchkey_server import Server  # noqa: E402


def b64url(data: bytes) -> str:
    return urlsafe_b64encode(data).decode().rstrip("=")


def unb64url(text: str) -> bytes:
    return urlsafe_b64decode(text + "=" * (-len(text) % 4))


@pytest.fixture
def server(request):
    instance = Server(*getattr(request, "param", ()))
    yield instance
    instance.stop()


def as_json(made):
    """soft-webauthn's PublicKeyCredential (bytes) as WebAuthn L3 JSON (base64url)."""
    return {
        "id": b64url(made["rawId"]),
        "rawId": b64url(made["rawId"]),
        "type": "public-key",
        "response": {name: b64url(value) for name, value in made["response"].items()},
        "clientExtensionResults": {},
    }


def register(server, device, display_name):
    status, options = server.call("POST", "/api/registration/options", {"displayName": display_name})
    assert status == 200, options
    public_key = options["publicKey"]
    public_key["challenge"] = unb64url(public_key["challenge"])
    public_key["user"]["id"] = unb64url(public_key["user"]["id"])
    made = device.create(options, server.origin)
    return server.call("POST", "/api/registration/verify", {"credential": as_json(made)})


def login(server, device):
    status, options = server.call("POST", "/api/login/options")
    assert status == 200, options
    options["publicKey"]["challenge"] = unb64url(options["publicKey"]["challenge"])
    made = device.get(options, server.origin)
    return server.call("POST", "/api/login/verify", {"credential": as_json(made)})


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
