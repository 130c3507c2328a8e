"""The fourth security review's OpenID Connect findings (../shared/SECURITY-FINDINGS-4.md) against the REAL
`latchkey serve --oidc`, each in the shape the review observed it:

- S4-1: a repeated parameter whose *name* carries HTML behind a Prepend letter (U+0D4E, U+0600, U+110BD)
  no longer reaches the error page of `/authorize`, `POST /authorize` or `/end-session`: the page holds no
  tag Latchkey did not write, and its policy allows no script, form or image.
- S4-4: repeating an authorization in one session replaces its pending grant instead of adding one; the
  "Apps with access" list answers at the bound as fast as with one grant (printed for the issue's note).
- S4-6: making a confidential client public revokes its grants: the refresh token and the pending code
  stop working with the client id alone.
- S4-7: a refresh asking for a wider scope is refused and changes nothing; a narrower one is issued.
- S4-13: an anonymous `id_token_hint` headed RS256 makes no RSA keys.
- S4-14: 60 token requests write at most 20 `access_token.issued` rows an hour.
"""
import base64
import json
import re
import sqlite3
import statistics
import time
import urllib.parse

from oidc_support import ALL_SCOPES, Provider, pkce_pair, query_of

CALLBACK = "https://review4.example.test/callback"
PREPENDS = ["\u0d4e", "\u0600", "\U000110bd"]


def html_names(prepend):
    """Parameter names that carried a meta refresh past a per-grapheme escaper, and plain ones."""
    meta = f"{prepend}<meta http-equiv=refresh content=0;url=https://attacker.example/{prepend}>"
    return [meta, f'{prepend}"onmouseover={prepend}\'x{prepend}&amp;', "<b>bold</b>"]


def tags(html):
    """The tag names of a page, in order."""
    return re.findall(r"<\s*/?\s*([A-Za-z!][^\s>/]*)", html)


def test_a_repeated_parameter_name_never_reaches_the_error_page(provider):
    reference = provider.get_authorize("client_id=x&client_id=y")
    assert reference.status_code == 400, reference.text
    expected_tags = tags(reference.text)
    for prepend in PREPENDS:
        for name in html_names(prepend):
            encoded = urllib.parse.quote(name, safe="")
            query = f"{encoded}=1&{encoded}=1"
            pages = [
                provider.get_authorize(query),
                provider.http.post(provider.endpoint("authorization_endpoint"), data=query,
                                   headers={"Content-Type": "application/x-www-form-urlencoded"}, allow_redirects=False,
                                   timeout=30),
                provider.http.get(provider.url("/end-session") + "?" + query, allow_redirects=False, timeout=30),
            ]
            for page in pages:
                assert page.status_code == 400 and "Location" not in page.headers, (name, page.status_code, page.headers)
                assert page.headers["Content-Type"].startswith("text/html"), page.headers
                assert tags(page.text) == expected_tags, (name, page.text)
                assert "attacker.example" not in page.text and "meta http-equiv=refresh" not in page.text, page.text
                assert "a parameter more than once" in page.text, page.text
                policy = page.headers["Content-Security-Policy"]
                assert "default-src 'none'" in policy and "script-src" not in policy and "form-action 'none'" in policy, policy
    # A parameter Latchkey reads is still named: the sentence helps the app's developer.
    named = provider.get_authorize("scope=openid&scope=email")
    assert "the parameter scope more than once" in named.text, named.text


def test_repeating_an_authorization_replaces_its_pending_grant_and_the_apps_list_stays_fast(provider):
    client_id, _, _ = provider.add_client("Repeated app", [CALLBACK], public=True, first_party=True, scopes=ALL_SCOPES)
    person = provider.person("Repeating Person")
    verifier, challenge = pkce_pair()
    query = urllib.parse.urlencode({"client_id": client_id, "redirect_uri": CALLBACK, "response_type": "code", "scope": "openid",
                                    "code_challenge": challenge, "code_challenge_method": "S256"})

    def apps_ms():
        samples = []
        for _ in range(15):
            started = time.perf_counter()
            response = provider.http.get(provider.url("/api/account/apps"), headers={"Authorization": f"Bearer {person.token}"}, timeout=30)
            samples.append((time.perf_counter() - started) * 1000)
            assert response.status_code == 200, response.text
        return statistics.median(samples), response.json()

    codes = []
    for _ in range(300):
        status, body = provider.authorization(query, token=person.token)
        assert status == 200 and "redirect" in body, body
        codes.append(query_of(body["redirect"])["code"])
    with_300, apps = apps_ms()
    listed = apps["apps"] if isinstance(apps, dict) else apps
    assert [app["clientId"] for app in listed] == [client_id], apps
    # Only the last code of the session is still good: each authorization replaced the one before.
    def redeem(code):
        return provider.token({"grant_type": "authorization_code", "code": code, "redirect_uri": CALLBACK, "code_verifier": verifier},
                              client_id)
    for code in (codes[0], codes[-2]):
        refused = redeem(code)
        assert (refused.status_code, refused.json()["error"]) == (400, "invalid_grant"), refused.text
    last = redeem(codes[-1])
    assert last.status_code == 200, last.text
    grants = provider.admin("audit", "--event", "oidc.authorized", "--json")
    written = len(json.loads(grants.stdout)["events"])
    assert written <= 20, f"{written} oidc.authorized rows for 300 authorizations in an hour"

    # From 60 sessions (a sign-in each), each code exchanged: at most 50 grants stay live for the client.
    for _ in range(60):
        person.sign_in()
        status, body = provider.authorization(query, token=person.token)
        assert status == 200 and "redirect" in body, body
        assert redeem(query_of(body["redirect"])["code"]).status_code == 200
    database = sqlite3.connect(provider.server.database.removeprefix("sqlite:"))
    now_ms = int(time.time() * 1000)
    live = database.execute("SELECT count(*) FROM oidc_grants WHERE account_id = ? AND revoked_at IS NULL AND expires_at > ?",
                            (person.account_id, now_ms)).fetchone()[0]
    rows = database.execute("SELECT count(*) FROM oidc_grants WHERE account_id = ?", (person.account_id,)).fetchone()[0]
    database.close()
    assert live == 50, live
    at_bound, _ = apps_ms()
    print(f"\nS4-4: GET /api/account/apps (client's round trip, median of 15): {with_300:.2f} ms after 300 authorizations in one "
          f"session (1 grant kept); {at_bound:.2f} ms at the bound ({live} live grants, {rows} rows); oidc.authorized rows written: {written}")


