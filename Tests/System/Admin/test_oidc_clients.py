"""OpenID Connect clients and what apps learn about a person, as an operator and the person manage them
(issue 31, items 5, 6 and 8), against a real `latchkey serve`: clients added with `latchkey admin clients`
and the admin API, public and confidential; the secret shown once and stored only as its SHA-256 (the raw
SQLite file is searched for it); rotation replaces the digest; every kind of bad redirect URI refused by
both, each rule with its own code and a sentence naming the field (the CLI exits 2); the profile set and
cleared by the operator and the username by the person, unique across accounts (409); and "Apps with
access" listing a consent and a grant (written straight into the database until the provider's own
endpoints make them) and taking them back in one go, audited."""
import hashlib
import json
import os
import pathlib
import re
import sqlite3
import time

import pytest
from soft_webauthn import SoftWebauthnDevice

from latchkey_server import Server, admin
from backends import any_server  # noqa: F401 (the fixture: SQLite and PostgreSQL)
from soft_webauthn_client import person, register

SECRET = re.compile(r"^lk_client_[A-Za-z0-9_-]{43}$")


def admin_json(database, *arguments):
    return json.loads(admin(database, *arguments, "--json").stdout)


def key(database, scope):
    return admin_json(database, "keys", "create", "--scope", scope, "--name", f"{scope} key")["secret"]


def call(server, method, path, secret=None, body=None):
    status, answer, _ = server.raw(method, path, body=json.dumps(body).encode() if body is not None else b"", token=secret)
    return status, answer


def sqlite_path(server):
    assert server.database.startswith("sqlite:")
    return server.database[len("sqlite:"):]


def query(server, sql, *values):
    """Rows from the server's SQLite database (it runs in WAL mode, so reading beside it is fine)."""
    with sqlite3.connect(sqlite_path(server), timeout=10) as connection:
        return connection.execute(sql, values).fetchall()


def raw_database_bytes(server):
    """Every byte of the SQLite database: the file and its write-ahead log."""
    data = b""
    for suffix in ("", "-wal"):
        path = sqlite_path(server) + suffix
        if os.path.exists(path):
            data += pathlib.Path(path).read_bytes()
    return data


@pytest.fixture
def server():
    with Server("--rate-limit", "0", "--user-verification", "preferred") as running:
        yield running


# ---- Clients


