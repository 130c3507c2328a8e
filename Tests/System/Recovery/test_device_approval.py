"""Approval from another signed-in device (issue 30, item 3) against a real `latchkey serve`, with two
software authenticators: the new device asks and shows a code; the signed-in device finds it by the code,
sees the browser and address, and approves with a fresh, user-verified passkey assertion; the new device's
poll gets a restricted session once, adds its own passkey with it, and signs in. The other sessions stay;
a denial, a wrong secret, another account's passkey and a replayed assertion are refused."""
import hashlib
import json
import os
import pathlib
import sqlite3
import subprocess

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from soft_webauthn import SoftWebauthnDevice

from latchkey_server import Server
from soft_webauthn_client import as_json, login, register, unb64url
from test_recovery import add_passkey, person

BINARY = os.environ.get("LATCHKEY_BIN", str(pathlib.Path(__file__).resolve().parents[3] / ".build" / "debug" / "latchkey"))
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


def request_from(server, address, body=b""):
    """A device request as if from `address` (the server trusts X-Forwarded-For): (status, body)."""
    status, answer, _ = server.raw("POST", "/api/device-requests", body=body, headers={"X-Forwarded-For": address})
    return status, answer


def test_a_few_addresses_cannot_fill_device_requests_for_everyone():
    """SECURITY-FINDINGS-4.md, S4-3: 17 addresses (and 17 IPv6 /64s) asking 600 times each hold 10 live
    requests each, not the table's 10 000; another address still gets its code, and the requester's older
    requests make room for its newer ones."""
    with Server("--trust-forwarded-for", "--rate-limit", "0") as server:
        first = None
        for i in range(17):
            for n in range(60):
                status, body = request_from(server, f"198.51.100.{i}")
                assert status == 201, body
                first = first or body
            for n in range(20):
                status, body = request_from(server, f"2001:db8:{i}::{n + 1}")  # one /64, many addresses
                assert status == 201, body
        live = sqlite3.connect(server.database.removeprefix("sqlite:")).execute(
            "SELECT requester, count(*) FROM device_requests GROUP BY requester").fetchall()
        assert len(live) == 34 and all(count == 10 for _, count in live), live
        assert ("2001:db8:0:0::/64", 10) in live and ("198.51.100.0", 10) in live, live
        status, body = request_from(server, "203.0.113.99")
        assert status == 201, body
        # The first request of 198.51.100.0 made room long ago: its device finds nothing.
        assert poll(server, first)[0] == 404


def test_a_request_naming_a_username_is_that_accounts_alone():
    """S4-12: a request for `ada` cannot be found, approved or denied by another account; the new device
    is told whose account let it in (the username, which the approver cannot choose)."""
    with Server("--rate-limit", "0", "--user-verification", "preferred") as server:
        ada, ada_token, ada_device = person(server, "Ada")
        _, mallory_token, mallory_device = person(server, "Ada")  # the same display name, another account
        for token, name in ((ada_token, "ada"), (mallory_token, "mallory")):
            status, body = server.call("PATCH", "/api/account", {"username": name}, token=token)
            assert status == 200, body

        status, refused = server.call("POST", "/api/device-requests", {"username": "not a name!"})
        assert (status, refused["error"]["code"]) == (422, "username_invalid"), refused
        status, request = server.call("POST", "/api/device-requests", {"username": "Ada"})
        assert status == 201, request
        status, body = server.call("POST", "/api/account/device-requests/find", {"code": request["code"]}, token=mallory_token)
        assert (status, body["error"]["code"]) == (404, "unknown_device_request"), body
        assertion = confirmation(server, mallory_token, mallory_device)
        status, body = server.call("POST", f"/api/account/device-requests/{request['id']}/approve", {"credential": assertion}, token=mallory_token)
        assert status == 404, body
        status, body = server.call("POST", f"/api/account/device-requests/{request['id']}/deny", None, token=mallory_token)
        assert status == 404, body
        assert poll(server, request) == (200, {"status": "pending"})

        status, found = server.call("POST", "/api/account/device-requests/find", {"code": request["code"]}, token=ada_token)
        assert status == 200 and found["forUsername"] == "ada", found
        assertion = confirmation(server, ada_token, ada_device)
        status, body = server.call("POST", f"/api/account/device-requests/{request['id']}/approve", {"credential": assertion}, token=ada_token)
        assert status == 204, body
        status, answer = poll(server, request)
        assert answer["account"] == {"id": ada, "displayName": "Ada", "username": "ada"}, answer

        # Without a username anyone may find it (as before), and the new device is shown who approved.
        status, open_request = server.call("POST", "/api/device-requests")
        assert status == 201
        status, found = server.call("POST", "/api/account/device-requests/find", {"code": open_request["code"]}, token=mallory_token)
        assert status == 200 and found["forUsername"] is None, found
        assertion = confirmation(server, mallory_token, mallory_device)
        assert server.call("POST", f"/api/account/device-requests/{open_request['id']}/approve", {"credential": assertion},
                           token=mallory_token)[0] == 204
        status, answer = poll(server, open_request)
        assert answer["account"]["username"] == "mallory" and answer["account"]["id"] != ada, answer
