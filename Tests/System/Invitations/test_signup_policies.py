"""The sign-up policy against a real `latchkey serve --compat passkeysdemo,hanko` (issue 43), each policy
against each way a stranger makes an account: Latchkey's own API (the page's), PassKeysDemo's iOS client,
Hanko's iOS app and web page (Tests/System/Compat's replays). `open` registers everywhere; `invite` and `closed`
refuse everywhere with 403 `signup_closed` and make nothing; `--oidc` without `--signup` is invite-only;
under `invite` an invitation still makes an account, under `closed` only an operator's does. The page's
view of it is Tests/System/Browser's."""
import json
import sqlite3

import pytest
from soft_webauthn import SoftWebauthnDevice

from invitation_support import SIGNUP_CLOSED, Server, admin, create_account, invite, join, register

from compat_clients import HankoClient, PKDClient

COMPAT = ("--compat", "passkeysdemo,hanko", "--rate-limit", "0", "--user-verification", "preferred")
POLICIES = {
    "open": ("--signup", "open"),
    "invite": ("--signup", "invite"),
    "closed": ("--signup", "closed"),
    "oidc-default": ("--oidc",),
    "oidc-open": ("--oidc", "--signup", "open"),
}
OPEN = {"open", "oidc-open"}


@pytest.fixture(scope="module", params=list(POLICIES))
def deployment(request):
    with Server(*COMPAT, *POLICIES[request.param]) as server:
        yield request.param, server


def accounts(server):
    with sqlite3.connect(server.database.split(":", 1)[1]) as db:
        return db.execute("SELECT count(*) FROM accounts").fetchone()[0]


def api(server):
    """Latchkey's registration, as the page makes it: (status, the body's error code or None)."""
    status, body = register(server, SoftWebauthnDevice(), "Ada Lovelace")
    return status, (body or {}).get("error", {}).get("code") if status >= 400 else None


def passkeysdemo(server):
    client = PKDClient(server.port, server.origin)
    status, options = client.create_challenge("Ada")
    if status != 200:
        return status, (options or {}).get("code")
    return (200, None) if client.create_finish(client.create_payload(options)) else (client.last[0], None)


def hanko(web):
    def way(server):
        client = HankoClient(server.port, server.origin, web=web)
        status, body, _ = client.get("/registration_initialize?user_name=ada")
        if status != 200:
            return status, json.loads(body).get("code")
        status, _, _ = client.post("/registration_finalize", client.registration_payload(json.loads(body)))
        return status, None
    return way


WAYS = {"api": (api, 201), "passkeysdemo": (passkeysdemo, 200), "hanko-shiny": (hanko(False), 200), "hanko-web": (hanko(True), 200)}


@pytest.mark.parametrize("way", list(WAYS))
def test_each_policy_against_each_way_in(deployment, way):
    policy, server = deployment
    register_with, created = WAYS[way]
    before = accounts(server)
    status, code = register_with(server)
    if policy in OPEN:
        assert status == created, (policy, way, status, code)
        assert accounts(server) == before + 1
    else:
        assert (status, code) == (403, "signup_closed"), (policy, way, status, code)
        assert accounts(server) == before


def test_the_refusal_and_the_policy_as_the_page_reads_them(deployment):
    policy, server = deployment
    status, body = server.call("GET", "/api/signup")
    expected = {"open": "open", "oidc-open": "open", "invite": "invite", "oidc-default": "invite", "closed": "closed"}[policy]
    assert status == 200 and body == {"policy": expected, "service": "Latchkey", "domains": []}, body
    if policy not in OPEN:
        status, body = server.call("POST", "/api/registration/options", {"displayName": "Ada"})
        assert (status, body) == (403, {"error": {"code": "signup_closed", "message": SIGNUP_CLOSED}})


def test_invitations_under_each_policy(deployment):
    policy, server = deployment
    if policy == "closed":
        # No invitation for new people (the CLI reads the policy as serve does); an operator's account takes one.
        assert "signup_closed" in admin(server, "invites", "create", expect=1, env={"LATCHKEY_SIGNUP": "closed"}).stderr
        made = create_account(server, "--username", f"closed-{accounts(server)}")
        joined, _ = join(server, made["code"], None)
        assert joined == made["account"]["account"]["id"]
    else:
        before = accounts(server)
        join(server, invite(server)["code"], "Invited Person")
        assert accounts(server) == before + 1
