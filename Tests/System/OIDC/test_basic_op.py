"""A "basic OP" suite against the real `latchkey serve --oidc`: one case per module of the OpenID Foundation's
conformance suite (the Basic OP test plan, `oidcc-*`), each with that module's expected outcome, then what
issue 31 adds: PKCE missing and wrong, refresh-token reuse ending the family, a code for one client used by
another, an open redirect tried every way, `alg: none` and HS256-with-the-public-key tokens, and client
authentication failures.

The client side is plain HTTP (requests) with PyJWT verifying the id_tokens from the JWKS; the user agent's
side is the page's JSON API with a soft-webauthn person's session (oidc_support). The conformance suite's
modules that test a relying party (oidcc-id-token-kid-absent-single-jwks and the like) are not here: they
have no OP-side outcome.
"""
import base64
import hashlib
import hmac
import json
import secrets
import time
import urllib.parse

import jwt
import pytest
from cryptography.hazmat.primitives import serialization

from oidc_support import ALL_SCOPES, left_hash, pkce_pair, query_of, without_query

CALLBACK = "https://rp.example.test/callback"
OTHER_CALLBACK = "https://other.example.test/callback"
LOGGED_OUT = "https://rp.example.test/logged-out"
LOOPBACK = "http://127.0.0.1/callback"  # a native app's redirect (RFC 8252 §7.3): any port
NATIVE = "com.example.app:/oauth2redirect"


class Clients:
    """The clients of this module, made once by the operator's CLI."""

    def __init__(self, provider):
        self.es256, self.es256_secret, _ = provider.add_client(
            "Basic OP ES256", [CALLBACK], post_logout_uris=[LOGGED_OUT])
        self.rs256, self.rs256_secret, _ = provider.add_client(
            "Basic OP RS256", [CALLBACK], alg="RS256", post_logout_uris=[LOGGED_OUT])
        self.other, self.other_secret, _ = provider.add_client("Another app", [OTHER_CALLBACK])
        self.public, _, _ = provider.add_client("Native app", [LOOPBACK, NATIVE], public=True)
        self.first_party, self.first_party_secret, _ = provider.add_client(
            "First-party app", [CALLBACK], first_party=True)


@pytest.fixture(scope="module")
def clients(provider):
    return Clients(provider)


# Helpers: the client's side.

def verify_id_token(provider, id_token, client_id, *, alg="ES256", nonce=None, access_token=None):
    """What a client must check (OpenID Connect Core §3.1.3.7), with PyJWT and the published keys: the
    signature by the key its `kid` names, `alg` as registered for the client, iss, aud, azp, exp, iat, sub,
    auth_time, the nonce sent, and at_hash. Returns the claims."""
    header = jwt.get_unverified_header(id_token)
    assert header["alg"] == alg, header
    assert header.get("kid"), header
    keys = [key for key in jwt.PyJWKSet.from_dict(provider.jwks()).keys if key.key_id == header["kid"]]
    assert len(keys) == 1, f"the JWKS has {len(keys)} keys with kid {header['kid']}"
    claims = jwt.decode(id_token, keys[0].key, algorithms=[alg], audience=client_id, issuer=provider.issuer,
                        options={"require": ["iss", "sub", "aud", "exp", "iat", "auth_time"]})
    assert claims.get("azp", client_id) == client_id, claims
    assert isinstance(claims["sub"], str) and 0 < len(claims["sub"]) <= 255, claims
    assert claims["exp"] > claims["iat"], claims
    assert claims["auth_time"] <= claims["iat"], claims
    assert abs(claims["iat"] - time.time()) < 300, "iat is not this machine's now"
    assert isinstance(claims.get("amr"), list) and claims["amr"], claims
    if nonce is None:
        assert "nonce" not in claims, claims
    else:
        assert claims["nonce"] == nonce, claims
    if access_token is not None:
        assert claims["at_hash"] == left_hash(access_token), claims
    return claims


def token_error(response, status, error):
    """An RFC 6749 §5.2 error answer: `status`, JSON `{"error": error, …}`, not cached."""
    assert response.status_code == status, response.text
    body = response.json()
    assert body.get("error") == error, body
    assert "no-store" in response.headers.get("Cache-Control", ""), response.headers
    return body


def assert_error_page(response):
    """A bad client_id or redirect_uri: Latchkey's own error page, never a redirect (RFC 6749 §4.1.2.1)."""
    assert response.status_code == 400, (response.status_code, response.headers, response.text[:300])
    assert "Location" not in response.headers, response.headers
    assert response.headers.get("Content-Type", "").startswith("text/html"), response.headers


def error_redirect(response, redirect_uri, error, state=None, issuer=None):
    """An error sent back to the client: 303 to its redirect_uri with error, state and iss. Returns the
    parameters."""
    assert response.status_code in (302, 303), (response.status_code, response.text[:300])
    location = response.headers["Location"]
    assert without_query(location) == redirect_uri, location
    answer = query_of(location)
    assert answer.get("error") == error, answer
    assert "code" not in answer, answer
    if state is not None:
        assert answer.get("state") == state, answer
    if issuer is not None:
        assert answer.get("iss") == issuer, answer
    return answer


def authorize_params(client_id, redirect_uri=CALLBACK, scope="openid profile", **extra):
    params = {"response_type": "code", "client_id": client_id, "redirect_uri": redirect_uri, "scope": scope,
              "state": secrets.token_urlsafe(12), "nonce": secrets.token_urlsafe(12)}
    params.update(extra)
    return params


def userinfo_refused(response):
    """RFC 6750 §3.1: 401 with WWW-Authenticate: Bearer error="invalid_token" for a token that is not good."""
    assert response.status_code == 401, (response.status_code, response.text)
    challenge = response.headers.get("WWW-Authenticate", "")
    assert challenge.startswith("Bearer"), response.headers
    assert 'error="invalid_token"' in challenge, challenge


# oidcc-codereuse-30seconds: its code is used once when the module starts, and again at its end (after
# 30 seconds; the code itself lives 60), so the wait overlaps the other cases.

def code_used_once(provider, clients):
    person = provider.person("Early Bird")
    flow = provider.code_for(person, clients.es256, CALLBACK, "openid profile offline_access")
    tokens = provider.exchange(flow, clients.es256, clients.es256_secret)
    return {"flow": flow, "tokens": tokens, "used_at": time.monotonic()}


@pytest.fixture(scope="module", autouse=True)
def early_code(provider, clients):
    return code_used_once(provider, clients)


# The Basic OP modules.

