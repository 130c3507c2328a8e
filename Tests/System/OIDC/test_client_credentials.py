"""The client-credentials grant (RFC 6749 §4.4) against `latchkey serve --oidc`, with authlib (PyPI) as the
client: `OAuth2Session.fetch_token(grant_type="client_credentials")` with client_secret_basic and
client_secret_post. The client is made with the operator's CLI (`latchkey admin clients add … --grant
client_credentials --api-scope …`); the token is for the client itself (`sub`), carries only the API scopes
the operator gave it, is active at introspection, reaches no UserInfo, and ends when the secret is rotated or
the client removed. Every issue is in the audit trail without an account."""
import base64
import json
import os
import warnings

os.environ["AUTHLIB_INSECURE_TRANSPORT"] = "1"
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    from authlib.integrations.requests_client import OAuth2Session
    from authlib.integrations.base_client.errors import OAuthError
    from authlib.jose import JsonWebKey, JsonWebToken

import pytest


def add_machine(provider, name, *extra):
    """`latchkey admin clients add NAME --grant client_credentials --api-scope …`: (client id, secret)."""
    made = json.loads(provider.admin("clients", "add", name, "--grant", "client_credentials",
                                     "--api-scope", "reports:read", "--api-scope", "reports:write", *extra, "--json").stdout)
    assert made["client"]["grantTypes"] == ["client_credentials"], made
    assert made["client"]["apiScopes"] == ["reports:read", "reports:write"], made
    assert made["client"]["redirectUris"] == [], made
    return made["client"]["id"], made["clientSecret"]


@pytest.mark.parametrize("method", ["client_secret_basic", "client_secret_post"])
def test_authlib_gets_a_token_for_the_client_itself(provider, method):
    client_id, secret = add_machine(provider, f"Reporting job ({method})")
    assert "client_credentials" in provider.discovery["grant_types_supported"]
    session = OAuth2Session(client_id, secret, token_endpoint_auth_method=method, scope="reports:read")
    token = session.fetch_token(provider.endpoint("token_endpoint"), grant_type="client_credentials")
    assert token["token_type"] == "Bearer" and token["scope"] == "reports:read", token
    assert "id_token" not in token and "refresh_token" not in token, token

    # The token is the provider's JWT, verified with its published keys by authlib's own code.
    claims = JsonWebToken(["ES256"]).decode(token["access_token"], JsonWebKey.import_key_set(provider.jwks()))
    claims.validate()
    assert claims["sub"] == client_id and claims["client_id"] == client_id and claims["iss"] == provider.discovery["issuer"]
    assert "auth_time" not in claims and "amr" not in claims, dict(claims)

    introspected = provider.introspect(token["access_token"])
    assert introspected["active"] is True and introspected["sub"] == client_id and introspected["scope"] == "reports:read"
    assert provider.userinfo(token["access_token"]).status_code == 401

    events = json.loads(provider.admin("audit", "--event", "oidc.client_credentials_issued", "--json").stdout)["events"]
    mine = [event for event in events if event["detail"].get("client") == client_id]
    assert len(mine) == 1 and mine[0]["accountId"] is None and mine[0]["detail"]["scope"] == "reports:read", mine


def test_scopes_and_clients_that_may_not(provider):
    client_id, secret = add_machine(provider, "Scoped job")
    session = OAuth2Session(client_id, secret, scope="reports:read admin")
    with pytest.raises(OAuthError) as refused:
        session.fetch_token(provider.endpoint("token_endpoint"), grant_type="client_credentials")
    assert refused.value.error == "invalid_scope"
    # None asked: all of its API scopes.
    everything = OAuth2Session(client_id, secret).fetch_token(provider.endpoint("token_endpoint"), grant_type="client_credentials")
    assert everything["scope"] == "reports:read reports:write"
    # A web app's client was not allowed the grant; a public client cannot be.
    web_id, web_secret, _ = provider.add_client("Web app", ["https://web.example.test/cb"])
    with pytest.raises(OAuthError) as unauthorized:
        OAuth2Session(web_id, web_secret).fetch_token(provider.endpoint("token_endpoint"), grant_type="client_credentials")
    assert unauthorized.value.error == "unauthorized_client"
    refused_cli = provider.admin("clients", "add", "Public job", "--public", "--grant", "client_credentials", expect=2)
    assert "client_credentials" in refused_cli.stderr, refused_cli.stderr
    # The operator allows it later, with `update`.
    provider.admin("clients", "update", web_id, "--grant", "authorization_code", "--grant", "client_credentials",
                   "--api-scope", "web:sync")
    allowed = OAuth2Session(web_id, web_secret).fetch_token(provider.endpoint("token_endpoint"), grant_type="client_credentials")
    assert allowed["scope"] == "web:sync"


