"""The operator's journey against a real `latchkey serve` (issue 29), on SQLite and on PostgreSQL: admin
keys made with `latchkey admin keys create`, the account found by name through the admin API, its
passkeys and sessions listed, its sessions revoked (the person's token stops working at once), the
account disabled (its login is refused with 403 account_disabled) and enabled, then deleted; every admin
route refused without a key, with a revoked key and with a read key where it needs write; the audit
trail of it all — real ceremonies, a refused login naming its WebAuthn step — read back through the
CLI, the admin API and the person's own history."""
import json

from soft_webauthn import SoftWebauthnDevice

from backends import any_server  # noqa: F401 (the fixture: SQLite and PostgreSQL)
from latchkey_server import admin
from soft_webauthn_client import b64url, login, login_response, register, unb64url



def key(database, scope):
    created = json.loads(admin(database, "keys", "create", "--scope", scope, "--name", f"{scope} key", "--json").stdout)
    assert created["secret"].startswith("lk_admin_" + created["key"]["id"] + "_")
    return created["secret"], created["key"]["id"]


def call(server, method, path, secret=None, body=None):
    status, answer, headers = server.raw(method, path, body=json.dumps(body).encode() if body is not None else b"",
                                         token=secret)
    return status, answer, headers


def refused_login(server, device):
    """A login whose signature is broken: 401, and an audit row naming the step."""
    status, credential = login_response(server, device)
    assert status == 200
    signature = bytearray(unb64url(credential["response"]["signature"]))
    signature[-1] ^= 0x01
    credential["response"]["signature"] = b64url(bytes(signature))
    return server.call("POST", "/api/login/verify", {"credential": credential})


