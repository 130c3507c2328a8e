"""Authenticator policy and migrated passkeys against a real `latchkey serve` (issue 32, items 1 and 5):
`--passkeys`, `--allow-aaguid`, `--deny-aaguid` and `--require-attestation` refuse with 403
authenticator_not_allowed and a sentence naming the rule; passkeys registered before a stricter policy keep
working and are listed by `latchkey admin passkeys list --violating-policy`; a synced passkey (BE=1) whose
counter drops to 0 is accepted and reset (audited), a device-bound one (BE=0) going back is refused — on
SQLite and PostgreSQL."""
import hashlib
import json
import os
import pathlib
import subprocess

import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from fido2 import cbor
from soft_webauthn import SoftWebauthnDevice

from latchkey_server import Server
from processes import PrivatePostgres
from soft_webauthn_client import as_json, b64url, unb64url

BINARY = os.environ.get("LATCHKEY_BIN", str(pathlib.Path(__file__).resolve().parents[3] / ".build" / "debug" / "latchkey"))
BE, BS = 0x08, 0x10
ZERO_AAGUID = "00000000-0000-0000-0000-000000000000"  # soft-webauthn's


def register(server, device, name, flags=0):
    """Registration with extra authenticator-data flags (BE, BS) set in soft-webauthn's `none` attestation."""
    status, options = server.call("POST", "/api/registration/options", {"displayName": name})
    assert status == 200, options
    options["publicKey"]["challenge"] = unb64url(options["publicKey"]["challenge"])
    options["publicKey"]["user"]["id"] = unb64url(options["publicKey"]["user"]["id"])
    # soft-webauthn makes only `none` attestation, as a browser may answer a request for `direct`.
    options["publicKey"]["attestation"] = "none"
    made = device.create(options, server.origin)
    attestation = cbor.decode(made["response"]["attestationObject"])
    data = bytearray(attestation["authData"])
    data[32] |= flags
    attestation["authData"] = bytes(data)
    made["response"]["attestationObject"] = cbor.encode(attestation)
    return server.call("POST", "/api/registration/verify", {"credential": as_json(made)})


def login(server, device, flags=0, count=None):
    """A login whose assertion carries `flags` and, when given, the counter `count`, signed by the device's key."""
    status, options = server.call("POST", "/api/login/options", None)
    options["publicKey"]["challenge"] = unb64url(options["publicKey"]["challenge"])
    made = device.get(options, server.origin)
    response = made["response"]
    data = bytearray(response["authenticatorData"])
    data[32] |= flags
    if count is not None:
        data[33:37] = count.to_bytes(4, "big")
    response["authenticatorData"] = bytes(data)
    response["signature"] = device.private_key.sign(bytes(data) + hashlib.sha256(response["clientDataJSON"]).digest(), ec.ECDSA(hashes.SHA256()))
    return server.call("POST", "/api/login/verify", {"credential": as_json(made)})


def serve_fails(*flags):
    return subprocess.run([BINARY, "serve", "--port", "0", "--origin", "http://localhost:8080", "--database", "sqlite::memory:", *flags],
                          capture_output=True, text=True, timeout=60)


def test_each_rule_refuses_in_words_and_the_settings_are_checked():
    base = ("--rate-limit", "0", "--user-verification", "preferred")
    with Server(*base, "--passkeys", "synced") as server:
        status, body = register(server, SoftWebauthnDevice(), "bound")
        assert status == 403 and body["error"]["code"] == "authenticator_not_allowed", body
        assert "sync across your devices" in body["error"]["message"]
        assert register(server, SoftWebauthnDevice(), "synced", flags=BE | BS)[0] == 201
    with Server(*base, "--passkeys", "device-bound") as server:
        status, body = register(server, SoftWebauthnDevice(), "synced", flags=BE)
        assert status == 403 and "bound to one device" in body["error"]["message"], body
    with Server(*base, "--deny-aaguid", ZERO_AAGUID) as server:
        status, body = register(server, SoftWebauthnDevice(), "denied")
        assert status == 403 and "not accepted by this service" in body["error"]["message"], body
    with Server(*base, "--allow-aaguid", "Google Password Manager") as server:
        status, body = register(server, SoftWebauthnDevice(), "not listed")
        assert status == 403 and "not one of the authenticators" in body["error"]["message"], body
    with Server(*base, "--require-attestation", "--attestation", "direct") as server:
        status, body = register(server, SoftWebauthnDevice(), "unattested")
        assert status == 403 and "attestation" in body["error"]["message"], body
    result = serve_fails("--require-attestation")
    assert result.returncode == 2 and "--attestation direct" in result.stderr, result.stderr
    result = serve_fails("--allow-aaguid", "No Such Provider")
    assert result.returncode == 2 and "No Such Provider" in result.stderr, result.stderr


