"""Invitations against a real `latchkey serve` and `latchkey admin` (issue 43): an operator makes one with
the CLI; its link's code is looked at, then used for a restricted session that adds the new account's first
passkey and nothing else (tried on every route of the served openapi.json); the account has the
invitation's username, email and groups and signs in; a multi-use invitation makes one account per use;
used, expired, revoked, over-guessed and mistyped codes get one answer; of 20 concurrent uses of a one-use
code one makes an account; an operator's account (`accounts create`) takes its first passkey from its link;
`--send` mails the link (aiosmtpd) and its use verifies the address; no code is in the database file in any
form; every step is in the audit trail; with `--signup-domain`, an address at the domain gets a link by mail
that makes its account, the address verified."""
import json
import re
import sqlite3
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor

from soft_webauthn import SoftWebauthnDevice

from invitation_support import (BINARY, REFUSAL, Server, account_count, add_passkey, admin, create_account, database_bytes,
                                exchange, invite, join, login, preview, refused_everywhere_but_registration, show)

from backends import serving
from mail_sink import MailSink, body_text

import pytest

INVITE_ONLY = ("--signup", "invite", "--rate-limit", "0", "--user-verification", "preferred")


def trail(server, account):
    return [e["event"] for e in reversed(json.loads(admin(server, "audit", "--account", account, "--json").stdout)["events"])]


def test_an_invitation_from_the_cli_to_a_signed_in_account():
    with Server(*INVITE_ONLY) as server:
        issued = invite(server, "--username", "grace", "--email", "grace@example.com", "--group", "staff", "--group", "ops", "--ttl", "2d")
        code = issued["code"]
        assert re.fullmatch(r"[A-Z2-7]{5}(-[A-Z2-7]{5}){4}", code), code
        assert issued["link"] == f"{server.origin}/invite#{code}"
        invitation = issued["invitation"]
        assert invitation["state"] == "live" and invitation["maxUses"] == 1 and invitation["createdBy"] == "cli"
        assert invitation["groups"] == ["staff", "ops"] and issued["mailed"] is False

        # The text form says the same, with the link once.
        text = admin(server, "invites", "create", "--uses", "2", "--origin", server.origin).stdout
        assert f"{server.origin}/invite#" in text and "up to 2 accounts" in text, text

        status, seen = preview(server, code.lower().replace("-", " "))  # case and separators are forgiven
        assert status == 200 and seen["username"] == "grace" and seen["newAccount"] is True and seen["service"] == "Latchkey", seen
        account, device = join(server, code)
        status, signed_in = login(server, device)
        assert status == 200 and signed_in["account"]["id"] == account, signed_in
        detail = show(server, account)
        assert detail["username"] == "grace" and detail["email"] == "grace@example.com" and detail["emailVerified"] is False
        assert detail["groups"] == ["staff", "ops"] and len(detail["passkeys"]) == 1
        assert detail["account"]["displayName"] == "Grace Hopper"

        # Used: the one answer; the list says so; the trail has every step.
        assert exchange(server, code) == (401, {"error": {"code": "invalid_invitation", "message": REFUSAL}})
        listed = {i["id"]: i for i in json.loads(admin(server, "invites", "list", "--json").stdout)}
        assert listed[invitation["id"]]["state"] == "used" and listed[invitation["id"]]["uses"] == 1
        table = admin(server, "invites", "list").stdout
        assert invitation["id"] in table and "grace" in table and code not in table
        events = json.loads(admin(server, "audit", "--event", "invite.created", "--json").stdout)["events"]
        assert any(e["detail"]["invitationId"] == invitation["id"] and e["actor"] == "cli" for e in events)
        assert trail(server, account)[:3] == ["account.created", "invite.used", "passkey.added"]


def test_the_restricted_session_is_refused_on_every_route_but_the_first_passkey():
    with Server(*INVITE_ONLY) as server:
        status, session = exchange(server, invite(server)["code"])
        assert status == 201, session
        token = session["token"]
        assert token.startswith("rcv_")
        assert refused_everywhere_but_registration(server, token) > 50
        # The first passkey, once: the session is gone with it.
        status, added = add_passkey(server, token, SoftWebauthnDevice())
        assert status == 201, added
        assert add_passkey(server, token, SoftWebauthnDevice())[0] == 401


