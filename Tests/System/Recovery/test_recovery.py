"""Recovery grants against a real `latchkey serve` (issue 30): an operator issues a grant; its code is
exchanged for a restricted session that can add one passkey and nothing else (tried on every route of
the served openapi.json); adding it uses the grant up and ends the account's other sessions; a second
use, an expired, a revoked and an over-guessed code are refused alike; of 20 concurrent exchanges of one
code exactly one succeeds; the code and the session token are nowhere in the database file in clear;
every step is in the audit trail."""
import json
import os
import pathlib
import re
import sqlite3
import subprocess
from concurrent.futures import ThreadPoolExecutor

from soft_webauthn import SoftWebauthnDevice

from latchkey_server import Server, admin
from soft_webauthn_client import add_passkey, login, person, refused_everywhere_but_registration, register  # noqa: F401 (add_passkey: for the other suites here)

BINARY = os.environ.get("LATCHKEY_BIN", str(pathlib.Path(__file__).resolve().parents[3] / ".build" / "debug" / "latchkey"))
REFUSAL = "This recovery code cannot be used: it may be mistyped, expired, already used or revoked. Ask for a new one."


def issue(server, account, ttl="1h"):
    return json.loads(admin(server, "recovery", "issue", account, "--ttl", ttl, "--origin", server.origin, "--json").stdout)


def exchange(server, code):
    return server.call("POST", "/api/recovery/exchange", {"code": code})


def test_the_operator_path_end_to_end():
    with Server("--rate-limit", "0", "--user-verification", "preferred") as server:
        account, old_token, old_device = person(server)
        issued = issue(server, account)
        code = issued["code"]
        assert re.fullmatch(r"[A-Z2-7]{5}(-[A-Z2-7]{5}){4}", code), code
        assert issued["link"] == f"{server.origin}/recover#{code}"
        assert issued["grant"]["state"] == "issued" and issued["grant"]["issuedBy"] == "cli"

        status, session = exchange(server, code.lower().replace("-", " "))  # case and separators are forgiven
        assert status == 201, session
        token = session["token"]
        assert token.startswith("rcv_") and session["account"]["id"] == account

        # The restricted session is refused on every route but the two of the add-passkey ceremony.
        assert refused_everywhere_but_registration(server, token) > 40

        # It adds one passkey; the grant is used up with it, and every session of the account ends.
        new_device = SoftWebauthnDevice()
        status, added = add_passkey(server, token, new_device)
        assert status == 201, added
        assert server.call("GET", "/api/account", token=old_token)[0] == 401
        status, _ = server.call("POST", "/api/registration/options", {}, token=token)
        assert status == 401
        status, signed_in = login(server, new_device)
        assert status == 200 and signed_in["account"]["id"] == account
        status, passkeys = server.call("GET", "/api/account/passkeys", token=signed_in["token"])
        assert status == 200 and len(passkeys) == 2

        # Used: refused, with the one message.
        status, body = exchange(server, code)
        assert status == 401 and body["error"] == {"code": "invalid_recovery_code", "message": REFUSAL}
        grants = json.loads(admin(server, "recovery", "list", "--account", account, "--json").stdout)
        assert [g["state"] for g in grants] == ["used"]

        trail = json.loads(admin(server, "audit", "--account", account, "--json").stdout)["events"]
        kinds = [e["event"] for e in trail]
        for expected in ["recovery.issued", "recovery.exchanged", "recovery.completed", "recovery.refused", "passkey.added"]:
            assert expected in kinds, (expected, kinds)
        assert next(e for e in trail if e["event"] == "recovery.completed")["actor"] == "recovery"

        # Neither the code nor the restricted token is in the database in clear.
        db_path = server.database.split(":", 1)[1]
        subprocess.run(["sqlite3", db_path, "PRAGMA wal_checkpoint(TRUNCATE)"], capture_output=True)
        raw = b"".join(pathlib.Path(db_path + suffix).read_bytes() for suffix in ("", "-wal") if pathlib.Path(db_path + suffix).exists())
        secret = code.replace("-", "")[5:]
        for needle in (code, code.replace("-", ""), secret, token, token[4:]):
            assert needle.encode() not in raw, needle


