"""Issue 32, item 6 in a real Chromium: the page uses what browsers now offer, where they say they have it.

- Log in tries the immediate sign-in first when `getClientCapabilities().immediateGet` is true: Chromium
  (148 and later) takes it as `uiMode: "immediate"` — it refuses `mediation: "immediate"` (the proposal's
  first form) with a TypeError — and with the CDP virtual authenticator it does answer: a passkey at hand
  signs in, an empty authenticator fails at once with NotAllowedError. Then the page says so, and the next
  press is the usual dialog; it never asks again by itself. Without immediateGet, Log in is as before.
- After a recovery code or a new device's approval, the add-passkey step also offers the passkey through
  conditional create (`mediation: "conditional"` on create) when `conditionalCreate` is true. Chromium 156
  reports it, but with the virtual authenticator (and no password just used) its conditional create only
  waits: the button aborts it and asks as before. A password manager that saves at once, or refuses, is
  played by a wrapper around navigator.credentials.create.

Chromium 156 reports immediateGet and conditionalCreate (and conditionalGet) as true with or without a
virtual authenticator. Each test states the capabilities it needs with a script that overrides
`PublicKeyCredential.getClientCapabilities` before the page's own (CDP
`Page.addScriptToEvaluateOnNewDocument`), and records every options object the page hands to
navigator.credentials.get and .create."""
import json

import pytest
from selenium.webdriver.common.by import By

from conftest import (accessible,
    autofill_settled, message_texts, register, text_in, virtual_authenticator, visible, wait,
)
from test_device_approval_page import ask_for_a_code, find_request
from test_recovery_page import account_id, issue

STUB = """
(() => {
  const overrides = %(overrides)s;
  const conditionalCreate = %(conditional_create)s;
  window.__requests = [];
  const original = PublicKeyCredential.getClientCapabilities?.bind(PublicKeyCredential);
  PublicKeyCredential.getClientCapabilities = async () => ({ ...(original ? await original() : {}), ...overrides });
  if (overrides.conditionalGet === false) PublicKeyCredential.isConditionalMediationAvailable = async () => false;
  const get = navigator.credentials.get.bind(navigator.credentials);
  const create = navigator.credentials.create.bind(navigator.credentials);
  const record = (method, options) => window.__requests.push({
    method, mediation: options?.mediation ?? null, uiMode: options?.uiMode ?? null,
    allowCredentials: options?.publicKey?.allowCredentials?.length ?? 0,
  });
  navigator.credentials.get = (options) => { record("get", options); return get(options); };
  navigator.credentials.create = (options) => {
    record("create", options);
    if (options?.mediation === "conditional" && conditionalCreate === "saves") {
      // A password manager that saves the passkey at once, without a dialog.
      return create({ publicKey: options.publicKey, signal: options.signal });
    }
    if (options?.mediation === "conditional" && conditionalCreate === "refuses") {
      return Promise.reject(new DOMException("The operation is not allowed.", "NotAllowedError"));
    }
    return create(options);
  };
})();
"""


def prepare(driver, conditional_create="browser", **overrides):
    """Before any page loads in `driver`: the capabilities `overrides` (immediateGet=False …) and the
    recording wrappers; `conditional_create` is what a conditional create does — "browser" (Chromium's
    own: it waits), "saves" or "refuses"."""
    source = STUB % {"overrides": json.dumps(overrides), "conditional_create": json.dumps(conditional_create)}
    driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": source})


def requests(driver, method=None):
    """The options the page passed, in order: {method, mediation, uiMode, allowCredentials}."""
    made = driver.execute_script("return window.__requests || []")
    return [r for r in made if method is None or r["method"] == method]


def explicit_gets(driver):
    """The page's get requests other than the background autofill's."""
    return [r for r in requests(driver, "get") if r["mediation"] != "conditional"]




def signed_up_then_out(driver, server, name):
    """Signs up as `name` and signs out again: the welcome view, its passkey still on the authenticator."""
    driver.get(server.url + "/")
    register(driver, name)
    driver.find_element(By.ID, "logout").click()
    visible(driver, "welcome")
    text_in(driver, "status", "Signed out.")


# ---- the immediate sign-in ----

def test_log_in_asks_for_the_immediate_sign_in_and_signs_in(server, browser):
    prepare(browser, immediateGet=True)
    virtual_authenticator(browser)
    signed_up_then_out(browser, server, "Ada Lovelace")
    assert browser.execute_async_script(
        "const done = arguments[0]; PublicKeyCredential.getClientCapabilities().then((c) => done(c.immediateGet));") is True

    browser.find_element(By.ID, "login").click()
    visible(browser, "account")
    text_in(browser, "status", "Signed in as Ada Lovelace.")
    # One request, immediate, with an empty allowCredentials (as Chromium requires), and no modal one.
    assert explicit_gets(browser) == [{"method": "get", "mediation": None, "uiMode": "immediate", "allowCredentials": 0}]


