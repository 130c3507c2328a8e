"""Rotating a confidential client's secret (`latchkey admin clients rotate-secret`) ends everything the old
secret obtained: its grants are revoked, so the refresh token is refused, the access token stops being active
at introspection and at UserInfo (both find the grant by the token's `sid`), and the old secret no longer
authenticates. The CLI says so, with the number of grants; the audit trail has it as `grantsRevoked`."""
import json

from oidc_support import ALL_SCOPES

CALLBACK = "https://rotating.example.test/callback"


def test_rotating_the_secret_ends_the_clients_grants(provider):
    client_id, secret, _ = provider.add_client("Rotating app", [CALLBACK], scopes=ALL_SCOPES)
    other_id, other_secret, _ = provider.add_client("Unrelated app", [CALLBACK], scopes=ALL_SCOPES)
    person = provider.person("Rotation Person")
    tokens = provider.exchange(provider.code_for(person, client_id, CALLBACK, "openid profile offline_access"), client_id, secret)
    other = provider.exchange(provider.code_for(person, other_id, CALLBACK, "openid profile offline_access"), other_id, other_secret)
    assert tokens.get("refresh_token") and provider.introspect(tokens["access_token"])["active"] is True
    assert provider.userinfo(tokens["access_token"]).status_code == 200

    rotated = provider.admin("clients", "rotate-secret", client_id)
    assert "1 grant revoked" in rotated.stdout and "The old secret no longer works" in rotated.stdout, rotated.stdout
    new_secret = next(line.strip() for line in rotated.stdout.splitlines() if line.strip().startswith("lk_client_"))

    assert provider.introspect(tokens["access_token"]) == {"active": False}
    userinfo = provider.userinfo(tokens["access_token"])
    assert userinfo.status_code == 401, userinfo.text
    refresh = {"grant_type": "refresh_token", "refresh_token": tokens["refresh_token"]}
    refused = provider.token(refresh, client_id, new_secret)
    assert (refused.status_code, refused.json().get("error")) == (400, "invalid_grant"), refused.text
    old = provider.token(refresh, client_id, secret)
    assert (old.status_code, old.json().get("error")) == (401, "invalid_client"), old.text
    # The new secret works for a new sign-in; another client's grants are untouched.
    again = provider.exchange(provider.code_for(person, client_id, CALLBACK, "openid profile"), client_id, new_secret)
    assert provider.introspect(again["access_token"])["active"] is True
    assert provider.introspect(other["access_token"])["active"] is True
    assert provider.token({"grant_type": "refresh_token", "refresh_token": other["refresh_token"]}, other_id, other_secret).status_code == 200

    events = json.loads(provider.admin("audit", "--event", "oidc_client.secret_rotated", "--json").stdout)["events"]
    mine = [event for event in events if event["detail"].get("client") == client_id]
    assert len(mine) == 1 and mine[0]["detail"]["grantsRevoked"] == 1 and mine[0]["actor"] == "cli", mine
    # A second rotation ends the grant made since, and only it; then there is nothing left to revoke.
    assert "1 grant revoked" in provider.admin("clients", "rotate-secret", client_id).stdout
    assert provider.introspect(again["access_token"]) == {"active": False}
    assert provider.introspect(other["access_token"])["active"] is True
    assert "0 grants revoked" in provider.admin("clients", "rotate-secret", client_id).stdout
