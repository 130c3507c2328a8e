"""authlib (PyPI), an OAuth 2.0 / OpenID Connect client we did not write, against `latchkey serve --oidc`:
its `OAuth2Session` makes the authorization URL with PKCE S256 and exchanges the code (`fetch_token`), and
the id_token is checked by authlib's own code — `authlib.jose.jwt` with the key set from the JWKS
(signature, algorithm), `CodeIDToken` for iss, aud, azp, exp, iat, nonce and at_hash. Userinfo and refresh
through the same session. A confidential client (client_secret_basic, RS256 and ES256, and
client_secret_post) and a public one (PKCE, no secret).

The person's part (what a browser does) goes through the page's JSON API with a soft-webauthn session
(oidc_support.Provider.authorize).
"""
import os
import secrets
import urllib.parse
import warnings

import pytest

# authlib refuses http:// endpoints unless told this is a test (the provider listens on 127.0.0.1 only).
os.environ["AUTHLIB_INSECURE_TRANSPORT"] = "1"
with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # authlib.jose announces its move to joserfc; it is still authlib's
    from authlib.integrations.requests_client import OAuth2Session
    from authlib.jose import JsonWebKey, JsonWebToken
    from authlib.jose.errors import BadSignatureError, InvalidClaimError
    from authlib.oidc.core import CodeIDToken

from oidc_support import query_of, tampered_token, without_query

REDIRECT = "https://app.example.test/authlib/callback"


def session_for(provider, client_id, client_secret=None, auth_method="client_secret_basic", scope="openid profile email"):
    return OAuth2Session(client_id, client_secret, scope=scope, redirect_uri=REDIRECT, code_challenge_method="S256",
                         token_endpoint_auth_method=auth_method if client_secret else "none")


def run_flow(provider, person, session, nonce=True):
    """authlib's authorization URL, the person's consent through the page's API, and authlib's token
    request: (token, nonce). The authorization URL's endpoint is the discovery document's."""
    verifier = secrets.token_urlsafe(48)
    nonce = secrets.token_urlsafe(16) if nonce else None
    extra = {"nonce": nonce} if nonce else {}
    url, state = session.create_authorization_url(provider.discovery["authorization_endpoint"], code_verifier=verifier, **extra)
    assert url.startswith(provider.discovery["authorization_endpoint"] + "?")
    params = query_of(url)
    assert params["code_challenge_method"] == "S256" and params["state"] == state
    redirect = provider.authorize(person, params)
    assert without_query(redirect) == REDIRECT
    # RFC 9207: authlib does not check `iss`; a client that does finds the issuer.
    assert query_of(redirect)["iss"] == provider.issuer
    token = session.fetch_token(provider.endpoint("token_endpoint"), authorization_response=redirect, code_verifier=verifier)
    return token, nonce


def verified_id_token(provider, token, client_id, alg, nonce):
    """authlib's jose: only `alg` allowed, the key from the JWKS by kid; CodeIDToken's checks."""
    keys = JsonWebKey.import_key_set(provider.jwks())
    claims = JsonWebToken([alg]).decode(
        token["id_token"], keys, claims_cls=CodeIDToken,
        claims_options={"iss": {"essential": True, "value": provider.issuer}, "aud": {"essential": True, "value": client_id},
                        "auth_time": {"essential": True}, "at_hash": {"essential": True}},
        claims_params={"nonce": nonce, "client_id": client_id, "access_token": token["access_token"]})
    claims.validate(leeway=5)
    if nonce is None:
        assert "nonce" not in claims
    return claims