def test_oidcc_discovery_endpoint_verification(provider):
    """Discovery 1.0 §3/§4 (the conformance suite's discovery checks): the issuer is the origin the document
    is served under, each endpoint is under it, and every supported value the contract names is there."""
    document = provider.discovery
    issuer = provider.issuer
    assert document["issuer"] == issuer
    for name, path in [("authorization_endpoint", "/authorize"), ("token_endpoint", "/oidc/token"),
                       ("userinfo_endpoint", "/oidc/userinfo"), ("jwks_uri", "/.well-known/jwks.json"),
                       ("end_session_endpoint", "/end-session"), ("revocation_endpoint", "/oidc/revoke"),
                       ("introspection_endpoint", "/api/introspect")]:
        assert document[name] == issuer + path, (name, document.get(name))
    assert document["response_types_supported"] == ["code"]
    assert set(document["grant_types_supported"]) == {"authorization_code", "refresh_token", "client_credentials",
                                                      "urn:ietf:params:oauth:grant-type:device_code"}
    assert document["device_authorization_endpoint"] == issuer + "/oidc/device"
    assert document["code_challenge_methods_supported"] == ["S256"]
    # Discovery §3: RS256 MUST be among the id_token algorithms.
    assert set(document["id_token_signing_alg_values_supported"]) == {"ES256", "RS256"}
    assert set(document["token_endpoint_auth_methods_supported"]) == {"client_secret_basic", "client_secret_post", "private_key_jwt", "none"}
    assert set(document["scopes_supported"]) >= set(ALL_SCOPES)
    assert document["subject_types_supported"] == ["public"]
    assert document["authorization_response_iss_parameter_supported"] is True
    assert {"sub", "iss", "aud", "exp", "iat", "auth_time", "nonce", "preferred_username", "email",
            "email_verified", "name", "groups"} <= set(document["claims_supported"])
    # Request objects are not supported (the default when absent is false for `request`, true for
    # `request_uri`, so that one must be said).
    assert document.get("request_parameter_supported", False) is False
    assert document.get("request_uri_parameter_supported") is False


def test_oidcc_server(provider, clients):
    """The code flow end to end: code, token, a valid id_token, userinfo with the same sub."""
    person = provider.person("Server Test", username="server-test")
    flow = provider.code_for(person, clients.es256, CALLBACK, pkce=False)
    tokens = provider.exchange(flow, clients.es256, clients.es256_secret)
    assert tokens["token_type"].lower() == "bearer"
    assert isinstance(tokens["expires_in"], int) and tokens["expires_in"] > 0
    assert "refresh_token" not in tokens, "a refresh token only with offline_access"
    assert set(tokens["scope"].split()) == {"openid", "profile"}
    claims = verify_id_token(provider, tokens["id_token"], clients.es256, nonce=flow["nonce"],
                             access_token=tokens["access_token"])
    assert claims["sub"] == person.account_id
    info = provider.userinfo(tokens["access_token"])
    assert info.status_code == 200, info.text
    assert info.headers["Content-Type"].startswith("application/json")
    assert info.json()["sub"] == claims["sub"]
    assert info.json()["preferred_username"] == "server-test"
    # The access token is a Latchkey JWT for this client: introspection says so.
    described = provider.introspect(tokens["access_token"])
    assert described["active"] is True and described["sub"] == person.account_id
    assert described["aud"] == clients.es256 or clients.es256 in described["aud"]
    assert (described["client_id"], set(described["scope"].split())) == (clients.es256, {"openid", "profile"}), described


def test_oidcc_codereuse(provider, clients):
    """A code used twice: the second use is invalid_grant, and what the first use issued (access and
    refresh token) is revoked (RFC 6749 §4.1.2, RFC 9700 §4.5)."""
    person = provider.person("Code Reuse")
    flow = provider.code_for(person, clients.es256, CALLBACK, "openid profile offline_access")
    first = provider.exchange(flow, clients.es256, clients.es256_secret)
    assert provider.userinfo(first["access_token"]).status_code == 200
    data = {"grant_type": "authorization_code", "code": flow["code"], "redirect_uri": CALLBACK,
            "code_verifier": flow["verifier"]}
    token_error(provider.token(data, clients.es256, clients.es256_secret), 400, "invalid_grant")
    assert provider.introspect(first["access_token"]) == {"active": False}
    userinfo_refused(provider.userinfo(first["access_token"]))
    refreshed = provider.token({"grant_type": "refresh_token", "refresh_token": first["refresh_token"]},
                               clients.es256, clients.es256_secret)
    token_error(refreshed, 400, "invalid_grant")


def test_oidcc_prompt_login(provider, clients):
    """prompt=login: a signed-in person is asked to sign in again (a passkey sign-in made after the
    request), and the new id_token's auth_time is that sign-in's."""
    person = provider.person("Prompt Login")
    first = provider.exchange(provider.code_for(person, clients.es256, CALLBACK), clients.es256, clients.es256_secret)
    first_claims = jwt.decode(first["id_token"], options={"verify_signature": False})
    time.sleep(1.1)  # auth_time is in whole seconds
    params = authorize_params(clients.es256, prompt="login")
    query = urllib.parse.urlencode(params)
    status, body = provider.authorization(query, token=person.token)
    assert (status, body.get("interaction")) == (200, "login"), body
    after = body["after"]
    # The session from before the request does not do, even with the stamp.
    status, again = provider.authorization(query, token=person.token, after=after)
    assert (status, again.get("interaction")) == (200, "login"), again
    person.sign_in()
    status, body = provider.authorization(query, token=person.token, after=after)
    assert status == 200 and "redirect" in body, body
    answer = query_of(body["redirect"])
    assert answer["state"] == params["state"] and "code" in answer, answer
    tokens = provider.exchange({"code": answer["code"], "params": params, "verifier": None}, clients.es256, clients.es256_secret)
    claims = verify_id_token(provider, tokens["id_token"], clients.es256, nonce=params["nonce"], access_token=tokens["access_token"])
    assert claims["auth_time"] > first_claims["auth_time"], (claims["auth_time"], first_claims["auth_time"])
    assert claims["sub"] == first_claims["sub"]


def test_oidcc_prompt_none_not_logged_in(provider, clients):
    """prompt=none with no session: error=login_required sent back to the client, with state and iss."""
    params = authorize_params(clients.es256, prompt="none")
    status, body = provider.authorization(urllib.parse.urlencode(params))
    assert status == 200 and "redirect" in body, body
    assert without_query(body["redirect"]) == CALLBACK
    answer = query_of(body["redirect"])
    assert answer["error"] == "login_required" and "code" not in answer, answer
    assert answer["state"] == params["state"] and answer["iss"] == provider.issuer, answer


def test_oidcc_prompt_none_consent_required(provider, clients):
    """prompt=none for a signed-in person who never allowed this (third-party) client: consent_required;
    a first-party client needs no consent and gets its code."""
    person = provider.person("Prompt None Consent")
    params = authorize_params(clients.rs256, prompt="none")
    status, body = provider.authorization(urllib.parse.urlencode(params), token=person.token)
    assert status == 200 and "redirect" in body, body
    answer = query_of(body["redirect"])
    assert answer["error"] == "consent_required" and answer["state"] == params["state"], answer
    params = authorize_params(clients.first_party, prompt="none")
    status, body = provider.authorization(urllib.parse.urlencode(params), token=person.token)
    assert status == 200 and "code" in query_of(body["redirect"]), body


