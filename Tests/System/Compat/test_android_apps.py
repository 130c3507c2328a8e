"""Android apps against the real `latchkey serve --android-app PACKAGE:FINGERPRINT` (issue 35).

Android's Credential Manager fetches the site's `/.well-known/assetlinks.json` and lets an app use the
site's passkeys when a statement lists the app's package and signing-certificate fingerprint with the
`get_login_creds` relation; the app's ceremonies then carry the origin `android:apk-key-hash:` + the
base64url SHA-256 of that certificate. Checked here: the association file for one app and for two (its
shape against a JSON schema written from Google's Digital Asset Links documentation), registration and
login whose client data names a configured app (accepted, and the passkey says which app made it) or
another app (refused as any wrong origin is), and a malformed `--android-app` refused at start-up.
"""
import base64
import os
import pathlib
import subprocess
import urllib.request

import jsonschema
import pytest
from soft_webauthn import SoftWebauthnDevice

from latchkey_server import Server
from soft_webauthn_client import as_json, unb64url

APP = ("com.example.notes", bytes(range(32)))
OTHER_APP = ("com.example.other", bytes(range(100, 132)))
STRANGER = bytes(range(200, 232))

# Google's Digital Asset Links statement list (developers.google.com/digital-asset-links/v1/create-statement,
# and the passkey guide's "get_login_creds" relation for Credential Manager): an array of statements, each a
# relation list and an android_app target with the package and upper-case, colon-separated SHA-256s.
ASSET_LINKS_SCHEMA = {
    "type": "array",
    "minItems": 1,
    "items": {
        "type": "object",
        "required": ["relation", "target"],
        "additionalProperties": False,
        "properties": {
            "relation": {
                "type": "array",
                "items": {"type": "string", "pattern": "^delegate_permission/common\\.[a-z_]+$"},
                "contains": {"const": "delegate_permission/common.get_login_creds"},
            },
            "target": {
                "type": "object",
                "required": ["namespace", "package_name", "sha256_cert_fingerprints"],
                "additionalProperties": False,
                "properties": {
                    "namespace": {"const": "android_app"},
                    "package_name": {"type": "string", "pattern": "^[A-Za-z][A-Za-z0-9_]*(\\.[A-Za-z][A-Za-z0-9_]*)+$"},
                    "sha256_cert_fingerprints": {
                        "type": "array", "minItems": 1,
                        "items": {"type": "string", "pattern": "^([0-9A-F]{2}:){31}[0-9A-F]{2}$"},
                    },
                },
            },
        },
    },
}


def fingerprint(raw):
    return ":".join(f"{byte:02X}" for byte in raw)


def app_flag(package, raw):
    return f"{package}:{fingerprint(raw)}"


def app_origin(raw):
    return "android:apk-key-hash:" + base64.urlsafe_b64encode(raw).decode().rstrip("=")


def get(server, path):
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{server.port}{path}", timeout=10) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


def register_from(server, origin, name="Ada", device=None):
    """A registration whose client data names `origin` (as the app's ceremony would): (status, body)."""
    device = device or SoftWebauthnDevice()
    status, options = server.call("POST", "/api/registration/options", {"displayName": name})
    assert status == 200, options
    options["publicKey"]["challenge"] = unb64url(options["publicKey"]["challenge"])
    options["publicKey"]["user"]["id"] = unb64url(options["publicKey"]["user"]["id"])
    credential = as_json(device.create(options, origin))
    return server.call("POST", "/api/registration/verify", {"credential": credential})


def login_from(server, device, origin):
    status, options = server.call("POST", "/api/login/options")
    assert status == 200, options
    options["publicKey"]["challenge"] = unb64url(options["publicKey"]["challenge"])
    return server.call("POST", "/api/login/verify", {"credential": as_json(device.get(options, origin))})


@pytest.fixture(scope="module")
def server():
    with Server("--rate-limit", "0", "--user-verification", "preferred", "--android-app", app_flag(*APP)) as instance:
        yield instance


def test_the_association_file_for_one_app(server):
    status, headers, body = get(server, "/.well-known/assetlinks.json")
    assert status == 200, body
    assert headers["Content-Type"].startswith("application/json")
    assert headers["Cache-Control"] == "public, max-age=3600"
    statements = __import__("json").loads(body)
    jsonschema.validate(statements, ASSET_LINKS_SCHEMA)
    assert statements == [{
        "relation": ["delegate_permission/common.handle_all_urls", "delegate_permission/common.get_login_creds"],
        "target": {"namespace": "android_app", "package_name": APP[0], "sha256_cert_fingerprints": [fingerprint(APP[1])]},
    }]


