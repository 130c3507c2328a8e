"""Signing in to another app through Latchkey's page (OpenID Connect), in a real Chromium with a virtual
authenticator: /authorize sends a person who is not signed in to the sign-in view, then to the consent
screen, then back to the app with a code; a second request goes straight back; prompt=login asks for the
passkey again; /end-session signs out (after asking, without an id_token_hint). The app's redirect URI
is a loopback address nobody listens on: the code is read from the address the browser was sent to."""
import base64
import hashlib
import json
import sqlite3
import time
import urllib.parse

import pytest
from selenium.webdriver.common.by import By

from conftest import axe_violations, register, screenshot, visible, wait

CALLBACK = "http://127.0.0.1:9/callback"
BYE = "http://127.0.0.1:9/bye"
SECRET = "lk_client_" + "Q" * 43


def oidc_state(driver, state):
    wait(driver).until(lambda d: d.execute_script("return document.body.dataset.oidc") == state)


def add_client(server, client_id="notes", first_party=False):
    """The client as `latchkey admin clients add` stores it (only the secret's SHA-256)."""
    now = int(time.time() * 1000)
    with sqlite3.connect(server.database.split(":", 1)[1]) as db:
        db.execute(
            "INSERT INTO oidc_clients (id, name, secret_hash, redirect_uris, post_logout_uris, id_token_alg, first_party, scopes,"
            " allowed_groups, created_at, updated_at, created_by) VALUES (?, ?, ?, ?, ?, 'ES256', ?, 'openid profile email groups', '', ?, ?, 'cli')",
            (client_id, "Team Notes", hashlib.sha256(SECRET.encode()).digest(), CALLBACK, BYE, int(first_party), now, now))


def authorize_url(server, **extra):
    parameters = {"response_type": "code", "client_id": "notes", "redirect_uri": CALLBACK, "scope": "openid profile",
                  "state": "s-1", "nonce": "n-1", **extra}
    return server.url + "/authorize?" + urllib.parse.urlencode(parameters)


def returned(driver):
    """The parameters the browser was sent back to the app with."""
    wait(driver).until(lambda d: d.current_url.startswith(CALLBACK))
    return dict(urllib.parse.parse_qsl(urllib.parse.urlparse(driver.current_url).query))


def redeem(server, code):
    basic = base64.b64encode(f"notes:{SECRET}".encode()).decode()
    body = urllib.parse.urlencode({"grant_type": "authorization_code", "code": code, "redirect_uri": CALLBACK}).encode()
    return server.raw("POST", "/oidc/token", body, content_type="application/x-www-form-urlencoded", headers={"Authorization": f"Basic {basic}"})


@pytest.mark.parametrize("server", [("--oidc", "--signup", "open")], indirect=True)
def test_sign_in_consent_and_back(server, browser):
    from conftest import virtual_authenticator
    virtual_authenticator(browser)
    add_client(server)
    # Someone with an account on Latchkey, signed out.
    browser.get(server.url + "/")
    register(browser, "Grace Hopper")
    browser.find_element(By.ID, "logout").click()
    visible(browser, "welcome")

    # Not signed in: the sign-in view, for the app. The virtual authenticator answers passkey autofill at
    # once (a person would pick their passkey from the name field's list), which signs in and goes on.
    browser.get(authorize_url(server))
    oidc_state(browser, "consent")
    assert "Sign in to continue to Team Notes." in browser.find_element(By.ID, "oidc-context").get_attribute("textContent")
    consent = visible(browser, "oidc-consent-step")
    assert "Team Notes" in consent.text and "Your name and username" in consent.text
    assert axe_violations(browser) == []
    screenshot(browser, "oidc-2-consent")
    browser.find_element(By.ID, "oidc-allow").click()
    answer = returned(browser)
    assert answer["state"] == "s-1" and answer["iss"] == server.url and answer["code"]
    status, tokens, _ = redeem(server, answer["code"])
    assert status == 200, tokens
    claims = json.loads(base64.urlsafe_b64decode(tokens["id_token"].split(".")[1] + "=="))
    assert claims["nonce"] == "n-1" and claims["aud"] == "notes" and claims["name"] == "Grace Hopper"

    # Consent is remembered and the session is there: straight back, no screen.
    browser.get(authorize_url(server, state="s-2"))
    assert returned(browser)["state"] == "s-2"

    # prompt=login: the passkey again (autofill, at once), then back (no consent: it was given), with a
    # later auth_time than the session it had.
    time.sleep(1.1)
    browser.get(authorize_url(server, state="s-3", prompt="login"))
    again = returned(browser)
    assert again["state"] == "s-3"
    status, tokens, _ = redeem(server, again["code"])
    fresh = json.loads(base64.urlsafe_b64decode(tokens["id_token"].split(".")[1] + "=="))
    assert fresh["auth_time"] > claims["auth_time"]

    # Declining: back with access_denied.
    browser.get(authorize_url(server, state="s-4", prompt="consent"))
    oidc_state(browser, "consent")
    browser.find_element(By.ID, "oidc-deny").click()
    assert returned(browser)["error"] == "access_denied"

    # Signing out for the app without a hint: the person is asked first, then sent back with the state.
    browser.get(server.url + "/end-session?" + urllib.parse.urlencode({"client_id": "notes", "post_logout_redirect_uri": BYE, "state": "bye-1"}))
    oidc_state(browser, "confirm")
    assert browser.find_element(By.ID, "oidc-confirm-title").text == "Sign out of Latchkey from Team Notes?", "one whole sentence"
    screenshot(browser, "oidc-3-sign-out")
    browser.find_element(By.ID, "oidc-signout").click()
    wait(browser).until(lambda d: d.current_url.startswith(BYE))
    assert "state=bye-1" in browser.current_url
    # Signed out: the next authorization shows the sign-in view again (prompt=none says so to the app).
    browser.get(authorize_url(server, state="s-5", prompt="none"))
    assert returned(browser)["error"] == "login_required"


@pytest.mark.parametrize("server", [("--oidc", "--signup", "open")], indirect=True)
def test_refusals_never_redirect(server, browser):
    add_client(server)
    for bad in ("http://127.0.0.1:9/callback/extra", "http://evil.example/callback", "http://127.0.0.1:10/callback"):
        browser.get(authorize_url(server, redirect_uri=bad))
        assert browser.current_url.startswith(server.url), browser.current_url
        assert browser.find_element(By.CSS_SELECTOR, "main").get_attribute("data-error") == "oidc_invalid_redirect_uri"
    # A request error the app can be told about goes back to it.
    browser.get(authorize_url(server, response_type="token"))
    assert returned(browser)["error"] == "unsupported_response_type"
