"""What every OpenID Connect suite here needs around a real `latchkey serve --oidc`: the provider on a temporary
SQLite database, clients registered through the admin API (with a key from `latchkey admin keys create`), people signed up
with soft-webauthn (PyPI) as their authenticator, and the "user agent" part of the code flow done through the
page's JSON API (`POST /api/oidc/authorization` and `POST /api/oidc/consent` with the person's session as a
bearer token) — the part a browser does. The clients' part (token, userinfo, verification) is each suite's
own: authlib, pyoidc, or plain HTTP with PyJWT in the "basic OP" suite.

soft-webauthn does no user verification: the provider runs with --user-verification preferred (as in
Tests/System/Tokens). --rate-limit 0: a suite makes many requests from one address.
"""
import base64
import hashlib
import json
import pathlib
import secrets
import subprocess
import urllib.parse

import requests
from soft_webauthn import SoftWebauthnDevice

HERE = pathlib.Path(__file__).resolve()
from latchkey_server import Server
from processes import latchkey_binary
import soft_webauthn_client

INTROSPECTION_SECRET = "oidc-introspection-secret-0123456789-abcdefghij"
ALL_SCOPES = ("openid", "profile", "email", "groups", "offline_access")


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def pkce_pair():
    """(code_verifier, S256 code_challenge) as RFC 7636 §4.1–4.2 make them."""
    verifier = b64url(secrets.token_bytes(32))
    return verifier, b64url(hashlib.sha256(verifier.encode("ascii")).digest())