def test_the_association_file_for_two_apps_and_none():
    second_key = bytes(range(50, 82))
    flags = ("--android-app", app_flag(*APP), "--android-app", app_flag(*OTHER_APP), "--android-app", app_flag(APP[0], second_key))
    with Server(*flags) as two:
        status, _, body = get(two, "/.well-known/assetlinks.json")
        assert status == 200, body
        statements = __import__("json").loads(body)
        jsonschema.validate(statements, ASSET_LINKS_SCHEMA)
        by_package = {s["target"]["package_name"]: s["target"]["sha256_cert_fingerprints"] for s in statements}
        assert by_package == {APP[0]: [fingerprint(APP[1]), fingerprint(second_key)], OTHER_APP[0]: [fingerprint(OTHER_APP[1])]}
    with Server() as none:
        status, _, body = get(none, "/.well-known/assetlinks.json")
        assert status == 404 and b"not_enabled" in body, body


def test_a_configured_app_registers_and_logs_in_and_its_passkey_says_so(server):
    device = SoftWebauthnDevice()
    status, body = register_from(server, app_origin(APP[1]), device=device)
    assert status == 201, body
    token = body["token"]
    status, passkeys = server.call("GET", "/api/account/passkeys", token=token)
    passkeys = passkeys["passkeys"] if isinstance(passkeys, dict) else passkeys
    assert passkeys[0]["createdOrigin"] == app_origin(APP[1])
    assert passkeys[0]["androidApp"] == APP[0]
    status, body = login_from(server, device, app_origin(APP[1]))
    assert status == 200, body
    # The same passkey from the web page: a web origin works too, and a web-made passkey names no app.
    status, body = register_from(server, server.origin)
    assert status == 201, body
    status, listed = server.call("GET", "/api/account/passkeys", token=body["token"])
    listed = listed["passkeys"] if isinstance(listed, dict) else listed
    assert listed[0]["createdOrigin"] == server.origin and listed[0]["androidApp"] is None


def test_an_unconfigured_app_is_refused_as_any_wrong_origin(server):
    status, body = register_from(server, app_origin(STRANGER))
    assert status == 401 and body["error"]["code"] == "origin_not_allowed", body
    status, wrong_web = register_from(server, "https://evil.example")
    assert wrong_web["error"]["code"] == body["error"]["code"]
    # A login from a stranger app with a passkey the configured app made.
    device = SoftWebauthnDevice()
    assert register_from(server, app_origin(APP[1]), device=device)[0] == 201
    status, body = login_from(server, device, app_origin(STRANGER))
    assert status == 401 and body["error"]["code"] == "origin_not_allowed", body
    # Nothing else that starts like an Android origin gets in either.
    for origin in ("android:apk-key-hash:", "android:apk-key-hash:" + app_origin(APP[1])[-43:] + "=", "android:" + APP[0]):
        status, body = register_from(server, origin)
        assert status == 401 and body["error"]["code"] == "origin_not_allowed", (origin, body)


@pytest.mark.parametrize("flag, fragment", [
    ("com.example.notes", "PACKAGE:SHA256_FINGERPRINT"),
    ("com.example.notes:AB:CD", "32 hex bytes"),
    ("com.example.notes:" + fingerprint(APP[1]).replace("0", "G", 1), "32 hex bytes"),
    ("notes:" + fingerprint(APP[1]), "package name"),
    ("com.1example.notes:" + fingerprint(APP[1]), "package name"),
])
def test_a_malformed_android_app_is_refused_at_start_up(flag, fragment, tmp_path):
    binary = os.environ.get("LATCHKEY_BIN", str(pathlib.Path(__file__).resolve().parents[3] / ".build" / "debug" / "latchkey"))
    result = subprocess.run([binary, "serve", "--port", "0", "--origin", "http://localhost", "--database", f"sqlite:{tmp_path}/db.sqlite",
                             "--android-app", flag], capture_output=True, text=True, timeout=60)
    assert result.returncode == 2, result
    assert fragment in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