def test_a_team_invitation_makes_one_account_per_use():
    with Server(*INVITE_ONLY) as server:
        code = invite(server, "--uses", "3", "--group", "team")["code"]
        accounts = [join(server, code, name)[0] for name in ("Ada", "Alan", "Barbara")]
        assert len(set(accounts)) == 3
        for account in accounts:
            assert show(server, account)["groups"] == ["team"]
        assert exchange(server, code, "Dennis")[0] == 401
        # Several people cannot share one username: refused as a usage error.
        refused = admin(server, "invites", "create", "--uses", "2", "--username", "team", expect=2)
        assert "invalid_field" in refused.stderr


def test_used_expired_revoked_over_guessed_and_mistyped_codes_get_one_answer():
    with Server(*INVITE_ONLY) as server:
        used = invite(server)["code"]
        join(server, used)
        expired = invite(server, "--ttl", "5m")
        with sqlite3.connect(server.database.split(":", 1)[1]) as db:
            db.execute("UPDATE invitations SET expires_at = 0 WHERE id = ?", (expired["invitation"]["id"],))
        revoked = invite(server)
        admin(server, "invites", "revoke", revoked["invitation"]["id"])
        assert "unknown_invitation" in admin(server, "invites", "revoke", revoked["invitation"]["id"], expect=1).stderr
        guessed = invite(server)["code"]
        for attempt in range(5):
            preview(server, guessed[:5] + "-AAAAA-AAAAA-AAAAA-AAAA" + "BC"[attempt % 2])
        for code in (used, expired["code"], revoked["code"], guessed, "KQ4MX-7BD2A-AAAAA-BBBBB-CCCCC", "not a code", "A" * 5000):
            assert preview(server, code) == (401, {"error": {"code": "invalid_invitation", "message": REFUSAL}}), code
            assert exchange(server, code) == (401, {"error": {"code": "invalid_invitation", "message": REFUSAL}}), code
        listed = {i["id"]: i["state"] for i in json.loads(admin(server, "invites", "list", "--json").stdout)}
        assert listed[expired["invitation"]["id"]] == "expired" and listed[revoked["invitation"]["id"]] == "revoked"
        assert list(listed.values()).count("revoked") == 2  # the over-guessed one too


def test_twenty_concurrent_uses_of_one_code_make_one_account():
    with Server(*INVITE_ONLY) as server:
        code = invite(server)["code"]
        with ThreadPoolExecutor(20) as pool:
            statuses = list(pool.map(lambda n: exchange(server, code, f"Person {n}")[0], range(20)))
        assert sorted(statuses) == [201] + [401] * 19, statuses
        with sqlite3.connect(server.database.split(":", 1)[1]) as db:
            assert db.execute("SELECT count(*) FROM accounts").fetchone() == (1,)


def test_an_operators_account_takes_its_first_passkey_from_its_link_under_closed():
    with Server("--signup", "closed", "--rate-limit", "0", "--user-verification", "preferred") as server:
        # `latchkey admin` reads the policy as `serve` does (here from LATCHKEY_SIGNUP).
        refused = admin(server, "invites", "create", "--origin", server.origin, expect=1, env={"LATCHKEY_SIGNUP": "closed"})
        assert "signup_closed" in refused.stderr, refused.stderr
        made = create_account(server, "--username", "Linus", "--display-name", "Linus T.", "--email", "linus@example.com",
                              "--group", "kernel", env={"LATCHKEY_SIGNUP": "closed"})
        account = made["account"]["account"]["id"]
        assert made["account"]["username"] == "linus" and made["account"]["passkeys"] == []
        assert made["invitation"]["accountId"] == account
        assert "username_taken" in admin(server, "accounts", "create", "--username", "linus", expect=1).stderr
        status, seen = preview(server, made["code"])
        assert status == 200 and seen["newAccount"] is False and seen["displayName"] == "Linus T.", seen
        joined, device = join(server, made["code"], None)
        assert joined == account
        assert login(server, device)[0] == 200
        assert show(server, account)["account"]["displayName"] == "Linus T."
        assert trail(server, account)[:4] == ["account.created_by_operator", "invite.created", "invite.used", "passkey.added"]
        text = admin(server, "accounts", "create", "--username", "ken", "--origin", server.origin).stdout
        assert "without a passkey" in text and f"{server.origin}/invite#" in text, text