@pytest.mark.parametrize("alg", ["RS256", "ES256"])
def test_confidential_client_code_flow_with_pkce(provider, alg):
    client_id, secret, _ = provider.add_client(f"authlib {alg}", [REDIRECT], alg=alg)
    person = provider.person(f"Authlib {alg}", username=f"authlib-{alg.lower()}", email=f"{alg.lower()}@example.test")
    session = session_for(provider, client_id, secret)
    token, nonce = run_flow(provider, person, session)
    assert token["token_type"].lower() == "bearer"
    claims = verified_id_token(provider, token, client_id, alg, nonce)
    assert claims["sub"] == person.account_id
    assert claims.header["alg"] == alg
    info = session.get(provider.endpoint("userinfo_endpoint"))
    assert info.status_code == 200, info.text
    body = info.json()
    assert {name: body.get(name) for name in ("sub", "name", "preferred_username", "email", "email_verified")} == {
        "sub": person.account_id, "name": f"Authlib {alg}", "preferred_username": f"authlib-{alg.lower()}",
        "email": f"{alg.lower()}@example.test", "email_verified": True}


def test_authlib_refuses_what_it_must(provider):
    """authlib's checks bite on Latchkey's tokens: another nonce, another audience, the wrong algorithm,
    a tampered token."""
    client_id, secret, _ = provider.add_client("authlib refusals", [REDIRECT])
    person = provider.person("Authlib Refusals")
    token, nonce = run_flow(provider, person, session_for(provider, client_id, secret))
    verified_id_token(provider, token, client_id, "ES256", nonce)
    with pytest.raises(InvalidClaimError):
        verified_id_token(provider, token, client_id, "ES256", "another-nonce")
    with pytest.raises(InvalidClaimError):
        verified_id_token(provider, token, "another-client", "ES256", nonce)
    with pytest.raises(InvalidClaimError):
        verified_id_token(provider, dict(token, access_token=token["access_token"] + "x"), client_id, "ES256", nonce)
    with pytest.raises(Exception):
        verified_id_token(provider, token, client_id, "RS256", nonce)  # an ES256 token where RS256 is expected
    tampered = tampered_token(token["id_token"])
    with pytest.raises((BadSignatureError, ValueError)):
        verified_id_token(provider, dict(token, id_token=tampered), client_id, "ES256", nonce)


def test_client_secret_post_and_refresh(provider):
    """client_secret_post, offline_access, and authlib's refresh_token (the rotated token comes back)."""
    client_id, secret, _ = provider.add_client("authlib post", [REDIRECT])
    person = provider.person("Authlib Refresh")
    session = session_for(provider, client_id, secret, auth_method="client_secret_post", scope="openid offline_access")
    token, nonce = run_flow(provider, person, session)
    verified_id_token(provider, token, client_id, "ES256", nonce)
    refreshed = session.refresh_token(provider.endpoint("token_endpoint"), refresh_token=token["refresh_token"])
    assert refreshed["access_token"] != token["access_token"]
    assert refreshed["refresh_token"] != token["refresh_token"]
    assert session.get(provider.endpoint("userinfo_endpoint")).json()["sub"] == person.account_id


def test_public_client_with_pkce(provider):
    """A public client (no secret; token_endpoint_auth_method none): PKCE carries it; no nonce sent."""
    client_id, secret, _ = provider.add_client("authlib public", [REDIRECT], public=True)
    assert secret is None
    person = provider.person("Authlib Public", username="authlib-public")
    session = session_for(provider, client_id)
    token, nonce = run_flow(provider, person, session, nonce=False)
    claims = verified_id_token(provider, token, client_id, "ES256", None)
    assert claims["sub"] == person.account_id
    assert session.get(provider.endpoint("userinfo_endpoint")).json()["preferred_username"] == "authlib-public"
    # The same code flow without the verifier is refused (authlib raises the server's error).
    url, _ = session.create_authorization_url(provider.discovery["authorization_endpoint"], code_verifier=secrets.token_urlsafe(48))
    redirect = provider.authorize(person, query_of(url))
    from authlib.integrations.base_client.errors import OAuthError
    with pytest.raises(OAuthError) as refused:
        session.fetch_token(provider.endpoint("token_endpoint"), authorization_response=redirect)
    assert refused.value.error == "invalid_grant"
    assert urllib.parse.urlsplit(redirect).query
