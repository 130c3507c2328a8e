"""The device flow's verification page (RFC 8628, /device) in a real Chromium with a virtual authenticator,
while a client polls: a terminal asks /oidc/device for a code, the person opens verification_uri_complete
(the code is filled in, and still confirmed), signs in with their passkey, sees the app and the code, and
allows it; the client's next poll gets the tokens. axe finds nothing in the code, consent and done views, in
light and dark. The client here is a hand-written RFC 8628 client (urllib), apart from the server's code."""
import base64
import json
import sqlite3
import time
import urllib.parse

import pytest
from selenium.webdriver.common.by import By

from conftest import axe_violations, emulate, register, screenshot, visible, wait

DEVICE_GRANT = "urn:ietf:params:oauth:grant-type:device_code"


def oidc_state(driver, state):
    wait(driver).until(lambda d: d.execute_script("return document.body.dataset.oidc") == state)


def add_device_client(server, client_id="tv"):
    """A public client allowed only the device flow, as `latchkey admin clients add "Living-room TV" --public
    --grant device_code` stores it."""
    now = int(time.time() * 1000)
    with sqlite3.connect(server.database.split(":", 1)[1]) as db:
        db.execute(
            "INSERT INTO oidc_clients (id, name, secret_hash, redirect_uris, post_logout_uris, id_token_alg, first_party, scopes,"
            " allowed_groups, created_at, updated_at, created_by, grant_types) VALUES (?, 'Living-room TV', NULL, '', '', 'ES256', 0,"
            " 'openid profile email groups', '', ?, ?, 'cli', ?)",
            (client_id, now, now, DEVICE_GRANT))


def form(server, path, fields):
    return server.raw("POST", path, urllib.parse.urlencode(fields).encode(), content_type="application/x-www-form-urlencoded")


def no_violations(driver, view):
    for scheme in ("light", "dark"):
        emulate(driver, 1280, scheme)
        violations = axe_violations(driver)
        assert violations == [], (view, scheme, violations)
    emulate(driver, 1280, "light")


@pytest.mark.parametrize("server", [("--oidc", "--signup", "open")], indirect=True)
def test_device_signs_in_through_the_page(server, browser):
    from conftest import virtual_authenticator
    virtual_authenticator(browser)
    add_device_client(server)
    browser.get(server.url + "/")
    register(browser, "Katherine Johnson")
    browser.find_element(By.ID, "logout").click()
    visible(browser, "welcome")

    status, started, _ = form(server, "/oidc/device", {"client_id": "tv", "scope": "openid profile"})
    assert status == 200, started
    assert started["verification_uri"] == server.url + "/device"
    status, pending, _ = form(server, "/oidc/token", {"grant_type": DEVICE_GRANT, "device_code": started["device_code"], "client_id": "tv"})
    assert (status, pending["error"]) == (400, "authorization_pending"), pending

    # The code is filled in from the address, and the person confirms it before anything else.
    browser.get(started["verification_uri_complete"])
    oidc_state(browser, "device-code")
    assert browser.find_element(By.ID, "oidc-user-code").get_attribute("value") == started["user_code"]
    no_violations(browser, "code")
    screenshot(browser, "oidc-device-1-code")
    browser.find_element(By.ID, "oidc-device-continue").click()

    # Not signed in: the sign-in view; the virtual authenticator answers autofill at once, and the page goes on.
    oidc_state(browser, "device-consent")
    step = visible(browser, "oidc-device-step")
    assert "Living-room TV" in step.text and started["user_code"] in step.text, step.text
    no_violations(browser, "consent")
    screenshot(browser, "oidc-device-2-consent")
    browser.find_element(By.ID, "oidc-device-allow").click()
    oidc_state(browser, "device-done")
    assert "Living-room TV" in browser.find_element(By.ID, "oidc-done").text
    no_violations(browser, "done")

    # The client's next poll, after the interval: the tokens, for the person who allowed it.
    time.sleep(started["interval"] + 0.2)
    status, tokens, _ = form(server, "/oidc/token", {"grant_type": DEVICE_GRANT, "device_code": started["device_code"], "client_id": "tv"})
    assert status == 200, tokens
    claims = json.loads(base64.urlsafe_b64decode(tokens["id_token"].split(".")[1] + "=="))
    assert claims["aud"] == "tv" and claims["name"] == "Katherine Johnson"


@pytest.mark.parametrize("server", [("--oidc", "--signup", "open")], indirect=True)
def test_a_wrong_code_is_said_so(server, browser):
    from conftest import virtual_authenticator
    virtual_authenticator(browser)
    add_device_client(server)
    browser.get(server.url + "/")
    register(browser, "Dorothy Vaughan")
    browser.get(server.url + "/device")
    oidc_state(browser, "device-code")
    browser.find_element(By.ID, "oidc-user-code").send_keys("BCDF-GHJK")
    browser.find_element(By.ID, "oidc-device-continue").click()
    wait(browser).until(lambda d: "No sign-in is waiting for this code" in d.find_element(By.ID, "error").text)
    assert browser.execute_script("return document.body.dataset.oidc") == "device-code"
    assert axe_violations(browser) == []