def test_rotation_and_removal_end_the_tokens(provider):
    client_id, secret = add_machine(provider, "Rotated job")
    token = OAuth2Session(client_id, secret).fetch_token(provider.endpoint("token_endpoint"), grant_type="client_credentials")
    assert provider.introspect(token["access_token"])["active"] is True
    rotated = provider.admin("clients", "rotate-secret", client_id)
    new_secret = next(line.strip() for line in rotated.stdout.splitlines() if line.strip().startswith("lk_client_"))
    assert provider.introspect(token["access_token"]) == {"active": False}
    with pytest.raises(OAuthError) as old:
        OAuth2Session(client_id, secret).fetch_token(provider.endpoint("token_endpoint"), grant_type="client_credentials")
    assert old.value.error == "invalid_client"
    fresh = OAuth2Session(client_id, new_secret).fetch_token(provider.endpoint("token_endpoint"), grant_type="client_credentials")
    assert provider.introspect(fresh["access_token"])["active"] is True
    provider.admin("clients", "remove", client_id)
    assert provider.introspect(fresh["access_token"]) == {"active": False}


def test_authlib_private_key_jwt(provider):
    """authlib's `PrivateKeyJWT` (RFC 7523) signs the client assertion with the client's EC key; the operator
    registered only the public key (`--jwks-file`), and the client has no secret."""
    import tempfile
    from authlib.oauth2.rfc7523 import PrivateKeyJWT

    # authlib drops a coordinate's leading zero bytes (about one key in 128), which RFC 7518 §6.2.1.2 does not
    # allow and the server refuses (jwks_invalid, checked in Swift): draw until both are 32 bytes.
    while True:
        key = JsonWebKey.generate_key("EC", "P-256", is_private=True)
        public = dict(key.as_dict(), kid="job-key-1", alg="ES256", use="sig")
        if all(len(base64.urlsafe_b64decode(public[c] + "=" * (-len(public[c]) % 4))) == 32 for c in "xy"):
            break
    with tempfile.NamedTemporaryFile("w", suffix=".json") as jwks:
        json.dump({"keys": [public]}, jwks)
        jwks.flush()
        made = json.loads(provider.admin("clients", "add", "Signed job", "--grant", "client_credentials", "--api-scope", "jobs:run",
                                         "--jwks-file", jwks.name, "--json").stdout)
    assert made["clientSecret"] is None and made["client"]["public"] is False, made
    client_id = made["client"]["id"]
    assert "private_key_jwt" in provider.discovery["token_endpoint_auth_methods_supported"]

    # The assertion's audience is the token endpoint as discovery names it; the request goes to it locally.
    auth = PrivateKeyJWT(provider.discovery["token_endpoint"], headers={"kid": "job-key-1"}, alg="ES256")
    session = OAuth2Session(client_id, key.as_dict(is_private=True), token_endpoint_auth_method=auth)
    token = session.fetch_token(provider.endpoint("token_endpoint"), grant_type="client_credentials")
    assert token["scope"] == "jobs:run" and provider.introspect(token["access_token"])["sub"] == client_id
    # A second request signs a new assertion (a new jti): fine. The same assertion twice is not.
    assert session.fetch_token(provider.endpoint("token_endpoint"), grant_type="client_credentials")["access_token"]
    # One assertion signed by authlib's own function, presented twice by hand: the second is a replay.
    from authlib.oauth2.rfc7523 import private_key_jwt_sign
    assertion = private_key_jwt_sign(key.as_dict(is_private=True), client_id, provider.discovery["token_endpoint"], alg="ES256",
                                     headers={"kid": "job-key-1"})
    form = {"grant_type": "client_credentials", "client_assertion_type": "urn:ietf:params:oauth:client-assertion-type:jwt-bearer",
            "client_assertion": assertion}
    first = provider.http.post(provider.endpoint("token_endpoint"), data=form, timeout=10)
    assert first.status_code == 200, first.text
    again = provider.http.post(provider.endpoint("token_endpoint"), data=form, timeout=10)
    assert (again.status_code, again.json()["error"]) == (401, "invalid_client"), again.text
    # Its id alone, or a secret, is nothing.
    bare = provider.http.post(provider.endpoint("token_endpoint"), data={"grant_type": "client_credentials", "client_id": client_id}, timeout=10)
    assert bare.status_code == 401, bare.text


