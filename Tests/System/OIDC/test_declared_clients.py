"""Clients declared in the configuration file (`[[oidc-client]]` in latchkey.toml, docs/oidc.md) against the real
binary: a declared confidential client (its secret in an owner-only `secret-file`) signs a person in with authlib,
its id_token checked by authlib's own code; the CLI and the admin API refuse to change or remove it (409
`client_managed`, naming the file); `latchkey admin clients export` prints the clients as tables (the secret as
its SHA-256 only) which, given back as the file, adopt a hand-made client with nothing else changed; a changed
file updates and removes at the next start; three instances starting at once on one PostgreSQL with the same
file make one copy of each client.
"""
import concurrent.futures
import hashlib
import json
import os
import secrets
import subprocess

import pytest
import requests

import test_authlib_client as authlib_flow
from latchkey_server import Server, admin
from oidc_support import Provider
from processes import PrivatePostgres, latchkey_binary

REDIRECT = authlib_flow.REDIRECT


def write_private(path, text):
    path.write_text(text)
    os.chmod(path, 0o600)


def declared(secret_file, wiki_name="Team wiki", with_app=True):
    text = f"""oidc = true

[[oidc-client]]
id = "wiki"
name = "{wiki_name}"
redirect-uri = ["{REDIRECT}"]
scope = ["openid", "profile", "email"]
id-token-alg = "ES256"
secret-file = "{secret_file}"
"""
    if with_app:
        text += """
[[oidc-client]]
id = "mobile-app"
name = "Mobile app"
public = true
redirect-uri = "com.example.app:/callback"
"""
    return text


def restart(provider):
    """Stops the serving process (SIGTERM) and starts it again on the same port, database and files."""
    provider.server.process.terminate()
    provider.server.process.wait(timeout=30)
    provider.server.start()
    provider._discovery = None


def clients(provider):
    return {client["id"]: client for client in json.loads(provider.admin("clients", "list", "--json").stdout)}


def audit(text):
    """The events of `latchkey admin audit --json` (the admin API's page, or a bare list)."""
    data = json.loads(text)
    return data["events"] if isinstance(data, dict) else data


def sign_in(provider, client_id, secret, name):
    person = provider.person(name)
    session = authlib_flow.session_for(provider, client_id, secret)
    token, nonce = authlib_flow.run_flow(provider, person, session)
    claims = authlib_flow.verified_id_token(provider, token, client_id, "ES256", nonce)
    assert claims["sub"] == person.account_id and claims["aud"] == client_id