def test_clients_through_the_cli_and_the_admin_api(any_server):
    server, database = any_server, any_server.database
    write, read = key(database, "write"), key(database, "read")

    # A confidential client from the CLI: its secret once, in the answer.
    added = admin_json(database, "clients", "add", "Grafana", "--redirect-uri", "https://grafana.example.com/login/generic_oauth",
                       "--post-logout-uri", "https://grafana.example.com/logout", "--id-token-alg", "RS256",
                       "--scope", "openid", "--scope", "profile email offline_access", "--allowed-group", "staff")
    grafana, secret = added["client"], added["clientSecret"]
    assert SECRET.match(secret), secret
    assert re.fullmatch(r"[A-Za-z0-9_-]{22}", grafana["id"]) and not grafana["id"].startswith("-"), grafana
    assert grafana == {**grafana, "name": "Grafana", "public": False, "idTokenAlg": "RS256", "firstParty": False,
                       "redirectUris": ["https://grafana.example.com/login/generic_oauth"],
                       "postLogoutUris": ["https://grafana.example.com/logout"],
                       "scopes": ["openid", "profile", "email", "offline_access"], "allowedGroups": ["staff"], "createdBy": "cli"}
    text = admin(database, "clients", "add", "Nextcloud", "--redirect-uri", "https://cloud.example.com/apps/oidc/callback").stdout
    printed = re.search(r"lk_client_[A-Za-z0-9_-]{43}", text)
    assert printed and "shown this once" in text, text
    nextcloud_secret = printed.group(0)

    # A public client through the API, with a chosen id, a native app's scheme and a loopback port.
    status, created = call(server, "POST", "/api/admin/clients", write, {
        "id": "immich.app", "name": "Immich", "public": True, "firstParty": True,
        "redirectUris": ["app.immich:///oauth-callback", "http://127.0.0.1:2283/cb", "http://[::1]/cb", "http://localhost:8080/cb"]})
    assert status == 201 and created["clientSecret"] is None, created
    immich = created["client"]
    assert immich["id"] == "immich.app" and immich["public"] is True and immich["firstParty"] is True
    assert immich["scopes"] == ["openid", "profile", "email", "groups"] and immich["idTokenAlg"] == "ES256"
    assert immich["createdBy"].startswith("admin:ak")

    # The secret is never shown again: not by list, show or the API, not stored in clear anywhere.
    listed = admin_json(database, "clients", "list")
    assert {c["name"] for c in listed} == {"Grafana", "Nextcloud", "Immich"}
    status, from_api = call(server, "GET", "/api/admin/clients", read)
    assert status == 200 and from_api == listed
    shown = admin_json(database, "clients", "show", grafana["id"])
    assert shown == grafana
    status, one = call(server, "GET", f"/api/admin/clients/{grafana['id']}", read)
    assert status == 200 and one == grafana
    everything = json.dumps([listed, from_api, shown, one]) + admin(database, "clients", "list").stdout \
        + admin(database, "audit", "--json", "--limit", "500").stdout
    assert secret not in everything and nextcloud_secret not in everything and "secret_hash" not in everything
    if database.startswith("sqlite:"):
        stored = raw_database_bytes(server)
        assert secret.encode() not in stored and nextcloud_secret.encode() not in stored
        assert secret[len("lk_client_"):].encode() not in stored
        [(digest,)] = query(server, "SELECT secret_hash FROM oidc_clients WHERE id = ?", grafana["id"])
        assert bytes(digest) == hashlib.sha256(secret.encode()).digest()
        assert query(server, "SELECT secret_hash FROM oidc_clients WHERE id = 'immich.app'") == [(None,)]

    # The id is taken: refused by both, nothing changed.
    result = admin(database, "clients", "add", "Again", "--id", "immich.app", "--redirect-uri", "https://a.example/cb", expect=1)
    assert "client_id_taken" in result.stderr
    status, body = call(server, "POST", "/api/admin/clients", write, {"id": "immich.app", "name": "Again", "redirectUris": ["https://a.example/cb"]})
    assert status == 409 and body["error"]["code"] == "client_id_taken", body

    # A read key changes nothing.
    for method, path, body in [("POST", "/api/admin/clients", {"name": "x", "redirectUris": ["https://a.example/"]}),
                               ("PATCH", "/api/admin/clients/immich.app", {"name": "x"}),
                               ("POST", "/api/admin/clients/immich.app/secret", None),
                               ("DELETE", "/api/admin/clients/immich.app", None)]:
        status, refusal = call(server, method, path, read, body)
        assert status == 403 and refusal["error"]["code"] == "insufficient_scope", (method, path, refusal)
        status, refusal = call(server, method, path, None, body)
        assert status == 401 and refusal["error"]["code"] == "admin_key_invalid", (method, path, refusal)

    # Rotation: a new secret, the old digest gone.
    rotated = admin_json(database, "clients", "rotate-secret", grafana["id"])
    new_secret = rotated["clientSecret"]
    assert SECRET.match(new_secret) and new_secret != secret and rotated["client"]["id"] == grafana["id"]
    assert rotated["grantsRevoked"] == 0, rotated  # nobody signed in to it yet (Tests/System/OIDC/test_secret_rotation.py: grants end)
    status, again = call(server, "POST", f"/api/admin/clients/{grafana['id']}/secret", write)
    assert status == 200 and SECRET.match(again["clientSecret"]) and again["clientSecret"] != new_secret
    assert again["grantsRevoked"] == 0, again
    if database.startswith("sqlite:"):
        [(digest,)] = query(server, "SELECT secret_hash FROM oidc_clients WHERE id = ?", grafana["id"])
        assert bytes(digest) == hashlib.sha256(again["clientSecret"].encode()).digest()
        assert bytes(digest) not in (hashlib.sha256(secret.encode()).digest(), hashlib.sha256(new_secret.encode()).digest())
    status, body = call(server, "POST", "/api/admin/clients/immich.app/secret", write)
    assert status == 409 and body["error"]["code"] == "client_is_public", body
    assert "client_is_public" in admin(database, "clients", "rotate-secret", "immich.app", expect=1).stderr

    # Updates: what is sent replaces what was there; public and confidential both ways.
    updated = admin_json(database, "clients", "update", grafana["id"], "--name", "Grafana (ops)", "--first-party",
                         "--no-allowed-groups", "--redirect-uri", "https://grafana.example.com/oauth")
    assert updated["clientSecret"] is None and updated["grantsRevoked"] is None
    assert updated["client"] == {**updated["client"], "name": "Grafana (ops)", "firstParty": True, "allowedGroups": [],
                                 "redirectUris": ["https://grafana.example.com/oauth"],
                                 "postLogoutUris": ["https://grafana.example.com/logout"], "public": False}
    status, patched = call(server, "PATCH", f"/api/admin/clients/{grafana['id']}", write, {"public": True, "scopes": ["openid"]})
    assert status == 200 and patched["client"]["public"] is True and patched["client"]["scopes"] == ["openid"], patched
    if database.startswith("sqlite:"):
        assert query(server, "SELECT secret_hash FROM oidc_clients WHERE id = ?", grafana["id"]) == [(None,)]
    made = admin_json(database, "clients", "update", grafana["id"], "--confidential")
    assert made["client"]["public"] is False and SECRET.match(made["clientSecret"])
    status, body = call(server, "PATCH", f"/api/admin/clients/{grafana['id']}", write, {"id": "other"})
    assert status == 422 and body["error"]["code"] == "client_id_invalid", body
    status, body = call(server, "PATCH", "/api/admin/clients/nobody", write, {"name": "x"})
    assert status == 404 and body["error"]["code"] == "unknown_client", body

    # Removal.
    status, _ = call(server, "DELETE", "/api/admin/clients/immich.app", write)
    assert status == 204
    status, body = call(server, "GET", "/api/admin/clients/immich.app", read)
    assert status == 404 and body["error"]["code"] == "unknown_client"
    assert "Removed client" in admin(database, "clients", "remove", grafana["id"]).stdout
    assert "unknown_client" in admin(database, "clients", "show", grafana["id"], expect=1).stderr
    assert [c["name"] for c in admin_json(database, "clients", "list")] == ["Nextcloud"]

    # Every change is in the trail, with its actor, naming the client, never a secret.
    trail = admin_json(database, "audit", "--limit", "500")["events"]
    clients = [e for e in trail if e["event"].startswith("oidc_client.")]
    kinds = sorted(e["event"] for e in clients)
    assert kinds == sorted(["oidc_client.created"] * 3 + ["oidc_client.secret_rotated"] * 2 + ["oidc_client.updated"] * 3
                           + ["oidc_client.removed"] * 2), kinds
    assert all(e["accountId"] is None and e["detail"]["client"] for e in clients)
    assert {e["actor"] for e in clients} == {"cli", next(e["actor"] for e in clients if e["actor"].startswith("admin:ak"))}
    updates = [(e["detail"]["clientName"], e["detail"]["fields"]) for e in reversed(clients) if e["event"] == "oidc_client.updated"]
    assert updates == [("Grafana (ops)", "name,redirectUris,firstParty,allowedGroups"), ("Grafana (ops)", "scopes,public"),
                       ("Grafana (ops)", "public")], updates
    assert secret not in json.dumps(trail) and made["clientSecret"] not in json.dumps(trail)