def test_making_a_client_public_revokes_its_grants_and_pending_codes(provider):
    client_id, secret, _ = provider.add_client("Turning public", [CALLBACK], scopes=ALL_SCOPES)
    person = provider.person("Public Turn")
    tokens = provider.exchange(provider.code_for(person, client_id, CALLBACK, "openid offline_access", pkce=False), client_id, secret)
    pending = provider.code_for(person, client_id, CALLBACK, "openid", pkce=False)
    refresh = {"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"]}
    assert provider.token(refresh, client_id).status_code == 401  # the client id alone: not yet

    # Through the serving instance's admin API (which it sees at once; `latchkey admin clients update --public`
    # changes the same rows, and says how many grants it revoked: Tests/System/Admin).
    updated = provider.http.patch(provider.url(f"/api/admin/clients/{client_id}"), json={"public": True},
                                  headers={"Authorization": f"Bearer {provider.admin_key()}"}, timeout=30)
    assert updated.status_code == 200 and updated.json()["grantsRevoked"] == 2, updated.text

    after = provider.token(refresh, client_id)
    assert (after.status_code, after.json().get("error")) == (400, "invalid_grant"), after.text
    code = provider.token({"grant_type": "authorization_code", "code": pending["code"], "redirect_uri": CALLBACK}, client_id)
    assert code.status_code == 400, code.text
    events = json.loads(provider.admin("audit", "--event", "oidc_client.updated", "--json").stdout)["events"]
    mine = [event for event in events if event["detail"].get("client") == client_id]
    assert mine and mine[0]["detail"].get("grantsRevoked", 0) >= 1, mine


def test_a_wider_refresh_scope_is_refused_without_burning_the_token(provider):
    client_id, secret, _ = provider.add_client("Scoped refresh", [CALLBACK], scopes=ALL_SCOPES)
    person = provider.person("Scope Person", email="scope@example.com")
    tokens = provider.exchange(provider.code_for(person, client_id, CALLBACK, "openid profile offline_access"), client_id, secret)
    wider = provider.token({"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"], "scope": "openid email"},
                           client_id, secret)
    assert (wider.status_code, wider.json()["error"]) == (400, "invalid_scope"), wider.text
    # The same token still works: nothing was rotated, nothing revoked.
    narrower = provider.token({"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"], "scope": "openid"},
                              client_id, secret)
    assert narrower.status_code == 200, narrower.text
    assert narrower.json()["scope"] == "openid", narrower.json()
    # The new refresh token keeps the whole grant's scope.
    full = provider.token({"grant_type": "refresh_token", "refresh_token": narrower.json()["refresh_token"]}, client_id, secret)
    assert full.status_code == 200 and set(full.json()["scope"].split()) == {"openid", "profile", "offline_access"}, full.text


def unsigned(header, claims):
    encode = lambda value: base64.urlsafe_b64encode(json.dumps(value).encode()).rstrip(b"=").decode()  # noqa: E731
    return f"{encode(header)}.{encode(claims)}.x"


def test_an_anonymous_rs256_hint_makes_no_rsa_keys():
    fresh = Provider()  # no client at all, so none on RS256
    try:
        before = [key["kty"] for key in fresh.jwks()["keys"]]
        assert before == ["EC", "EC", "EC"], before
        response = fresh.http.get(fresh.url("/end-session") + "?" + urllib.parse.urlencode(
            {"id_token_hint": unsigned({"alg": "RS256", "kid": "x"}, {})}), allow_redirects=False, timeout=30)
        assert response.status_code in (200, 400), response.text
        assert [key["kty"] for key in fresh.jwks()["keys"]] == before
        # A client on RS256 is what makes them.
        fresh.add_client("RS256 app", [CALLBACK], alg="RS256")
        assert sorted(key["kty"] for key in fresh.jwks()["keys"]) == ["EC", "EC", "EC", "RSA", "RSA", "RSA"]
    finally:
        fresh.stop()


def test_token_requests_write_at_most_20_rows_an_hour():
    fresh = Provider("--access-tokens")
    try:
        person = fresh.person("Token Caller")
        for _ in range(60):
            response = fresh.http.post(fresh.url("/api/token"), headers={"Authorization": f"Bearer {person.token}"}, timeout=30)
            assert response.status_code in (200, 201), response.text
        events = json.loads(fresh.admin("audit", "--event", "access_token.issued", "--account", person.account_id, "--json").stdout)["events"]
        assert len(events) == 20, len(events)
    finally:
        fresh.stop()
