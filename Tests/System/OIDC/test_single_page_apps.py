"""A single-page app signing people in with PKCE calls the token, UserInfo and revocation endpoints from its
own origin, which the browser allows only when the answer names that origin (CORS). Latchkey allows the
origins of registered clients' redirect URIs (Keycloak's and Pocket ID's "web origins"): the preflight is
answered for them and refused (403 origin_not_allowed) for any other, the answers name the origin back and
never `*` or credentials, and errors carry it too (the page must be able to read them). Discovery and the
JWKS are public documents: `*`. A client removed through the admin API takes its origin with it at once.

Here the browser's part is played with plain HTTP: the `Origin` header and the preflight's
`Access-Control-Request-*` headers as Chromium sends them."""
import pytest

SPA = "https://spa.example.test"
SPA_CALLBACK = SPA + "/callback"
DEV = "http://localhost:5173"
DEV_CALLBACK = DEV + "/auth/callback"
EVIL = "https://evil.example.test"


@pytest.fixture(scope="module")
def spa(provider):
    client_id, _, _ = provider.add_client("Single-page app", [SPA_CALLBACK, DEV_CALLBACK, "com.example.spa:/cb"], public=True,
                                          first_party=True)
    return client_id


def preflight(provider, path, origin, method="POST", headers="content-type"):
    return provider.http.options(provider.url(path), headers={
        "Origin": origin, "Access-Control-Request-Method": method, "Access-Control-Request-Headers": headers}, timeout=10)


def allows(response, origin):
    assert response.headers.get("Access-Control-Allow-Origin") == origin, response.headers
    assert "Access-Control-Allow-Credentials" not in response.headers, response.headers
    assert "Origin" in response.headers.get("Vary", ""), response.headers


@pytest.mark.parametrize("origin", [SPA, DEV])
def test_the_preflight_allows_a_registered_clients_origin(provider, spa, origin):
    for path, methods in [("/oidc/token", "POST"), ("/oidc/userinfo", "GET, POST"), ("/oidc/revoke", "POST")]:
        response = preflight(provider, path, origin, method=methods.split(", ")[0])
        assert response.status_code == 204, (path, response.status_code, response.text)
        allows(response, origin)
        assert response.headers["Access-Control-Allow-Methods"] == methods, response.headers
        assert {h.strip().lower() for h in response.headers["Access-Control-Allow-Headers"].split(",")} == {"authorization", "content-type"}
        assert response.headers["Access-Control-Max-Age"] == "600", response.headers


@pytest.mark.parametrize("origin", [EVIL, "https://spa.example.test.evil.example", "http://spa.example.test", "https://spa.example.test:8443",
                                    "null", "com.example.spa:"])
def test_the_preflight_refuses_any_other_origin(provider, spa, origin):
    response = preflight(provider, "/oidc/token", origin)
    assert response.status_code == 403, (origin, response.status_code, response.text)
    assert response.json()["error"]["code"] == "origin_not_allowed", response.text
    assert "Access-Control-Allow-Origin" not in response.headers, response.headers


def test_a_pkce_sign_in_from_the_apps_origin(provider, spa):
    """The code exchange, UserInfo and revocation with the app's Origin: each answer names it; a call from
    another origin gets its answer (the server does not enforce CORS: the browser does) without the header."""
    person = provider.person("Spa Person", username="spa-person")
    flow = provider.code_for(person, spa, SPA_CALLBACK, "openid profile")
    data = {"grant_type": "authorization_code", "code": flow["code"], "redirect_uri": SPA_CALLBACK,
            "code_verifier": flow["verifier"], "client_id": spa}
    response = provider.http.post(provider.endpoint("token_endpoint"), data=data, headers={"Origin": SPA}, timeout=30)
    assert response.status_code == 200, response.text
    allows(response, SPA)
    tokens = response.json()
    info = provider.http.get(provider.endpoint("userinfo_endpoint"), timeout=30,
                             headers={"Origin": SPA, "Authorization": f"Bearer {tokens['access_token']}"})
    assert info.status_code == 200 and info.json()["preferred_username"] == "spa-person", info.text
    allows(info, SPA)
    foreign = provider.http.get(provider.endpoint("userinfo_endpoint"), timeout=30,
                                headers={"Origin": EVIL, "Authorization": f"Bearer {tokens['access_token']}"})
    assert foreign.status_code == 200, foreign.text
    assert "Access-Control-Allow-Origin" not in foreign.headers, foreign.headers
    # The same code again (an error the page must be able to read): refused, with the header.
    again = provider.http.post(provider.endpoint("token_endpoint"), data=data, headers={"Origin": SPA}, timeout=30)
    assert again.status_code == 400 and again.json()["error"] == "invalid_grant", again.text
    allows(again, SPA)
    revoked = provider.http.post(provider.url("/oidc/revoke"), data={"token": tokens["access_token"], "client_id": spa},
                                 headers={"Origin": SPA}, timeout=30)
    assert revoked.status_code == 200, revoked.text
    allows(revoked, SPA)


def test_discovery_and_the_keys_are_for_any_origin(provider):
    for path in ("/.well-known/openid-configuration", "/.well-known/jwks.json"):
        response = provider.http.get(provider.url(path), headers={"Origin": EVIL}, timeout=10)
        assert response.status_code == 200, response.text
        assert response.headers.get("Access-Control-Allow-Origin") == "*", (path, response.headers)
        assert "Access-Control-Allow-Credentials" not in response.headers


def test_without_origin_options_is_not_a_preflight(provider):
    response = provider.http.options(provider.url("/oidc/userinfo"), timeout=10)
    assert response.status_code == 204, response.text
    assert response.headers["Allow"] == "GET, POST, OPTIONS", response.headers
    assert "Access-Control-Allow-Origin" not in response.headers


def test_a_removed_clients_origin_is_refused_at_once(provider):
    origin = "https://short-lived.example.test"
    client_id, _, _ = provider.add_client("Short-lived app", [origin + "/cb"], public=True)
    assert preflight(provider, "/oidc/token", origin).status_code == 204
    removed = provider.http.delete(provider.url(f"/api/admin/clients/{client_id}"),
                                   headers={"Authorization": f"Bearer {provider.admin_key()}"}, timeout=30)
    assert removed.status_code == 204, removed.text
    response = preflight(provider, "/oidc/token", origin)
    assert response.status_code == 403, response.text