def test_oidcc_prompt_none_logged_in(provider, clients):
    """prompt=none for a signed-in person who already allowed the client: the code, no interaction."""
    person = provider.person("Prompt None")
    provider.exchange(provider.code_for(person, clients.es256, CALLBACK), clients.es256, clients.es256_secret)
    flow = provider.code_for(person, clients.es256, CALLBACK, extra={"prompt": "none"})
    tokens = provider.exchange(flow, clients.es256, clients.es256_secret)
    verify_id_token(provider, tokens["id_token"], clients.es256, nonce=flow["nonce"], access_token=tokens["access_token"])


def test_oidcc_max_age_1(provider, clients):
    """max_age=1 after more than a second: the person signs in again, and auth_time says when."""
    person = provider.person("Max Age One")
    first = provider.exchange(provider.code_for(person, clients.es256, CALLBACK), clients.es256, clients.es256_secret)
    first_claims = jwt.decode(first["id_token"], options={"verify_signature": False})
    time.sleep(2.1)
    params = authorize_params(clients.es256, max_age="1")
    query = urllib.parse.urlencode(params)
    status, body = provider.authorization(query, token=person.token)
    assert (status, body.get("interaction")) == (200, "login"), body
    person.sign_in()
    status, body = provider.authorization(query, token=person.token, after=body["after"])
    assert status == 200 and "redirect" in body, body
    answer = query_of(body["redirect"])
    tokens = provider.exchange({"code": answer["code"], "params": params, "verifier": None}, clients.es256, clients.es256_secret)
    claims = verify_id_token(provider, tokens["id_token"], clients.es256, nonce=params["nonce"], access_token=tokens["access_token"])
    assert claims["auth_time"] > first_claims["auth_time"], "auth_time is the new sign-in's"


def test_oidcc_max_age_10000(provider, clients):
    """max_age=10000: no new sign-in; the id_token carries auth_time (Core §3.1.2.1), the first sign-in's."""
    person = provider.person("Max Age Long")
    first = provider.exchange(provider.code_for(person, clients.es256, CALLBACK), clients.es256, clients.es256_secret)
    first_claims = jwt.decode(first["id_token"], options={"verify_signature": False})
    flow = provider.code_for(person, clients.es256, CALLBACK, extra={"max_age": "10000"})
    tokens = provider.exchange(flow, clients.es256, clients.es256_secret)
    claims = verify_id_token(provider, tokens["id_token"], clients.es256, nonce=flow["nonce"], access_token=tokens["access_token"])
    assert claims["auth_time"] == first_claims["auth_time"]


def test_oidcc_ensure_redirect_uri_in_authorization_request(provider, clients):
    """No redirect_uri (required by OpenID Connect): an error page, not a redirect to the registered one."""
    params = authorize_params(clients.es256)
    del params["redirect_uri"]
    assert_error_page(provider.get_authorize(params))


def test_oidcc_ensure_registered_redirect_uri(provider, clients):
    """A redirect_uri the client did not register: an error page, never a redirect there."""
    assert_error_page(provider.get_authorize(authorize_params(clients.es256, "https://attacker.example/callback")))
    # Another client's registered URI is not this client's.
    assert_error_page(provider.get_authorize(authorize_params(clients.es256, OTHER_CALLBACK)))
    # An unknown client_id: the same page.
    assert_error_page(provider.get_authorize(authorize_params("no-such-client")))
    # The JSON API the page posts to refuses it too, without a redirect to follow.
    status, body = provider.authorization(urllib.parse.urlencode(authorize_params(clients.es256, "https://attacker.example/callback")))
    assert 400 <= status < 500 and "redirect" not in body, (status, body)


def test_oidcc_response_type_missing(provider, clients):
    """No response_type: invalid_request back to the client (its redirect_uri is registered)."""
    params = authorize_params(clients.es256)
    del params["response_type"]
    error_redirect(provider.get_authorize(params), CALLBACK, "invalid_request", params["state"], provider.issuer)
    params = authorize_params(clients.es256, response_type="token")
    error_redirect(provider.get_authorize(params), CALLBACK, "unsupported_response_type", params["state"], provider.issuer)


def test_oidcc_refresh_token(provider, clients):
    """offline_access: a refresh token; using it gives a new access token and a new refresh token (the old
    one rotated out), and an id_token whose iss, sub, aud and auth_time are the original's (Core §12.2)."""
    person = provider.person("Refresher")
    flow = provider.code_for(person, clients.es256, CALLBACK, "openid profile offline_access")
    tokens = provider.exchange(flow, clients.es256, clients.es256_secret)
    original = verify_id_token(provider, tokens["id_token"], clients.es256, nonce=flow["nonce"], access_token=tokens["access_token"])
    assert tokens.get("refresh_token"), tokens
    response = provider.token({"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"]},
                              clients.es256, clients.es256_secret)
    assert response.status_code == 200, response.text
    assert "no-store" in response.headers.get("Cache-Control", "")
    refreshed = response.json()
    assert refreshed["token_type"].lower() == "bearer"
    assert refreshed["access_token"] != tokens["access_token"]
    assert refreshed["refresh_token"] and refreshed["refresh_token"] != tokens["refresh_token"]
    assert provider.userinfo(refreshed["access_token"]).json()["sub"] == person.account_id
    # Latchkey answers a refresh with an id_token too (Core §12.2 allows it): same iss, sub, aud, auth_time;
    # a new iat; no nonce.
    claims = verify_id_token(provider, refreshed["id_token"], clients.es256, nonce=None, access_token=refreshed["access_token"])
    assert (claims["sub"], claims["auth_time"], claims["azp"]) == (original["sub"], original["auth_time"], original["azp"])
    assert claims["iat"] >= original["iat"]
    # Another client cannot use it.
    token_error(provider.token({"grant_type": "refresh_token", "refresh_token": refreshed["refresh_token"]},
                               clients.other, clients.other_secret), 400, "invalid_grant")
    # Without offline_access there is none.
    plain = provider.exchange(provider.code_for(person, clients.es256, CALLBACK), clients.es256, clients.es256_secret)
    assert "refresh_token" not in plain


@pytest.fixture(scope="module")
def userinfo_person(provider, clients):
    person = provider.person("Info Person", username="info-person", email="info@example.test")
    provider.set_account(person.account_id, "--group", "staff", "--group", "ops")
    flow = provider.code_for(person, clients.es256, CALLBACK, "openid profile email groups")
    tokens = provider.exchange(flow, clients.es256, clients.es256_secret)
    return person, tokens