BAD_REDIRECT_URIS = [
    ("http://grafana.example.com/cb", "http on a host other than localhost"),
    ("http://127.0.0.2/cb", "http on a host other than localhost"),
    ("http://localhost.example.com/cb", "http on a host other than localhost"),
    ("https://a.example/cb#fragment", "fragment"),
    ("https://a.example/cb#", "fragment"),
    ("https://user@a.example/cb", "user name or password"),
    ("https://user:password@a.example/cb", "user name or password"),
    ("http://user@127.0.0.1/cb", "user name or password"),
    ("/oauth/callback", "not an absolute URI"),
    ("a.example/cb", "not an absolute URI"),
    ("https:///cb", "must name a host"),
    ("https://a.example/c b", "percent-encoded"),
    ("https://exämple.com/cb", "percent-encoded"),
    ("https://a.example\\@evil.example/", "percent-encoded"),
    ("javascript:alert(1)", "nobody's callback"),
    ("data:text/html,hello", "nobody's callback"),
    ("file:///etc/passwd", "nobody's callback"),
    ("", "1 to 2048 bytes"),
    ("https://a.example/" + "x" * 2048, "1 to 2048 bytes"),
]


@pytest.mark.parametrize("uri,why", BAD_REDIRECT_URIS)
def test_a_bad_redirect_uri_is_refused_by_both(server, uri, why):
    database, write = server.database, key(server.database, "write")
    result = admin(database, "clients", "add", "App", "--redirect-uri", uri, expect=2)
    assert "(redirect_uri_invalid)" in result.stderr and "redirectUris" in result.stderr and why in result.stderr, result.stderr
    status, body = call(server, "POST", "/api/admin/clients", write, {"name": "App", "redirectUris": ["https://ok.example/cb", uri]})
    assert status == 422 and body["error"]["code"] == "redirect_uri_invalid" and why in body["error"]["message"], body
    # The same rules for where a person is sent after logging out.
    result = admin(database, "clients", "add", "App", "--redirect-uri", "https://ok.example/cb", "--post-logout-uri", uri, expect=2)
    assert "(post_logout_uri_invalid)" in result.stderr and "postLogoutUris" in result.stderr, result.stderr
    status, body = call(server, "PATCH", "/api/admin/clients/nobody", write, {"redirectUris": [uri]})
    assert status in (404, 422), body  # the client is looked up first
    assert admin_json(database, "clients", "list") == []