def left_hash(value: str) -> str:
    """at_hash for ES256 and RS256 (OpenID Connect Core §3.1.3.6): the left half of SHA-256, base64url."""
    digest = hashlib.sha256(value.encode("ascii")).digest()
    return b64url(digest[: len(digest) // 2])


def query_of(url):
    """The query parameters of a URL, one value each (a repeated one fails the test: none should be)."""
    parsed = urllib.parse.parse_qs(urllib.parse.urlsplit(url).query, keep_blank_values=True)
    assert all(len(values) == 1 for values in parsed.values()), f"a parameter repeated in {url}"
    return {name: values[0] for name, values in parsed.items()}


def tampered_token(token):
    """`token` with its payload's `sub` changed and its signature kept: what a verifier must refuse."""
    header, payload, signature = token.split(".")
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    claims["sub"] = "someone-else"
    return ".".join([header, b64url(json.dumps(claims).encode()), signature])


def without_query(url):
    parts = urllib.parse.urlsplit(url)
    return urllib.parse.urlunsplit((parts.scheme, parts.netloc, parts.path, "", ""))


class Person:
    """Someone with an account, a soft-webauthn passkey, and a session token (renewed by `sign_in`)."""

    def __init__(self, provider, display_name):
        self.provider = provider
        self.device = SoftWebauthnDevice()
        status, body = soft_webauthn_client.register(provider.server, self.device, display_name)
        assert status == 201, body
        self.account_id = body["account"]["id"]
        self.token = body["token"]

    def sign_in(self):
        """A new passkey sign-in: a new session (what `prompt=login` and `max_age` ask for)."""
        status, body = soft_webauthn_client.login(self.provider.server, self.device)
        assert status == 200, body
        self.token = body["token"]
        return self.token


class Provider:
    """`latchkey serve --oidc` (plus `flags`) with an introspection secret, and what the suites ask of it."""

    def __init__(self, *flags, user_verification="preferred"):
        self.server = Server("--oidc", "--signup", "open", "--rate-limit", "0", "--user-verification", user_verification, *flags,
                             env={"LATCHKEY_INTROSPECTION_SECRET": INTROSPECTION_SECRET})
        self.issuer = self.server.origin
        self.base = f"http://127.0.0.1:{self.server.port}"
        self.http = requests.Session()
        self._discovery = None
        self._admin_key = None

    def stop(self):
        self.http.close()
        self.server.stop()

    def url(self, path_or_url):
        """An endpoint from the discovery document (given as issuer URLs) or a path, as this process reaches it."""
        if path_or_url.startswith(self.issuer):
            path_or_url = path_or_url[len(self.issuer):]
        return self.base + path_or_url

    # Discovery and keys.

    @property
    def discovery(self):
        if self._discovery is None:
            response = self.http.get(self.url("/.well-known/openid-configuration"), timeout=10)
            assert response.status_code == 200, response.text
            self._discovery = response.json()
        return self._discovery

    def endpoint(self, name):
        """The local URL of a discovery document endpoint (`token_endpoint`, …)."""
        return self.url(self.discovery[name])

    def jwks(self):
        response = self.http.get(self.url("/.well-known/jwks.json"), timeout=10)
        assert response.status_code == 200, response.text
        return response.json()

    # The operator's CLI.

    def admin(self, *arguments, expect=0):
        result = subprocess.run([latchkey_binary(), "admin", *arguments, "--database", self.server.database],
                                capture_output=True, text=True, timeout=60)
        assert result.returncode == expect, (arguments, result.stdout, result.stderr)
        return result

    def admin_key(self):
        """A write admin key made once with `latchkey admin keys create` (the secret is printed once)."""
        if self._admin_key is None:
            made = json.loads(self.admin("keys", "create", "--scope", "write", "--name", "oidc suites", "--json").stdout)
            self._admin_key = made["secret"]
        return self._admin_key

    def add_client(self, name, redirect_uris, *, public=False, alg=None, first_party=False, post_logout_uris=(),
                   scopes=ALL_SCOPES):
        """`POST /api/admin/clients` (the operation `latchkey admin clients add` runs, Tests/System/Admin drives
        both): (client_id, client_secret or None, the client as shown). Through the serving instance's own
        admin API, which it sees at once — the JWKS's RSA keys, the web origins CORS allows — where a
        change by the CLI, another process, reaches it within 30 seconds."""
        body = {"name": name, "redirectUris": list(redirect_uris), "scopes": list(scopes), "public": public,
                "firstParty": first_party}
        if post_logout_uris:
            body["postLogoutUris"] = list(post_logout_uris)
        if alg:
            body["idTokenAlg"] = alg
        response = self.http.post(self.url("/api/admin/clients"), json=body,
                                  headers={"Authorization": f"Bearer {self.admin_key()}"}, timeout=30)
        assert response.status_code == 201, response.text
        made = response.json()
        client = made["client"]
        secret = made.get("clientSecret")
        assert (secret is None) == public, made
        return client["id"], secret, client

    def set_account(self, account_id, *options):
        """`latchkey admin accounts set ACCOUNT …` (--username, --email, --email-verified, --group …)."""
        return self.admin("accounts", "set", account_id, *options)

    def person(self, display_name="Ada Lovelace", username=None, email=None):
        person = Person(self, display_name)
        options = []
        if username:
            options += ["--username", username]
        if email:
            options += ["--email", email, "--email-verified"]
        if options:
            self.set_account(person.account_id, *options)
        return person

    # The user agent's part, through the page's JSON API.

    def authorization(self, query, token=None, after=None):
        """`POST /api/oidc/authorization`: (status, body)."""
        body = {"query": query}
        if after is not None:
            body["after"] = after
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        response = self.http.post(self.url("/api/oidc/authorization"), json=body, headers=headers, timeout=30)
        return response.status_code, response.json()

    def consent(self, query, token, allow=True, after=None):
        """`POST /api/oidc/consent`: (status, body)."""
        body = {"query": query, "allow": allow}
        if after is not None:
            body["after"] = after
        response = self.http.post(self.url("/api/oidc/consent"), json=body,
                                  headers={"Authorization": f"Bearer {token}"}, timeout=30)
        return response.status_code, response.json()

    def authorize(self, person, params, consent=True):
        """The whole user-agent side for a signed-in person: the authorization request, the consent when
        asked (allowed), and the redirect it ends with (a URL). A login interaction fails the test: the
        callers that expect one use `authorization` themselves."""
        query = urllib.parse.urlencode(params)
        status, body = self.authorization(query, token=person.token)
        assert status == 200, body
        if body.get("interaction") == "consent":
            assert consent, f"consent asked unexpectedly: {body}"
            assert body["client"]["id"] == params["client_id"], body
            status, body = self.consent(query, person.token, allow=True, after=body.get("after"))
            assert status == 200, body
        assert "redirect" in body, body
        return body["redirect"]

    def code_for(self, person, client_id, redirect_uri, scope="openid profile", *, nonce=None, pkce=True, extra=None):
        """An authorization code for `client_id`: returns a dict with code, state, nonce, verifier and the
        redirect's parameters. The redirect must be to `redirect_uri` with state and iss (RFC 9207)."""
        state = secrets.token_urlsafe(16)
        nonce = nonce if nonce is not None else secrets.token_urlsafe(16)
        params = {"response_type": "code", "client_id": client_id, "redirect_uri": redirect_uri, "scope": scope,
                  "state": state}
        if nonce:
            params["nonce"] = nonce
        verifier = None
        if pkce:
            verifier, challenge = pkce_pair()
            params.update(code_challenge=challenge, code_challenge_method="S256")
        params.update(extra or {})
        redirect = self.authorize(person, params)
        assert without_query(redirect) == redirect_uri, redirect
        answer = query_of(redirect)
        assert answer.get("state") == state, answer
        assert answer.get("iss") == self.issuer, answer
        assert "code" in answer and "error" not in answer, answer
        return {"code": answer["code"], "state": state, "nonce": nonce, "verifier": verifier, "params": params,
                "answer": answer}

    # The client's part, plain HTTP.

    def token(self, data, client_id=None, client_secret=None, method="basic"):
        """`POST /oidc/token` with the form `data`; the client authenticated by `method`: basic
        (client_secret_basic), post (client_secret_post) or none (client_id only). Returns the response."""
        data = dict(data)
        auth = None
        if method == "basic" and client_secret is not None:
            auth = (urllib.parse.quote(client_id, safe=""), urllib.parse.quote(client_secret, safe=""))  # RFC 6749 §2.3.1
        elif method == "post":
            data.update(client_id=client_id, client_secret=client_secret)
        elif client_id is not None:
            data["client_id"] = client_id
        return self.http.post(self.endpoint("token_endpoint"), data=data, auth=auth, timeout=30)

    def exchange(self, flow, client_id, client_secret=None, method="basic"):
        """The code of `code_for` exchanged at the token endpoint (200 expected): the token response."""
        data = {"grant_type": "authorization_code", "code": flow["code"], "redirect_uri": flow["params"]["redirect_uri"]}
        if flow["verifier"]:
            data["code_verifier"] = flow["verifier"]
        response = self.token(data, client_id, client_secret, method="basic" if client_secret else "none")
        assert response.status_code == 200, response.text
        assert response.headers.get("Cache-Control") == "no-store", response.headers  # RFC 6749 §5.1
        return response.json()

    def userinfo(self, access_token, how="get"):
        """`/oidc/userinfo`: `get` or `post-header` (Authorization: Bearer), `post-body` (RFC 6750 §2.2)."""
        url = self.endpoint("userinfo_endpoint")
        headers = {"Authorization": f"Bearer {access_token}"}
        if how == "get":
            return self.http.get(url, headers=headers, timeout=30)
        if how == "post-header":
            return self.http.post(url, headers=headers, timeout=30)
        return self.http.post(url, data={"access_token": access_token}, timeout=30)

    def introspect(self, token):
        """`POST /api/introspect` with the introspection secret: the JSON answer (200 expected)."""
        response = self.http.post(self.endpoint("introspection_endpoint"), data={"token": token},
                                  headers={"Authorization": f"Bearer {INTROSPECTION_SECRET}"}, timeout=30)
        assert response.status_code == 200, response.text
        return response.json()

    def get_authorize(self, params_or_query):
        """`GET /authorize` as a browser would start it (no redirect followed): the response."""
        query = params_or_query if isinstance(params_or_query, str) else urllib.parse.urlencode(params_or_query)
        return self.http.get(self.endpoint("authorization_endpoint") + "?" + query, allow_redirects=False, timeout=30)