def test_authlib_private_key_jwt_with_published_keys(tmp_path):
    """The client publishes its keys (`--jwks-uri`, a JWKS served over HTTP here by `http.server` on 127.0.0.1) rather
    than registering them: Latchkey fetches them when authlib's assertion needs them — only with
    `--webhook-allow-private`, since the address is loopback — and keeps them, so two requests fetch once."""
    import http.server
    import threading
    from authlib.oauth2.rfc7523 import PrivateKeyJWT

    from oidc_support import Provider

    while True:
        key = JsonWebKey.generate_key("EC", "P-256", is_private=True)
        public = dict(key.as_dict(), kid="published-1", alg="ES256", use="sig")
        if all(len(base64.urlsafe_b64decode(public[c] + "=" * (-len(public[c]) % 4))) == 32 for c in "xy"):
            break
    document = json.dumps({"keys": [public]}).encode()
    fetched = []

    class Keys(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            fetched.append(self.path)
            self.send_response(200)
            self.send_header("Content-Type", "application/jwk-set+json")
            self.send_header("Content-Length", str(len(document)))
            self.end_headers()
            self.wfile.write(document)

        def log_message(self, *args):
            pass

    keys = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Keys)
    threading.Thread(target=keys.serve_forever, daemon=True).start()
    uri = f"http://127.0.0.1:{keys.server_address[1]}/jwks.json"
    providers = []
    try:
        for allow_private in (True, False):
            provider = Provider(*(["--webhook-allow-private"] if allow_private else []))
            providers.append(provider)
            made = json.loads(provider.admin("clients", "add", "Published keys", "--grant", "client_credentials", "--api-scope", "jobs:run",
                                             "--jwks-uri", uri, "--json").stdout)
            assert made["clientSecret"] is None and made["client"]["jwksUri"] == uri, made
            client_id = made["client"]["id"]
            auth = PrivateKeyJWT(provider.discovery["token_endpoint"], headers={"kid": "published-1"}, alg="ES256")
            session = OAuth2Session(client_id, key.as_dict(is_private=True), token_endpoint_auth_method=auth)
            before = len(fetched)
            if allow_private:
                for _ in range(2):
                    token = session.fetch_token(provider.endpoint("token_endpoint"), grant_type="client_credentials")
                    assert token["scope"] == "jobs:run" and provider.introspect(token["access_token"])["sub"] == client_id
                assert fetched[before:] == ["/jwks.json"], fetched
            else:
                with pytest.raises(OAuthError) as refused:
                    session.fetch_token(provider.endpoint("token_endpoint"), grant_type="client_credentials")
                assert refused.value.error == "invalid_client"
                assert len(fetched) == before, "a loopback address is never fetched without --webhook-allow-private"
    finally:
        for provider in providers:
            provider.stop()
        keys.shutdown()
        keys.server_close()