def test_without_immediate_get_log_in_is_the_usual_dialog(server, browser):
    prepare(browser, immediateGet=False)
    virtual_authenticator(browser)
    signed_up_then_out(browser, server, "Grace Hopper")

    browser.find_element(By.ID, "login").click()
    visible(browser, "account")
    text_in(browser, "status", "Signed in as Grace Hopper.")
    assert explicit_gets(browser) == [{"method": "get", "mediation": None, "uiMode": None, "allowCredentials": 0}]
    assert all(r["uiMode"] is None for r in requests(browser))


def test_no_passkey_at_hand_falls_back_to_the_button_without_asking_again(server, browser):
    # No autofill here, so that nothing but the button can sign in.
    prepare(browser, immediateGet=True, conditionalGet=False)
    virtual_authenticator(browser)
    signed_up_then_out(browser, server, "Katherine Johnson")
    [passkey] = browser.get_credentials()
    # The passkey leaves this device: the immediate request finds nothing.
    browser.remove_virtual_authenticator()
    virtual_authenticator(browser)

    browser.find_element(By.ID, "login").click()
    text_in(browser, "status", "No passkey for Latchkey is ready on this device.")
    assert message_texts(browser)[1] == "", "nothing failed that the person has to deal with"
    assert explicit_gets(browser) == [{"method": "get", "mediation": None, "uiMode": "immediate", "allowCredentials": 0}]
    # The page opens nothing by itself: still the welcome view, the one request made.
    assert browser.find_element(By.ID, "welcome").is_displayed()
    login = browser.find_element(By.ID, "login")
    assert login.is_displayed() and login.get_attribute("aria-disabled") is None
    assert len(explicit_gets(browser)) == 1
    accessible(browser, "welcome view after the immediate sign-in found nothing")

    # The passkey comes back (a security key plugged in); the next press is the usual dialog, and signs in.
    browser.add_credential(passkey)
    login.click()
    visible(browser, "account")
    text_in(browser, "status", "Signed in as Katherine Johnson.")
    assert [r["uiMode"] for r in explicit_gets(browser)] == ["immediate", None]


def test_the_autofill_comes_back_after_the_immediate_sign_in_found_nothing(server, browser):
    """Chromium's own capabilities (immediateGet and conditionalGet both true), an empty authenticator:
    Log in's immediate request fails, then passkey autofill waits in the name field again, quietly."""
    prepare(browser)
    virtual_authenticator(browser)
    browser.get(server.url + "/")
    visible(browser, "welcome")
    autofill_settled(browser)
    autofills = lambda d: len([r for r in requests(d, "get") if r["mediation"] == "conditional"])  # noqa: E731
    assert autofills(browser) == 1
    browser.find_element(By.ID, "login").click()
    text_in(browser, "status", "No passkey for Latchkey is ready on this device.")
    wait(browser).until(lambda d: autofills(d) == 2)
    assert autofill_settled(browser) in ("waiting", "ended")
    assert message_texts(browser)[1] == ""
    assert [r["uiMode"] for r in explicit_gets(browser)] == ["immediate"]


# ---- conditional create after a recovery or a new device's approval ----

def recovery_link(server, browser, name):
    """An account made in `browser`, and a recovery link for it."""
    virtual_authenticator(browser)
    browser.get(server.url + "/")
    register(browser, name)
    return issue(server, account_id(browser))["link"]


def test_a_password_manager_saves_the_recovered_passkey_without_a_dialog(server, browser, other_browser):
    link = recovery_link(server, browser, "Ada Lovelace")
    prepare(other_browser, conditional_create="saves", conditionalCreate=True)
    virtual_authenticator(other_browser)
    other_browser.get(link)
    # Nobody pressed anything: the conditional create was made as the step opened, and saved.
    visible(other_browser, "recover-done-title")
    text_in(other_browser, "status", "Your password manager saved a new passkey")
    assert len(other_browser.get_credentials()) == 1
    assert requests(other_browser, "create") == [{"method": "create", "mediation": "conditional", "uiMode": None, "allowCredentials": 0}]
    accessible(other_browser, "recovery's done step after a conditional create")
    other_browser.find_element(By.ID, "recover-login").click()
    visible(other_browser, "account")
    text_in(other_browser, "status", "Signed in as Ada Lovelace.")


