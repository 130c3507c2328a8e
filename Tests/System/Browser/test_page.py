"""The web page in a real Chromium: the whole journey, attestation, and a refused authenticator."""
import time

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.virtual_authenticator import Protocol, Transport, VirtualAuthenticatorOptions

from conftest import autofill_settled, register, screenshot, text_in, virtual_authenticator, visible, wait


def test_journey(server, browser):
    virtual_authenticator(browser)
    browser.get(server.url + "/")
    visible(browser, "welcome")
    assert not browser.find_element(By.ID, "register").is_enabled(), "Register waits for a name"
    assert browser.find_element(By.ID, "passkey-name").get_attribute("autocomplete") == "username webauthn"
    screenshot(browser, "1-welcome")

    register(browser, "Ada Lovelace")
    assert browser.find_element(By.ID, "display-name").get_attribute("value") == "Ada Lovelace"
    assert browser.find_element(By.ID, "update").get_attribute("aria-disabled") == "true", "Save waits for a change"
    # The session lives only in the HttpOnly cookie: script sees no token anywhere.
    assert browser.execute_script("return document.cookie") == ""
    assert browser.execute_script("return JSON.stringify(localStorage) + JSON.stringify(sessionStorage)") == "{}{}"

    credo = browser.find_element(By.ID, "credo")
    credo.send_keys("Imagination is the discovery faculty.")
    browser.find_element(By.ID, "update").click()
    text_in(browser, "status", "Saved.")
    screenshot(browser, "2-account")

    browser.refresh()
    visible(browser, "account")
    wait(browser).until(lambda d: d.find_element(By.ID, "credo").get_attribute("value") == "Imagination is the discovery faculty.")

    browser.find_element(By.ID, "logout").click()
    visible(browser, "welcome")
    text_in(browser, "status", "Signed out.")

    browser.find_element(By.ID, "login").click()
    visible(browser, "account")
    text_in(browser, "status", "Signed in as Ada Lovelace.")

    # A second passkey, on a second authenticator (the first would be excluded).
    browser.remove_virtual_authenticator()
    virtual_authenticator(browser)
    browser.find_element(By.ID, "add-passkey").click()
    text_in(browser, "status", "Added the passkey")
    wait(browser).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#passkeys > li")) == 2)
    screenshot(browser, "3-two-passkeys")

    browser.find_element(By.ID, "delete").click()
    dialog = visible(browser, "delete-dialog")
    assert "cannot be undone" in dialog.text
    screenshot(browser, "4-delete-dialog")
    browser.find_element(By.ID, "confirm-delete").click()
    visible(browser, "welcome")
    text_in(browser, "status", "Your account was deleted.")

    # The page told the browser which passkeys remain (none): Chromium removed the deleted account's
    # passkey from the authenticator, so the next login has nothing to offer: Chromium's immediate
    # sign-in finds nothing (the page says so), and the usual dialog after it is refused.
    assert browser.get_credentials() == []
    browser.find_element(By.ID, "login").click()
    text_in(browser, "status", "No passkey for Latchkey is ready on this device.")
    browser.find_element(By.ID, "login").click()
    wait(browser).until(lambda d: d.find_element(By.ID, "error").text != "")
    assert browser.find_element(By.ID, "welcome").is_displayed()


def test_unknown_credential_is_refused_and_signalled(server, browser):
    virtual_authenticator(browser)
    browser.get(server.url + "/")
    register(browser, "Ada")
    [passkey] = browser.get_credentials()
    # The account disappears behind the page's back (another device deleted it): no signal was sent.
    status = browser.execute_async_script(
        "const done = arguments[0]; fetch('/api/account', {method: 'DELETE'}).then(r => done(r.status), e => done(String(e)));")
    assert status == 204
    # The page loads with no authenticator, so the background autofill (which stays quiet about
    # failures, see test_quiet_load) cannot use the passkey; then the authenticator comes back holding
    # it, and the person clicks Log in.
    browser.remove_virtual_authenticator()
    browser.refresh()
    visible(browser, "welcome")
    autofill_settled(browser)
    virtual_authenticator(browser)
    browser.add_credential(passkey)
    browser.find_element(By.ID, "login").click()
    text_in(browser, "error", "This passkey is not registered here.")
    screenshot(browser, "5-unknown-credential")
    # signalUnknownCredential made the browser forget it.
    wait(browser).until(lambda d: d.get_credentials() == [])


@pytest.mark.parametrize("server", [("--attestation", "direct")], indirect=True)
def test_direct_attestation_is_packed(server, browser):
    virtual_authenticator(browser)
    browser.get(server.url + "/")
    register(browser, "Grace")
    wait(browser).until(lambda d: "packed attestation" in d.find_element(By.ID, "passkeys").text)