def test_a_declared_client_signs_in_is_refused_to_the_admin_and_exports_round_trip(tmp_path):
    secret = "lk_client_" + secrets.token_urlsafe(32)
    secret_file = tmp_path / "wiki.secret"
    write_private(secret_file, secret + "\n")
    config = tmp_path / "latchkey.toml"
    write_private(config, declared(secret_file))
    provider = Provider("--config", str(config))
    try:
        made = clients(provider)
        assert set(made) == {"wiki", "mobile-app"}, made
        assert made["wiki"]["managedBy"] == str(config) and made["wiki"]["createdBy"] == "configuration", made["wiki"]
        assert made["mobile-app"]["public"] is True
        sign_in(provider, "wiki", secret, "Declared Wiki")

        # The operator's tools refuse to change it, naming the file.
        for arguments in (["clients", "update", "wiki", "--name", "Changed"], ["clients", "remove", "wiki"],
                          ["clients", "rotate-secret", "wiki"]):
            refused = provider.admin(*arguments, expect=1)  # refused
            assert "client_managed" in refused.stderr and str(config) in refused.stderr, (arguments, refused.stderr)
        headers = {"Authorization": f"Bearer {provider.admin_key()}"}
        for method, path, body in (("PATCH", "/api/admin/clients/wiki", {"name": "Changed"}),
                                   ("DELETE", "/api/admin/clients/wiki", None),
                                   ("POST", "/api/admin/clients/wiki/secret", None)):
            reply = provider.http.request(method, provider.url(path), json=body, headers=headers, timeout=30)
            assert reply.status_code == 409 and reply.json()["error"]["code"] == "client_managed", reply.text
            assert str(config) in reply.json()["error"]["message"]
        assert clients(provider)["wiki"]["name"] == "Team wiki"

        # A client made by hand, then every client exported and given back as the file: adopted, and nothing else moves.
        hand_id, hand_secret, _ = provider.add_client("Made by hand", [REDIRECT], alg="ES256")
        exported = provider.admin("clients", "export").stdout
        assert exported.count("[[oidc-client]]") == 3, exported
        assert secret not in exported and hand_secret not in exported
        assert f'secret-hash = "sha256:{hashlib.sha256(secret.encode()).hexdigest()}"' in exported, exported
        assert f'secret-hash = "sha256:{hashlib.sha256(hand_secret.encode()).hexdigest()}"' in exported, exported
        write_private(config, "oidc = true\n" + exported)
        before = clients(provider)
        restart(provider)
        after = clients(provider)
        assert after[hand_id]["managedBy"] == str(config) and after[hand_id]["createdBy"].startswith("admin:"), after[hand_id]
        for client_id in ("wiki", "mobile-app"):
            assert after[client_id] == before[client_id], (before[client_id], after[client_id])
        sign_in(provider, hand_id, hand_secret, "Adopted")
        sign_in(provider, "wiki", secret, "Still the same secret")
        log = provider.server.log_text()
        assert "created=" in log and hand_id in log

        # The file changed: the wiki renamed, the others no longer declared — removed at the next start.
        write_private(config, declared(secret_file, wiki_name="Wiki", with_app=False))
        restart(provider)
        now = clients(provider)
        assert set(now) == {"wiki"} and now["wiki"]["name"] == "Wiki", now
        events = [event["event"] for event in audit(provider.admin("audit", "--json", "--limit", "500").stdout)
                  if event["actor"] == "configuration"]
        assert events.count("oidc_client.removed") == 2 and events.count("oidc_client.created") == 2, events
    finally:
        provider.stop()


def test_a_bad_table_stops_the_start_with_its_name(tmp_path):
    config = tmp_path / "latchkey.toml"
    write_private(config, 'oidc = true\n[[oidc-client]]\nid = "bad"\nname = "Bad"\npublic = true\nredirect-uri = "http://bad.example/cb"\n')
    result = subprocess.run(
        [latchkey_binary(), "serve", "--config", str(config), "--port", "0", "--origin", "http://localhost:8080",
         "--database", f"sqlite:{tmp_path}/db.sqlite"],
        capture_output=True, text=True, timeout=60, env={**os.environ, "LATCHKEY_KEY_FILE": str(tmp_path / "k")})
    assert result.returncode == 2, result.stderr
    assert "the openid connect client bad ([[oidc-client]] number 1 in" in result.stderr.lower() and "redirect_uri_invalid" in result.stderr, result.stderr


@pytest.mark.skipif(not PrivatePostgres.installed(), reason="PostgreSQL 15 is not installed (scripts/provision)")
def test_three_instances_starting_at_once_on_postgresql_make_one_copy(tmp_path):
    secret_file = tmp_path / "wiki.secret"
    write_private(secret_file, "lk_client_" + secrets.token_urlsafe(32))
    config = tmp_path / "latchkey.toml"
    write_private(config, declared(secret_file))
    postgres = PrivatePostgres().up()
    env = {"LATCHKEY_KEY_FILE": str(tmp_path / "latchkey.key")}
    servers = []
    try:
        with concurrent.futures.ThreadPoolExecutor(3) as pool:
            starting = [pool.submit(Server, "--oidc", "--config", str(config), database=postgres.url, env=env) for _ in range(3)]
            for future in starting:
                servers.append(future.result())
        for server in servers:
            assert server.alive() and requests.get(server.base + "/readyz", timeout=10).status_code == 200
        listed = json.loads(admin(postgres.url, "clients", "list", "--json").stdout)
        assert sorted(client["id"] for client in listed) == ["mobile-app", "wiki"], listed
        events = audit(admin(postgres.url, "audit", "--json", "--limit", "500").stdout)
        created = [event for event in events if event["event"] == "oidc_client.created"]
        assert len(created) == 2 and all(event["actor"] == "configuration" for event in created), created
        assert not [event for event in events if event["event"] in ("oidc_client.updated", "oidc_client.removed")], events
    finally:
        for server in servers:
            server.stop()
        postgres.down()
