"""Custom claims against the binary, read by authlib (PyPI), a client we did not write: an operator gives an
account and a group claims with `latchkey admin claims set`; a client whose scopes include the claims' scope
finds them in the id_token authlib verifies and in authlib's UserInfo answer, its groups under the name it
chose (`roles`); a client that does not ask finds none; a reserved name is refused (exit 2) and stores nothing."""
import json

from test_authlib_client import REDIRECT, run_flow, session_for, verified_id_token


def add_client(provider, name, scopes, groups_claim=None):
    body = {"name": name, "redirectUris": [REDIRECT], "scopes": scopes}
    if groups_claim:
        body["groupsClaim"] = groups_claim
    response = provider.http.post(provider.url("/api/admin/clients"), json=body,
                                  headers={"Authorization": f"Bearer {provider.admin_key()}"}, timeout=30)
    assert response.status_code == 201, response.text
    return response.json()["client"]["id"], response.json()["clientSecret"]


def test_claims_reach_a_client_that_asks_and_no_other(provider):
    person = provider.person("Claims Person")
    provider.set_account(person.account_id, "--group", "staff")
    provider.admin("claims", "set", "--account", person.account_id, "department", "engineering")
    provider.admin("claims", "set", "--group", "staff", "team", "blue", "--scope", "groups")
    listed = json.loads(provider.admin("claims", "list", "--group", "staff", "--json").stdout)
    assert [(claim["name"], claim["value"], claim["scope"]) for claim in listed] == [("team", "blue", "groups")], listed

    asking_id, asking_secret = add_client(provider, "Claims asking app", ["openid", "profile", "groups"], groups_claim="roles")
    session = session_for(provider, asking_id, asking_secret, scope="openid profile groups")
    token, nonce = run_flow(provider, person, session)
    claims = verified_id_token(provider, token, asking_id, "ES256", nonce)
    userinfo = session.get(provider.endpoint("userinfo_endpoint")).json()
    for found in (claims, userinfo):
        assert found["department"] == "engineering" and found["team"] == "blue", found
        assert found["roles"] == ["staff"] and "groups" not in found, found

    other_id, other_secret = add_client(provider, "Claims plain app", ["openid", "email"])
    session = session_for(provider, other_id, other_secret, scope="openid email")
    token, nonce = run_flow(provider, person, session)
    claims = verified_id_token(provider, token, other_id, "ES256", nonce)
    userinfo = session.get(provider.endpoint("userinfo_endpoint")).json()
    for found in (claims, userinfo):
        assert not {"department", "team", "roles", "groups"} & set(found), found


def test_a_reserved_claim_name_is_refused(provider):
    person = provider.person("Reserved Claims Person")
    for name in ("sub", "iss", "aud", "email", "sid"):
        refused = provider.admin("claims", "set", "--account", person.account_id, name, "x", expect=2)
        assert "claim_name_invalid" in refused.stderr and "reserved" in refused.stderr, refused.stderr
    assert "No claims" in provider.admin("claims", "list", "--account", person.account_id).stdout


def test_the_claims_parameter_asks_for_a_standard_claim_by_name(provider):
    """OIDC Core §5.5: `claims` names `email` without the email scope; discovery says it is supported."""
    assert provider.discovery["claims_parameter_supported"] is True
    person = provider.person("Claims Parameter Person", email="claims-parameter@example.test")
    client_id, secret = add_client(provider, "Claims parameter app", ["openid", "profile", "email"])
    flow = provider.code_for(person, client_id, REDIRECT, "openid", extra={"claims": json.dumps({"id_token": {"email": None}})})
    tokens = provider.exchange(flow, client_id, secret)
    claims = verified_id_token(provider, tokens, client_id, "ES256", flow["nonce"])
    assert claims["email"] == "claims-parameter@example.test" and "name" not in claims, claims
    assert "email" in tokens["scope"].split(), tokens