def expected_userinfo(body, person):
    assert body["sub"] == person.account_id, body
    assert body["preferred_username"] == "info-person", body
    assert body["name"] == "Info Person", body
    assert (body["email"], body["email_verified"]) == ("info@example.test", True), body
    assert sorted(body["groups"]) == ["ops", "staff"], body


def test_oidcc_userinfo_get(provider, userinfo_person):
    person, tokens = userinfo_person
    response = provider.userinfo(tokens["access_token"], "get")
    assert response.status_code == 200, response.text
    expected_userinfo(response.json(), person)


def test_oidcc_userinfo_post_header(provider, userinfo_person):
    person, tokens = userinfo_person
    response = provider.userinfo(tokens["access_token"], "post-header")
    assert response.status_code == 200, response.text
    expected_userinfo(response.json(), person)


def test_oidcc_userinfo_post_body(provider, userinfo_person):
    """RFC 6750 §2.2: the form-encoded body parameter is optional for a resource server ("MAY"), and the
    conformance module accepts either outcome. Latchkey accepts it on POST — and refuses a request that
    sends the token both ways (§2: "MUST NOT use more than one method")."""
    person, tokens = userinfo_person
    response = provider.userinfo(tokens["access_token"], "post-body")
    assert response.status_code == 200, response.text
    expected_userinfo(response.json(), person)
    both = provider.http.post(provider.endpoint("userinfo_endpoint"), data={"access_token": tokens["access_token"]},
                              headers={"Authorization": f"Bearer {tokens['access_token']}"}, timeout=30)
    assert (both.status_code, both.json()["error"]) == (400, "invalid_request"), both.text


def test_oidcc_userinfo_refusals(provider, userinfo_person):
    """No token, a garbled one, a token in the query (RFC 6750 §2.3 is not for this): 401 with the challenge."""
    _, tokens = userinfo_person
    url = provider.endpoint("userinfo_endpoint")
    bare = provider.http.get(url, timeout=10)
    assert bare.status_code == 401 and bare.headers.get("WWW-Authenticate", "").startswith("Bearer"), bare.headers
    userinfo_refused(provider.userinfo(tokens["access_token"][:-4] + "AAAA"))
    in_query = provider.http.get(url + "?access_token=" + tokens["access_token"], timeout=10)
    assert in_query.status_code == 401, in_query.text


@pytest.mark.parametrize("alg", ["ES256", "RS256"])
def test_oidcc_id_token_signature(provider, clients, alg):
    """The id_token is signed with the client's algorithm, by a key of the JWKS its kid names (an EC P-256
    key for ES256, an RSA key of at least 2048 bits for RS256)."""
    client, secret = (clients.es256, clients.es256_secret) if alg == "ES256" else (clients.rs256, clients.rs256_secret)
    person = provider.person(f"Signature {alg}")
    flow = provider.code_for(person, client, CALLBACK)
    tokens = provider.exchange(flow, client, secret)
    verify_id_token(provider, tokens["id_token"], client, alg=alg, nonce=flow["nonce"], access_token=tokens["access_token"])
    kid = jwt.get_unverified_header(tokens["id_token"])["kid"]
    [key] = [k for k in provider.jwks()["keys"] if k["kid"] == kid]
    assert key.get("use", "sig") == "sig" and key.get("alg", alg) == alg, key
    if alg == "ES256":
        assert (key["kty"], key["crv"]) == ("EC", "P-256"), key
    else:
        assert key["kty"] == "RSA", key
        modulus = base64.urlsafe_b64decode(key["n"] + "=" * (-len(key["n"]) % 4))
        assert len(modulus.lstrip(b"\0")) * 8 >= 2048, "RSA key shorter than 2048 bits"
    assert "d" not in key and "p" not in key, "no private part in the JWKS"
    # A tampered payload does not verify.
    header, payload, signature = tokens["id_token"].split(".")
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    forged = ".".join([header, base64.urlsafe_b64encode(json.dumps(dict(claims, sub="someone-else")).encode()).decode().rstrip("="), signature])
    with pytest.raises(jwt.InvalidSignatureError):
        verify_id_token(provider, forged, client, alg=alg, nonce=flow["nonce"])


def test_oidcc_id_token_aud(provider, clients):
    """aud is the client (alone, or with azp naming it)."""
    person = provider.person("Audience")
    tokens = provider.exchange(provider.code_for(person, clients.rs256, CALLBACK), clients.rs256, clients.rs256_secret)
    claims = jwt.decode(tokens["id_token"], options={"verify_signature": False})
    audience = claims["aud"] if isinstance(claims["aud"], list) else [claims["aud"]]
    assert clients.rs256 in audience
    if len(audience) > 1:
        assert claims["azp"] == clients.rs256
    assert claims.get("azp", clients.rs256) == clients.rs256
    with pytest.raises(jwt.InvalidAudienceError):
        key = [k for k in jwt.PyJWKSet.from_dict(provider.jwks()).keys if k.key_id == jwt.get_unverified_header(tokens["id_token"])["kid"]][0]
        jwt.decode(tokens["id_token"], key.key, algorithms=["RS256"], audience=clients.es256)


def test_oidcc_id_token_iat(provider, clients):
    """iat is a number of seconds, now; exp after it."""
    person = provider.person("Issued At")
    before = int(time.time())
    tokens = provider.exchange(provider.code_for(person, clients.es256, CALLBACK), clients.es256, clients.es256_secret)
    after = int(time.time())
    claims = jwt.decode(tokens["id_token"], options={"verify_signature": False})
    assert isinstance(claims["iat"], int) and isinstance(claims["exp"], int)
    assert before - 1 <= claims["iat"] <= after + 1
    assert claims["exp"] > claims["iat"]


def test_oidcc_id_token_sub(provider, clients):
    """sub is the account, the same for every client and flow, different for another person, and the
    same at userinfo."""
    alice, bob = provider.person("Sub Alice"), provider.person("Sub Bob")
    subs = []
    for person, client, secret in [(alice, clients.es256, clients.es256_secret), (alice, clients.rs256, clients.rs256_secret),
                                   (bob, clients.es256, clients.es256_secret)]:
        tokens = provider.exchange(provider.code_for(person, client, CALLBACK), client, secret)
        sub = jwt.decode(tokens["id_token"], options={"verify_signature": False})["sub"]
        assert provider.userinfo(tokens["access_token"]).json()["sub"] == sub
        subs.append(sub)
    assert subs[0] == subs[1] == alice.account_id
    assert subs[2] == bob.account_id != subs[0]


def test_oidcc_scope_profile(provider, clients):
    person = provider.person("Profile Scope", username="profile-scope", email="profile@example.test")
    tokens = provider.exchange(provider.code_for(person, clients.es256, CALLBACK, "openid profile"), clients.es256, clients.es256_secret)
    info = provider.userinfo(tokens["access_token"]).json()
    assert info["preferred_username"] == "profile-scope" and info["name"] == "Profile Scope", info
    assert "email" not in info and "groups" not in info, info