def test_every_other_client_rule_has_its_own_code(server):
    database, write = server.database, key(server.database, "write")
    good = ["--redirect-uri", "https://ok.example/cb"]
    cases = [
        (["add", "App"], {"name": "App"}, "redirect_uri_required", "redirect URI"),
        (["add", ""] + good, {"name": "  "}, "client_name_invalid", "name"),
        (["add", "x" * 101] + good, {"name": "x" * 101}, "client_name_invalid", "name"),
        (["add", "A\u202eB"] + good, {"name": "A\u0007B"}, "client_name_invalid", "name"),
        (["add", "App", "--id", "ab"] + good, {"name": "App", "id": "ab"}, "client_id_invalid", "--id"),
        (["add", "App", "--id", "a/b"] + good, {"name": "App", "id": "a b"}, "client_id_invalid", "--id"),
        (["add", "App", "--id-token-alg", "HS256"] + good, {"name": "App", "idTokenAlg": "none"}, "id_token_alg_invalid", "--id-token-alg"),
        (["add", "App", "--scope", "profile"] + good, {"name": "App", "scopes": ["email"]}, "openid_scope_required", "openid"),
        (["add", "App", "--scope", "openid", "--scope", "admin"] + good, {"name": "App", "scopes": ["openid", "phone"]},
         "client_scope_invalid", "--scope"),
        (["add", "App", "--allowed-group", "two words"] + good, {"name": "App", "allowedGroups": ["é"]}, "group_name_invalid", "allowedGroups"),
    ]
    for arguments, body, code, field in cases:
        result = admin(database, "clients", *arguments, expect=2)
        assert f"({code})" in result.stderr and field in result.stderr, (arguments, result.stderr)
        request = {"redirectUris": ["https://ok.example/cb"], **body}
        if code == "redirect_uri_required":
            request.pop("redirectUris")
        status, answer = call(server, "POST", "/api/admin/clients", write, request)
        assert status == 422 and answer["error"]["code"] == code, (body, answer)
    # Accepted at the edges: 3 and 64 characters of id, 100 of name, every scope.
    accepted = admin_json(database, "clients", "add", "n" * 100, "--id", "a.b", *good, "--scope",
                          "openid profile email groups offline_access")
    assert accepted["client"]["scopes"] == ["openid", "profile", "email", "groups", "offline_access"]
    status, answer = call(server, "POST", "/api/admin/clients", write, {"name": "App", "id": "Z" * 64, "redirectUris": ["https://ok.example/cb"]})
    assert status == 201, answer
    # Malformed bodies are 400s naming the member.
    status, answer = call(server, "POST", "/api/admin/clients", write, {"name": "App", "redirectUris": "https://ok.example/cb"})
    assert status == 400 and "redirectUris" in answer["error"]["message"], answer