def test_the_operator_journey(any_server):
    server = any_server
    database = server.database
    device = SoftWebauthnDevice()
    status, signed_up = register(server, device, "Ada Lovelace")
    assert status == 201, signed_up
    account = signed_up["account"]["id"]
    status, signed_in = login(server, device)
    assert status == 200, signed_in
    token = signed_in["token"]
    status, refusal = refused_login(server, device)
    assert status == 401 and refusal["error"]["code"] == "signature_invalid", refusal

    read, read_id = key(database, "read")
    write, _ = key(database, "write")
    recovery, _ = key(database, "recovery")
    revoked, revoked_id = key(database, "read")
    admin(database, "keys", "revoke", revoked_id)
    listed = json.loads(admin(database, "keys", "list", "--json").stdout)
    assert {k["id"]: k["revokedAt"] is not None for k in listed}[revoked_id] is True
    assert all("secret" not in k and "secretHash" not in k for k in listed)

    # Every admin route: no key and a revoked key are 401; a read or recovery key where write is needed, 403.
    routes = [("GET", "/api/admin/accounts"), ("GET", f"/api/admin/accounts/{account}"), ("GET", "/api/admin/audit"),
              ("GET", "/api/admin/keys"), ("POST", f"/api/admin/accounts/{account}/disable"),
              ("POST", f"/api/admin/accounts/{account}/enable"), ("DELETE", f"/api/admin/accounts/{account}/sessions"),
              ("DELETE", f"/api/admin/accounts/{account}"), ("DELETE", "/api/admin/passkeys/AAAA"),
              ("POST", "/api/admin/keys"), ("DELETE", f"/api/admin/keys/{read_id}")]
    for method, path in routes:
        for secret in (None, revoked, "lk_admin_akaaaaaaaaaa_" + "A" * 43, "Bearer-less junk"):
            status, body, headers = call(server, method, path, secret)
            assert status == 401 and body["error"]["code"] == "admin_key_invalid", (method, path, secret, status, body)
            assert headers.get("WWW-Authenticate", "").startswith("Bearer")
        if method != "GET":
            for secret in (read, recovery):
                status, body, _ = call(server, method, path, secret, body={"scope": "read", "name": "x"} if method == "POST" else None)
                assert status == 403 and body["error"]["code"] == "insufficient_scope", (method, path, status, body)

    # Find the account by name (any case), and by passkey name; see its passkey and sessions.
    status, page, _ = call(server, "GET", "/api/admin/accounts?q=lovelace", read)
    assert status == 200 and [a["id"] for a in page["accounts"]] == [account], page
    assert page["accounts"][0]["passkeys"] == 1 and page["accounts"][0]["sessions"] == 2
    status, page, _ = call(server, "GET", "/api/admin/accounts?q=nobody-has-this", read)
    assert status == 200 and page["accounts"] == []
    # Text is found through trigram indexes: 1 or 2 characters are refused with the rule, 3 are taken.
    for short in ("lo", "%C3%A9", "a"):
        status, body, _ = call(server, "GET", f"/api/admin/accounts?q={short}", read)
        assert status == 400 and body["error"]["code"] == "invalid_parameter", (short, status, body)
        assert "at least 3 characters" in body["error"]["message"], body
    status, page, _ = call(server, "GET", "/api/admin/accounts?q=LOV", read)
    assert status == 200 and [a["id"] for a in page["accounts"]] == [account], page
    # As a browser's form or URLSearchParams encodes the query: `+` is a space, `%2B` a plus.
    status, page, _ = call(server, "GET", "/api/admin/accounts?q=ada+lovelace", read)
    assert status == 200 and [a["id"] for a in page["accounts"]] == [account], page
    status, page, _ = call(server, "GET", "/api/admin/accounts?q=ada%2Blovelace", read)
    assert status == 200 and page["accounts"] == [], page
    refused = admin(database, "accounts", "search", "lo", expect=1)
    assert "at least 3 characters" in refused.stdout + refused.stderr, refused
    status, detail, _ = call(server, "GET", f"/api/admin/accounts/{account}", read)
    assert status == 200 and len(detail["passkeys"]) == 1 and len(detail["sessions"]) == 2, detail
    shown = admin(database, "accounts", "search", "LOVELACE").stdout
    assert account in shown and "Ada Lovelace" in shown

    # Revoke the sessions: the person's token stops working at once.
    assert server.call("GET", "/api/account", token=token)[0] == 200
    status, ended, _ = call(server, "DELETE", f"/api/admin/accounts/{account}/sessions", write)
    assert status == 200 and ended == {"ended": 2}, ended
    assert server.call("GET", "/api/account", token=token)[0] == 401

    # Disable: the login is refused, and says why; enable: it works again.
    admin(database, "accounts", "disable", account)
    status, body = login(server, device)
    assert status == 403 and body["error"]["code"] == "account_disabled", body
    status, detail, _ = call(server, "POST", f"/api/admin/accounts/{account}/enable", write)
    assert status == 200 and detail["account"]["disabledAt"] is None
    status, signed_in = login(server, device)
    assert status == 200, signed_in

    # The trail, through the CLI, the API and the person's own history.
    trail = json.loads(admin(database, "audit", "--account", account, "--json", "--limit", "500").stdout)["events"]
    kinds = [e["event"] for e in trail]
    for expected in ["account.created", "passkey.added", "login.succeeded", "login.refused", "sessions.revoked",
                     "account.disabled", "account.enabled"]:
        assert expected in kinds, (expected, kinds)
    refusals = [e for e in trail if e["event"] == "login.refused"]
    assert [e["detail"]["code"] for e in refusals] == ["account_disabled", "signature_invalid"], refusals
    refused = refusals[1]
    assert refused["detail"]["step"].startswith("§7.2 step"), refused
    assert refused["actor"] == "anonymous" and refused["passkeyId"] == b64url(device.credential_id)
    disabled = next(e for e in trail if e["event"] == "account.disabled")
    assert disabled["actor"] == "cli"
    enabled = next(e for e in trail if e["event"] == "account.enabled")
    assert enabled["actor"].startswith("admin:ak") and enabled["clientAddress"] == "127.0.0.1"
    assert [e["id"] for e in trail] == sorted((e["id"] for e in trail), key=int, reverse=True)
    status, api_trail, _ = call(server, "GET", f"/api/admin/audit?account={account}&event=login.refused", read)
    assert status == 200 and [e["id"] for e in api_trail["events"]] == [e["id"] for e in refusals]
    status, mine = server.call("GET", "/api/account/events", token=signed_in["token"])
    assert status == 200
    assert {"login.succeeded", "login.refused", "account.disabled"} <= {e["event"] for e in mine["events"]}
    assert all(e["clientAddress"] is None for e in mine["events"] if e["byOperator"])
    assert "lk_admin" not in json.dumps(trail) and signed_in["token"] not in json.dumps(trail)

    # Delete: gone, and said so.
    status, _, _ = call(server, "DELETE", f"/api/admin/accounts/{account}", write)
    assert status == 204
    status, body, _ = call(server, "GET", f"/api/admin/accounts/{account}", read)
    assert status == 404 and body["error"]["code"] == "unknown_account"
    gone = admin(database, "accounts", "show", account, expect=1)
    assert "unknown_account" in gone.stderr
    deleted = json.loads(admin(database, "audit", "--event", "account.deleted", "--json").stdout)["events"]
    assert [e["accountId"] for e in deleted] == [account]