def test_oidcc_scope_email(provider, clients):
    person = provider.person("Email Scope", username="email-scope", email="email@example.test")
    tokens = provider.exchange(provider.code_for(person, clients.es256, CALLBACK, "openid email"), clients.es256, clients.es256_secret)
    info = provider.userinfo(tokens["access_token"]).json()
    assert (info["email"], info["email_verified"]) == ("email@example.test", True), info
    assert "preferred_username" not in info and "name" not in info, info


def test_oidcc_ensure_request_without_nonce_succeeds_for_code_flow(provider, clients):
    person = provider.person("No Nonce")
    flow = provider.code_for(person, clients.es256, CALLBACK, nonce="")
    assert "nonce" not in flow["params"]
    tokens = provider.exchange(flow, clients.es256, clients.es256_secret)
    verify_id_token(provider, tokens["id_token"], clients.es256, nonce=None, access_token=tokens["access_token"])


def test_oidcc_ensure_other_scope_order_succeeds(provider, clients):
    person = provider.person("Scope Order", email="order@example.test")
    flow = provider.code_for(person, clients.es256, CALLBACK, "email openid")
    tokens = provider.exchange(flow, clients.es256, clients.es256_secret)
    verify_id_token(provider, tokens["id_token"], clients.es256, nonce=flow["nonce"], access_token=tokens["access_token"])
    assert set(tokens["scope"].split()) == {"openid", "email"}
    assert provider.userinfo(tokens["access_token"]).json()["email"] == "order@example.test"


def test_oidcc_ensure_request_with_acr_values_succeeds(provider, clients):
    """acr_values is a voluntary claim request (Core §3.1.2.1): the flow succeeds."""
    person = provider.person("Acr Values")
    flow = provider.code_for(person, clients.es256, CALLBACK, extra={"acr_values": "1 2"})
    provider.exchange(flow, clients.es256, clients.es256_secret)


def test_oidcc_unsigned_request_object_supported_correctly_or_rejected_as_unsupported(provider, clients):
    """A request object (alg none): not supported, so request_not_supported back to the client (Core §6.1)."""
    params = authorize_params(clients.es256)
    request_object = ".".join([
        base64.urlsafe_b64encode(json.dumps({"alg": "none"}).encode()).decode().rstrip("="),
        base64.urlsafe_b64encode(json.dumps(dict(params, iss=clients.es256, aud=provider.issuer)).encode()).decode().rstrip("="), ""])
    error_redirect(provider.get_authorize(dict(params, request=request_object)), CALLBACK, "request_not_supported",
                   params["state"], provider.issuer)
    error_redirect(provider.get_authorize(dict(params, request_uri="https://rp.example.test/request.jwt")), CALLBACK,
                   "request_uri_not_supported", params["state"], provider.issuer)


def test_oidcc_ensure_post_request_succeeds(provider, clients):
    """Core §3.1.2.1: the authorization endpoint MUST support POST (form-encoded) as well as GET: the same
    request POSTed gets Latchkey's page (or a 303 to the same request as a GET, which the browser follows)."""
    params = authorize_params(clients.es256)
    response = provider.http.post(provider.endpoint("authorization_endpoint"), data=params, allow_redirects=False, timeout=30)
    if response.status_code == 303:
        # Latchkey's answer: the same request as a GET (a relative reference, as RFC 9110 §10.2.2 allows).
        location = urllib.parse.urljoin(provider.discovery["authorization_endpoint"], response.headers["Location"])
        assert without_query(location) == provider.discovery["authorization_endpoint"], location
        assert query_of(location) == params
        response = provider.get_authorize(location.split("?", 1)[1])
    assert response.status_code == 200, (response.status_code, response.text[:300])
    assert response.headers["Content-Type"].startswith("text/html"), response.headers


def test_oidcc_login_hint(provider, clients):
    """login_hint is accepted (the page may prefill with it): no session → a login interaction, not an
    error; with a session → the code."""
    person = provider.person("Hinted", username="hinted")
    params = authorize_params(clients.first_party, login_hint="hinted")
    status, body = provider.authorization(urllib.parse.urlencode(params))
    assert (status, body.get("interaction")) == (200, "login"), body
    flow = provider.code_for(person, clients.first_party, CALLBACK, extra={"login_hint": "hinted"})
    provider.exchange(flow, clients.first_party, clients.first_party_secret)


def test_oidcc_codereuse_30seconds(provider, clients, early_code):
    """The module-start code used again 30 s after its first use (it lives 60 s): invalid_grant, and its
    tokens are revoked."""
    if time.monotonic() - early_code["used_at"] > 45:
        # A slow machine took most of the code's minute for the other cases: a fresh code, and the whole
        # wait, so that the second use is a reuse within the code's lifetime, as the module means.
        early_code = code_used_once(provider, clients)
    remaining = 30 - (time.monotonic() - early_code["used_at"])
    if remaining > 0:
        time.sleep(remaining)
    flow, tokens = early_code["flow"], early_code["tokens"]
    assert provider.introspect(tokens["access_token"])["active"] is True, "still active before the reuse"
    data = {"grant_type": "authorization_code", "code": flow["code"], "redirect_uri": CALLBACK, "code_verifier": flow["verifier"]}
    token_error(provider.token(data, clients.es256, clients.es256_secret), 400, "invalid_grant")
    assert provider.introspect(tokens["access_token"]) == {"active": False}
    userinfo_refused(provider.userinfo(tokens["access_token"]))
    token_error(provider.token({"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"]},
                               clients.es256, clients.es256_secret), 400, "invalid_grant")


# Issue 31's own cases.

def test_pkce_is_required_for_public_clients(provider, clients):
    """A public client without code_challenge, or with `plain`: invalid_request back to it (RFC 9700 §2.1.1)."""
    params = authorize_params(clients.public, "http://127.0.0.1:43110/callback")
    error_redirect(provider.get_authorize(params), "http://127.0.0.1:43110/callback", "invalid_request", params["state"], provider.issuer)
    params = authorize_params(clients.public, NATIVE, code_challenge="x" * 43, code_challenge_method="plain")
    error_redirect(provider.get_authorize(params), NATIVE, "invalid_request", params["state"], provider.issuer)
    status, body = provider.authorization(urllib.parse.urlencode(params))
    assert status == 200 and query_of(body["redirect"])["error"] == "invalid_request", body


def test_pkce_public_client_with_any_loopback_port_and_custom_scheme(provider, clients):
    """RFC 8252: a public client's loopback redirect matches on any port; its custom scheme exactly."""
    person = provider.person("Native User")
    for redirect_uri in ["http://127.0.0.1:51234/callback", "http://127.0.0.1/callback", NATIVE]:
        flow = provider.code_for(person, clients.public, redirect_uri)
        tokens = provider.exchange(flow, clients.public)
        verify_id_token(provider, tokens["id_token"], clients.public, nonce=flow["nonce"], access_token=tokens["access_token"])