# ---- What apps learn about a person


def test_the_profile_set_by_the_operator_and_the_username_by_the_person(any_server):
    server, database = any_server, any_server.database
    write = key(database, "write")
    ada, ada_token, _ = person(server, "Ada Lovelace")
    grace, grace_token, _ = person(server, "Grace Hopper")

    # The operator sets everything at once from the CLI: the username lower-cased, only the email's domain too.
    shown = admin_json(database, "accounts", "set", ada, "--username", "Ada", "--email", "Ada.King@Example.COM", "--email-verified",
                       "--group", "staff", "--group", "admins", "--group", "staff")
    assert (shown["username"], shown["email"], shown["emailVerified"], shown["groups"]) == ("ada", "Ada.King@example.com", True, ["staff", "admins"])
    assert admin_json(database, "accounts", "show", ada) == shown
    text = admin(database, "accounts", "show", ada).stdout
    assert "Username     ada" in text and "Ada.King@example.com (verified)" in text and "staff admins" in text
    status, mine = server.call("GET", "/api/account", token=ada_token)
    assert status == 200 and (mine["username"], mine["email"], mine["emailVerified"], mine["groups"]) == ("ada", "Ada.King@example.com", True, ["staff", "admins"])

    # Through the API: a new address is not verified unless said; null removes; groups emptied.
    status, detail = call(server, "PATCH", f"/api/admin/accounts/{ada}", write, {"email": "ada@example.org"})
    assert status == 200 and detail["email"] == "ada@example.org" and detail["emailVerified"] is False, detail
    status, detail = call(server, "PATCH", f"/api/admin/accounts/{ada}", write, {"emailVerified": True})
    assert status == 200 and detail["emailVerified"] is True
    status, detail = call(server, "PATCH", f"/api/admin/accounts/{ada}", write, {"email": "ada@example.org"})
    assert status == 200 and detail["emailVerified"] is True, "the same address keeps its verification"
    status, detail = call(server, "PATCH", f"/api/admin/accounts/{ada}", write, {"email": None, "groups": None})
    assert status == 200 and (detail["email"], detail["emailVerified"], detail["groups"], detail["username"]) == (None, False, [], "ada")
    status, body = call(server, "PATCH", f"/api/admin/accounts/{ada}", write, {"emailVerified": True})
    assert status == 422 and body["error"]["code"] == "email_invalid", body
    cleared = admin_json(database, "accounts", "set", ada, "--no-username", "--email", "a@b.example", "--no-email-verified", "--no-groups")
    assert (cleared["username"], cleared["email"], cleared["emailVerified"], cleared["groups"]) == (None, "a@b.example", False, [])
    admin_json(database, "accounts", "set", ada, "--username", "ada")

    # The rules, each with its code; the CLI exits 2 and names the field.
    for body, code in [({"username": "a"}, "username_invalid"), ({"username": "-ada"}, "username_invalid"),
                       ({"username": "ada lovelace"}, "username_invalid"), ({"username": "ädä"}, "username_invalid"),
                       ({"username": "a" * 33}, "username_invalid"), ({"email": "ada"}, "email_invalid"),
                       ({"email": "ada@localhost"}, "email_invalid"), ({"email": "ada@@example.com"}, "email_invalid"),
                       ({"email": "a b@example.com"}, "email_invalid"), ({"email": "a" * 250 + "@example.com"}, "email_invalid"),
                       ({"groups": ["two words"]}, "group_name_invalid"), ({}, "invalid_field")]:
        status, answer = call(server, "PATCH", f"/api/admin/accounts/{ada}", write, body)
        assert status == 422 and answer["error"]["code"] == code, (body, answer)
    for arguments, code, field in [(["--username", "x"], "username_invalid", "username"), (["--email", "nope"], "email_invalid", "email"),
                                   (["--group", "a:b"], "group_name_invalid", "--group")]:
        result = admin(database, "accounts", "set", ada, *arguments, expect=2)
        assert f"({code})" in result.stderr and field in result.stderr, result.stderr
    status, body = call(server, "PATCH", "/api/admin/accounts/nobody", write, {"username": "nobody"})
    assert status == 404 and body["error"]["code"] == "unknown_account"

    # The person sets, changes and removes their own username; another's is taken whatever its case.
    def patch(body):
        """PATCH /api/account, which answers the account as GET /api/account then shows it (the username,
        email and groups included)."""
        status, answer = server.call("PATCH", "/api/account", body, token=grace_token)
        if status != 200:
            return status, answer
        assert answer["id"] == grace and answer == server.call("GET", "/api/account", token=grace_token)[1], answer
        return status, answer

    status, mine = patch({"username": "Grace.H"})
    assert status == 200 and mine["username"] == "grace.h" and mine["displayName"] == "Grace Hopper", mine
    for taken in ("ADA", " ada "):
        status, body = patch({"username": taken, "displayName": "Not Changed"})
        assert status == 409 and body["error"]["code"] == "username_taken", body
    assert server.call("GET", "/api/account", token=grace_token)[1]["displayName"] == "Grace Hopper", "a refused change changes nothing"
    status, body = call(server, "PATCH", f"/api/admin/accounts/{ada}", write, {"username": "GRACE.H"})
    assert status == 409 and body["error"]["code"] == "username_taken"
    assert "username_taken" in admin(database, "accounts", "set", ada, "--username", "grace.h", expect=1).stderr
    status, body = patch({"username": "x!"})
    assert status == 422 and body["error"]["code"] == "username_invalid"
    status, body = patch({"username": 42})
    assert status == 400 and "username" in body["error"]["message"], body
    status, mine = patch({"username": "grace", "credo": "Ships are safe in harbour."})
    assert status == 200 and mine["username"] == "grace" and mine["credo"] == "Ships are safe in harbour."
    status, mine = patch({"username": None})
    assert status == 200 and mine["username"] is None
    status, mine = patch({"username": "grace.h"})
    assert status == 200 and mine["username"] == "grace.h", "a removed username can be taken again"

    # The trail names the fields changed, never an address.
    trail = admin_json(database, "audit", "--event", "account.updated", "--limit", "500")["events"]
    fields = [(e["accountId"], e["actor"].split(":")[0], e["detail"]["fields"]) for e in reversed(trail)]
    assert fields[0] == (ada, "cli", "username,email,emailVerified,groups"), fields
    assert (ada, "admin", "email,emailVerified,groups") in fields and (grace, "person", "username") in fields
    assert (grace, "person", "credo,username") in fields
    text = json.dumps(trail)
    assert "example.org" not in text and "Example.COM" not in text and "a@b.example" not in text