def test_authenticator_without_user_verification_is_refused(server, browser):
    virtual_authenticator(browser, user_verified=False)
    browser.get(server.url + "/")
    field = visible(browser, "passkey-name")
    field.send_keys("Eve")
    browser.find_element(By.ID, "register").click()
    wait(browser).until(lambda d: d.find_element(By.ID, "error").text != "")
    assert browser.find_element(By.ID, "welcome").is_displayed()
    assert not browser.find_element(By.ID, "account").is_displayed()


def test_keyboard_only_registration(server, browser):
    virtual_authenticator(browser)
    browser.get(server.url + "/")
    field = visible(browser, "passkey-name")
    field.send_keys("Keyboard user\n")
    visible(browser, "account")


def test_sign_out_everywhere_ends_every_session(server, browser):
    virtual_authenticator(browser)
    browser.get(server.url + "/")
    register(browser, "Lin")
    # A second session of the same account, as another device would hold: a login made from script
    # with the cookie left out, whose bearer token the test keeps.
    token = browser.execute_async_script("""
        const done = arguments[0];
        (async () => {
          const options = await (await fetch("/api/login/options", {method: "POST", credentials: "omit"})).json();
          const credential = await navigator.credentials.get({publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(options.publicKey)});
          const answer = await fetch("/api/login/verify", {method: "POST", credentials: "omit",
            headers: {"Content-Type": "application/json"}, body: JSON.stringify({credential: credential.toJSON()})});
          return (await answer.json()).token;
        })().then(done, (e) => done("failed: " + e));""")
    assert token and not token.startswith("failed"), token
    other_device = ("const done = arguments[1]; fetch('/api/account', {credentials: 'omit', headers: {Authorization: 'Bearer ' + arguments[0]}})"
                    ".then(r => done(r.status), e => done(String(e)));")
    assert browser.execute_async_script(other_device, token) == 200

    browser.find_element(By.ID, "logout-everywhere").click()
    visible(browser, "welcome")
    text_in(browser, "status", "Signed out on every device")
    assert browser.execute_async_script(other_device, token) == 401, "the other device's session ended too"
    status = browser.execute_async_script(
        "const done = arguments[0]; fetch('/api/account').then(r => done(r.status), e => done(String(e)));")
    assert status == 401


def test_buttons_show_they_are_busy(server, browser):
    """While a request runs, its button says so, keeps the focus and ignores a second press."""
    virtual_authenticator(browser)
    browser.get(server.url + "/")
    register(browser, "Busy Bee")
    # Every request from now on takes a second longer, and each is counted.
    browser.execute_script("""
        const original = window.fetch;
        window.sentPatches = 0;
        window.fetch = async (url, init) => {
          if (init?.method === "PATCH") window.sentPatches += 1;
          await new Promise((r) => setTimeout(r, 1000));
          return original(url, init);
        };""")
    browser.find_element(By.ID, "credo").send_keys("Slow and steady.")
    save = browser.find_element(By.ID, "update")
    save.click()
    wait(browser, 5).until(lambda d: "busy" in save.get_attribute("class"))
    assert save.text == "Saving…"
    assert save.get_attribute("aria-disabled") == "true"
    browser.execute_script("arguments[0].click()", save)
    assert browser.switch_to.active_element == save, "the busy button keeps the focus"
    text_in(browser, "status", "Saved.")
    assert "busy" not in save.get_attribute("class") and save.text == "Save changes"
    assert browser.execute_script("return window.sentPatches") == 1, "the second press sent nothing"


@pytest.mark.parametrize("server", [("--add-passkey-window", "10")], indirect=True)
def test_adding_a_passkey_after_the_window_asks_for_a_passkey_first(server, browser):
    """A session older than --add-passkey-window cannot add a passkey (review 3, finding 11): the server
    says `recent_sign_in_required`, the page has the person confirm with a passkey of the account (a new
    session), then asks for the options again.

    Chrome offers a discoverable login only while one authenticator is attached, so the confirmation runs
    with the account's own authenticator alone; that one then refuses to make a second passkey (it holds
    the excluded one). A security key attached afterwards makes it on the next click — with no second
    confirmation, which a login could not have passed with two authenticators attached: proof that the
    confirmation renewed the session."""
    virtual_authenticator(browser)
    browser.get(server.url + "/")
    register(browser, "Ada Lovelace")
    time.sleep(11)
    browser.find_element(By.ID, "add-passkey").click()
    wait(browser).until(lambda d: d.find_element(By.ID, "error").text != "")
    assert "already" in browser.find_element(By.ID, "error").text, browser.find_element(By.ID, "error").text
    browser.add_virtual_authenticator(VirtualAuthenticatorOptions(
        protocol=Protocol.CTAP2, transport=Transport.USB, has_resident_key=True, has_user_verification=True,
        is_user_consenting=True, is_user_verified=True))
    browser.find_element(By.ID, "add-passkey").click()
    text_in(browser, "status", "Added the passkey")
    wait(browser).until(lambda d: len(d.find_elements(By.CSS_SELECTOR, "#passkeys > li")) == 2)
    screenshot(browser, "recent-sign-in-then-added")