def test_pkce_wrong_or_missing_verifier(provider, clients):
    """The verifier must match the challenge; a code made with a challenge needs the verifier; one made
    without a challenge refuses a verifier (RFC 9700 §2.1.1: no PKCE downgrade)."""
    person = provider.person("PKCE Person")
    flow = provider.code_for(person, clients.public, NATIVE)
    wrong = {"grant_type": "authorization_code", "code": flow["code"], "redirect_uri": NATIVE, "code_verifier": pkce_pair()[0]}
    token_error(provider.token(wrong, clients.public, method="none"), 400, "invalid_grant")
    flow = provider.code_for(person, clients.public, NATIVE)
    missing = {"grant_type": "authorization_code", "code": flow["code"], "redirect_uri": NATIVE}
    token_error(provider.token(missing, clients.public, method="none"), 400, "invalid_grant")
    flow = provider.code_for(person, clients.es256, CALLBACK, pkce=True)
    missing = {"grant_type": "authorization_code", "code": flow["code"], "redirect_uri": CALLBACK}
    token_error(provider.token(missing, clients.es256, clients.es256_secret), 400, "invalid_grant")
    flow = provider.code_for(person, clients.es256, CALLBACK, pkce=False)
    downgrade = {"grant_type": "authorization_code", "code": flow["code"], "redirect_uri": CALLBACK, "code_verifier": pkce_pair()[0]}
    token_error(provider.token(downgrade, clients.es256, clients.es256_secret), 400, "invalid_grant")


def test_code_bound_to_its_redirect_uri(provider, clients):
    """The token request's redirect_uri must be the authorization request's (RFC 6749 §4.1.3)."""
    person = provider.person("Redirect Binding")
    flow = provider.code_for(person, clients.public, "http://127.0.0.1:40001/callback")
    data = {"grant_type": "authorization_code", "code": flow["code"], "redirect_uri": "http://127.0.0.1:40002/callback",
            "code_verifier": flow["verifier"]}
    token_error(provider.token(data, clients.public, method="none"), 400, "invalid_grant")


def test_refresh_token_reuse_ends_the_family(provider, clients):
    """A rotated-out refresh token presented again: invalid_grant, and the newest refresh token and every
    access token of the family stop working (RFC 9700 §4.14.2)."""
    person = provider.person("Family")
    flow = provider.code_for(person, clients.es256, CALLBACK, "openid profile offline_access")
    first = provider.exchange(flow, clients.es256, clients.es256_secret)
    response = provider.token({"grant_type": "refresh_token", "refresh_token": first["refresh_token"]}, clients.es256, clients.es256_secret)
    assert response.status_code == 200, response.text
    second = response.json()
    assert provider.introspect(second["access_token"])["active"] is True
    # The replay (an attacker's copy of the first refresh token, or the client's).
    token_error(provider.token({"grant_type": "refresh_token", "refresh_token": first["refresh_token"]},
                               clients.es256, clients.es256_secret), 400, "invalid_grant")
    token_error(provider.token({"grant_type": "refresh_token", "refresh_token": second["refresh_token"]},
                               clients.es256, clients.es256_secret), 400, "invalid_grant")
    for access_token in (first["access_token"], second["access_token"]):
        assert provider.introspect(access_token) == {"active": False}
        userinfo_refused(provider.userinfo(access_token))
    # Another family of the same person and client is untouched.
    other = provider.exchange(provider.code_for(person, clients.es256, CALLBACK, "openid offline_access"), clients.es256, clients.es256_secret)
    response = provider.token({"grant_type": "refresh_token", "refresh_token": other["refresh_token"]}, clients.es256, clients.es256_secret)
    assert response.status_code == 200, response.text


def test_a_code_for_one_client_used_by_another(provider, clients):
    """Client B presenting client A's code (with B's own credentials) gets invalid_grant, and no tokens."""
    person = provider.person("Cross Client")
    flow = provider.code_for(person, clients.es256, CALLBACK)
    data = {"grant_type": "authorization_code", "code": flow["code"], "redirect_uri": CALLBACK, "code_verifier": flow["verifier"]}
    body = token_error(provider.token(data, clients.other, clients.other_secret), 400, "invalid_grant")
    assert "access_token" not in body
    data["redirect_uri"] = OTHER_CALLBACK
    token_error(provider.token(data, clients.other, clients.other_secret), 400, "invalid_grant")
    # A public client cannot claim a confidential client's code by naming its client_id without a secret.
    data["redirect_uri"] = CALLBACK
    response = provider.token(data, clients.es256, method="none")
    assert response.status_code in (400, 401) and response.json()["error"] in ("invalid_client", "invalid_grant"), response.text


OPEN_REDIRECTS = [
    "https://attacker.example/callback",               # unregistered
    "https://rp.example.test/callbackx",               # the registered one as a prefix
    "https://rp.example.test/call",                    # a prefix of the registered one
    "https://rp.example.test.attacker.example/callback",  # the host as a prefix
    "https://rp.example.test/callback/extra",          # extra path
    "https://rp.example.test/callback/../evil",        # dot segments
    "https://rp.example.test/callback#fragment",       # a fragment (RFC 6749 §3.1.2: none allowed)
    "https://rp.example.test:8443/callback",           # a different port (a confidential client)
    "https://rp.example.test:443/callback",            # the default port spelt out
    "https://rp.example.test@attacker.example/callback",  # userinfo: the host is attacker.example
    "https://attacker.example@rp.example.test/callback",  # userinfo before the right host
    "https://rp.example.test/callback?next=https://attacker.example",  # query added
    "https://RP.EXAMPLE.TEST/callback",                # case changed (host)
    "HTTPS://rp.example.test/callback",                # case changed (scheme)
    "https://rp.example.test/Callback",                # case changed (path)
    "https://rp.example.test/callback/",               # trailing slash
    "https://rp.example.test/%63allback",              # percent-encoding of a plain letter
    "https://rp.example.test%2F@attacker.example/callback",  # an encoded slash in userinfo
    "https://rp.example.test/callback%23",             # an encoded '#'
    "http://rp.example.test/callback",                 # scheme downgraded
    " https://rp.example.test/callback",               # leading space
    "https://rp.example.test/callback\n",              # trailing newline
    "//attacker.example/callback",                     # scheme-relative
    "javascript:alert(1)//https://rp.example.test/callback",
]


@pytest.mark.parametrize("redirect_uri", OPEN_REDIRECTS)
def test_no_open_redirect(provider, clients, redirect_uri):
    """Each variant of the registered redirect URI is an error page with no Location header — never a
    redirect, not even with an error (RFC 6749 §4.1.2.1, RFC 9700 §4.1.3: exact string match)."""
    assert_error_page(provider.get_authorize(authorize_params(clients.es256, redirect_uri)))
    # Other request errors in the same request must not turn it into a redirect either.
    assert_error_page(provider.get_authorize(authorize_params(clients.es256, redirect_uri, response_type="token", prompt="none")))