def test_send_mails_the_link_and_its_use_verifies_the_address():
    with MailSink() as smtp:
        env = {"LATCHKEY_SMTP_URL": smtp.url, "LATCHKEY_SMTP_FROM": "Latchkey Test <noreply@example.com>"}
        with Server(*INVITE_ONLY, env=env) as server:
            issued = invite(server, "--username", "hedy", "--email", "hedy@example.com", "--send", env=env)
            assert issued["mailed"] is True and issued["invitation"]["mailedAt"], issued
            sender, recipients, _, message = smtp.wait(1)
            assert recipients == ["hedy@example.com"] and "You are invited to Latchkey" in message["Subject"]
            assert issued["link"] in body_text(message)
            account, _ = join(server, issued["code"])
            assert show(server, account)["emailVerified"] is True
            # An operator's account too: the address it was mailed to is verified by the use.
            made = create_account(server, "--username", "joan", "--email", "joan@example.com", "--send", env=env)
            assert made["mailed"] is True and smtp.wait(2)[1] == ["joan@example.com"]
            assert made["account"]["emailVerified"] is False
            join(server, made["code"], None)
            assert show(server, made["account"]["account"]["id"])["emailVerified"] is True
        # Without an SMTP server, --send is refused and nothing is made.
        with Server(*INVITE_ONLY) as plain:
            assert "not_enabled" in admin(plain, "invites", "create", "--email", "x@example.com", "--send", expect=1).stderr
            assert json.loads(admin(plain, "invites", "list", "--json").stdout) == []


def test_the_admin_api_makes_lists_and_revokes_with_a_write_key():
    with Server(*INVITE_ONLY) as server:
        keys = {scope: json.loads(admin(server, "keys", "create", "--scope", scope, "--name", scope, "--json").stdout)["secret"]
                for scope in ("read", "write")}
        assert server.raw("POST", "/api/admin/invites", body=b"{}", token=keys["read"])[0] == 403
        status, issued, _ = server.raw("POST", "/api/admin/invites", body=b'{"groups": ["ops"], "ttlSeconds": 3600}', token=keys["write"])
        assert status == 201 and issued["invitation"]["createdBy"].startswith("admin:ak"), issued
        status, bare, _ = server.raw("POST", "/api/admin/invites", body=b"", token=keys["write"])
        assert status == 201 and bare["invitation"]["maxUses"] == 1, bare
        assert server.raw("POST", "/api/admin/invites", body=b'{"ttlSeconds": 10}', token=keys["write"])[0] == 422
        assert server.raw("POST", "/api/admin/invites", body=b'{"uses": 0}', token=keys["write"])[0] == 422
        assert server.raw("POST", "/api/admin/invites", body=b'{"groups": ["no spaces"]}', token=keys["write"])[0] == 422
        assert server.raw("POST", "/api/admin/invites", body=b'{"uses": "2"}', token=keys["write"])[0] == 400
        status, listed, _ = server.raw("GET", "/api/admin/invites", token=keys["read"])
        assert status == 200 and {i["id"] for i in listed} == {issued["invitation"]["id"], bare["invitation"]["id"]}
        assert all("code" not in i for i in listed)
        status, made, _ = server.raw("POST", "/api/admin/accounts", body=b'{"username": "ada", "groups": ["ops"]}', token=keys["write"])
        assert status == 201 and made["account"]["username"] == "ada" and made["link"].endswith(made["code"]), made
        assert server.raw("DELETE", f"/api/admin/invites/{issued['invitation']['id']}", token=keys["read"])[0] == 403
        assert server.raw("DELETE", f"/api/admin/invites/{issued['invitation']['id']}", token=keys["write"])[0] == 204
        assert exchange(server, issued["code"])[0] == 401
        assert server.raw("DELETE", f"/api/admin/invites/{issued['invitation']['id']}", token=keys["write"])[0] == 404


