"""Approval from another signed-in device (issue 30, item 3) against a real `latchkey serve`, with two
software authenticators: the new device asks and shows a code; the signed-in device finds it by the code,
sees the browser and address, and approves with a fresh, user-verified passkey assertion; the new device's
poll gets a restricted session once, adds its own passkey with it, and signs in. The other sessions stay;
a denial, a wrong secret, another account's passkey and a replayed assertion are refused."""
import hashlib
import json
import os
import pathlib
import subprocess
import sys

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from soft_webauthn import SoftWebauthnDevice

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "Support"))
from latchkey_server import Server  # noqa: E402
from soft_webauthn_client import as_json, login, register, unb64url  # noqa: E402
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from test_recovery import add_passkey, person  # noqa: E402

BINARY = os.environ.get("LATCHKEY_BIN", str(pathlib.Path(__file__).resolve().parents[2] / ".build" / "debug" / "latchkey"))
IPHONE = "Mozilla/5.0 (iPhone; CPU iPhone OS 18_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.0 Mobile/15E148 Safari/604.1"


def new_request(server):
    status, body, _ = server.raw("POST", "/api/device-requests", body=b"", headers={"User-Agent": IPHONE})
    assert status == 201, body
    return body


def poll(server, request, secret=None):
    return server.call("POST", f"/api/device-requests/{request['id']}/poll", {"secret": secret or request["secret"]})


def verified_get(device, options, origin):
    """soft-webauthn's assertion with the UV flag set (its authenticator never verifies the user), signed
    again by the same key: an authenticator that did verify the user would send exactly this."""
    assertion = device.get(options, origin)
    response = assertion["response"]
    data = bytearray(response["authenticatorData"])
    data[32] |= 0x04
    response["authenticatorData"] = bytes(data)
    response["signature"] = device.private_key.sign(bytes(data) + hashlib.sha256(response["clientDataJSON"]).digest(),
                                                    ec.ECDSA(hashes.SHA256()))
    return assertion


def confirmation(server, token, device):
    """A fresh assertion from `device` for the confirm ceremony of `token`'s account."""
    status, options = server.call("POST", "/api/account/confirm/options", None, token=token)
    assert status == 200, options
    public_key = options["publicKey"]
    assert public_key["userVerification"] == "required" and public_key["timeout"] == 60000 and public_key["allowCredentials"]
    public_key["challenge"] = unb64url(public_key["challenge"])
    return as_json(verified_get(device, options, server.origin))


def test_a_signed_in_device_lets_a_new_one_in():
    with Server("--rate-limit", "0", "--user-verification", "preferred") as server:
        account, token, device = person(server, "Ada")
        request = new_request(server)
        assert len(request["code"]) == 9 and request["code"][4] == "-"
        assert poll(server, request) == (200, {"status": "pending"})
        assert poll(server, request, secret="x" * 43)[0] == 404

        status, found = server.call("POST", "/api/account/device-requests/find", {"code": request["code"].lower()}, token=token)
        assert status == 200 and found["id"] == request["id"], found
        assert found["device"] == "Safari on iPhone" and found["clientAddress"] == "127.0.0.1"

        assertion = confirmation(server, token, device)
        status, body = server.call("POST", f"/api/account/device-requests/{request['id']}/approve", {"credential": assertion}, token=token)
        assert status == 204, body
        # The same assertion again: its challenge is used.
        status, body = server.call("POST", f"/api/account/device-requests/{request['id']}/approve", {"credential": assertion}, token=token)
        assert status in (401, 404), body

        status, answer = poll(server, request)
        assert status == 200 and answer["status"] == "approved" and answer["token"].startswith("rcv_"), answer
        assert answer["account"] == {"id": account, "displayName": "Ada"}
        assert poll(server, request) == (200, {"status": "used"})
        restricted = answer["token"]
        status, body = server.call("GET", "/api/account", token=restricted)
        assert status == 403 and body["error"]["code"] == "recovery_session_restricted"

        new_device = SoftWebauthnDevice()
        status, added = add_passkey(server, restricted, new_device)
        assert status == 201, added
        assert server.call("GET", "/api/account", token=token)[0] == 200  # the approving device stays signed in
        assert server.call("POST", "/api/registration/options", {}, token=restricted)[0] == 401  # the restricted session ended
        status, signed_in = login(server, new_device)
        assert status == 200 and signed_in["account"]["id"] == account

        trail = json.loads(subprocess.run([BINARY, "admin", "audit", "--account", account, "--json", "--database", server.database],
                                          capture_output=True, text=True, timeout=60).stdout)["events"]
        kinds = [e["event"] for e in trail]
        assert "device_request.approved" in kinds and "device_request.completed" in kinds, kinds
        approved = next(e for e in trail if e["event"] == "device_request.approved")
        assert approved["detail"]["device"] == "Safari on iPhone"


def test_denials_and_foreign_passkeys_are_refused():
    with Server("--rate-limit", "0", "--user-verification", "preferred") as server:
        _, token, device = person(server, "Ada")
        _, other_token, other_device = person(server, "Mallory")
        request = new_request(server)
        # Mallory's passkey cannot confirm for Ada's session.
        status, options = server.call("POST", "/api/account/confirm/options", None, token=token)
        options["publicKey"]["challenge"] = unb64url(options["publicKey"]["challenge"])
        options["publicKey"]["allowCredentials"] = []
        foreign = as_json(verified_get(other_device, options, server.origin))
        status, body = server.call("POST", f"/api/account/device-requests/{request['id']}/approve", {"credential": foreign}, token=token)
        assert status == 404 and body["error"]["code"] == "unknown_credential", body
        # Mallory's own confirmation cannot be used on Ada's session (the challenge is sealed to Mallory).
        mallory = confirmation(server, other_token, other_device)
        status, body = server.call("POST", f"/api/account/device-requests/{request['id']}/approve", {"credential": mallory}, token=token)
        assert status == 401 and body["error"]["code"] == "unknown_challenge", body

        # Without user verification the confirmation is refused.
        status, options = server.call("POST", "/api/account/confirm/options", None, token=token)
        options["publicKey"]["challenge"] = unb64url(options["publicKey"]["challenge"])
        unverified = as_json(device.get(options, server.origin))
        status, body = server.call("POST", f"/api/account/device-requests/{request['id']}/approve", {"credential": unverified}, token=token)
        assert status == 401 and body["error"]["code"] == "user_not_verified", body

        status, _ = server.call("POST", f"/api/account/device-requests/{request['id']}/deny", None, token=token)
        assert status == 204
        assert poll(server, request) == (200, {"status": "denied"})
        assertion = confirmation(server, token, device)
        status, body = server.call("POST", f"/api/account/device-requests/{request['id']}/approve", {"credential": assertion}, token=token)
        assert status == 404 and body["error"]["code"] == "unknown_device_request", body
        assert server.call("POST", "/api/account/device-requests/find", {"code": request["code"]}, token=token)[0] == 404
        assert server.call("POST", "/api/account/device-requests/find", {"code": "!!"}, token=token)[0] == 404
        assert server.call("POST", "/api/device-requests/nope/poll", {"secret": "x"})[0] == 404