def test_a_refused_conditional_create_leaves_the_button(server, browser, other_browser):
    link = recovery_link(server, browser, "Grace Hopper")
    prepare(other_browser, conditional_create="refuses", conditionalCreate=True)
    virtual_authenticator(other_browser)
    other_browser.get(link)
    visible(other_browser, "recover-add-title")
    wait(other_browser).until(lambda d: len(requests(d, "create")) == 1)
    text_in(other_browser, "status", "The code was accepted.")
    assert message_texts(other_browser)[1] == "", "the refusal is not the person's doing: nothing shown"
    assert other_browser.get_credentials() == []
    other_browser.find_element(By.ID, "recover-add-passkey").click()
    visible(other_browser, "recover-done-title")
    text_in(other_browser, "status", "Added the passkey")
    assert [r["mediation"] for r in requests(other_browser, "create")] == ["conditional", None]


def test_chromiums_waiting_conditional_create_gives_way_to_the_button(server, browser, other_browser):
    """Chromium's own conditional create with the virtual authenticator: it waits (no password was just
    used). The button ends it and asks as before; the background request is not made again."""
    link = recovery_link(server, browser, "Katherine Johnson")
    prepare(other_browser)
    virtual_authenticator(other_browser)
    other_browser.get(link)
    visible(other_browser, "recover-add-title")
    wait(other_browser).until(lambda d: len(requests(d, "create")) == 1)
    assert requests(other_browser, "create")[0]["mediation"] == "conditional"
    assert other_browser.get_credentials() == []
    other_browser.find_element(By.ID, "recover-add-passkey").click()
    visible(other_browser, "recover-done-title")
    assert len(other_browser.get_credentials()) == 1
    assert [r["mediation"] for r in requests(other_browser, "create")] == ["conditional", None]
    assert message_texts(other_browser)[1] == ""


def test_without_conditional_create_the_recovery_step_is_the_button(server, browser, other_browser):
    link = recovery_link(server, browser, "Mary Jackson")
    prepare(other_browser, conditionalCreate=False)
    virtual_authenticator(other_browser)
    other_browser.get(link)
    visible(other_browser, "recover-add-title")
    other_browser.find_element(By.ID, "recover-add-passkey").click()
    visible(other_browser, "recover-done-title")
    assert requests(other_browser, "create") == [{"method": "create", "mediation": None, "uiMode": None, "allowCredentials": 0}]


def test_a_new_device_gets_the_conditional_create_too(server, browser, other_browser):
    """The same shared step after a new device's approval (device-approval.js), when the new device named
    the account's username (review 4, S4-12: then no other account could have approved it)."""
    virtual_authenticator(browser)
    browser.get(server.url + "/")
    register(browser, "Dorothy Vaughan")
    assert browser.execute_script("""return fetch("api/account", {method: "PATCH", headers: {"Content-Type": "application/json"},
        body: JSON.stringify({username: "dorothy"})}).then((r) => r.status)""") == 200
    prepare(other_browser, conditional_create="saves", conditionalCreate=True)
    virtual_authenticator(other_browser)
    code = ask_for_a_code(other_browser, server, username="Dorothy")
    find_request(browser, code)
    browser.find_element(By.ID, "approve-confirm").click()
    text_in(browser, "status", "Approved.")
    visible(other_browser, "new-device-done-title")
    text_in(other_browser, "status", "Your password manager saved the passkey")
    assert len(other_browser.get_credentials()) == 1
    assert [r["mediation"] for r in requests(other_browser, "create")] == ["conditional"]
    accessible(other_browser, "new device's done step after a conditional create")
    other_browser.find_element(By.ID, "new-device-login").click()
    visible(other_browser, "account")
    text_in(other_browser, "status", "Signed in as Dorothy Vaughan.")


def test_a_new_device_that_named_no_account_asks_before_any_passkey(server, browser, other_browser):
    """Review 4, S4-12: without a username named first, whoever saw the code could have approved it from their
    own account, so the new device shows whose account it is and offers no passkey until the person says it
    is theirs; "Not my account" adds nothing."""
    virtual_authenticator(browser)
    browser.get(server.url + "/")
    register(browser, "Katherine Johnson")
    account = account_id(browser)
    prepare(other_browser, conditional_create="saves", conditionalCreate=True)
    virtual_authenticator(other_browser)
    code = ask_for_a_code(other_browser, server)
    find_request(browser, code)
    browser.find_element(By.ID, "approve-confirm").click()
    text_in(browser, "status", "Approved.")
    visible(other_browser, "new-device-add-title")
    assert other_browser.find_element(By.ID, "new-device-account-name").text == "Katherine Johnson"
    assert other_browser.find_element(By.ID, "new-device-account-username").text == "None"
    assert other_browser.find_element(By.ID, "new-device-account-id").text == account[:8] + "…"
    assert requests(other_browser, "create") == []
    assert other_browser.get_credentials() == []
    other_browser.find_element(By.ID, "new-device-not-mine").click()
    title = visible(other_browser, "new-device-ended-title")
    assert title.text == "Nothing was added"
    assert other_browser.get_credentials() == [] and requests(other_browser, "create") == []
    accessible(other_browser, "new device's ended step after 'Not my account'")
