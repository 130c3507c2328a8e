"""A client we did not write drives the real `latchkey serve` over HTTP: soft-webauthn (PyPI) is the
authenticator, urllib the HTTP client. soft-webauthn asserts user presence only (never UV) and makes
ES256 credentials with `none` attestation, so the server runs with --user-verification preferred; a
second server with the default (required) refuses its responses for the missing UV.
"""
import json
import os
import pathlib
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from base64 import urlsafe_b64decode, urlsafe_b64encode

import pytest
from soft_webauthn import SoftWebauthnDevice

ROOT = pathlib.Path(__file__).resolve().parents[3]


def b64url(data: bytes) -> str:
    return urlsafe_b64encode(data).decode().rstrip("=")


def unb64url(text: str) -> bytes:
    return urlsafe_b64decode(text + "=" * (-len(text) % 4))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    def __init__(self, *flags):
        self.port = free_port()
        self.origin = f"http://localhost:{self.port}"
        self.directory = tempfile.TemporaryDirectory()
        binary = os.environ.get("LATCHKEY_BIN", str(ROOT / ".build" / "debug" / "latchkey"))
        self.process = subprocess.Popen(
            [binary, "serve", "--port", str(self.port), "--database", f"sqlite:{self.directory.name}/db.sqlite", *flags],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.time() + 30
        while time.time() < deadline:
            try:
                self.call("GET", "/healthz")
                return
            except OSError:
                time.sleep(0.1)
        self.stop()
        raise RuntimeError("latchkey serve did not start")

    def call(self, method, path, body=None, token=None):
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}", data=data, method=method)
        if data is not None:
            request.add_header("Content-Type", "application/json")
        if token:
            request.add_header("Authorization", f"Bearer {token}")
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                text = response.read()
                return response.status, json.loads(text) if text else None
        except urllib.error.HTTPError as error:
            text = error.read()
            return error.code, json.loads(text) if text else None

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=30)
        self.directory.cleanup()


@pytest.fixture
def server(request):
    instance = Server(*getattr(request, "param", ()))
    yield instance
    instance.stop()


def register(server, device, display_name):
    status, options = server.call("POST", "/api/registration/options", {"displayName": display_name})
    assert status == 200, options
    public_key = options["publicKey"]
    public_key["challenge"] = unb64url(public_key["challenge"])
    public_key["user"]["id"] = unb64url(public_key["user"]["id"])
    made = device.create(options, server.origin)
    credential = {
        "id": b64url(made["rawId"]),
        "rawId": b64url(made["rawId"]),
        "type": "public-key",
        "response": {
            "clientDataJSON": b64url(made["response"]["clientDataJSON"]),
            "attestationObject": b64url(made["response"]["attestationObject"]),
        },
        "clientExtensionResults": {},
    }
    return server.call("POST", "/api/registration/verify", {"credential": credential})


def login(server, device):
    status, options = server.call("POST", "/api/login/options")
    assert status == 200, options
    options["publicKey"]["challenge"] = unb64url(options["publicKey"]["challenge"])
    made = device.get(options, server.origin)
    credential = {
        "id": b64url(made["rawId"]),
        "rawId": b64url(made["rawId"]),
        "type": "public-key",
        "response": {
            "clientDataJSON": b64url(made["response"]["clientDataJSON"]),
            "authenticatorData": b64url(made["response"]["authenticatorData"]),
            "signature": b64url(made["response"]["signature"]),
            "userHandle": b64url(made["response"]["userHandle"]),
        },
        "clientExtensionResults": {},
    }
    return server.call("POST", "/api/login/verify", {"credential": credential})


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