def test_revoked_expired_and_over_guessed_codes_are_refused_alike():
    with Server("--rate-limit", "0", "--user-verification", "preferred") as server:
        account, _, _ = person(server)
        first = issue(server, account)
        second = issue(server, account)  # issuing revokes the first
        assert exchange(server, first["code"]) == (401, {"error": {"code": "invalid_recovery_code", "message": REFUSAL}})
        admin(server, "recovery", "revoke", second["grant"]["id"])
        assert exchange(server, second["code"])[0] == 401

        expired = issue(server, account, ttl="5m")
        db_path = server.database.split(":", 1)[1]
        with sqlite3.connect(db_path) as db:
            db.execute("UPDATE recovery_grants SET expires_at = 0 WHERE id = ?", (expired["grant"]["id"],))
        assert exchange(server, expired["code"])[0] == 401

        guessed = issue(server, account)
        prefix = guessed["code"][:5]
        for attempt in range(5):
            wrong = prefix + "-AAAAA-AAAAA-AAAAA-AAAA" + ("B" if attempt % 2 else "C")
            assert exchange(server, wrong)[0] == 401
        assert exchange(server, guessed["code"])[0] == 401  # five wrong tries revoked the grant
        grants = {g["id"]: g for g in json.loads(admin(server, "recovery", "list", "--account", account, "--json").stdout)}
        assert grants[guessed["grant"]["id"]]["state"] == "revoked" and grants[guessed["grant"]["id"]]["failedAttempts"] == 5
        assert grants[expired["grant"]["id"]]["state"] == "expired"

        for junk in ["", "x", "A" * 64, "A" * 65, "!!!!!-@@@@@"]:
            status, body = exchange(server, junk)
            assert status == 401 and body["error"]["message"] == REFUSAL, (junk, status, body)
        admin(server, "recovery", "issue", account, "--ttl", "25h", expect=2)  # refused as usage, before any conversion (review 4, S4-2)
        admin(server, "recovery", "issue", account, "--ttl", "1m", expect=2)


def test_twenty_concurrent_exchanges_of_one_code_give_one_session():
    with Server("--rate-limit", "0", "--user-verification", "preferred") as server:
        account, _, _ = person(server)
        code = issue(server, account)["code"]
        with ThreadPoolExecutor(20) as pool:
            statuses = list(pool.map(lambda _: exchange(server, code)[0], range(20)))
        assert sorted(statuses) == [201] + [401] * 19, statuses


def test_the_admin_api_issues_with_a_recovery_key_only():
    with Server("--rate-limit", "0", "--user-verification", "preferred") as server:
        account, _, _ = person(server)
        keys = {scope: json.loads(admin(server, "keys", "create", "--scope", scope, "--name", scope, "--json").stdout)["secret"]
                for scope in ("read", "write", "recovery")}
        for scope in ("read", "write"):
            status, body, _ = server.raw("POST", f"/api/admin/accounts/{account}/recovery", body=b"{}", token=keys[scope])
            assert status == 403 and body["error"]["code"] == "insufficient_scope", (scope, body)
        status, issued, _ = server.raw("POST", f"/api/admin/accounts/{account}/recovery", body=b'{"ttlSeconds": 900}', token=keys["recovery"])
        assert status == 201 and issued["grant"]["issuedBy"].startswith("admin:ak"), issued
        status, body, _ = server.raw("POST", f"/api/admin/accounts/{account}/recovery", body=b'{"ttlSeconds": 100}', token=keys["recovery"])
        assert status == 422
        status, grants, _ = server.raw("GET", f"/api/admin/recovery?account={account}", token=keys["read"])
        assert status == 200 and grants[0]["id"] == issued["grant"]["id"] and "code" not in grants[0]
        status, _, _ = server.raw("DELETE", f"/api/admin/recovery/{issued['grant']['id']}", token=keys["write"])
        assert status == 403
        status, _, _ = server.raw("DELETE", f"/api/admin/recovery/{issued['grant']['id']}", token=keys["recovery"])
        assert status == 204
        assert exchange(server, issued["code"])[0] == 401