@pytest.mark.parametrize("redirect_uri", [
    "http://127.0.0.1:5555/other", "http://127.0.0.1.attacker.example:5555/callback", "http://localhost:5555/callback",
    "http://[::1]:5555/callback", "http://127.0.0.1:5555/callback/..", "com.example.app:/oauth2redirect/x",
    "com.example.app://oauth2redirect", "https://127.0.0.1:5555/callback",
])
def test_no_open_redirect_for_a_native_client(provider, clients, redirect_uri):
    """A public client's loopback redirect matches any port — and nothing else (path, host, scheme)."""
    assert_error_page(provider.get_authorize(authorize_params(clients.public, redirect_uri, code_challenge="x" * 43,
                                                              code_challenge_method="S256")))


def test_loopback_any_port_only_for_public_clients(provider):
    """A confidential client that registered a loopback URI gets no port freedom (the contract; RFC 8252
    gives it to native apps, which are public)."""
    client, _, _ = provider.add_client("Confidential loopback", ["http://127.0.0.1:8080/callback"])
    assert_error_page(provider.get_authorize(authorize_params(client, "http://127.0.0.1:8081/callback")))
    params = authorize_params(client, "http://127.0.0.1:8080/callback")
    assert provider.get_authorize(params).status_code == 200


# Tokens that are not Latchkey's: alg none and HS256 keyed with the public key.

def b64(data):
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def forgeries(token, jwks):
    """`token` re-signed the ways a confused verifier would accept: alg none (empty and kept signature,
    'None' and 'NONE'), and HS256/HS384 with the signing key's public parts as the HMAC secret (PEM, DER,
    the JWK as JSON, and its x/n member)."""
    header_segment, payload, signature = token.split(".")
    header = json.loads(base64.urlsafe_b64decode(header_segment + "=" * (-len(header_segment) % 4)))
    made = []
    for alg in ("none", "None", "NONE"):
        unsigned = b64(json.dumps(dict(header, alg=alg)).encode())
        made += [f"{unsigned}.{payload}.", f"{unsigned}.{payload}.{signature}"]
    [jwk] = [key for key in jwks["keys"] if key["kid"] == header["kid"]]
    public = jwt.PyJWK.from_dict(jwk).key
    pem = public.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    der = public.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    secrets_tried = [pem, pem.strip(), der, json.dumps(jwk).encode(), json.dumps(jwk, separators=(",", ":")).encode(),
                     (jwk.get("x") or jwk.get("n")).encode()]
    for alg, digest in (("HS256", hashlib.sha256), ("HS384", hashlib.sha384)):
        signed_header = b64(json.dumps(dict(header, alg=alg)).encode())
        for secret in secrets_tried:
            mac = hmac.new(secret, f"{signed_header}.{payload}".encode(), digest).digest()
            made.append(f"{signed_header}.{payload}.{b64(mac)}")
    return made


@pytest.fixture(scope="module")
def genuine(provider, clients):
    """A person's genuine id_token and access token, for each algorithm."""
    person = provider.person("Genuine", username="genuine")
    found = {}
    for alg, client, secret in [("ES256", clients.es256, clients.es256_secret), ("RS256", clients.rs256, clients.rs256_secret)]:
        flow = provider.code_for(person, client, CALLBACK)
        found[alg] = provider.exchange(flow, client, secret)
    return person, found


@pytest.mark.parametrize("alg", ["ES256", "RS256"])
def test_unsigned_and_hmac_confused_tokens_are_refused_at_userinfo_and_introspection(provider, genuine, alg):
    person, found = genuine
    tokens = found[alg]
    jwks = provider.jwks()
    assert provider.userinfo(tokens["access_token"]).status_code == 200
    for kind in ("access_token", "id_token"):
        for forged in forgeries(tokens[kind], jwks):
            userinfo_refused(provider.userinfo(forged))
            assert provider.introspect(forged) == {"active": False}, (kind, forged[:60])
    # The id_token itself is no access token, though signed by the same keys.
    userinfo_refused(provider.userinfo(tokens["id_token"]))


def logout(provider, query):
    """`POST /api/oidc/logout` as the page posts it (no session): (status, body)."""
    response = provider.http.post(provider.url("/api/oidc/logout"), json={"query": query}, timeout=30)
    return response.status_code, response.json()


@pytest.mark.parametrize("alg", ["ES256", "RS256"])
def test_forged_id_token_hint_is_refused_at_end_session(provider, clients, genuine, alg):
    """A forged id_token_hint never makes the end-session endpoint redirect to a post_logout_redirect_uri;
    the genuine one does (RP-Initiated Logout §2–3)."""
    person, found = genuine
    client = clients.es256 if alg == "ES256" else clients.rs256
    for forged in forgeries(found[alg]["id_token"], provider.jwks()):
        query = urllib.parse.urlencode({"id_token_hint": forged, "post_logout_redirect_uri": LOGGED_OUT, "state": "s1"})
        status, body = logout(provider, query)
        assert not (body or {}).get("redirect", "").startswith(LOGGED_OUT), (status, body)
        # The page itself is served (the refusal is the page's to show), never a redirect.
        page = provider.http.get(provider.endpoint("end_session_endpoint") + "?" + query, allow_redirects=False, timeout=30)
        assert "Location" not in page.headers, page.headers
    query = urllib.parse.urlencode({"id_token_hint": found[alg]["id_token"], "post_logout_redirect_uri": LOGGED_OUT,
                                    "state": "s2", "client_id": client})
    status, body = logout(provider, query)
    assert status == 200 and without_query(body["redirect"]) == LOGGED_OUT, (status, body)
    assert query_of(body["redirect"])["state"] == "s2"


def test_end_session_refuses_an_unregistered_post_logout_uri(provider, clients):
    person = provider.person("Logout Unregistered")
    tokens = provider.exchange(provider.code_for(person, clients.es256, CALLBACK), clients.es256, clients.es256_secret)
    for uri in ["https://attacker.example/", LOGGED_OUT + "/x", CALLBACK]:
        query = urllib.parse.urlencode({"id_token_hint": tokens["id_token"], "post_logout_redirect_uri": uri})
        status, body = logout(provider, query)
        assert not (body or {}).get("redirect", "").startswith(uri), (uri, status, body)