def test_passkeys_from_before_a_stricter_policy_keep_working_and_are_listed(tmp_path):
    database = f"sqlite:{tmp_path}/db.sqlite"
    env = {"LATCHKEY_KEY_FILE": str(tmp_path / "latchkey.key")}
    device = SoftWebauthnDevice()
    with Server("--rate-limit", "0", "--user-verification", "preferred", database=database, env=env) as server:
        status, body = register(server, device, "Ada")
        assert status == 201
        account, token = body["account"]["id"], body["token"]
    with Server("--rate-limit", "0", "--user-verification", "preferred", "--passkeys", "synced", database=database, env=env) as server:
        assert login(server, device)[0] == 200
        # Adding a passkey the policy refuses is audited on the account.
        status, options = server.call("POST", "/api/registration/options", {}, token=token)
        assert status == 200, options
        options["publicKey"]["challenge"] = unb64url(options["publicKey"]["challenge"])
        options["publicKey"]["user"]["id"] = unb64url(options["publicKey"]["user"]["id"])
        status, body = server.call("POST", "/api/registration/verify",
                                   {"credential": as_json(SoftWebauthnDevice().create(options, server.origin))}, token=token)
        assert status == 403 and body["error"]["code"] == "authenticator_not_allowed"
    listed = subprocess.run([BINARY, "admin", "passkeys", "list", "--violating-policy", "--json", "--database", database],
                            capture_output=True, text=True, timeout=60, env={**os.environ, "LATCHKEY_PASSKEYS": "synced"})
    assert listed.returncode == 0, listed.stderr
    rows = json.loads(listed.stdout)
    assert [row["passkeyId"] for row in rows] == [b64url(device.credential_id)] and rows[0]["accountId"] == account
    assert "sync" in rows[0]["violations"][0]
    none = subprocess.run([BINARY, "admin", "passkeys", "list", "--violating-policy", "--json", "--database", database],
                          capture_output=True, text=True, timeout=60)
    assert json.loads(none.stdout) == []
    trail = json.loads(subprocess.run([BINARY, "admin", "audit", "--account", account, "--event", "passkey.refused", "--json",
                                       "--database", database], capture_output=True, text=True, timeout=60).stdout)["events"]
    assert len(trail) == 1 and "sync" in trail[0]["detail"]["rule"]


@pytest.fixture(params=["sqlite", "postgres"])
def server(request):
    flags = ("--rate-limit", "0", "--user-verification", "preferred")
    if request.param == "sqlite":
        with Server(*flags) as running:
            yield running
        return
    postgres = PrivatePostgres().up()
    try:
        with Server(*flags, database=postgres.url) as running:
            yield running
    finally:
        postgres.down()


def test_a_synced_passkey_moved_to_a_provider_that_does_not_count_is_reset_not_refused(server):
    synced = SoftWebauthnDevice()
    status, body = register(server, synced, "synced", flags=BE | BS)
    assert status == 201, body
    account = body["account"]["id"]
    assert login(server, synced, flags=BE | BS, count=5)[0] == 200
    status, body = login(server, synced, flags=BE | BS, count=0)
    assert status == 200, body
    assert login(server, synced, flags=BE | BS, count=0)[0] == 200  # it counts no more: 0 again is fine
    assert login(server, synced, flags=BE | BS, count=1)[0] == 200   # and counting again from there too

    bound = SoftWebauthnDevice()
    assert register(server, bound, "bound")[0] == 201
    assert login(server, bound, count=5)[0] == 200
    status, body = login(server, bound, count=0)
    assert status == 401 and body["error"]["code"] == "sign_count_regression", body
    status, body = login(server, bound, count=3)
    assert status == 401 and body["error"]["code"] == "sign_count_regression", body

    environment = {**os.environ, "LATCHKEY_DATABASE": server.database}
    trail = json.loads(subprocess.run([BINARY, "admin", "audit", "--account", account, "--event", "passkey.counter_reset", "--json"],
                                      capture_output=True, text=True, timeout=60, env=environment).stdout)["events"]
    assert len(trail) == 1 and trail[0]["detail"]["storedSignCount"] == 5, trail
    status, metrics, _ = server.raw("GET", "/metrics", body=b"")
