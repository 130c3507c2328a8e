"""OpenID Connect Back-Channel Logout 1.0 against the binary, with two relying parties' receivers written here
(plain http.server on 127.0.0.1, so the provider runs with --webhook-allow-private, as Tests/Webhooks does).
Each receiver checks what §2.6 asks of a relying party with PyJWT, not with the server's code: the form's
`logout_token`, its signature against the provider's JWKS, the `typ` `logout+jwt`, `iss`, `aud` (its own
client), `iat` (recent), `exp`, the one `events` member, `sid` and/or `sub`, no `nonce`, and a `jti` never seen
before. On each of the four triggers — the person logs out, an operator revokes their sessions, the account
is disabled, the person removes the app — and a receiver that is down gets the token once it is back."""
import http.server
import threading
import time
import urllib.parse

import jwt
import pytest

from oidc_support import ALL_SCOPES, Provider

EVENT = "http://schemas.openid.net/event/backchannel-logout"
CALLBACK = "https://bcl.example.test/callback"


class Receiver:
    """A relying party's back-channel logout endpoint: keeps each logout token it takes (200), or answers
    503 while `down` (counting those)."""

    def __init__(self):
        self.tokens = []
        self.refused = 0
        self.down = False
        receiver = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                if receiver.down:
                    receiver.refused += 1
                    self.send_response(503)
                    self.end_headers()
                    return
                assert self.headers.get("Content-Type", "").startswith("application/x-www-form-urlencoded")
                form = urllib.parse.parse_qs(body.decode())
                receiver.tokens.append(form["logout_token"][0])
                self.send_response(200)
                self.send_header("Cache-Control", "no-store")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/backchannel-logout"

    def stop(self):
        self.server.shutdown()
        self.server.server_close()

    def wait_for(self, count, timeout=15):
        deadline = time.time() + timeout
        while len(self.tokens) < count and time.time() < deadline:
            time.sleep(0.05)
        assert len(self.tokens) >= count, f"{len(self.tokens)} logout tokens, expected {count}"
        time.sleep(0.3)  # nothing more should come
        assert len(self.tokens) == count, f"{len(self.tokens)} logout tokens, expected {count}"


@pytest.fixture(scope="module")
def provider():
    instance = Provider("--webhook-allow-private", "--webhook-retry-delay", "1")
    yield instance
    instance.stop()


@pytest.fixture
def receivers():
    made = [Receiver(), Receiver()]
    yield made
    for receiver in made:
        receiver.stop()


def verified(provider, token, client_id, seen):
    """The logout token's claims, after every check of Back-Channel Logout 1.0 §2.6."""
    header = jwt.get_unverified_header(token)
    assert header["typ"] == "logout+jwt" and header["alg"] in ("ES256", "RS256"), header
    key = next(jwt.PyJWK(k) for k in provider.jwks()["keys"] if k["kid"] == header["kid"])
    claims = jwt.decode(token, key.key, algorithms=[header["alg"]], audience=client_id, issuer=provider.issuer,
                        options={"require": ["iss", "aud", "iat", "exp", "jti"]})
    assert claims["events"] == {EVENT: {}}, claims
    assert "nonce" not in claims, claims
    assert claims.get("sub") or claims.get("sid"), claims
    assert abs(time.time() - claims["iat"]) < 60, claims
    assert claims["jti"] not in seen, "a jti seen before"
    seen.add(claims["jti"])
    return claims


def relying_parties(provider, receivers):
    clients = []
    for index, receiver in enumerate(receivers):
        client_id, secret, _ = provider.add_client(f"Back-channel app {index}", [CALLBACK], scopes=ALL_SCOPES)
        response = provider.http.patch(provider.url(f"/api/admin/clients/{client_id}"), json={"backchannelLogoutUri": receiver.url},
                                       headers={"Authorization": f"Bearer {provider.admin_key()}"}, timeout=30)
        assert response.status_code == 200 and response.json()["client"]["backchannelLogoutUri"] == receiver.url, response.text
        clients.append((client_id, secret))
    return clients


