"""Latchkey's access tokens checked by a backend we did not write: PyJWT (PyPI) verifies them with the
keys from /.well-known/jwks.json, as any backend would — and refuses what it must refuse (tampered,
expired, signed by another key, `alg: none`), as does Latchkey's own introspection endpoint.

soft-webauthn (PyPI) is the authenticator: it does not do user verification, so the server runs with
--user-verification preferred, and the tokens' `amr` has no `mfa`.
"""
import base64
import json
import pathlib
import time
import urllib.parse
import urllib.request

import jwt
import pytest
from cryptography.hazmat.primitives.asymmetric import ec
from soft_webauthn import SoftWebauthnDevice

HERE = pathlib.Path(__file__).resolve()
from latchkey_server import Server
from soft_webauthn_client import register

SECRET = "introspection-secret-for-the-test-0123456789"


@pytest.fixture(scope="module")
def server():
    instance = Server("--user-verification", "preferred", "--access-tokens", "--access-token-ttl", "30",
                      "--token-audience", "notes-backend", env={"LATCHKEY_INTROSPECTION_SECRET": SECRET})
    yield instance
    instance.stop()


def signed_up(server):
    status, body = register(server, SoftWebauthnDevice(), "Ada")
    assert status == 201, body
    return body


def access_token(server, session_token):
    status, body = server.call("POST", "/api/token", token=session_token)
    assert status == 200, body
    return body["access_token"]


def key_set(server):
    with urllib.request.urlopen(f"http://127.0.0.1:{server.port}/.well-known/jwks.json", timeout=10) as response:
        return jwt.PyJWKSet.from_dict(json.loads(response.read()))


def verify(server, token, keys=None):
    """What a backend does: the key named by the token's `kid`, ES256 only, issuer and audience checked."""
    keys = keys or key_set(server)
    kid = jwt.get_unverified_header(token).get("kid")
    key = next((k for k in keys.keys if k.key_id == kid), None)
    if key is None:
        raise jwt.InvalidKeyError(f"no key {kid!r} in the JWKS")
    return jwt.decode(token, key.key, algorithms=["ES256"], audience="notes-backend", issuer=server.origin,
                      options={"require": ["exp", "iat", "sub", "iss", "aud"]})


def introspect(server, token, secret=SECRET):
    data = urllib.parse.urlencode({"token": token}).encode()
    request = urllib.request.Request(f"http://127.0.0.1:{server.port}/api/introspect", data=data, method="POST")
    request.add_header("Content-Type", "application/x-www-form-urlencoded")
    if secret:
        request.add_header("Authorization", f"Bearer {secret}")
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read())


def b64(data):
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def test_pyjwt_verifies_a_latchkey_token_with_the_published_keys(server):
    session = signed_up(server)
    claims = verify(server, access_token(server, session["token"]))
    assert claims["sub"] == session["account"]["id"]
    assert claims["aud"] == "notes-backend"
    assert claims["exp"] - claims["iat"] == 30
    assert claims["auth_time"] <= claims["iat"]
    # soft-webauthn: a synced-style key (BE set? it sets no flags), presence but no user verification.
    assert "user" in claims["amr"] and "mfa" not in claims["amr"]
    assert claims["amr"][0] in ("hwk", "swk")


def test_pyjwt_and_introspection_refuse_tampered_foreign_unsigned_and_expired_tokens(server):
    session = signed_up(server)
    token = access_token(server, session["token"])
    header, payload, signature = token.split(".")
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))

    tampered = ".".join([header, b64(json.dumps(dict(claims, sub="someone-else")).encode()), signature])
    foreign = jwt.encode(claims, ec.generate_private_key(ec.SECP256R1()), algorithm="ES256",
                         headers={"kid": jwt.get_unverified_header(token)["kid"]})
    unsigned = ".".join([b64(json.dumps({"alg": "none", "typ": "JWT", "kid": jwt.get_unverified_header(token)["kid"]}).encode()),
                         payload, ""])
    keys = key_set(server)
    for name, candidate, error in [("tampered", tampered, jwt.InvalidSignatureError),
                                   ("foreign key", foreign, jwt.InvalidSignatureError),
                                   ("alg none", unsigned, jwt.InvalidAlgorithmError)]:
        with pytest.raises(error):
            verify(server, candidate, keys)
        assert introspect(server, candidate) == (200, {"active": False}), name
    assert introspect(server, token)[1]["active"] is True
    # Without the secret there is no answer about the token at all.
    status, body = introspect(server, token, secret=None)
    assert (status, body["error"]["code"]) == (401, "invalid_client")
    # Expired (the server's tokens live 30 s here): PyJWT and introspection agree.
    time.sleep(31)
    with pytest.raises(jwt.ExpiredSignatureError):
        verify(server, token, keys)
    assert introspect(server, token) == (200, {"active": False})


def test_logout_makes_introspection_say_inactive_at_once(server):
    session = signed_up(server)
    token = access_token(server, session["token"])
    assert introspect(server, token)[1]["active"] is True
    # A session token is never active to a backend (review 3, finding 11): only access tokens are.
    assert introspect(server, session["token"]) == (200, {"active": False})
    assert server.call("POST", "/api/logout", token=session["token"])[0] == 204
    assert introspect(server, token) == (200, {"active": False})
    assert introspect(server, session["token"]) == (200, {"active": False})
    # A backend that verifies offline still accepts it until `exp`: why the tokens are short-lived.
    assert verify(server, token)["sub"] == session["account"]["id"]


def test_a_header_nested_513_deep_does_not_crash_the_server(server):
    """Review 3, finding 1: JWTKit decoded the header with Foundation's JSONDecoder before any key or
    signature check, and 513 `[` killed the process (SIGILL) — one request a backend relays. Every
    segment is tried, each nesting just past Foundation's limit and at it."""
    token = access_token(server, signed_up(server)["token"])
    header, payload, signature = token.split(".")
    for depth in (512, 513, 514, 10000):
        deep = b64(b"[" * depth)
        for hostile in (f"{deep}.e30.c2ln", f"{header}.{deep}.c2ln", f"{header}.{payload}.{deep}", f"{deep}.{deep}.{deep}"):
            assert introspect(server, hostile) == (200, {"active": False}), (depth, hostile[:40])
    assert server.process.poll() is None, "the server is still running"
    assert introspect(server, token)[1]["active"] is True