def test_end_session_signs_the_person_out(provider, clients):
    """RP-initiated logout with the page's session ends it (RP-Initiated Logout §2: the OP logs the person
    out), and the grants made from that session with it — not one with offline_access, which is meant to
    outlive the session; a later prompt=none says login_required."""
    person = provider.person("Logout Person")
    tokens = provider.exchange(provider.code_for(person, clients.es256, CALLBACK), clients.es256, clients.es256_secret)
    offline = provider.exchange(provider.code_for(person, clients.rs256, CALLBACK, "openid offline_access"),
                                clients.rs256, clients.rs256_secret)
    assert provider.server.call("GET", "/api/account", token=person.token)[0] == 200
    query = urllib.parse.urlencode({"id_token_hint": tokens["id_token"], "post_logout_redirect_uri": LOGGED_OUT, "state": "bye"})
    response = provider.http.post(provider.url("/api/oidc/logout"), json={"query": query},
                                  headers={"Authorization": f"Bearer {person.token}"}, timeout=30)
    assert response.status_code == 200 and response.json()["redirect"].startswith(LOGGED_OUT), response.text
    assert provider.server.call("GET", "/api/account", token=person.token)[0] == 401
    assert provider.introspect(tokens["access_token"]) == {"active": False}
    userinfo_refused(provider.userinfo(tokens["access_token"]))
    assert provider.introspect(offline["access_token"])["active"] is True
    refreshed = provider.token({"grant_type": "refresh_token", "refresh_token": offline["refresh_token"]}, clients.rs256, clients.rs256_secret)
    assert refreshed.status_code == 200, refreshed.text
    # The ended session is refused (401, as the page finds it, which then asks as nobody): login_required.
    params = authorize_params(clients.es256, prompt="none")
    status, body = provider.authorization(urllib.parse.urlencode(params), token=person.token)
    assert status == 401, body
    status, body = provider.authorization(urllib.parse.urlencode(params))
    assert query_of(body["redirect"])["error"] == "login_required", body


def test_a_forged_id_token_hint_does_not_sign_anyone_out(provider, clients, genuine):
    """With the person's session, a forged hint naming them is not their request: the page must ask them
    to confirm (RP-Initiated Logout §2), and the session lives on."""
    person, found = genuine
    person.sign_in()
    for forged in forgeries(found["ES256"]["id_token"], provider.jwks())[:4]:
        query = urllib.parse.urlencode({"id_token_hint": forged, "client_id": clients.es256})
        response = provider.http.post(provider.url("/api/oidc/logout"), json={"query": query},
                                      headers={"Authorization": f"Bearer {person.token}"}, timeout=30)
        assert response.status_code in (200, 400), response.text
        assert response.status_code == 400 or response.json().get("confirm") is True, response.text
        assert provider.server.call("GET", "/api/account", token=person.token)[0] == 200


# Revocation (RFC 7009).

def revoke(provider, token, client_id, client_secret, hint=None):
    data = {"token": token}
    if hint:
        data["token_type_hint"] = hint
    auth = (client_id, client_secret) if client_secret else None
    if not client_secret and client_id:
        data["client_id"] = client_id
    return provider.http.post(provider.endpoint("revocation_endpoint"), data=data, auth=auth, timeout=30)


def test_revocation(provider, clients):
    """RFC 7009: the client revokes its refresh token (the grant's access tokens end with it, §2.1) or an
    access token; another client's attempt is refused and changes nothing; an unknown token is 200 (§2.2); an
    unauthenticated request is 401 invalid_client."""
    person = provider.person("Revoker")
    tokens = provider.exchange(provider.code_for(person, clients.es256, CALLBACK, "openid offline_access"), clients.es256, clients.es256_secret)
    # Another client's attempt is refused (§2.1: unauthorized_client), and the token lives on.
    for token in (tokens["refresh_token"], tokens["access_token"]):
        token_error(revoke(provider, token, clients.other, clients.other_secret), 400, "unauthorized_client")
    assert provider.introspect(tokens["access_token"])["active"] is True
    token_error(revoke(provider, tokens["refresh_token"], clients.es256, clients.es256_secret + "x"), 401, "invalid_client")
    bare = provider.http.post(provider.endpoint("revocation_endpoint"), data={"token": tokens["refresh_token"]}, timeout=30)
    token_error(bare, 401, "invalid_client")
    assert provider.introspect(tokens["access_token"])["active"] is True
    assert revoke(provider, tokens["refresh_token"], clients.es256, clients.es256_secret, "refresh_token").status_code == 200
    token_error(provider.token({"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"]},
                               clients.es256, clients.es256_secret), 400, "invalid_grant")
    assert provider.introspect(tokens["access_token"]) == {"active": False}
    userinfo_refused(provider.userinfo(tokens["access_token"]))
    # An access token alone, by a public client.
    flow = provider.code_for(person, clients.public, NATIVE)
    public = provider.exchange(flow, clients.public)
    assert revoke(provider, public["access_token"], clients.public, None, "access_token").status_code == 200
    assert provider.introspect(public["access_token"]) == {"active": False}
    assert revoke(provider, "no-such-token", clients.es256, clients.es256_secret).status_code == 200


# Client authentication at the token endpoint.

def test_client_authentication_failures(provider, clients):
    """Wrong or missing secret, unknown client: 401 invalid_client; when the client tried HTTP Basic, with
    WWW-Authenticate: Basic (RFC 6749 §5.2). The code is not exchanged by any of them."""
    person = provider.person("Client Auth")
    flow = provider.code_for(person, clients.es256, CALLBACK, pkce=False)
    data = {"grant_type": "authorization_code", "code": flow["code"], "redirect_uri": CALLBACK}
    response = provider.token(data, clients.es256, clients.es256_secret + "x", method="basic")
    token_error(response, 401, "invalid_client")
    assert response.headers.get("WWW-Authenticate", "").lower().startswith("basic"), response.headers
    response = provider.token(data, "no-such-client", clients.es256_secret, method="basic")
    token_error(response, 401, "invalid_client")
    assert response.headers.get("WWW-Authenticate", "").lower().startswith("basic"), response.headers
    token_error(provider.token(data, clients.es256, clients.es256_secret[:-1], method="post"), 401, "invalid_client")
    token_error(provider.token(data, clients.es256, method="none"), 401, "invalid_client")
    token_error(provider.token(data, clients.es256, clients.other_secret, method="basic"), 401, "invalid_client")
    bare = provider.http.post(provider.endpoint("token_endpoint"), data=data, timeout=30)
    token_error(bare, 401, "invalid_client")
    # Two methods at once are refused (RFC 6749 §2.3: one method per request).
    both = provider.http.post(provider.endpoint("token_endpoint"), data=dict(data, client_id=clients.es256, client_secret=clients.es256_secret),
                              auth=(clients.es256, clients.es256_secret), timeout=30)
    assert both.status_code in (400, 401) and both.json()["error"] in ("invalid_request", "invalid_client"), both.text
    # client_secret_post works, and the code was still good.
    tokens = provider.token(data, clients.es256, clients.es256_secret, method="post")
    assert tokens.status_code == 200, tokens.text