# ---- Apps with access


def grant_rows(server, account, client, *, consent=None, live=True, scope="openid profile", at=None, refreshed=None):
    """A consent and a grant as the provider's endpoints will write them (migration 12's tables)."""
    current = int(time.time() * 1000)
    now = current if at is None else at
    with sqlite3.connect(sqlite_path(server), timeout=10) as connection:
        if consent is not None:
            connection.execute("INSERT INTO oidc_consents (account_id, client_id, scopes, granted_at) VALUES (?, ?, ?, ?)",
                               (account, client, consent, now))
        grant = f"g{now}{client}{account[:6]}{os.urandom(4).hex()}"
        expires = current + 3_600_000 if live else current - 1000
        connection.execute(
            "INSERT INTO oidc_grants (id, client_id, account_id, session_hash, scope, nonce, auth_time, amr, created_at, expires_at, revoked_at)"
            " VALUES (?, ?, ?, NULL, ?, NULL, ?, 'hwk user', ?, ?, NULL)", (grant, client, account, scope, now, now, expires))
        if refreshed is not None:
            connection.execute("INSERT INTO oidc_refresh_tokens (token_hash, grant_id, issued_at, used_at) VALUES (?, ?, ?, NULL)",
                               (os.urandom(32), grant, refreshed))
    return grant