def signed_in(provider, person, clients):
    """Signs `person` in to every client with their current session: the id_tokens' common `sid`."""
    sids = set()
    for client_id, secret in clients:
        tokens = provider.exchange(provider.code_for(person, client_id, CALLBACK, "openid profile"), client_id, secret)
        sids.add(jwt.decode(tokens["id_token"], options={"verify_signature": False})["sid"])
    assert len(sids) == 1, sids
    sid = sids.pop()
    assert sid not in person.token
    return sid


def test_discovery_says_back_channel_logout_is_supported(provider):
    assert provider.discovery["backchannel_logout_supported"] is True
    assert provider.discovery["backchannel_logout_session_supported"] is True


@pytest.mark.parametrize("trigger", ["logout", "operator revokes sessions", "account disabled", "account deleted by the person",
                                     "account deleted by an operator"])
def test_a_session_ending_reaches_both_apps(provider, receivers, trigger):
    clients = relying_parties(provider, receivers)
    person = provider.person(f"Back-channel {trigger}")
    sid = signed_in(provider, person, clients)
    if trigger == "logout":
        assert provider.http.post(provider.url("/api/logout"), headers={"Authorization": f"Bearer {person.token}"},
                                  timeout=10).status_code < 300
    elif trigger == "operator revokes sessions":
        provider.admin("sessions", "revoke", person.account_id)
    elif trigger == "account deleted by the person":
        assert provider.http.delete(provider.url("/api/account"), headers={"Authorization": f"Bearer {person.token}"},
                                    timeout=10).status_code == 204
    elif trigger == "account deleted by an operator":
        provider.admin("accounts", "delete", person.account_id)  # the latchkey admin process queues; the server delivers
    else:
        provider.admin("accounts", "disable", person.account_id)
    seen = set()
    for receiver, (client_id, _) in zip(receivers, clients):
        receiver.wait_for(1)
        claims = verified(provider, receiver.tokens[0], client_id, seen)
        assert (claims["sid"], claims["sub"]) == (sid, person.account_id), claims


def test_removing_the_app_reaches_that_app_only(provider, receivers):
    clients = relying_parties(provider, receivers)
    person = provider.person("Back-channel removal")
    signed_in(provider, person, clients)
    removed_id = clients[0][0]
    response = provider.http.delete(provider.url(f"/api/account/apps/{removed_id}"),
                                    headers={"Authorization": f"Bearer {person.token}"}, timeout=10)
    assert response.status_code == 204, response.text
    receivers[0].wait_for(1)
    claims = verified(provider, receivers[0].tokens[0], removed_id, set())
    assert claims["sub"] == person.account_id and "sid" not in claims, claims
    time.sleep(0.5)
    assert receivers[1].tokens == [], "the other app was not removed"


def test_a_receiver_that_is_down_gets_it_later(provider, receivers):
    clients = relying_parties(provider, receivers)
    person = provider.person("Back-channel retry")
    sid = signed_in(provider, person, clients)
    receivers[1].down = True
    assert provider.http.post(provider.url("/api/logout"), headers={"Authorization": f"Bearer {person.token}"},
                              timeout=10).status_code < 300
    receivers[0].wait_for(1)
    deadline = time.time() + 15
    while receivers[1].refused == 0 and time.time() < deadline:
        time.sleep(0.05)
    assert receivers[1].refused >= 1 and receivers[1].tokens == []
    receivers[1].down = False
    receivers[1].wait_for(1, timeout=30)
    seen = set()
    for receiver, (client_id, _) in zip(receivers, clients):
        assert verified(provider, receiver.tokens[0], client_id, seen)["sid"] == sid


def test_a_bad_back_channel_logout_uri_is_refused(provider):
    client_id, _, _ = provider.add_client("Back-channel rules", [CALLBACK])
    for uri in ["http://bcl.example.test/logout", "https://bcl.example.test/logout#f", "javascript:alert(1)"]:
        response = provider.http.patch(provider.url(f"/api/admin/clients/{client_id}"), json={"backchannelLogoutUri": uri},
                                       headers={"Authorization": f"Bearer {provider.admin_key()}"}, timeout=30)
        assert response.status_code == 422 and response.json()["error"]["code"] == "backchannel_logout_uri_invalid", response.text
    refused = provider.admin("clients", "update", client_id, "--backchannel-logout-uri", "ftp://x.example/", expect=2)
    assert "backchannel_logout_uri_invalid" in refused.stderr, refused.stderr