def test_no_code_or_restricted_token_is_in_the_database_file():
    with Server(*INVITE_ONLY) as server:
        secrets = []
        for issued in (invite(server, "--username", "ann"), create_account(server, "--username", "bob")):
            code = issued["code"]
            status, session = exchange(server, code)
            assert status == 201, session
            compact = code.replace("-", "")
            secrets += [code, compact, compact[5:], session["token"], session["token"][4:]]
        raw = database_bytes(server)
        for secret in secrets:
            assert secret.encode() not in raw and secret.lower().encode() not in raw, secret


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_on_sqlite_and_postgresql_one_use_is_one_account(backend):
    with serving(backend, *INVITE_ONLY) as server:
        code = invite(server, "--username", "ada", "--group", "staff")["code"]
        with ThreadPoolExecutor(20) as pool:
            statuses = list(pool.map(lambda n: exchange(server, code, f"Person {n}"), range(20)))
        assert sorted(status for status, _ in statuses) == [201] + [401] * 19, statuses
        session = next(body for status, body in statuses if status == 201)
        assert add_passkey(server, session["token"], SoftWebauthnDevice())[0] == 201
        detail = show(server, session["account"]["id"])
        assert detail["username"] == "ada" and detail["groups"] == ["staff"] and len(detail["passkeys"]) == 1
        team = invite(server, "--uses", "2")["code"]
        join(server, team, "Alan")
        join(server, team, "Barbara")
        assert exchange(server, team, "Claude")[0] == 401
        made = create_account(server, "--username", "linus")
        assert join(server, made["code"], None)[0] == made["account"]["account"]["id"]
        assert account_count(server) == 4


def test_a_domains_people_sign_up_by_a_mailed_link():
    with MailSink() as smtp:
        with Server(*INVITE_ONLY, "--signup-domain", "example.com", "--smtp-url", smtp.url,
                    "--smtp-from", "Latchkey Test <noreply@example.com>") as server:
            assert server.call("GET", "/api/signup") == (200, {"policy": "invite", "service": "Latchkey", "domains": ["example.com"]})
            status, body = server.call("POST", "/api/signup/email", {"email": "eve@elsewhere.org"})
            assert status == 403 and body["error"]["code"] == "signup_closed", body
            assert server.call("POST", "/api/signup/email", {"email": "ada@example.com"}) == (202, {"status": "sent"})
            _, recipients, _, message = smtp.wait(1)
            assert recipients == ["ada@example.com"] and message["Subject"] == "Make your account at Latchkey"
            code = re.search(re.escape(server.origin) + r"/invite#([A-Z2-7]{5}(?:-[A-Z2-7]{5}){4})", body_text(message)).group(1)
            # Marked mailed once the SMTP server took it: the use then verifies the address.
            deadline = time.time() + 30
            while not json.loads(admin(server, "invites", "list", "--json").stdout)[0]["mailedAt"]:
                assert time.time() < deadline, "never marked mailed"
                time.sleep(0.05)
            account, device = join(server, code, "Ada Lovelace")
            detail = show(server, account)
            assert detail["email"] == "ada@example.com" and detail["emailVerified"] is True and detail["username"] is None
            assert login(server, device)[0] == 200
            assert exchange(server, code)[0] == 401
            events = json.loads(admin(server, "audit", "--event", "invite.created", "--json").stdout)["events"]
            assert events[0]["actor"] == "email" and events[0]["accountId"] is None
    # Refused at start: without a way to mail, and under a policy that takes nobody.
    for flags, sentence in [(("--signup-domain", "example.com"), "needs --smtp-url"),
                            (("--signup", "closed", "--signup-domain", "example.com", "--smtp-url", "smtp://127.0.0.1:25",
                              "--smtp-from", "noreply@example.com"), "--signup closed lets nobody"),
                            (("--signup-domain", "not a domain", "--smtp-url", "smtp://127.0.0.1:25"), "must be a domain name")]:
        result = subprocess.run([BINARY, "serve", "--port", "0", "--origin", "http://localhost:1", "--database", "sqlite::memory:", *flags],
                                capture_output=True, text=True, timeout=60)
        assert result.returncode == 2 and sentence in result.stderr, (flags, result.returncode, result.stderr)