def test_apps_with_access_listed_and_taken_back(server):
    database = server.database
    ada, ada_token, _ = person(server, "Ada Lovelace")
    grace, grace_token, _ = person(server, "Grace Hopper")
    grafana = admin_json(database, "clients", "add", "Grafana", "--redirect-uri", "https://grafana.example.com/cb")["client"]["id"]
    wiki = admin_json(database, "clients", "add", "Wiki", "--first-party", "--redirect-uri", "https://wiki.example.com/cb",
                      "--scope", "openid profile groups offline_access")["client"]["id"]
    old = admin_json(database, "clients", "add", "Old app", "--redirect-uri", "https://old.example.com/cb")["client"]["id"]
    assert server.call("GET", "/api/account/apps", token=ada_token) == (200, [])

    day = 86_400_000
    now = int(time.time() * 1000)
    first = grant_rows(server, ada, grafana, consent="openid profile email", scope="openid profile", at=now - 3 * day)
    second = grant_rows(server, ada, grafana, scope="openid email", at=now - day, refreshed=now - 1000)
    grant_rows(server, ada, wiki, scope="openid groups offline_access", at=now - 2 * day)  # first-party: no consent asked
    grant_rows(server, ada, old, live=False, at=now - 5 * day)  # over: not listed
    grant_rows(server, grace, grafana, consent="openid", scope="openid")

    status, apps = server.call("GET", "/api/account/apps", token=ada_token)
    assert status == 200, apps
    assert [(a["clientId"], a["name"], a["scopes"]) for a in apps] == [
        (grafana, "Grafana", ["openid", "profile", "email"]), (wiki, "Wiki", ["openid", "groups", "offline_access"])], apps
    by_id = {a["clientId"]: a for a in apps}
    assert by_id[grafana]["consentedAt"].startswith(time.strftime("%Y-%m-%d", time.gmtime((now - 3 * day) / 1000)))
    assert by_id[grafana]["lastUsedAt"] > by_id[wiki]["lastUsedAt"], apps
    assert [a["clientId"] for a in server.call("GET", "/api/account/apps", token=grace_token)[1]] == [grafana]

    # Take Grafana's access back: the consent goes and every grant of Ada's for it is revoked, in one go.
    status, body, _ = server.raw("DELETE", f"/api/account/apps/{grafana}", body=None, token=ada_token)
    assert status == 204, body
    assert query(server, "SELECT count(*) FROM oidc_consents WHERE account_id = ? AND client_id = ?", ada, grafana) == [(0,)]
    revoked = dict(query(server, "SELECT id, revoked_at FROM oidc_grants WHERE account_id = ? AND client_id = ?", ada, grafana))
    assert set(revoked) == {first, second} and all(at is not None and at >= now for at in revoked.values()), revoked
    assert query(server, "SELECT revoked_at FROM oidc_grants WHERE account_id = ? AND client_id = ?", grace, grafana) == [(None,)]
    assert query(server, "SELECT count(*) FROM oidc_consents WHERE account_id = ?", grace) == [(1,)]
    assert [a["clientId"] for a in server.call("GET", "/api/account/apps", token=ada_token)[1]] == [wiki]

    # Again, or someone else's, or nothing at all: 404.
    for client in (grafana, old, "nobody"):
        status, body, _ = server.raw("DELETE", f"/api/account/apps/{client}", body=None, token=ada_token)
        assert status == 404 and body["error"]["code"] == "unknown_app", (client, body)
    status, body, _ = server.raw("DELETE", f"/api/account/apps/{wiki}", body=None, token=None)
    assert status == 401
    status, body, _ = server.raw("DELETE", f"/api/account/apps/{wiki}", body=None, token=ada_token)
    assert status == 204
    assert server.call("GET", "/api/account/apps", token=ada_token) == (200, [])

    # Audited as the person did it, naming the client; the person's own history shows it too.
    trail = admin_json(database, "audit", "--event", "oidc.grant_revoked", "--account", ada)["events"]
    assert [(e["actor"], e["detail"]["client"], e["detail"]["clientName"]) for e in trail] == [
        ("person", wiki, "Wiki"), ("person", grafana, "Grafana")], trail
    assert trail[0]["clientAddress"] == "127.0.0.1"
    status, mine = server.call("GET", "/api/account/events", token=ada_token)
    assert [e["event"] for e in mine["events"]][:2] == ["oidc.grant_revoked", "oidc.grant_revoked"]

    # Removing a client takes what people gave it with it.
    admin(database, "clients", "remove", grafana)
    assert server.call("GET", "/api/account/apps", token=grace_token) == (200, [])
    assert query(server, "SELECT count(*) FROM oidc_grants WHERE client_id = ?", grafana) == [(0,)]
