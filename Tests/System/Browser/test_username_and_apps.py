"""Issue 31 in a real Chromium: the person sets, changes and clears their username in the profile card (a
name someone else has is refused at the field itself: the message is tied to it and the focus goes there),
and the "Apps with access" card lists an app they let in and takes its access back; axe-core on both at
phone and desktop width, light and dark. The consent and grant are written into the database with sqlite3
(the provider's own endpoints make them in the OpenID Connect suites)."""
import json
import os
import sqlite3
import time

import pytest
from selenium.webdriver.common.by import By

from conftest import (accessible,
    activity, element_screenshot, emulate, full_page_screenshot, register, text_in, virtual_authenticator, visible, wait,
)
from latchkey_server import admin  # Tests/System/Support, on the path of Tests/System/pytest.ini

LAYOUTS = [(360, "light"), (1440, "dark")]


def account(driver):
    return driver.execute_async_script(
        "const done = arguments[0]; fetch('api/account').then(r => r.json()).then(done, e => done(String(e)));")


def let_in(server, account_id, client_id, scopes):
    """A consent and a live grant, as the authorization endpoint writes them."""
    now = int(time.time() * 1000)
    with sqlite3.connect(server.database[len("sqlite:"):], timeout=10) as connection:
        connection.execute("INSERT INTO oidc_consents (account_id, client_id, scopes, granted_at) VALUES (?, ?, ?, ?)",
                           (account_id, client_id, scopes, now))
        connection.execute(
            "INSERT INTO oidc_grants (id, client_id, account_id, session_hash, scope, nonce, auth_time, amr, created_at, expires_at, revoked_at)"
            " VALUES (?, ?, ?, NULL, ?, NULL, ?, 'hwk user', ?, ?, NULL)",
            (os.urandom(8).hex(), client_id, account_id, scopes, now, now, now + 3_600_000))




def save_username(driver, text):
    field = driver.find_element(By.ID, "username")
    field.clear()
    if text:
        field.send_keys(text)
    else:
        field.send_keys(" ")  # clear() fires no input event; a space (trimmed away) does
    driver.find_element(By.ID, "update").click()


@pytest.mark.parametrize("width,scheme", LAYOUTS, ids=[f"{w}-{s}" for w, s in LAYOUTS])
def test_the_username_and_the_apps_with_access(server, browser, other_browser, width, scheme):
    # Someone else holds "grace" already.
    virtual_authenticator(other_browser)
    other_browser.get(server.url + "/")
    register(other_browser, "Grace Hopper")
    admin(server, "accounts", "set", account(other_browser)["id"], "--username", "grace")

    emulate(browser, width, scheme)
    virtual_authenticator(browser)
    browser.get(server.url + "/")
    register(browser, "Ada Lovelace")
    me = account(browser)
    assert browser.find_element(By.ID, "username").get_attribute("value") == ""
    visible(browser, "apps-empty")
    assert browser.find_elements(By.CSS_SELECTOR, "#apps > li") == []

    # Set: typed in capitals, stored (and shown) in lower case.
    save_username(browser, "Ada.L")
    text_in(browser, "status", "Saved.")
    assert browser.find_element(By.ID, "username").get_attribute("value") == "ada.l"
    assert account(browser)["username"] == "ada.l"
    wait(browser).until(lambda d: activity(d) and activity(d)[0].startswith("Username changed"))

    # Taken: said at the field, which is marked invalid, described by the message and focused.
    save_username(browser, "Grace")
    text_in(browser, "username-error", "Someone else has this username")
    field = browser.find_element(By.ID, "username")
    assert field.get_attribute("aria-invalid") == "true"
    assert "username-error" in field.get_attribute("aria-describedby").split()
    assert browser.switch_to.active_element == field
    assert browser.find_element(By.ID, "error").text == ""
    accessible(browser, "account view with a refused username")
    element_screenshot(browser.find_element(By.ID, "account-form"), f"username-taken-{width}-{scheme}")
    # Not a username at all: the server's sentence, at the field too; typing clears it.
    save_username(browser, "a b")
    text_in(browser, "username-error", "username must be 2 to 32")
    browser.find_element(By.ID, "username").send_keys("c")
    assert not browser.find_element(By.ID, "username-error").is_displayed()
    assert account(browser)["username"] == "ada.l"

    # Cleared: empty removes it.
    save_username(browser, "")
    text_in(browser, "status", "Saved.")
    assert account(browser)["username"] is None

    # An operator's change reads as what it touched, never the values.
    admin(server, "accounts", "set", me["id"], "--email", "ada@example.com", "--group", "staff")
    browser.refresh()
    visible(browser, "account")
    wait(browser).until(lambda d: activity(d) and activity(d)[0].startswith("Email address and groups changed"))
    assert "example.com" not in " ".join(activity(browser))

    # An app the person let in, listed with what it may learn; then its access taken back.
    client = json.loads(admin(server, "clients", "add", "Grafana", "--redirect-uri", "https://grafana.example.com/cb", "--json").stdout)["client"]["id"]
    let_in(server, me["id"], client, "openid profile email")
    browser.refresh()
    visible(browser, "account")
    wait(browser).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#apps > li")) == 1)
    assert not browser.find_element(By.ID, "apps-empty").is_displayed()
    row = browser.find_element(By.CSS_SELECTOR, "#apps > li")
    assert row.find_element(By.CSS_SELECTOR, ".passkey-name").text == "Grafana"
    assert [b.text for b in row.find_elements(By.CSS_SELECTOR, ".badge")] == [
        "Who you are on Latchkey", "Your name and username", "Your email address"]
    accessible(browser, "account view with an app")
    full_page_screenshot(browser, f"account-with-app-{width}-{scheme}")

    row.find_element(By.CSS_SELECTOR, "button").click()
    keep = browser.switch_to.active_element
    assert keep.text == "Keep it"
    accessible(browser, "account view asking to remove an app's access")
    row.find_element(By.CSS_SELECTOR, ".button-danger").click()
    text_in(browser, "status", "Removed access for Grafana.")
    wait(browser).until(lambda d: activity(d) and activity(d)[0].startswith("Access of"))
    visible(browser, "apps-empty")
    assert browser.find_elements(By.CSS_SELECTOR, "#apps > li") == []
    with sqlite3.connect(server.database[len("sqlite:"):], timeout=10) as connection:
        assert connection.execute("SELECT count(*) FROM oidc_consents").fetchone() == (0,)
        assert connection.execute("SELECT count(*) FROM oidc_grants WHERE revoked_at IS NULL").fetchone() == (0,)
